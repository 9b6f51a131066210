/* proc.h — finding every process of a run from /proc, wherever it went
 * (double-forked, setsid'd): the parent chain is all we trust. */
#ifndef LAB_PROC_H
#define LAB_PROC_H
#include <stdbool.h>
#include <sys/types.h>

/* Fills out (up to max) with the descendants of root (root excluded) and
 * returns how many there are (may exceed max). */
int proc_descendants(pid_t root, pid_t *out, int max, bool alive_only);
/* The inode of the TCP socket at 127.0.0.1:lport whose peer is
 * 127.0.0.1:rport in the lab's network namespace, asked of the kernel
 * through sock_diag (IPv4, then v4-mapped IPv6): > 0 found, 0 found but
 * orphaned (its owner closed it), -1 not there or not asked. */
long proc_tcp_inode(unsigned lport, unsigned rport);
/* Whether root or one of its live descendants holds "socket:[inode]" among
 * its fds. Bounded: 512 processes, 4096 fds each. */
bool proc_tree_holds_socket(pid_t root, unsigned long inode);
#endif
