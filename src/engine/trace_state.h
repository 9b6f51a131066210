/* trace_state.h — the trace's part of a run (struct run's tr): the
 * filter's listener, the connect() calls the lab makes for stopped
 * callers, and what it remembers of them. trace.c owns it: run_init
 * starts it (trace_state_init), the layers say whether a filter of theirs
 * asks the lab (on, listen, layer), and everything else is trace.c's. */
#ifndef LAB_TRACE_STATE_H
#define LAB_TRACE_STATE_H

#include "limits_watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/* A connect() the lab makes for a stopped caller (trace.c), or a send
 * that connects (TCP Fast Open: sendto() or sendmsg() with MSG_FASTOPEN
 * and an address on a stream socket). The call runs
 * on a short-lived thread of the lab's, never on the event loop's: a
 * blocking socket (its mode is the caller's own, shared with the lab's
 * duplicate) waits for the handshake there, and the loop hears of the end
 * through the run's wake pipe. A slot never moves while its thread runs. */
#define RUN_CONNECTS_MAX 8
enum run_connect_state {
	CONNECT_FREE,     /* unused */
	CONNECT_CALLING,  /* the thread is in connect() */
	CONNECT_WATCHING, /* the caller has its EINPROGRESS; the lab watches how it ends, to log it */
};
struct run_connect {
	enum run_connect_state state;
	unsigned long long id; /* the notification */
	int fd;                /* the lab's duplicate of the caller's socket */
	bool attacker;         /* to the lab's attacker listener */
	bool thread_started;   /* thread is to be joined */
	pthread_t thread;
	struct sockaddr_storage sa; /* the address, as the caller gave it */
	socklen_t len;
	int wake_fd;     /* the thread's end of the run's wake pipe */
	atomic_int done; /* the thread is out of connect(): err is its result */
	int err;         /* connect()'s errno, 0 when it connected */
	bool send;       /* a Fast Open send of buf, not a connect() */
	int flags;       /* the send's flags, the caller's own */
	char *buf;       /* the bytes to send (malloc'd), n of them */
	size_t n;
	long long sent; /* what the send returned, when err is 0 */
	char call[128];
};

struct run;
struct lab_trace;
struct seccomp_notif;

struct trace_state {
	bool on;       /* the trace is on (LAB_TRACE is not "0") */
	bool listen;   /* a filter asks the lab (SCMP_ACT_NOTIFY) */
	int layer;     /* whose: Isolation's, else No-network's, else Resource-limits' (one listener a process) */
	int notify_fd; /* lab: the filter's listener, once the child sent it */
	void *notify_req, *notify_resp;                /* lab: libseccomp's buffers for it */
	struct run_connect connects[RUN_CONNECTS_MAX]; /* lab: the caller's connect() under way */
	int connect_wake[2];                           /* lab: the connect threads' wake pipe */
	/* lab: sockets the lab connected for a caller that had gone (a signal
	 * interrupted it) by the time of the answer: its restarted call is
	 * told 0, as the kernel's own, not the lab's EISCONN (trace.c) */
	struct {
		dev_t dev;
		ino_t ino;
	} connected_unseen[RUN_CONNECTS_MAX];
	int n_connected_unseen;
	bool watched; /* lab: a filter's listener watched the run's calls */
	/* the listener's filter has Resource-limits' watch in it (a layer's
	 * plan says so): the calls its rules stop are limits_watch.c's */
	bool watch_limits;
	/* lab: the watch's answer to a notification of its rules, true when
	 * it took it (limits_watch_call, set by the layer's plan: the trace
	 * hands the calls over without knowing whose they are) */
	bool (*watch)(struct run *r, struct lab_trace *t, const struct seccomp_notif *req);
	struct limits_watch lw; /* lab: limits_watch.c's own */
	/* a page at a random address, mapped before the clone (the child has
	 * it too): the child's listener handoff, a sendmsg(), builds its
	 * header there, the one sendmsg() the filter lets by without asking
	 * the lab (which has no listener yet); NULL: sends are not watched */
	void *handoff;
};

/* A trace with nothing open; on as LAB_TRACE says (trace.c). */
void trace_state_init(struct trace_state *t);

#endif
