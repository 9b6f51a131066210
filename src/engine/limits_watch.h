/* limits_watch.h — Resource-limits' watch: the calls where a cap of the
 * layer's meets the run, seen by the lab as the caller is stopped in them.
 *
 * The trace's listener (trace.c) hands over what the watch's rules stop
 * (lab_seccomp_watch_limits): mappings of 1 MiB or more, new tasks, waits
 * (and mlockall(), which puts RLIMIT_MEMLOCK before RLIMIT_AS).
 * The lab reads the kernel's own figures from /proc while the caller is
 * stopped, records what the kernel is about to refuse, and lets every call
 * go on (CONTINUE): the kernel answers each one itself, never the lab.
 *
 * Life cycle within a run (run.c's event loop):
 *   limits_watch_call for each notification (through the trace) ->
 *   limits_watch_poll + limits_watch_recheck each turn while waits are held
 *   -> limits_watch_close (trace_close). */
#ifndef LAB_LIMITS_WATCH_H
#define LAB_LIMITS_WATCH_H

#include <stdbool.h>
#include <sys/types.h>

struct run;
struct lab_trace;
struct seccomp_notif;
struct pollfd;

/* A wait that would block, held until a child it waits for has ended, so
 * that the child is still a zombie when the lab reads it. */
#define LIMITS_WATCH_HELD_MAX 16
/* pidfds of the children held waits wait for: readable when one ends */
#define LIMITS_WATCH_PIDFD_MAX 32
/* zombies already read, so that one end counts once (a ring) */
#define LIMITS_WATCH_SEEN_MAX 64
/* how often held waits are looked at again without an event: a child
 * another thread forked, or a caller a signal took out of its wait, has
 * no pidfd of the lab's yet */
#define LIMITS_WATCH_LOOK_MS 50
/* processes that called mlockall(MCL_FUTURE) (a ring) */
#define LIMITS_WATCH_LOCKING_MAX 16

struct limits_watch_held {
	unsigned long long id; /* the notification */
	pid_t tid, tgid;       /* the caller, as the lab's /proc shows it */
	pid_t target;          /* the child it waits for (lab's view), 0: any of its children */
};

struct limits_watch {
	struct limits_watch_held held[LIMITS_WATCH_HELD_MAX];
	int n_held;
	struct {
		pid_t pid;
		int fd;
	} pidfd[LIMITS_WATCH_PIDFD_MAX];
	int n_pidfd;
	struct {
		pid_t pid;
		unsigned long long start; /* its start time, so a reused pid is another process */
	} seen[LIMITS_WATCH_SEEN_MAX];
	int n_seen;
	bool fresh;     /* a wait was held since the last look */
	long last_look; /* ms, monotonic */
	pid_t locking[LIMITS_WATCH_LOCKING_MAX];
	int n_locking;
	/* the snippet's own process: the first caller that is not the run's
	 * init (every other process descends from it, and it is stopped in
	 * its first fork before any exists). Its end is the init's to read
	 * ("U ms"), not the watch's */
	pid_t main_pid;
	/* its user namespace, read at that first call ("user:[N]"): the
	 * init's, which forked it (the init's own link the lab may not read:
	 * it is not dumpable) */
	char run_ns[64];
};

/* A notification of the watch's rules (trace_state's watch, which the
 * trace calls for each it takes): false when it is not the watch's (clone
 * with a namespace flag and clone3 are Isolation's refusals, when its
 * filter holds the listener), else the call is read, recorded in t and let
 * go on, or held (a wait that would block on a live child: answered
 * later), and true. */
bool limits_watch_call(struct run *r, struct lab_trace *t, const struct seccomp_notif *req);
/* The pidfds of the children held waits wait for (at most max). */
int limits_watch_poll(const struct run *r, struct pollfd *pfd, int max);
/* Whether waits are held: the loop looks again every turn, and soon. */
bool limits_watch_holding(const struct run *r);
/* Looks again at every held wait: the children that ended are read, and
 * a wait one of whose children ended, or whose caller has gone, is let go.
 * Each turn of the loop calls it; it looks when a pidfd woke the loop
 * (woke), a wait was just held, or LIMITS_WATCH_LOOK_MS went by (now, ms). */
void limits_watch_recheck(struct run *r, struct lab_trace *t, bool woke, long now);
/* Lets every held wait go and closes the pidfds, before the listener
 * closes (trace_close); safe to call twice. */
void limits_watch_close(struct run *r);

#endif
