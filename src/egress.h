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

#define EGRESS_PORT     3128       /* the proxy, at 127.0.0.1 of the sandbox's own namespace */
#define EGRESS_CONNS    16         /* at once; more are answered 503 */
#define EGRESS_HEAD_MAX (16 << 10) /* a request head past this: 431 */
#define EGRESS_HEAD_MS  2000       /* a head not complete by then (a slow drip): 408 */
#define EGRESS_IDLE_MS  5000       /* a relay with no byte either way for this long is closed */
#define EGRESS_POLL_MAX (2 + 2 * EGRESS_CONNS + EGRESS_CONNS)

struct egress_conn;
struct egress_api_conn;

struct egress {
	const struct lab_config *cfg;
	int chan[2];   /* the init hands the proxy's socket over this pair */
	int listen_fd; /* the proxy's socket, in the sandbox's network namespace */
	int api_fd;    /* api.lab.test, on the lab's 127.0.0.1 */
	int api_port;
	int attacker_port; /* attacker.lab.test: the decoys' listener, 0 if none */
	struct egress_conn *conn[EGRESS_CONNS];
	struct egress_api_conn *api[EGRESS_CONNS];
	char *api_received; /* what api.lab.test received, for the canary search */
	size_t api_received_len;
	uint64_t api_bytes;
	long api_requests, feedback_posts;
	long allowed, refused, bad;
	char refusal[LAB_LINE];
	char log[LAB_LINE * 4];
	int log_lines, log_dropped;
};

void egress_init(struct egress *e, const struct lab_config *cfg);
/* The small internet: api.lab.test listens on the lab's 127.0.0.1. 0 or -errno. */
int egress_serve(struct egress *e);
/* The pair the init hands the proxy's socket over. 0 or -errno. */
int egress_open_door(struct egress *e);
/* Child, in its new network namespace while it still holds CAP_NET_ADMIN
 * there: lo up, a socket listening on 127.0.0.1:EGRESS_PORT, handed to the
 * lab and closed here. 0, or an errno with *what naming the step. */
int egress_child_door(struct egress *e, const char **what);
/* Lab, after the clone: the child's end of the pair is the child's. */
void egress_after_clone(struct egress *e);
/* Descriptors to poll, with the events each one waits for. */
int egress_poll(const struct egress *e, struct pollfd *pfd, int max);
/* After poll(): serves whatever is ready and ends what took too long. */
void egress_ready(struct egress *e, const struct pollfd *pfd, int n, long now_ms);
/* The run is over: open requests are logged as they stand, and the
 * evidence is filled (d: the run's decoys, to look for its canaries in
 * what api.lab.test received; NULL in exec). */
void egress_finish(struct egress *e, const struct lab_decoys *d, struct lab_evidence *ev);
void egress_close(struct egress *e);

#endif
