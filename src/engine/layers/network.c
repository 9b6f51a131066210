/* layers/network.c — the No-network layer (stops data exfiltration).
 *
 * On: a new network namespace with no usable interface (lo stays down, so
 * connect() fails with ENETUNREACH), plus a small seccomp filter refusing
 * AF_VSOCK, which a network namespace does not fence. Its second setting,
 * mode = allowlist, keeps that namespace but brings lo up with one socket
 * on it, the lab's egress proxy (egress.h): the only door, and it lets
 * out only the allow-listed hosts. Before the snippet starts, the child
 * tries the attacker's port and an address off loopback itself: the lab's
 * evidence that the door is shut. Off: the network a naive integration
 * gives, and what is on it is the lab's small internet: the run still has a
 * network namespace of its own (not the host's: no other run, no local
 * user can reach what listens there), lo is up, and api.lab.test and the
 * attacker listen on its 127.0.0.1, made by the init and handed to the lab
 * (egress.h). `exec` with the layer off keeps the host's network. */
#define _GNU_SOURCE
#include "layer.h"
#include "seccomp_filter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int network_plan(struct run *r, struct lab_evidence *ev)
{
	r->layer.network.netns = run_on(r, LAYER_NETWORK);
	ev->exfil.own_netns = r->layer.network.netns;
	/* the trace: a process may have one filter with a listener; ours
	 * holds it when the spec has no seccomp filter of Isolation's */
	if (r->layer.network.netns && r->tr.on && !r->spec.seccomp) {
		r->tr.listen = true;
		r->tr.layer = LAYER_NETWORK;
	}
	ev->egress.net_mode = run_allowlist(r) ? NET_MODE_ALLOWLIST : NET_MODE_NONE;
	if (!run_allowlist(r) && !r->eg.inside)
		return 0;
	/* the door is a socket the lab takes from the box's network namespace:
	 * the container's own; runsc --network=host in one of the run's own
	 * (gvisor); the one QEMU runs in, its guest's gateway (microvm) */
	int e = egress_open_door(&r->eg);
	if (e < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot open the egress proxy's socket pair: %s", strerror(-e));
		return -1;
	}
	return 0;
}

static int network_prepare(struct run *r, struct lab_evidence *ev)
{
	egress_after_clone(&r->eg);
	if (!run_on(r, LAYER_NETWORK))
		return 0;
	/* the trace: Isolation's filter holds the one listener and carries
	 * our rules (isolation_prepare), so that the lab hears them too */
	if (r->tr.listen && r->tr.layer != LAYER_NETWORK)
		return 0;
	int e = 0;
	bool notify = r->tr.listen && r->tr.layer == LAYER_NETWORK;
	scmp_filter_ctx f = lab_seccomp_build_network(notify, &e);
	if (f && notify && r->tr.handoff &&
	    (e = lab_seccomp_watch_sends(f, (unsigned long long)(uintptr_t)r->tr.handoff)) < 0) {
		seccomp_release(f);
		f = NULL;
	}
	/* Resource-limits' watch rides in the filter with the listener */
	if (f && notify && r->tr.watch_limits && (e = lab_seccomp_watch_limits(f)) < 0) {
		seccomp_release(f);
		f = NULL;
	}
	if (!f || (e = lab_seccomp_export(f, "containment-lab-seccomp-net", &r->layer.network.bpf_fd)) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot build No-network's socket filter: %s", strerror(-e));
		return -1;
	}
	return 0;
}

static int try_connect(uint32_t addr, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(addr)};
	int e = connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ? errno : 0;
	close(fd);
	return e;
}

/* connect() to the attacker's port from inside, and to an address off
 * loopback (192.0.2.1, TEST-NET-1: nothing would answer even if a packet
 * left): the errnos are the evidence. Without lo the first is
 * ENETUNREACH; with the allow-list's lo it is the sandbox's own loopback
 * (ECONNREFUSED), and only the second shows there is no route out. */
static void network_probe(struct run *r)
{
	run_report(r, "P %d\n", try_connect(INADDR_LOOPBACK, r->d.port));
	run_report(r, "R %d\n", try_connect(0xc0000201u, 80));
}

static void network_child(struct run *r, enum run_phase ph)
{
	/* while we still hold CAP_NET_ADMIN in the user namespace that owns
	 * our network namespace: the range (Isolation off) locks its mounts
	 * with a second user namespace right after PHASE_ROOT, and caps there
	 * would not count here */
	if (ph == PHASE_ROOT && (run_allowlist(r) || r->eg.inside)) {
		const char *what = "";
		int e = egress_child_door(&r->eg, run_allowlist(r), &what);
		if (e)
			run_fail(r, run_allowlist(r) ? "open the egress proxy's door" : "open the small internet", what,
			         e);
	}
	if (!run_on(r, LAYER_NETWORK))
		return;
	if (ph == PHASE_ENTERED && r->have_decoys)
		network_probe(r);
	/* while we still hold the privilege to load a filter without
	 * no_new_privs (Isolation sets that later anyway) */
	if (ph == PHASE_FDS && r->tr.listen && r->tr.layer == LAYER_NETWORK)
		run_load_filter_listen(r, &r->layer.network.prog, "No-network's socket filter");
	else if (ph == PHASE_FDS && r->layer.network.prog.filter) /* else merged into Isolation's */
		run_load_filter(r, &r->layer.network.prog, "No-network's socket filter");
}

static void network_describe(const struct run *r, struct lab_evidence *ev)
{
	/* an upper rung's box names its own network mechanism */
	bool upper = r->spec.rung != RUNG_CONTAINER;
	if (run_allowlist(r) && !upper)
		mech_add(ev,
		         "netns with only lo, the lab's egress proxy at 127.0.0.1:%d as the one door (allow-list), "
		         "AF_VSOCK and AF_UNIX sockets, datagram socketpairs refused (seccomp)",
		         EGRESS_PORT);
	else if (run_on(r, LAYER_NETWORK) && !upper)
		mech_add(ev,
		         "netns (no interface), AF_VSOCK and AF_UNIX sockets, datagram socketpairs refused (seccomp)");
	else if (r->eg.inside)
		mech_add(ev,
		         "No-network off: the run's own netns with lo up, the lab's small internet on it (api.lab.test "
		         "127.0.0.1:%d, attacker 127.0.0.1:%d), nothing of the host's network",
		         EGRESS_INSIDE_API_PORT, EGRESS_INSIDE_ATTACKER_PORT);
}

/* On: an empty network namespace of its own, with the egress proxy as its
 * one door in allowlist mode. Off: the range's loopback. */
static void network_spec(struct run_spec *s, const struct lab_config *cfg)
{
	(void)cfg;
	if (!spec_on(s, LAYER_NETWORK))
		return;
	s->ns |= SPEC_NS_NET;
	s->net = s->setup.net_mode == NET_MODE_ALLOWLIST ? SPEC_NET_ALLOWLIST : SPEC_NET_NONE;
	s->armed[MECH_NET_CLOSED] = LAYER_NETWORK;
	if (s->net == SPEC_NET_ALLOWLIST)
		s->armed[MECH_PROXY] = LAYER_NETWORK;
}

const struct layer_ops layer_network_ops = {
    .clone_flags = CLONE_NEWNET,
    .plan = network_plan,
    .prepare = network_prepare,
    .child = network_child,
    .describe = network_describe,
    .spec = network_spec,
};
