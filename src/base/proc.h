/* proc.h — finding every process of a run from /proc, wherever it went
 * (double-forked, setsid'd): the parent chain is all we trust. */
#ifndef LAB_PROC_H
#define LAB_PROC_H
#include <stdbool.h>
#include <sys/types.h>

/* Fills out (up to max) with the descendants of root (root excluded) and
 * returns how many there are (may exceed max). */
int proc_descendants(pid_t root, pid_t *out, int max, bool alive_only);
/* Whether the process runs exe (/proc/PID/exe; a zombie has none). */
bool proc_runs_exe(pid_t pid, const char *exe);
/* Whether pid is root's descendant with, on the way (pid itself or an
 * ancestor below root), a process running exe (an absolute, resolved
 * path) with arg among its arguments: the code a run started (the
 * interpreter running the snippet's file), not the wrapper's own helpers
 * around it, even one running the same interpreter. */
bool proc_descends_via(pid_t pid, pid_t root, const char *exe, const char *arg);
#endif
