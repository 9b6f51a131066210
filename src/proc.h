/* proc.h — finding every process of a run from /proc, wherever it went
 * (double-forked, setsid'd): the parent chain is all we trust. */
#ifndef LAB_PROC_H
#define LAB_PROC_H
#include <stdbool.h>
#include <sys/types.h>

/* Fills out (up to max) with the descendants of root (root excluded) and
 * returns how many there are (may exceed max). */
int proc_descendants(pid_t root, pid_t *out, int max, bool alive_only);
#endif
