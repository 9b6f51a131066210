/* layers/network.c — the No-network layer (stops data exfiltration).
 *
 * On: a new network namespace with no usable interface (lo stays down, so
 * connect() fails with ENETUNREACH), plus a small seccomp filter refusing
 * AF_VSOCK, which a network namespace does not fence. Before the snippet
 * starts, the child tries the attacker's port itself: the lab's evidence
 * that the door is shut. Off: the host's network namespace, as a naive
 * integration would share it. */
#define _GNU_SOURCE
#include "../layer.h"
#include "../seccomp_filter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int network_plan(struct run *r, struct lab_evidence *ev)
{
	r->netns = run_on(r, LAYER_NETWORK);
	ev->own_netns = r->netns;
	/* the trace: a process may have one filter with a listener; ours
	 * holds it when Isolation's is not there (Isolation plans first) */
	if (r->netns && r->trace && !run_on(r, LAYER_ISOLATION)) {
		r->trace_listen = true;
		r->trace_layer = LAYER_NETWORK;
	}
	return 0;
}

static int network_prepare(struct run *r, struct lab_evidence *ev)
{
	if (!run_on(r, LAYER_NETWORK))
		return 0;
	/* the trace: Isolation's filter holds the one listener and carries
	 * our rules (isolation_prepare), so that the lab hears them too */
	if (r->trace_listen && r->trace_layer == LAYER_ISOLATION)
		return 0;
	int e = 0;
	bool notify = r->trace_listen && r->trace_layer == LAYER_NETWORK;
	scmp_filter_ctx f = lab_seccomp_build_network(notify, &e);
	if (!f || (e = run_export_filter(f, "containment-lab-seccomp-net", &r->net_bpf_fd)) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot build No-network's socket filter: %s", strerror(-e));
		return -1;
	}
	return 0;
}

/* connect() to the attacker from inside: the errno is the evidence */
static void network_probe(struct run *r)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int e = 0;
	if (fd < 0) {
		e = errno;
	} else {
		struct sockaddr_in a = {.sin_family = AF_INET,
		                        .sin_port = htons((uint16_t)r->d.port),
		                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		e = connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ? errno : 0;
		close(fd);
	}
	run_report(r, "P %d\n", e);
}

static void network_child(struct run *r, enum run_phase ph)
{
	if (!run_on(r, LAYER_NETWORK))
		return;
	if (ph == PHASE_ENTERED && r->have_decoys)
		network_probe(r);
	/* while we still hold the privilege to load a filter without
	 * no_new_privs (Isolation sets that later anyway) */
	if (ph == PHASE_FDS && r->trace_listen && r->trace_layer == LAYER_NETWORK)
		run_load_filter_listen(r, &r->net_prog, "No-network's socket filter");
	else if (ph == PHASE_FDS && r->net_prog.filter) /* else merged into Isolation's */
		run_load_filter(r, &r->net_prog, "No-network's socket filter");
}

static void network_describe(const struct run *r, struct lab_evidence *ev)
{
	/* an upper rung's box names its own network mechanism */
	if (run_on(r, LAYER_NETWORK) && !(run_on(r, LAYER_ISOLATION) && r->cfg->rung != RUNG_CONTAINER))
		run_mech_add(ev, "netns (no interface), AF_VSOCK and AF_UNIX sockets refused (seccomp)");
}

const struct layer_ops layer_network_ops = {
    .clone_flags = CLONE_NEWNET,
    .plan = network_plan,
    .prepare = network_prepare,
    .child = network_child,
    .describe = network_describe,
};
