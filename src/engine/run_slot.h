/* run_slot.h — a machine-wide bound on runs at once ([safety] slots).
 *
 * Thirty labs on one two-core machine (a class server) would each start
 * their runs at once, and a legitimate task would then miss the
 * Resource-limits wall clock for want of a CPU, not for anything it did.
 * With [safety] slots = N (0, the default, is no bound) every run first
 * takes one of N slots shared by every lab and every user on the machine:
 * an exclusive flock() on RUN_SLOT_DIR/containment-lab.slot.K, K < N,
 * held by the run's descriptors (the lab's and its init's copy) until the
 * last process of the run is gone, and dropped by the kernel when they
 * are, whatever killed the lab. The run's clocks start once it has one.
 * A file that is not a regular file (a symlink planted there) is not a
 * slot. Waiters try again the more often the longer they have waited, so
 * the oldest one mostly takes the slot that comes free (the kernel gives
 * flock() waiters no order). A wait in which no slot changes hands (seen
 * in /proc/locks) for RUN_SLOT_WAIT_FACTOR safety timeouts (other runs
 * stuck, or a local user holding every slot) ends the run as ERROR,
 * saying so; a long queue that moves does not; an abort ends the wait. */
#ifndef LAB_RUN_SLOT_H
#define LAB_RUN_SLOT_H

#include "config.h"

#include <stdbool.h>
#include <stddef.h>

#define RUN_SLOT_DIR         "/run/lock"
#define RUN_SLOT_WAIT_FACTOR 10

/* Takes a slot: its descriptor (>= 0), -1 when cfg asks for no bound, or
 * -2 with err filled (the wait was too long, or aborted: *aborted). */
int run_slot_take(const struct lab_config *cfg, int abort_fd, bool *aborted, char *err, size_t cap);

#endif
