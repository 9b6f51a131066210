/* egress.h — egress by allow-list: No-network's second setting, and the
 * lab's small internet.
 *
 * With [network] mode = allowlist the sandbox keeps its own network
 * namespace with no route out; the only door is an HTTP proxy the lab runs
 * outside it, in its own event loop (run.c). The sandbox's init brings its
 * lo up, binds a socket on 127.0.0.1:EGRESS_PORT in that namespace and
 * hands the listening descriptor to the lab over a socket pair
 * (SCM_RIGHTS) before the snippet starts: a socket keeps the namespace it
 * was made in, so the lab accepts connections from inside while every
 * other destination stays unreachable. This is how Anthropic's sandbox
 * runtime works too (a proxy outside, one bridged socket inside), and it
 * needs no privilege the rootless lab lacks.
 *
 * The proxy speaks HTTP forward and CONNECT, resolves names itself (the
 * sandbox has no DNS), lets out exactly the host:port pairs of [network]
 * allow and answers everything else 403 naming the rule. It reaches only
 * the lab's own small internet on 127.0.0.1: api.lab.test (a price list a
 * legitimate task needs, which also keeps "feedback" posts) and
 * attacker.lab.test (the decoys' attacker listener). Every request and its
 * answer is logged: that log is evidence.
 *
 * With No-network off there is no proxy: the small internet itself moves
 * into the sandbox's network namespace. Every run (not exec) has one of
 * its own, with lo up; its init binds api.lab.test on 127.0.0.1:80 and the
 * attacker on 127.0.0.1:8080 there and hands both listening sockets over
 * the same pair (e->inside). Only the run can reach them then: no other
 * run and no local user can connect, crowd a slot or forge a byte, and
 * every byte that arrives is the run's by where it came from.
 *
 * Life cycle (run.c): egress_init -> egress_serve (the small internet) ->
 * egress_open_door (before the clone; the child calls egress_child_door) ->
 * egress_after_clone -> (egress_poll, poll, egress_ready)* ->
 * egress_finish (evidence) -> egress_close. */
#ifndef LAB_EGRESS_H
#define LAB_EGRESS_H

#include "decoy.h"
#include "lab.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#define EGRESS_PORT                 3128       /* the proxy, at 127.0.0.1 of the sandbox's own namespace */
#define EGRESS_INSIDE_API_PORT      80         /* api.lab.test inside the run's namespace (No-network off) */
#define EGRESS_INSIDE_ATTACKER_PORT 8080       /* the attacker inside the run's namespace (No-network off) */
#define EGRESS_CONNS                16         /* at once; more are answered 503 */
#define EGRESS_HEAD_MAX             (16 << 10) /* a request head past this: 431 */
#define EGRESS_HEAD_MS              2000       /* a head not complete by then (a slow drip): 408 */
#define EGRESS_IDLE_MS              5000       /* a relay with no byte either way for this long is closed */
#define EGRESS_POLL_MAX             (2 + 2 * EGRESS_CONNS + EGRESS_CONNS)
#define EGRESS_OPENED               64   /* upstream ports remembered until the small internet accepts them */
#define EGRESS_DRAIN_MS             1000 /* after the run: what is in flight reaches the small internet by then */

struct egress_conn;
struct egress_api_conn;

struct egress {
	const struct lab_config *cfg;
	int chan[2];   /* the init hands the proxy's socket (or the small internet's) over this pair */
	int listen_fd; /* the proxy's socket, in the sandbox's network namespace */
	int api_fd;    /* api.lab.test, on the lab's 127.0.0.1, or the sandbox's when inside */
	/* No-network off: the small internet listens in the sandbox's own
	 * network namespace, and the init hands both sockets over */
	bool inside;
	int attacker_fd; /* the attacker's listener from inside, until the decoys take it */
	int api_port;
	int attacker_port; /* attacker.lab.test: the decoys' listener, 0 if none */
	struct egress_conn *conn[EGRESS_CONNS];
	struct egress_api_conn *api[EGRESS_CONNS];
	/* what api.lab.test received, searched as it arrives, all of it: the
	 * raw stream, and the payload alone (bodies and url-decoded query
	 * strings of every request joined, so pieces sent apart meet) */
	const struct lab_decoys *d; /* NULL in exec: nothing to look for */
	struct decoy_scanner raw_sc, payload_sc;
	uint64_t api_bytes, api_payload;
	long api_requests, feedback_posts, api_strays;
	/* local ports of the proxy's recent upstream sockets: the small
	 * internet serves only connections the proxy opened (proxied_only) */
	uint16_t opened[EGRESS_OPENED];
	int opened_next;
	bool proxied_only;
	long allowed, refused, bad, to_attacker;
	char refusal[LAB_LINE];
	/* ALLOW lines apart from the rest, so noise cannot push them out */
	char log_allow[LAB_LINE * 4], log_other[LAB_LINE * 4];
	int log_dropped;
};

void egress_init(struct egress *e, const struct lab_config *cfg);
/* The small internet: api.lab.test listens on the lab's 127.0.0.1 (when
 * e->inside, the init makes it: only its port is set here). 0 or -errno. */
int egress_serve(struct egress *e);
/* The pair the init hands the proxy's socket (or the small internet's) over. 0 or -errno. */
int egress_open_door(struct egress *e);
/* Child, in its new network namespace while it still holds CAP_NET_ADMIN
 * there: lo up, then the sockets the lab serves from inside (the proxy on
 * 127.0.0.1:EGRESS_PORT with proxy, else the small internet when
 * e->inside), handed to the lab and closed here. 0, or an errno with *what
 * naming the step. */
int egress_child_door(struct egress *e, bool proxy, const char **what);
/* The attacker's listener the init handed over (e->inside), once: the
 * caller owns it then. -1 while none came. */
int egress_take_attacker(struct egress *e);
/* Lab, after the clone: the child's end of the pair is the child's. */
void egress_after_clone(struct egress *e);
/* Allow-list mode: the small internet serves only the proxy (d: the
 * run's decoys, whose canaries are looked for as bytes arrive). */
void egress_watch(struct egress *e, const struct lab_decoys *d, bool proxied_only);
/* An accepted connection on the small internet came from one of the
 * proxy's upstream sockets (then it is forgotten: one accept each). */
bool egress_opened(struct egress *e, int fd);
/* Bytes the proxy still holds for the small internet (the end-of-run
 * drain waits for them). */
bool egress_in_flight(const struct egress *e);
/* Descriptors to poll, with the events each one waits for. */
int egress_poll(const struct egress *e, struct pollfd *pfd, int max);
/* After poll(): serves whatever is ready and ends what took too long. */
void egress_ready(struct egress *e, const struct pollfd *pfd, int n, long now_ms);
/* The run is over: open requests are logged as they stand, and the
 * evidence is filled (d: the run's decoys, to look for its canaries in
 * what api.lab.test received; NULL in exec). */
void egress_finish(struct egress *e, const struct lab_decoys *d, struct lab_evidence *ev);
/* Whether planted secret i reached api.lab.test (after egress_finish). */
bool egress_secret_seen(const struct egress *e, int i);
void egress_close(struct egress *e);

#endif
