/* sockmem.c — the bytes a network namespace's sockets hold in the kernel.
 *
 * Data written to a socket and never read sits in kernel buffers (skbs):
 * in no process's Pss, in no file. A memory cgroup charges it; a rootless
 * run on a host without one would hide hundreds of MiB there (issue 17).
 * The kernel lists every socket of a network namespace through sock_diag
 * (what `ss` reads), with what each one holds: PID 1 of a run, which is in
 * the run's own network namespace, asks it here.
 *
 * AF_UNIX has no send queue: a sender's skb goes straight to the peer's
 * receive queue and stays charged to the sender (its wmem, skb truesize).
 * So the sum of the senders' wmem counts each queued skb once; a sender
 * already closed is no longer listed, and what it left in a peer's queue is
 * counted from that queue (its data bytes: a lower bound of the truesize).
 * TCP and UDP: what each socket's receive and send queues hold.
 *
 * No allocation: the init runs this under the snippet's rlimits. */
#define _GNU_SOURCE
#include "sockmem.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define UNIX_MAX 16384 /* sockets looked at one by one; the rest are summed as they come */

struct unix_sock {
	uint32_t ino, peer, rq;
};

static struct unix_sock socks[UNIX_MAX];
static uint32_t inos[UNIX_MAX];
static char buf[32768] __attribute__((aligned(8)));

/* One dump request; each answer's messages go to fn. Returns -1 when the
 * kernel refused or the socket failed. */
static int diag_dump(int fd, const void *req, size_t len, void (*fn)(const struct nlmsghdr *, void *), void *ctx)
{
	struct {
		struct nlmsghdr nlh;
		char body[64];
	} msg = {.nlh = {.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + len),
	                 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
	                 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP}};
	memcpy(msg.body, req, len);
	/* write() and read(), not sendto(): the lab's trace answers a sendto()
	 * with an address for the run, and this is the lab's own call (an
	 * unconnected netlink socket writes to the kernel) */
	if (write(fd, &msg, msg.nlh.nlmsg_len) < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n <= 0)
			return -1;
		for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			fn(h, ctx);
		}
	}
}

struct unix_tally {
	uint64_t wmem;  /* every listed sender's queued skbs */
	uint64_t extra; /* sockets past UNIX_MAX: their queues, as they come */
	int n;
};

static void unix_one(const struct nlmsghdr *h, void *ctx)
{
	struct unix_tally *t = ctx;
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	struct unix_sock s = {.ino = m->udiag_ino};
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
	for (const struct rtattr *a = (const void *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t))
			memcpy(&s.peer, RTA_DATA(a), sizeof s.peer);
		else if (a->rta_type == UNIX_DIAG_RQLEN && RTA_PAYLOAD(a) >= sizeof(struct unix_diag_rqlen) &&
		         m->udiag_state != 10 /* TCP_LISTEN: a count of connections, not bytes */)
			s.rq = ((const struct unix_diag_rqlen *)RTA_DATA(a))->udiag_rqueue;
		else if (a->rta_type == UNIX_DIAG_MEMINFO && RTA_PAYLOAD(a) >= SK_MEMINFO_VARS * sizeof(uint32_t))
			t->wmem += ((const uint32_t *)RTA_DATA(a))[SK_MEMINFO_WMEM_ALLOC];
	}
	if (t->n < UNIX_MAX)
		socks[t->n++] = s;
	else
		t->extra += s.rq;
}

/* In place, no allocation (glibc's qsort may malloc a buffer, which the
 * snippet's RLIMIT_AS can refuse): a heapsort. */
static void sift(uint32_t *a, size_t root, size_t n)
{
	for (size_t c; (c = 2 * root + 1) < n; root = c) {
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[root] >= a[c])
			return;
		uint32_t t = a[root];
		a[root] = a[c];
		a[c] = t;
	}
}

static void sort_u32(uint32_t *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (size_t end = n; end-- > 1;) {
		uint32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift(a, 0, end);
	}
}

static bool has_u32(const uint32_t *a, size_t n, uint32_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == v;
}

static uint64_t unix_bytes(int fd, unsigned states, bool *ok)
{
	struct unix_diag_req req = {.sdiag_family = AF_UNIX,
	                            .udiag_states = states,
	                            .udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN | UDIAG_SHOW_MEMINFO};
	struct unix_tally t = {0};
	if (diag_dump(fd, &req, sizeof req, unix_one, &t) < 0)
		*ok = false;
	for (int i = 0; i < t.n; i++)
		inos[i] = socks[i].ino;
	sort_u32(inos, (size_t)t.n);
	/* a queue whose sender is gone (peer 0: closed; or not listed) */
	uint64_t orphaned = 0;
	for (int i = 0; i < t.n; i++)
		if (socks[i].rq && (!socks[i].peer || !has_u32(inos, (size_t)t.n, socks[i].peer)))
			orphaned += socks[i].rq;
	return t.wmem + orphaned + t.extra;
}

static void inet_one(const struct nlmsghdr *h, void *ctx)
{
	uint64_t *sum = ctx;
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
	for (const struct rtattr *a = (const void *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == INET_DIAG_SKMEMINFO && RTA_PAYLOAD(a) >= SK_MEMINFO_VARS * sizeof(uint32_t)) {
			const uint32_t *v = RTA_DATA(a);
			*sum += (uint64_t)v[SK_MEMINFO_RMEM_ALLOC] + v[SK_MEMINFO_WMEM_QUEUED] + v[SK_MEMINFO_BACKLOG];
		}
}

static const struct {
	uint8_t family, protocol; /* protocol 0: AF_UNIX */
} kinds[] = {
    {AF_UNIX, 0}, {AF_INET, IPPROTO_TCP}, {AF_INET6, IPPROTO_TCP}, {AF_INET, IPPROTO_UDP}, {AF_INET6, IPPROTO_UDP}};
enum { KINDS = sizeof kinds / sizeof kinds[0] };
/* what sockmem_probe found the kernel lists; all until then */
static bool listed[KINDS] = {true, true, true, true, true};

/* states: the socket states to list, ~0u all; 0 lists none, which asks
 * only whether the kernel can (the probe: the host's own sockets, however
 * many a server has, are not walked for it) */
static int dump_kind(int fd, size_t k, unsigned states, uint64_t *sum, bool *ok)
{
	if (kinds[k].family == AF_UNIX) {
		*sum += unix_bytes(fd, states, ok);
		return *ok ? 0 : -1;
	}
	struct inet_diag_req_v2 req = {.sdiag_family = kinds[k].family,
	                               .sdiag_protocol = kinds[k].protocol,
	                               .idiag_ext = 1u << (INET_DIAG_SKMEMINFO - 1),
	                               .idiag_states = states};
	return diag_dump(fd, &req, sizeof req, inet_one, sum);
}

/* The diag modules all loaded already (the usual case after the first
 * run since boot): nothing to probe, and no walk of the host's tables. */
static bool diag_modules_loaded(void)
{
	static const char *const mods[] = {"unix_diag", "inet_diag", "tcp_diag", "udp_diag"};
	for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
		char p[64];
		snprintf(p, sizeof p, "/sys/module/%s", mods[i]);
		if (access(p, F_OK) < 0)
			return false;
	}
	return true;
}

void sockmem_probe(void)
{
	static bool done;
	int fd = done || diag_modules_loaded() ? -1 : socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	done = true;
	if (fd < 0)
		return;
	for (size_t k = 0; k < KINDS; k++) {
		bool ok = true;
		uint64_t sum = 0;
		listed[k] = dump_kind(fd, k, 0, &sum, &ok) == 0 && ok;
	}
	close(fd);
}

/* TCP and UDP are asked every INET_EVERY-th call, their sum kept between:
 * the kernel walks the host's whole hash table for each (262,144 buckets
 * on a 24 GiB machine, about 2 ms of CPU a walk, whatever the namespace
 * holds), which every 10 ms tick of a run's init cannot afford; AF_UNIX is
 * asked each time. A socket's buffers stay full while nobody reads them,
 * so a tenth of a second misses no bomb made of them. */
#define INET_EVERY 10

uint64_t sockmem_netns_bytes(bool *complete)
{
	bool ok = true;
	static int fd = -1; /* kept: one descriptor of the init's, not one a tick */
	static unsigned calls;
	static uint64_t inet_sum;
	static bool inet_ok = true;
	if (fd < 0)
		fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		*complete = false;
		return 0;
	}
	bool inet_now = ++calls % INET_EVERY == 0; /* not the first: nothing is queued yet */
	uint64_t sum = 0, inet = 0;
	for (size_t k = 0; k < KINDS; k++) {
		bool is_inet = kinds[k].family != AF_UNIX;
		if (is_inet && !inet_now)
			continue;
		bool *kind_ok = is_inet ? &inet_ok : &ok;
		if (is_inet && k == 1)
			inet_ok = true; /* this call asks them all again */
		/* a kind the kernel did not list for the lab's probe is not asked
		 * for again each tick (each ask may start a modprobe) */
		if (!listed[k]) {
			*kind_ok =
			    *kind_ok && kinds[k].family == AF_INET6; /* a kernel without IPv6 has nothing there */
			continue;
		}
		if (dump_kind(fd, k, ~0u, is_inet ? &inet : &sum, kind_ok) < 0)
			*kind_ok = false;
	}
	if (inet_now)
		inet_sum = inet;
	*complete = ok && inet_ok;
	return sum + inet_sum;
}
