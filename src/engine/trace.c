/* trace.c — what the kernel (or the lab) refused, recorded from outside.
 *
 * Isolation's seccomp filter, with the trace on, does not answer its
 * refusals itself: each is SCMP_ACT_NOTIFY (seccomp_filter.c). The child
 * loads the filter with a listener and hands it to the lab over the sync
 * socket (run_load_filter_listen); the lab's event loop (run.c) calls
 * trace_answer when the listener is readable. For each notification: the
 * call is decoded (flags by name, strings read from /proc/PID/mem only
 * after seccomp_notify_id_valid says the caller is still the one stopped in
 * this very call), then refused with the errno the rule gives without the
 * trace (lab_seccomp_refusal_errno), then logged. The answer never depends
 * on what was read: it is always the refusal. And the refusal never depends
 * on the lab: if the listener is closed (the lab gone), the kernel answers
 * ENOSYS itself, never lets the call through.
 *
 * The log is bounded: identical calls are one entry with a count, and past
 * LAB_TRACE_MAX entries calls are only counted. The lab takes at most a
 * batch of notifications per turn of its loop, so a snippet that loops on
 * unshare() cannot starve its clocks. */
#define _GNU_SOURCE
#include "trace.h"

#include "evidence.h"
#include "seccomp_filter.h"
#include "system.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

bool trace_wanted(void)
{
	const char *v = getenv("LAB_TRACE");
	return !v || strcmp(v, "0") != 0;
}

/* The handoff page (trace_state.h): a random page-aligned address in
 * [4 GiB, 64 TiB), free in the lab's address space (retried where
 * something is mapped already). A snippet, whose exec drops the page,
 * would have to guess it to send one sendmsg() unwatched. */
static void *handoff_page(void)
{
	for (int i = 0; i < 64; i++) {
		unsigned long long x;
		if (getrandom(&x, sizeof x, 0) != (ssize_t)sizeof x)
			return NULL;
		x = ((1ULL << 32) + x % ((1ULL << 46) - (1ULL << 32))) & ~4095ULL;
		void *p = mmap((void *)(uintptr_t)x, 4096, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == (void *)(uintptr_t)x)
			return p;
		if (p != MAP_FAILED)
			munmap(p, 4096); /* a kernel without MAP_FIXED_NOREPLACE put it elsewhere */
	}
	return NULL;
}

void trace_state_init(struct trace_state *t)
{
	*t = (struct trace_state){.on = trace_wanted(), .notify_fd = -1, .connect_wake = {-1, -1}};
	if (t->on)
		t->handoff = handoff_page();
}

void lab_trace_line(const struct lab_trace_entry *e, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s%s%s", e->call, e->answer[0] ? " = " : "", e->answer, e->by[0] ? "  " : "", e->by);
	if (e->count > 1)
		str_append(out, cap, "  (x%ld)", e->count);
}

/* Printable ASCII only: a decoded string comes from the snippet's memory. */
static void printable(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

static void trace_add_n(struct lab_trace *t, const char *call, const char *answer, const char *by, long count)
{
	struct lab_trace_entry e = {.count = count};
	printable(e.call, sizeof e.call, call);
	printable(e.answer, sizeof e.answer, answer);
	printable(e.by, sizeof e.by, by);
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].call, e.call) && !strcmp(t->e[i].answer, e.answer) && !strcmp(t->e[i].by, e.by)) {
			t->e[i].count += count;
			return;
		}
	if (t->n >= LAB_TRACE_MAX) {
		t->dropped += count;
		return;
	}
	t->e[t->n++] = e;
}

void trace_add(struct lab_trace *t, const char *call, const char *answer, const char *by)
{
	trace_add_n(t, call, answer, by, 1);
}

/* ---------------- decoding a call ---------------- */

struct named_bit {
	unsigned long bit;
	const char *name;
};

static const struct named_bit ns_bits[] = {
    {CLONE_NEWUSER, "CLONE_NEWUSER"},     {CLONE_NEWNS, "CLONE_NEWNS"},
    {CLONE_NEWPID, "CLONE_NEWPID"},       {CLONE_NEWNET, "CLONE_NEWNET"},
    {CLONE_NEWUTS, "CLONE_NEWUTS"},       {CLONE_NEWIPC, "CLONE_NEWIPC"},
    {CLONE_NEWCGROUP, "CLONE_NEWCGROUP"}, {CLONE_NEWTIME, "CLONE_NEWTIME"},
    {CLONE_FILES, "CLONE_FILES"},         {CLONE_FS, "CLONE_FS"},
    {CLONE_SYSVSEM, "CLONE_SYSVSEM"},     {CLONE_VM, "CLONE_VM"},
    {CLONE_THREAD, "CLONE_THREAD"},       {CLONE_SIGHAND, "CLONE_SIGHAND"},
};

/* "CLONE_NEWUSER|CLONE_NEWNS|0x200000", "0" */
static void flag_names(char *out, size_t cap, unsigned long f)
{
	out[0] = '\0';
	for (size_t i = 0; i < sizeof ns_bits / sizeof *ns_bits; i++)
		if (f & ns_bits[i].bit) {
			str_append(out, cap, "%s%s", out[0] ? "|" : "", ns_bits[i].name);
			f &= ~ns_bits[i].bit;
		}
	if (f || !out[0])
		str_append(out, cap, "%s%#lx", out[0] ? "|" : "", f);
}

/* Printable ASCII, with the quote and the backslash escaped (\" and \\):
 * a string of the caller's is shown between quotes, and text inside one
 * must not close it and forge the rest of the entry. */
static size_t quoted(char *dst, size_t cap, const char *src)
{
	size_t o = 0, i = 0;
	for (; src[i] && o + 1 < cap; i++) {
		char ch = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
		if (ch == '"' || ch == '\\') {
			if (o + 2 >= cap)
				break;
			dst[o++] = '\\';
		}
		dst[o++] = ch;
	}
	dst[o] = '\0';
	return i; /* how much of src it holds */
}

static void errno_answer(char *out, size_t cap, int err);

/* The n bytes read of a string (buf[n] is a NUL of ours), quoted: "..."
 * after it when no NUL of its own was among them. */
static void quote_read(const char *buf, size_t n, char *out, size_t cap)
{
	/* room for the quotes and "...": an escape is never cut in two. The
	 * string is always quoted first: what is shown is what was read, whole
	 * or a prefix, never the buffer's old bytes */
	char clean[96];
	size_t room = cap > 6 ? cap - 5 : 1, len = strlen(buf);
	size_t held = quoted(clean, room < sizeof clean ? room : sizeof clean, buf);
	bool whole = len < n && held == len;
	str_copy(out, cap, "\"");
	str_append(out, cap, "%s%s\"", clean, whole ? "" : "...");
}

/* A NUL-terminated string of the caller's, quoted and capped; "?" when it
 * cannot be read. mem is the caller's /proc/PID/mem, already checked. */
static void read_string(int mem, unsigned long long addr, char *out, size_t cap)
{
	char buf[48];
	if (!addr) {
		str_copy(out, cap, "NULL");
		return;
	}
	ssize_t n = mem < 0 ? -1 : pread(mem, buf, sizeof buf - 1, (off_t)addr);
	if (n <= 0) {
		str_copy(out, cap, "?");
		return;
	}
	buf[n] = '\0';
	quote_read(buf, (size_t)n, out, cap);
}

static const char *family_name(unsigned long v)
{
	switch (v) {
	case AF_UNIX:
		return "AF_UNIX";
	case AF_INET:
		return "AF_INET";
	case AF_INET6:
		return "AF_INET6";
	case AF_NETLINK:
		return "AF_NETLINK";
	case AF_PACKET:
		return "AF_PACKET";
	case 40:
		return "AF_VSOCK";
	default:
		return NULL;
	}
}

static const char *ptrace_request(unsigned long v)
{
	switch (v) {
	case PTRACE_TRACEME:
		return "PTRACE_TRACEME";
	case PTRACE_PEEKTEXT:
		return "PTRACE_PEEKTEXT";
	case PTRACE_PEEKDATA:
		return "PTRACE_PEEKDATA";
	case PTRACE_POKETEXT:
		return "PTRACE_POKETEXT";
	case PTRACE_POKEDATA:
		return "PTRACE_POKEDATA";
	case PTRACE_ATTACH:
		return "PTRACE_ATTACH";
	case 0x4206:
		return "PTRACE_SEIZE";
	default:
		return NULL;
	}
}

/* How each refused call's arguments read: c clone/unshare flags, n a
 * namespace type, s a string, d a number, x hex, p a ptrace request, i an
 * ioctl request, a an address family. Calls not listed show as name(...). */
static const struct {
	const char *name;
	const char *args;
} shapes[] = {
    {"unshare", "c"},
    {"clone", "c"},
    {"setns", "dn"},
    {"mount", "sssx"},
    {"umount2", "sx"},
    {"pivot_root", "ss"},
    {"chroot", "s"},
    {"ptrace", "pd"},
    {"ioctl", "di"},
    {"personality", "x"},
    {"finit_module", "d"},
    {"delete_module", "s"},
    {"bpf", "d"},
    {"keyctl", "d"},
    {"add_key", "ss"},
    {"request_key", "ss"},
    {"open_tree", "ds"},
    {"fsopen", "s"},
    {"swapon", "s"},
    {"swapoff", "s"},
    {"acct", "s"},
    {"pidfd_getfd", "dd"},
    {"kcmp", "dd"},
    {"process_vm_readv", "d"},
    {"process_vm_writev", "d"},
    {"open_by_handle_at", "d"},
    {"userfaultfd", "x"},
    {"io_uring_setup", "d"},
    {"syslog", "d"},
    {"clone3", ""},
    {"vhangup", ""},
    {"reboot", "xx"},
    {"socket", "a"},
    {"landlock_create_ruleset", "xdx"},
    {"landlock_add_rule", "ddx"},
    {"landlock_restrict_self", "dx"},
};

static const char *shape_of(const char *name)
{
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		if (!strcmp(shapes[i].name, name))
			return shapes[i].args;
	return NULL;
}

/* One argument as text, by its shape letter. A string is read through
 * mem, or given as read elsewhere (text: "-" NULL, "?" unreadable, else
 * the bytes and whether its NUL was among them). */
struct given_string {
	const char *text;
	size_t len;
	bool whole;
};
static void describe_arg(char kind, unsigned long long v, int mem, const struct given_string *given, char *out,
                         size_t cap)
{
	if (kind == 's' && given && given->text) {
		char buf[64];
		size_t n = given->len < sizeof buf - 2 ? given->len : sizeof buf - 2;
		memcpy(buf, given->text, n);
		buf[n] = '\0';
		if (!strcmp(given->text, "-"))
			str_copy(out, cap, "NULL");
		else if (!strcmp(given->text, "?"))
			str_copy(out, cap, "?");
		else
			quote_read(buf, given->whole ? n + 1 : n, out, cap);
		return;
	}
	switch (kind) {
	case 'c':
		flag_names(out, cap, (unsigned long)v & ~(unsigned long)CSIGNAL);
		break;
	case 'n':
		flag_names(out, cap, (unsigned long)v);
		break;
	case 's':
		read_string(mem, v, out, cap);
		break;
	case 'a': {
		const char *f = family_name((unsigned long)v);
		if (f)
			str_copy(out, cap, f);
		else
			snprintf(out, cap, "%d", (int)v);
		break;
	}
	case 'p': {
		const char *p = ptrace_request((unsigned long)v);
		if (p)
			str_copy(out, cap, p);
		else
			snprintf(out, cap, "%lld", (long long)v);
		break;
	}
	case 'i':
		if ((v & 0xffffffffULL) == TIOCSTI)
			str_copy(out, cap, "TIOCSTI");
		else if ((v & 0xffffffffULL) == TIOCLINUX)
			str_copy(out, cap, "TIOCLINUX");
		else
			snprintf(out, cap, "%#llx", v);
		break;
	case 'd':
		snprintf(out, cap, "%d", (int)v);
		break;
	default:
		snprintf(out, cap, "%#llx", v);
		break;
	}
}

/* name(args...) by its shape: the strings read through mem, or given */
static void call_text(const char *name, const char *shape, const unsigned long long args[6], int mem,
                      const struct given_string given[6], char *out, size_t cap)
{
	snprintf(out, cap, "%s(", name);
	for (int i = 0; shape[i] && i < 6; i++) {
		char arg[64];
		describe_arg(shape[i], args[i], mem, given ? &given[i] : NULL, arg, sizeof arg);
		str_append(out, cap, "%s%s", i ? ", " : "", arg);
	}
	str_append(out, cap, ")");
}

const char *trace_call_shape(int nr)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	const char *shape = name ? shape_of(name) : NULL;
	free(name);
	return shape;
}

/* A refusal another kernel's listener saw and answered (the microvm
 * guest's init): logged and counted as the container's listener does. */
void trace_add_refused(struct lab_trace *t, int nr, const unsigned long long args[6], const char *const strs[6],
                       int err, long count, const char *by)
{
	char call[sizeof t->e[0].call], answer[32];
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	const char *shape = name ? shape_of(name) : NULL;
	struct given_string given[6] = {{0}};
	for (int i = 0; i < 6; i++) {
		const char *s = strs[i];
		if (!s)
			continue;
		size_t len = strlen(s);
		given[i].whole = len > 0 && s[len - 1] == '.';
		given[i].text = s;
		given[i].len = len > 0 && (s[len - 1] == '.' || s[len - 1] == '+') ? len - 1 : len;
	}
	if (!name)
		snprintf(call, sizeof call, "syscall %d(...)", nr);
	else if (!shape)
		snprintf(call, sizeof call, "%s(...)", name);
	else
		call_text(name, shape, args, -1, given, call, sizeof call);
	free(name);
	errno_answer(answer, sizeof answer, err);
	trace_add_n(t, call, answer, by, count);
	if (nr != SCMP_SYS(clone3) && !lab_seccomp_is_landlock(nr))
		t->iso_refused += count;
}

void trace_add_refused_unlisted(struct lab_trace *t, int nr, long count)
{
	t->dropped += count;
	if (nr != SCMP_SYS(clone3) && !lab_seccomp_is_landlock(nr))
		t->iso_refused += count;
}

/* "mount(\"/dev/sda1\", \"/mnt\", \"ext4\", 0)". Strings are read only
 * while the notification is still valid: the pid may be anyone's else. */
static void describe_call(int listener, const struct seccomp_notif *req, char *out, size_t cap)
{
	char *name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
	const char *shape = name ? shape_of(name) : NULL;
	if (!name) {
		snprintf(out, cap, "syscall %d(...)", req->data.nr);
		return;
	}
	if (!shape) {
		snprintf(out, cap, "%s(...)", name);
		free(name);
		return;
	}
	int mem = -1;
	if (strchr(shape, 's')) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%u/mem", req->pid);
		mem = open(path, O_RDONLY | O_CLOEXEC);
		if (mem >= 0 && seccomp_notify_id_valid(listener, req->id) != 0) {
			close(mem); /* the caller is gone: that pid is not it any more */
			mem = -1;
		}
	}
	call_text(name, shape, req->data.args, mem, NULL, out, cap);
	if (mem >= 0)
		close(mem);
	free(name);
}

static void errno_answer(char *out, size_t cap, int err)
{
	const char *n = strerrorname_np(err);
	if (n)
		snprintf(out, cap, "-1 %s", n);
	else
		snprintf(out, cap, "-1 errno %d", err);
}

/* ---------------- connect(): the lab makes the call ---------------- */

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

/* "127.0.0.1:41501", "[::1]:80", "AF_UNIX \"/run/x.sock\"" */
static void describe_sockaddr(const struct sockaddr_storage *sa, socklen_t len, char *out, size_t cap)
{
	char host[INET6_ADDRSTRLEN];
	if (sa->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		snprintf(out, cap, "%s:%u", host, ntohs(in->sin_port));
	} else if (sa->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
		snprintf(out, cap, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else if (sa->ss_family == AF_UNIX && len > sizeof(sa_family_t)) {
		const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
		char path[sizeof un->sun_path + 1] = "";
		size_t n =
		    len - sizeof(sa_family_t) < sizeof un->sun_path ? len - sizeof(sa_family_t) : sizeof un->sun_path;
		memcpy(path, un->sun_path, n);
		path[n] = '\0';
		char clean[64];
		quoted(clean, sizeof clean, path[0] ? path : "@abstract");
		snprintf(out, cap, "AF_UNIX \"%s\"", clean);
	} else {
		const char *f = family_name(sa->ss_family);
		snprintf(out, cap, "%s", f ? f : "an address");
	}
}

/* Who decided a connect(): the network the sandbox has. */
static const char *connect_by(const struct run *r, int err, bool attacker)
{
	if (r->layer.network.netns)
		return err == ENETUNREACH ? "no interface (No-network)" : "the sandbox's own netns (No-network)";
	if (attacker && !err && r->eg.inside)
		return "the lab's attacker listener, in the run's own netns (No-network off)";
	if (r->eg.inside)
		return "the run's own netns, the lab's small internet (No-network off)";
	if (attacker && !err)
		return "the lab's attacker listener, host network (No-network off)";
	return "the host's network (No-network off)";
}

/* Answers a stopped caller. False when the answer did not reach it: the
 * kernel says ENOENT when the caller is not waiting any more (a signal
 * interrupted it, and it restarts the call or returns EINTR, or it died):
 * the trace must not log an answer nobody received. */
static bool respond_val(struct run *r, unsigned long long id, int err, long long val, unsigned flags)
{
	if (r->tr.notify_fd < 0)
		return false;
	struct seccomp_notif_resp *resp = r->tr.notify_resp;
	memset(resp, 0, sizeof *resp);
	resp->id = id;
	resp->error = -err;
	resp->val = err ? 0 : val;
	resp->flags = flags;
	return seccomp_notify_respond(r->tr.notify_fd, resp) == 0;
}

static bool respond(struct run *r, unsigned long long id, int err, unsigned flags)
{
	return respond_val(r, id, err, 0, flags);
}

bool trace_continue(struct run *r, unsigned long long id)
{
	return respond(r, id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* "0", "-1 ECONNREFUSED", with ", not delivered" when the caller had gone. */
static void answer_text(char *out, size_t cap, int err, bool delivered)
{
	if (err)
		errno_answer(out, cap, err);
	else
		str_copy(out, cap, "0");
	if (!delivered)
		str_append(out, cap, ", not delivered");
}

#define NOT_DELIVERED_BY "the caller was interrupted (signal) or gone before the answer"

/* "3594", "3594, not delivered": a send's count */
static void answer_count(char *out, size_t cap, long long sent, bool delivered)
{
	snprintf(out, cap, "%lld", sent);
	if (!delivered)
		str_append(out, cap, ", not delivered");
}

/* An errno that is the network's answer (no route, no one there), not
 * the call's own fault (EINVAL, EFAULT, EBADF, EISCONN...) */
static bool net_errno(int err)
{
	return err == ENETUNREACH || err == EHOSTUNREACH || err == ECONNREFUSED || err == EADDRNOTAVAIL ||
	       err == ETIMEDOUT || err == ENETDOWN || err == EHOSTDOWN || err == ECONNRESET;
}

/* The answer the caller got for a call the lab made: sent is a send's
 * count (-1 for a connect(), whose success is 0). */
static void call_answered(struct run *r, struct lab_trace *t, const char *call, int err, long long sent, bool attacker,
                          bool delivered)
{
	char answer[sizeof t->e[0].answer];
	answer_text(answer, sizeof answer, err, delivered);
	if (!err && sent >= 0)
		answer_count(answer, sizeof answer, sent, delivered);
	trace_add(t, call, answer, delivered ? connect_by(r, err, attacker) : NOT_DELIVERED_BY);
	/* an attempt No-network's namespace met (a restarted call comes
	 * again): a refusal of the network's, not a bad argument's */
	if (net_errno(err) && delivered && r->layer.network.netns)
		t->net_refused++;
}

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* Socket kinds whose connect() the lab may make: TCP and MPTCP (a
 * handshake the lab can abort with shutdown() at the end of the run, see
 * connect_stop: a blocking connect() or Fast Open send of either, stuck
 * in SYN_SENT, wakes with ECONNRESET or ECONNABORTED), and datagram or
 * raw sockets, whose connect() never waits. Any other protocol (SCTP,
 * ...) goes on as the caller's own call. */
static bool lab_can_call(int fd, int family)
{
	int domain = -1, type = -1, proto = -1;
	socklen_t l1 = sizeof domain, l2 = sizeof type, l3 = sizeof proto;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &l1) < 0 || domain != family ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l3) < 0)
		return false;
	return type == SOCK_DGRAM || type == SOCK_RAW ||
	       (type == SOCK_STREAM && (proto == IPPROTO_TCP || proto == IPPROTO_MPTCP));
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* A pidfd for the calling thread: req->pid is its TID, and pidfd_open()
 * takes a TID that is no group leader only with PIDFD_THREAD (Linux 6.9).
 * Before that (a non-leader TID alone is EINVAL or ENOENT, by kernel),
 * the thread group's leader (Tgid in /proc/TID/status): its
 * descriptor table is the caller's unless the thread was cloned without
 * CLONE_FILES, and then the socket taken is still one of the sandbox's
 * own (see caller_socket). The notification is checked after the take, so
 * a TID reused meanwhile is caught there. */
static int caller_pidfd(unsigned tid)
{
	int pfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (pfd >= 0 || errno != EINVAL) /* EINVAL: a kernel without the flag */
		return pfd;
	char path[64], line[128];
	snprintf(path, sizeof path, "/proc/%u/status", tid);
	FILE *f = fopen(path, "re");
	unsigned tgid = 0;
	while (f && !tgid && fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %u", &tgid) != 1)
			tgid = 0;
	if (f)
		fclose(f);
	return tgid ? (int)syscall(SYS_pidfd_open, tgid, 0) : -1;
}

/* The task's LSM label (AppArmor, SELinux, Smack): /proc/.../attr/current,
 * or "" where no LSM keeps one (the read fails, as on this kind of host). */
static void lsm_label(const char *path, char *out, size_t cap)
{
	out[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, out, cap - 1);
	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = '\0';
}

/* True when the caller's LSM label is the lab's own. AppArmor and SELinux
 * check the task that calls connect(), not the socket: a snippet that
 * moved itself into a stricter profile (change_profile, setcon) must not
 * see its connect() made under the lab's looser one. */
static bool same_lsm_label(unsigned tid)
{
	char path[64], theirs[256], ours[256];
	snprintf(path, sizeof path, "/proc/%u/attr/current", tid);
	lsm_label(path, theirs, sizeof theirs);
	lsm_label("/proc/thread-self/attr/current", ours, sizeof ours);
	return strcmp(theirs, ours) == 0;
}

/* The caller's socket, duplicated into the lab (pidfd_getfd), or -1. The
 * caller's fd N is read at the lab's pace, so it is taken twice and must
 * name the same socket both times, and the notification is checked after
 * both: the caller is still the one stopped in this call. A thread of the
 * caller's that swaps the slot before the first take still wins (nothing
 * outside can close that window): the call is then made on whatever
 * socket fd N names when the lab takes it, one of the sandbox's own, so it
 * grants nothing the snippet could not do itself (docs/layers.md). */
static int caller_socket(const struct run *r, const struct seccomp_notif *req, int family)
{
	int pfd = caller_pidfd(req->pid);
	int dup = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, (int)req->data.args[0], 0);
	int again = dup < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, (int)req->data.args[0], 0);
	if (pfd >= 0)
		close(pfd);
	bool ok = dup >= 0 && again >= 0 && same_file(dup, again) && lab_can_call(dup, family) &&
	          same_lsm_label(req->pid) && seccomp_notify_id_valid(r->tr.notify_fd, req->id) == 0;
	if (again >= 0)
		close(again);
	if (!ok && dup >= 0) {
		close(dup);
		dup = -1;
	}
	return dup;
}

/* A stopped call the lab does not make: it goes on as the caller's own
 * (CONTINUE), and the trace says its result is not the lab's to see. No
 * layer is credited with it: the kernel may have refused it for a reason
 * of its own (bad control data, a bad pointer) before any route was
 * looked up (red team round 8). */
static void own_call(struct run *r, struct lab_trace *t, const struct seccomp_notif *req, const char *call)
{
	bool delivered = respond(r, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	trace_add(t, call, delivered ? "?" : "?, not delivered",
	          delivered ? "its own call, result not observed by the lab" : NOT_DELIVERED_BY);
}

/* The thread: the caller's call, as the caller would make it. No
 * O_NONBLOCK of the lab's: the file's mode is the caller's own (shared
 * with the duplicate), so a blocking socket waits here, a restarted call on
 * a socket already connecting waits again as the kernel's own would, and a
 * non-blocking one returns EINPROGRESS at once. */
static void *connect_thread(void *arg)
{
	struct run_connect *c = arg;
	if (c->send) {
		/* the caller's flags: MSG_NOSIGNAL only keeps an EPIPE's SIGPIPE
		 * from the lab */
		ssize_t k = sendto(c->fd, c->buf, c->n, c->flags | MSG_NOSIGNAL, (struct sockaddr *)&c->sa, c->len);
		c->err = k < 0 ? errno : 0;
		c->sent = k < 0 ? 0 : k;
	} else {
		c->err = connect(c->fd, (struct sockaddr *)&c->sa, c->len) < 0 ? errno : 0;
	}
	atomic_store(&c->done, 1);
	char byte = 1;
	(void)!write(c->wake_fd, &byte, 1); /* full: the loop has a byte to wake on already */
	return NULL;
}

static bool connect_start(struct run *r, struct run_connect *c)
{
	if (r->tr.connect_wake[0] < 0 && pipe2(r->tr.connect_wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return false;
	c->wake_fd = r->tr.connect_wake[1];
	atomic_store(&c->done, 0);
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return false;
	pthread_attr_setstacksize(&attr, (size_t)256 * 1024);
	/* the thread takes no signal: one meant for the lab (the user's ^C,
	 * SIGCHLD) must not cut its connect() short and tell the caller EINTR */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&c->thread, &attr, connect_thread, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	c->thread_started = e == 0;
	return e == 0;
}

/* A thread still in connect() when the run is over (every caller gone):
 * shutdown() aborts the handshake (SYN_SENT -> CLOSE, the waiter wakes
 * with ECONNRESET) without a signal to anyone. Repeated, because the
 * thread may not have reached connect() yet at the first one; bounded,
 * then joined. */
static void connect_stop(struct run_connect *c)
{
	for (int i = 0; i < 1000 && !atomic_load(&c->done); i++) {
		shutdown(c->fd, SHUT_RDWR);
		if (!atomic_load(&c->done))
			poll(NULL, 0, 2);
	}
}

static void connect_free(struct run_connect *c)
{
	if (c->thread_started)
		pthread_join(c->thread, NULL);
	c->thread_started = false;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
	c->send = false;
	c->state = CONNECT_FREE;
}

static struct run_connect *free_slot(struct run *r)
{
	for (int i = 0; i < RUN_CONNECTS_MAX; i++)
		if (r->tr.connects[i].state == CONNECT_FREE)
			return &r->tr.connects[i];
	return NULL;
}

/* An address that is the lab's attacker listener's */
static bool is_attacker(const struct run *r, const struct sockaddr_storage *sa)
{
	return sa->ss_family == AF_INET && r->have_decoys &&
	       ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
	       ntohs(((const struct sockaddr_in *)sa)->sin_port) == r->d.port;
}

/* A connect() the filter stopped. Only AF_INET and AF_INET6 are made by
 * the lab: their address means the same from any process, and the socket
 * carries the sandbox's network namespace. An AF_UNIX path would resolve
 * in the lab's filesystem with the lab's credentials, so any other family
 * (and any socket the lab cannot reach, or past RUN_CONNECTS_MAX calls
 * under way) goes on as the caller's own call (CONTINUE), logged with its
 * result unobserved. The lab's call runs on a thread (connect_thread): the
 * event loop never waits on a handshake, whatever the socket's mode. */
static void trace_connect(struct run *r, struct lab_trace *t, const struct seccomp_notif *req)
{
	struct sockaddr_storage sa = {0};
	socklen_t len = (socklen_t)(req->data.args[2] < sizeof sa ? req->data.args[2] : sizeof sa);
	char path[64], where[96] = "?", call[sizeof t->e[0].call];
	snprintf(path, sizeof path, "/proc/%u/mem", req->pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	bool have = mem >= 0 && seccomp_notify_id_valid(r->tr.notify_fd, req->id) == 0 &&
	            pread(mem, &sa, len, (off_t)req->data.args[1]) == (ssize_t)len;
	if (mem >= 0)
		close(mem);
	if (have)
		describe_sockaddr(&sa, len, where, sizeof where);
	else
		str_copy(where, sizeof where, "an address the lab cannot read");
	snprintf(call, sizeof call, "connect(%s)", where);
	/* an address longer than any the kernel takes: its own call says so */
	bool inet = have && req->data.args[2] <= sizeof sa && (sa.ss_family == AF_INET || sa.ss_family == AF_INET6);
	bool attacker = inet && is_attacker(r, &sa);
	struct run_connect *c = inet ? free_slot(r) : NULL;
	int dup = c ? caller_socket(r, req, sa.ss_family) : -1;
	if (dup >= 0) {
		c->state = CONNECT_CALLING;
		c->id = req->id;
		c->fd = dup;
		c->attacker = attacker;
		c->sa = sa;
		c->len = len;
		str_copy(c->call, sizeof c->call, call);
		if (connect_start(r, c))
			return; /* answered when the thread is done (trace_connects_ready) */
		connect_free(c);
	}
	own_call(r, t, req, call);
}

/* ---------------- sends with an address: the lab makes them too ---------------- */

/* A datagram the lab sends for the caller, at most this big (UDP's own
 * limit); a Fast Open send on a stream, at most SEND_STREAM_MAX. Bigger
 * ones, and more than SEND_IOV_MAX pieces (the kernel's own UIO_MAXIOV),
 * go on as the caller's own call. */
#define SEND_DGRAM_MAX  65536
#define SEND_STREAM_MAX ((size_t)1024 * 1024)
#define SEND_IOV_MAX    1024
#define SEND_CTL_MAX    512 /* control data the lab passes on: a few small messages */

/* How the lab makes a send with an address on the caller's socket */
enum send_kind {
	SEND_OWN,      /* not the lab's to make: it goes on as the caller's own */
	SEND_DATAGRAM, /* a datagram or raw socket: sent at once, never waiting */
	SEND_FASTOPEN, /* TCP or MPTCP with MSG_FASTOPEN: a connect() and a send, on a thread */
};

/* What a stopped send asks, as read from the caller's memory */
struct send_req {
	struct sockaddr_storage sa;
	socklen_t len;
	int flags;
	bool attacker;
	char *buf; /* the bytes, malloc'd, n of them */
	/* the caller's control data, passed on (ctl_ok: every message one of
	 * ctl_allowed's), ctl_len bytes of it */
	char ctl[SEND_CTL_MAX] __attribute__((aligned(__alignof__(struct cmsghdr))));
	size_t ctl_len;
	size_t n;
	char call[128];
};

/* The caller's /proc/PID/mem, once the notification says the pid is still
 * the caller stopped in this very call; -1 otherwise. */
static int caller_mem(const struct run *r, const struct seccomp_notif *req, int mode)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%u/mem", req->pid);
	int mem = open(path, mode | O_CLOEXEC);
	if (mem >= 0 && seccomp_notify_id_valid(r->tr.notify_fd, req->id) != 0) {
		close(mem);
		mem = -1;
	}
	return mem;
}

static bool read_at(int mem, unsigned long long addr, void *dst, size_t n)
{
	return n == 0 || (mem >= 0 && pread(mem, dst, n, (off_t)addr) == (ssize_t)n);
}

/* The address at addr (alen bytes), shown in where; true for AF_INET or
 * AF_INET6 no longer than the kernel takes (a longer one: its own call
 * says EINVAL). */
static bool read_address(const struct run *r, int mem, unsigned long long addr, unsigned long long alen,
                         struct send_req *s, char *where, size_t cap)
{
	s->len = (socklen_t)(alen < sizeof s->sa ? alen : sizeof s->sa);
	if (!addr || !s->len || !read_at(mem, addr, &s->sa, s->len))
		return false;
	describe_sockaddr(&s->sa, s->len, where, cap);
	bool inet = alen <= sizeof s->sa && (s->sa.ss_family == AF_INET || s->sa.ss_family == AF_INET6);
	s->attacker = inet && is_attacker(r, &s->sa);
	return inet;
}

/* What the lab may do with a send on the caller's socket fd (-1: none):
 * lab_can_call let through only TCP and MPTCP of the streams. */
static enum send_kind send_kind_of(int fd, int flags)
{
	int type = -1;
	socklen_t tl = sizeof type;
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
		return SEND_OWN;
	if (type == SOCK_DGRAM || type == SOCK_RAW)
		return SEND_DATAGRAM;
	/* a stream without MSG_FASTOPEN ignores the address (connected) or
	 * says EPIPE (not): the namespace decides nothing there */
	return type == SOCK_STREAM && (flags & MSG_FASTOPEN) ? SEND_FASTOPEN : SEND_OWN;
}

/* The bytes of cnt pieces of the caller's, in one buffer of the lab's
 * (a datagram or a stream's bytes are the same, whole or in pieces); NULL
 * past cap or where the caller's own call would fault (EFAULT). */
static char *read_pieces(int mem, const struct iovec *iov, size_t cnt, size_t cap, size_t *n_out)
{
	size_t n = 0;
	for (size_t i = 0; i < cnt; i++) {
		if (iov[i].iov_len > cap - n)
			return NULL;
		n += iov[i].iov_len;
	}
	char *buf = malloc(n ? n : 1);
	size_t at = 0;
	for (size_t i = 0; buf && i < cnt; i++) {
		if (!read_at(mem, (unsigned long long)(uintptr_t)iov[i].iov_base, buf + at, iov[i].iov_len)) {
			free(buf);
			return NULL;
		}
		at += iov[i].iov_len;
	}
	*n_out = n;
	return buf;
}

static size_t send_cap(enum send_kind kind)
{
	return kind == SEND_DATAGRAM ? SEND_DGRAM_MAX : SEND_STREAM_MAX;
}

/* Makes the caller's send on fd (its socket, duplicated; -1: none) and
 * answers it with the kernel's result: a datagram at once, without
 * waiting (MSG_DONTWAIT: a full buffer sends nothing, and the call goes on
 * as the caller's own, to wait as it would have); a Fast Open send on a
 * connect() slot's thread, as a connect() is. Takes fd and s->buf. */
static void send_for_caller(struct run *r, struct lab_trace *t, const struct seccomp_notif *req, int fd,
                            enum send_kind kind, struct send_req *s)
{
	if (!s->buf)
		kind = SEND_OWN;
	if (kind == SEND_DATAGRAM && seccomp_notify_id_valid(r->tr.notify_fd, req->id) == 0) {
		struct iovec one = {s->buf, s->n};
		struct msghdr m = {.msg_name = &s->sa,
		                   .msg_namelen = s->len,
		                   .msg_iov = &one,
		                   .msg_iovlen = 1,
		                   .msg_control = s->ctl_len ? s->ctl : NULL,
		                   .msg_controllen = s->ctl_len};
		ssize_t sent = sendmsg(fd, &m, s->flags | MSG_DONTWAIT | MSG_NOSIGNAL);
		int err = sent < 0 ? errno : 0;
		if (err != EAGAIN && err != EWOULDBLOCK) {
			close(fd);
			free(s->buf);
			bool delivered = respond_val(r, req->id, err, sent, 0);
			/* a datagram: the attacker's listener takes TCP only */
			call_answered(r, t, s->call, err, sent, false, delivered);
			return;
		}
	}
	struct run_connect *c = kind == SEND_FASTOPEN ? free_slot(r) : NULL;
	if (c) {
		c->state = CONNECT_CALLING;
		c->id = req->id;
		c->fd = fd;
		c->attacker = s->attacker;
		c->sa = s->sa;
		c->len = s->len;
		c->send = true;
		c->flags = s->flags;
		c->buf = s->buf;
		c->n = s->n;
		str_copy(c->call, sizeof c->call, s->call);
		if (connect_start(r, c))
			return;  /* answered when the thread is done (trace_connects_ready) */
		connect_free(c); /* closes fd, frees buf */
		fd = -1;
		s->buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	free(s->buf);
	own_call(r, t, req, s->call);
}

/* sendto() with an address: like connect(), the lab makes the call on the
 * caller's own socket, so the answer is the sandbox's network's. */
static void trace_sendto(struct run *r, struct lab_trace *t, const struct seccomp_notif *req)
{
	struct send_req s = {.flags = (int)req->data.args[3]};
	size_t n = (size_t)req->data.args[2];
	char where[96] = "?";
	int mem = caller_mem(r, req, O_RDONLY);
	bool inet = read_address(r, mem, req->data.args[4], req->data.args[5], &s, where, sizeof where);
	snprintf(s.call, sizeof s.call, "sendto(%s, %zu bytes%s)", where, n,
	         s.flags & MSG_FASTOPEN ? ", MSG_FASTOPEN" : "");
	int fd = inet ? caller_socket(r, req, s.sa.ss_family) : -1;
	enum send_kind kind = send_kind_of(fd, s.flags);
	struct iovec one = {(void *)(uintptr_t)req->data.args[1], n};
	if (kind != SEND_OWN)
		s.buf = read_pieces(mem, &one, 1, send_cap(kind), &s.n);
	if (mem >= 0)
		close(mem);
	send_for_caller(r, t, req, fd, kind, &s);
}

/* Control data the lab may pass on with a datagram it sends for the
 * caller: what no privilege decides (SO_MARK, IPv6's hop options and a
 * source address are checked against the sender's capabilities, and the
 * lab's are not the caller's). The kernel checks the values itself, on
 * the lab's call as on the caller's (IP_TTL 0: EINVAL). */
static bool ctl_allowed(int level, int type)
{
	return (level == IPPROTO_IP && (type == IP_TOS || type == IP_TTL)) ||
	       (level == IPPROTO_IPV6 && (type == IPV6_TCLASS || type == IPV6_HOPLIMIT)) ||
	       (level == IPPROTO_UDP && type == 103 /* UDP_SEGMENT */);
}

/* The caller's control data into s->ctl: true when it is all readable,
 * small and every message of it one ctl_allowed passes on. */
static bool read_control(int mem, const struct msghdr *m, struct send_req *s)
{
	if (m->msg_controllen > sizeof s->ctl ||
	    !read_at(mem, (unsigned long long)(uintptr_t)m->msg_control, s->ctl, m->msg_controllen))
		return false;
	s->ctl_len = m->msg_controllen;
	struct msghdr mine = {.msg_control = s->ctl, .msg_controllen = s->ctl_len};
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mine); c; c = CMSG_NXTHDR(&mine, c))
		if (!ctl_allowed(c->cmsg_level, c->cmsg_type))
			return false;
	return true;
}

/* sendmsg(): the address is in the caller's struct msghdr. Without one
 * (a connected socket, a socketpair: most sendmsg() calls) the call goes
 * on at once, unlogged: the namespace decides nothing there. With one, as
 * sendto(), control data and all when ctl_allowed passes all of it on a
 * datagram; other control data (SO_MARK's kind, checked against the
 * caller's privileges, not the lab's) goes on as the caller's own call,
 * its result unseen and credited to no layer. */
static void trace_sendmsg(struct run *r, struct lab_trace *t, const struct seccomp_notif *req)
{
	struct msghdr m;
	int mem = caller_mem(r, req, O_RDONLY);
	if (!read_at(mem, req->data.args[1], &m, sizeof m) || !m.msg_name || !m.msg_namelen) {
		/* unreadable: the caller's own call says EFAULT (memory only the
		 * caller reads, memfd_secret's, is refused where the trace
		 * listens: seccomp_filter.c) */
		if (mem >= 0)
			close(mem);
		respond(r, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	struct send_req s = {.flags = (int)req->data.args[2]};
	char where[96] = "?", bytes[40] = "";
	bool inet =
	    read_address(r, mem, (unsigned long long)(uintptr_t)m.msg_name, m.msg_namelen, &s, where, sizeof where);
	bool ctl = m.msg_controllen > 0;
	bool ctl_ok = !ctl || read_control(mem, &m, &s);
	int fd = inet && ctl_ok ? caller_socket(r, req, s.sa.ss_family) : -1;
	enum send_kind kind = send_kind_of(fd, s.flags);
	if (ctl && kind != SEND_DATAGRAM)
		kind = SEND_OWN; /* a Fast Open send carries no control data of the lab's */
	struct iovec *iov =
	    kind != SEND_OWN && m.msg_iovlen <= SEND_IOV_MAX ? calloc(m.msg_iovlen + 1, sizeof *iov) : NULL;
	if (iov && read_at(mem, (unsigned long long)(uintptr_t)m.msg_iov, iov, m.msg_iovlen * sizeof *iov))
		s.buf = read_pieces(mem, iov, m.msg_iovlen, send_cap(kind), &s.n);
	free(iov);
	if (mem >= 0)
		close(mem);
	if (s.buf)
		snprintf(bytes, sizeof bytes, ", %zu bytes", s.n);
	snprintf(s.call, sizeof s.call, "sendmsg(%s", where);
	str_append(s.call, sizeof s.call, "%s%s%s)", bytes, m.msg_controllen ? ", control data" : "",
	           s.flags & MSG_FASTOPEN ? ", MSG_FASTOPEN" : "");
	send_for_caller(r, t, req, fd, kind, &s);
}

/* sendmmsg()'s messages, as the lab read them */
struct mmsg_part {
	struct sockaddr_storage sa;
	socklen_t len; /* 0: no address */
	char *buf;
	size_t n;
};

/* Reads the messages at vec, in order, up to the first the lab cannot
 * make as the kernel would (control data, an address it cannot take,
 * memory the caller's own call would fault on) or that would take the
 * bytes past SEND_STREAM_MAX: how many it read. The lab sends those, and
 * the call says so, as a kernel's sendmmsg() may send fewer than asked
 * (red team round 7: 1.4 MiB in one call went on unseen). */
static unsigned read_mmsg(int mem, const struct mmsghdr *mv, unsigned vlen, struct mmsg_part *p)
{
	size_t total = 0;
	for (unsigned i = 0; i < vlen; i++) {
		const struct msghdr *m = &mv[i].msg_hdr;
		if (m->msg_controllen || m->msg_iovlen > SEND_IOV_MAX || m->msg_namelen > sizeof p[i].sa)
			return i;
		p[i].len = m->msg_name ? m->msg_namelen : 0;
		if (!read_at(mem, (unsigned long long)(uintptr_t)m->msg_name, &p[i].sa, p[i].len))
			return i;
		struct iovec *iov = calloc(m->msg_iovlen + 1, sizeof *iov);
		bool ok =
		    iov && read_at(mem, (unsigned long long)(uintptr_t)m->msg_iov, iov, m->msg_iovlen * sizeof *iov);
		p[i].buf = ok ? read_pieces(mem, iov, m->msg_iovlen, SEND_DGRAM_MAX, &p[i].n) : NULL;
		free(iov);
		if (!p[i].buf || (total += p[i].n) > SEND_STREAM_MAX) {
			free(p[i].buf);
			p[i].buf = NULL;
			return i;
		}
	}
	return vlen;
}

/* The messages sent, one by one as the kernel's sendmmsg() does, up to
 * the first error; each sent one's msg_len written into the caller's
 * array, as the kernel's own call leaves it. *err: the first error. */
static unsigned send_mmsg(const struct run *r, const struct seccomp_notif *req, int fd, const struct mmsg_part *p,
                          unsigned vlen, int *err)
{
	unsigned sent = 0;
	unsigned int lens[SEND_IOV_MAX];
	*err = 0;
	for (; sent < vlen; sent++) {
		ssize_t k = sendto(fd, p[sent].buf, p[sent].n, (int)req->data.args[3] | MSG_DONTWAIT | MSG_NOSIGNAL,
		                   p[sent].len ? (const struct sockaddr *)&p[sent].sa : NULL, p[sent].len);
		if (k < 0) {
			*err = errno;
			break;
		}
		lens[sent] = (unsigned int)k;
	}
	int mem = sent ? caller_mem(r, req, O_WRONLY) : -1;
	for (unsigned i = 0; mem >= 0 && i < sent; i++)
		(void)!pwrite(
		    mem, &lens[i], sizeof lens[i],
		    (off_t)(req->data.args[1] + i * sizeof(struct mmsghdr) + offsetof(struct mmsghdr, msg_len)));
	if (mem >= 0)
		close(mem);
	return sent;
}

/* sendmmsg(): each message's address is in its own struct msghdr. None
 * with an address: it goes on at once, unlogged. Else, on a datagram or
 * raw socket whose messages the lab can read whole, the lab sends them
 * as the kernel would (stopping at the first error, which is the call's
 * answer when it was the first message, the count otherwise); any other
 * goes on as the caller's own. */
static void trace_sendmmsg(struct run *r, struct lab_trace *t, const struct seccomp_notif *req)
{
	unsigned vlen = req->data.args[2] < SEND_IOV_MAX ? (unsigned)req->data.args[2] : SEND_IOV_MAX;
	int mem = caller_mem(r, req, O_RDONLY);
	struct mmsghdr *mv = mem >= 0 && vlen ? calloc(vlen, sizeof *mv) : NULL;
	unsigned named = 0;
	if (mv && read_at(mem, req->data.args[1], mv, vlen * sizeof *mv))
		while (named < vlen && (!mv[named].msg_hdr.msg_name || !mv[named].msg_hdr.msg_namelen))
			named++;
	if (!mv || named == vlen) {
		free(mv);
		if (mem >= 0)
			close(mem);
		respond(r, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	struct send_req s = {.flags = (int)req->data.args[3]};
	char where[96] = "?";
	bool inet = read_address(r, mem, (unsigned long long)(uintptr_t)mv[named].msg_hdr.msg_name,
	                         mv[named].msg_hdr.msg_namelen, &s, where, sizeof where);
	int fd = inet ? caller_socket(r, req, s.sa.ss_family) : -1;
	struct mmsg_part *p = calloc(vlen, sizeof *p);
	unsigned n = p && send_kind_of(fd, s.flags) == SEND_DATAGRAM ? read_mmsg(mem, mv, vlen, p) : 0;
	close(mem);
	size_t total = 0;
	for (unsigned i = 0; i < n; i++)
		total += p[i].n;
	snprintf(s.call, sizeof s.call, "sendmmsg(%s", where);
	str_append(s.call, sizeof s.call, ", %u messages", vlen);
	if (n == vlen)
		str_append(s.call, sizeof s.call, ", %zu bytes", total);
	else if (n)
		str_append(s.call, sizeof s.call, ", the first %u made by the lab: %zu bytes", n, total);
	str_append(s.call, sizeof s.call, ")");
	int err = EAGAIN;
	unsigned sent = 0;
	if (n && seccomp_notify_id_valid(r->tr.notify_fd, req->id) == 0)
		sent = send_mmsg(r, req, fd, p, n, &err);
	for (unsigned i = 0; p && i < vlen; i++)
		free(p[i].buf);
	free(p);
	free(mv);
	if (fd >= 0)
		close(fd);
	if (!sent && (err == EAGAIN || err == EWOULDBLOCK)) {
		own_call(r, t, req, s.call);
		return;
	}
	bool delivered = respond_val(r, req->id, sent ? 0 : err, sent, 0);
	call_answered(r, t, s.call, sent ? 0 : err, sent, false, delivered);
	/* a later message refused: the call says how many went, as the
	 * kernel's does, but the namespace met the attempt all the same */
	if (sent && net_errno(err) && delivered && r->layer.network.netns)
		t->net_refused++;
}

/* A NUL-terminated path of the caller's, whole: read a page at a time (a
 * string near the end of its mapping must not fail for the bytes after
 * it). False if it is not there or longer than cap. */
static bool read_whole_string(int mem, unsigned long long addr, char *out, size_t cap)
{
	size_t got = 0;
	while (addr && got + 1 < cap) {
		size_t page = 4096 - (size_t)((addr + got) & 4095), want = cap - 1 - got;
		ssize_t k = pread(mem, out + got, want < page ? want : page, (off_t)(addr + got));
		if (k <= 0)
			return false;
		if (memchr(out + got, '\0', (size_t)k))
			return true;
		got += (size_t)k;
	}
	return false;
}

/* The path a stopped call names, absolute and plain: a relative one is
 * taken from the folder it is relative to, as /proc/PID/cwd or
 * /proc/PID/fd/N names it (the caller's own view). */
static bool call_path(const struct run *r, const struct seccomp_notif *req, const struct lab_seccomp_path_call *pc,
                      char *out, size_t cap)
{
	char path[64], rel[PATH_MAX];
	snprintf(path, sizeof path, "/proc/%u/mem", req->pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = mem >= 0 && seccomp_notify_id_valid(r->tr.notify_fd, req->id) == 0 &&
	          read_whole_string(mem, req->data.args[pc->path_arg], rel, sizeof rel);
	if (mem >= 0)
		close(mem);
	if (!ok)
		return false;
	if (rel[0] == '/') {
		str_copy(out, cap, rel);
	} else {
		int dirfd = pc->dirfd_arg < 0 ? AT_FDCWD : (int)req->data.args[pc->dirfd_arg];
		char link[64], base[PATH_MAX];
		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof link, "/proc/%u/cwd", req->pid);
		else
			snprintf(link, sizeof link, "/proc/%u/fd/%d", req->pid, dirfd);
		ssize_t n = readlink(link, base, sizeof base - 1);
		if (n <= 0 || base[0] != '/' || seccomp_notify_id_valid(r->tr.notify_fd, req->id) != 0)
			return false;
		base[n] = '\0';
		if (pathf(out, cap, "%s/%s", base, rel) < 0)
			return false;
	}
	path_lexical(out);
	return true;
}

/* ", O_WRONLY|O_CREAT|O_TRUNC" for an open's flags */
static void open_flags(char *out, size_t cap, unsigned long f)
{
	static const struct named_bit bits[] = {{O_CREAT, "O_CREAT"},
	                                        {O_EXCL, "O_EXCL"},
	                                        {O_TRUNC, "O_TRUNC"},
	                                        {O_APPEND, "O_APPEND"},
	                                        {O_NOFOLLOW, "O_NOFOLLOW"}};
	unsigned long acc = f & O_ACCMODE;
	snprintf(out, cap, ", %s", acc == O_WRONLY ? "O_WRONLY" : acc == O_RDWR ? "O_RDWR" : "O_RDONLY");
	for (size_t i = 0; i < sizeof bits / sizeof *bits; i++)
		if (f & bits[i].bit)
			str_append(out, cap, "|%s", bits[i].name);
}

/* A call that creates or replaces something at a path (seccomp_filter.c's
 * path calls): it goes on as the caller's own, in the caller's own mount
 * namespace, whatever it names; the lab only looks where it aims. Aimed at
 * the host target or a folder on the way to it (inside the run's folder,
 * whose name only LAB_HOST_TARGET tells), it is the takeover's attempt,
 * and the private root is what answers it: counted. Elsewhere in the run's
 * folder it is logged as missing the target; anywhere else, not logged. */
/* False when the kernel refuses the call for its arguments (EINVAL,
 * E2BIG) before it looks the path up: then no private root answered it
 * (red team round 8: truncate(path, -1), utimensat()'s unknown flag). */
static bool path_args_valid(const struct lab_seccomp_path_call *pc, const unsigned long long *a)
{
	const unsigned long long at = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH;
	const char *n = pc->name;
	if (!strcmp(n, "truncate"))
		return (long long)a[1] >= 0;
	if (!strcmp(n, "utimensat") || !strcmp(n, "fchmodat2"))
		return !(a[3] & ~at);
	if (!strcmp(n, "fchownat"))
		return !(a[4] & ~at);
	if (!strcmp(n, "setxattr") || !strcmp(n, "lsetxattr"))
		return !(a[4] & ~(unsigned long long)(XATTR_CREATE | XATTR_REPLACE)) && a[3] <= XATTR_SIZE_MAX;
	if (!strcmp(n, "setxattrat") || !strcmp(n, "removexattrat"))
		return !(a[2] & ~at);
	return true;
}

static void trace_path(struct run *r, struct lab_trace *t, const struct seccomp_notif *req,
                       const struct lab_seccomp_path_call *pc)
{
	char where[PATH_MAX];
	bool have = r->have_decoys && path_args_valid(pc, req->data.args) && call_path(r, req, pc, where, sizeof where);
	bool delivered = respond(r, req->id, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	if (!have || !path_is_or_holds(r->d.dir, where) || !strcmp(where, r->d.dir))
		return;
	/* the target or a folder on its way, or a new name in one of those
	 * folders inside the host folder (a cron entry of its own beside the
	 * target, /etc/hostname): on the host it would have been written */
	char parent[PATH_MAX];
	str_copy(parent, sizeof parent, where);
	char *slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	bool aimed = path_is_or_holds(where, r->d.host_target) ||
	             (slash && path_is_or_holds(r->d.host, parent) && path_is_or_holds(parent, r->d.host_target));
	char shown[64], flags[40] = "", call[sizeof t->e[0].call];
	quoted(shown, sizeof shown, where + strlen(r->d.dir) + 1);
	if (pc->flags_arg >= 0)
		open_flags(flags, sizeof flags, (unsigned long)req->data.args[pc->flags_arg]);
	snprintf(call, sizeof call, "%.12s(\"<run>/%s\"%s)", pc->name, shown, flags);
	trace_add(t, call, delivered ? "?" : "?, not delivered",
	          !delivered ? NOT_DELIVERED_BY
	          : aimed    ? "its own call, in the private root (Isolation): the host's not in view"
	                     : "its own call: not the host target nor a folder on its way");
	if (aimed && delivered)
		t->target_touches++;
}

/* How a non-blocking connect() the caller waits for ended, without
 * touching what the caller will read: "-1 EINPROGRESS, then connected". */
static const char *nonblocking_outcome(int fd, bool ended)
{
	struct tcp_info ti;
	socklen_t tl = sizeof ti;
	if (!ended)
		return "-1 EINPROGRESS, then ?";
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) < 0)
		return "-1 EINPROGRESS, then ?";
	if (ti.tcpi_state == TCP_SYN_SENT)
		return "-1 EINPROGRESS, then ?";
	return ti.tcpi_state == TCP_CLOSE ? "-1 EINPROGRESS, then failed" : "-1 EINPROGRESS, then connected";
}

/* A thread is out of connect() (or was stopped: the run is over): the
 * caller gets the kernel's answer. EINPROGRESS (a non-blocking socket, or
 * SO_SNDTIMEO ran out) leaves the lab watching how the handshake ends. */
/* The socket the lab connected for a caller no longer waiting: noted, or
 * (take) looked for and forgotten. Its caller restarts the call, and the
 * kernel's own connect() would have found the handshake done and said 0:
 * the caller never learnt of the lab's success, so EISCONN would be a lie. */
static bool connected_unseen(struct run *r, int fd, bool take)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return false;
	for (int i = 0; i < r->tr.n_connected_unseen; i++)
		if (r->tr.connected_unseen[i].dev == st.st_dev && r->tr.connected_unseen[i].ino == st.st_ino) {
			if (take)
				r->tr.connected_unseen[i] = r->tr.connected_unseen[--r->tr.n_connected_unseen];
			return true;
		}
	if (take || r->tr.n_connected_unseen >= RUN_CONNECTS_MAX)
		return false;
	r->tr.connected_unseen[r->tr.n_connected_unseen].dev = st.st_dev;
	r->tr.connected_unseen[r->tr.n_connected_unseen++].ino = st.st_ino;
	return true;
}

/* A connect() the lab made that found the socket connected (EISCONN) while
 * an older call of the lab's on the same socket is not yet answered: that
 * older one made the connection, and its caller may have gone (a signal)
 * and restarted into this one; the older is answered first, so that this
 * one learns whether its caller ever heard of the success. Slots are not
 * in the order of the calls, and the two threads end in either order. */
static bool older_on_same_socket(const struct run *r, const struct run_connect *c)
{
	struct stat a, b;
	if (c->send || c->err != EISCONN || fstat(c->fd, &a) < 0)
		return false;
	for (int i = 0; i < RUN_CONNECTS_MAX; i++) {
		const struct run_connect *o = &r->tr.connects[i];
		if (o != c && o->state == CONNECT_CALLING && !o->send && o->id < c->id && fstat(o->fd, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return true;
	}
	return false;
}

static void connect_called(struct run *r, struct lab_trace *t, struct run_connect *c, bool stopped)
{
	pthread_join(c->thread, NULL);
	c->thread_started = false;
	if (stopped) {
		trace_add(t, c->call, "?", "no answer: the run ended during the handshake");
		connect_free(c);
		return;
	}
	if (!c->send && c->err == EISCONN && connected_unseen(r, c->fd, true))
		c->err = 0;
	bool delivered = respond_val(r, c->id, c->err, c->send ? c->sent : 0, 0);
	if (!c->send && !delivered && c->err == 0)
		connected_unseen(r, c->fd, false);
	if (delivered && c->err == EINPROGRESS) {
		c->state = CONNECT_WATCHING;
		return;
	}
	call_answered(r, t, c->call, c->err, c->send ? c->sent : -1, c->attacker, delivered);
	connect_free(c);
}

static int connects_pass(struct run *r, struct lab_trace *t, bool final, int *deferred)
{
	int done = 0;
	for (int i = 0; i < RUN_CONNECTS_MAX; i++) {
		struct run_connect *c = &r->tr.connects[i];
		if (c->state == CONNECT_CALLING) {
			bool stopped = false;
			if (!atomic_load(&c->done)) {
				if (!final)
					continue;
				connect_stop(c);
				stopped = true;
			}
			if (!stopped && older_on_same_socket(r, c)) {
				(*deferred)++;
				continue;
			}
			connect_called(r, t, c, stopped);
			done++;
			if (c->state != CONNECT_WATCHING)
				continue;
		}
		if (c->state != CONNECT_WATCHING)
			continue;
		/* the caller had its EINPROGRESS and will read SO_ERROR itself:
		 * reading it here would clear it and tell the caller "connected"
		 * for a refused call. TCP_INFO's state does not. */
		struct pollfd p = {c->fd, POLLOUT, 0};
		if (poll(&p, 1, 0) <= 0 && !final)
			continue;
		const char *outcome = nonblocking_outcome(c->fd, p.revents != 0);
		trace_add(t, c->call, outcome, connect_by(r, 0, c->attacker));
		if (r->layer.network.netns && strstr(outcome, "then failed"))
			t->net_refused++;
		connect_free(c);
		done++;
	}
	return done;
}

int trace_connects_ready(struct run *r, struct lab_trace *t, bool final)
{
	char drain[64];
	while (r->tr.connect_wake[0] >= 0 && read(r->tr.connect_wake[0], drain, sizeof drain) > 0)
		;
	int done = 0;
	/* a second pass answers what waited on an older call (older_on_same_socket) */
	for (int pass = 0, more = 1; pass < 2 && more; pass++) {
		more = 0;
		done += connects_pass(r, t, final, &more);
	}
	return done;
}

int trace_connect_poll(const struct run *r, struct pollfd *pfd, int max)
{
	int n = 0;
	if (r->tr.connect_wake[0] >= 0 && n < max)
		pfd[n++] = (struct pollfd){r->tr.connect_wake[0], POLLIN, 0};
	for (int i = 0; i < RUN_CONNECTS_MAX && n < max; i++)
		if (r->tr.connects[i].state == CONNECT_WATCHING)
			pfd[n++] = (struct pollfd){r->tr.connects[i].fd, POLLOUT, 0};
	return n;
}

/* ---------------- the listener ---------------- */

/* The listener only: the connect() calls under way are logged by the
 * final trace_connects_ready (their answers then find nobody). */
static void close_listener(struct run *r)
{
	if (r->tr.notify_fd >= 0)
		close(r->tr.notify_fd);
	r->tr.notify_fd = -1;
	if (r->tr.notify_req || r->tr.notify_resp)
		seccomp_notify_free(r->tr.notify_req, r->tr.notify_resp);
	r->tr.notify_req = r->tr.notify_resp = NULL;
}

int trace_take_listener(struct run *r)
{
	char byte = 0;
	int fd = fd_recv(r->sync[1], &byte);
	if (fd == -EAGAIN)
		return -1;
	/* the socket has done its work either way */
	close(r->sync[1]);
	r->sync[1] = -1;
	if (byte != 'n' || fd < 0) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	if (seccomp_notify_alloc(&req, &resp) < 0) {
		/* nobody could answer: the run gets the kernel's ENOSYS for
		 * every refused call, still refused, and the trace says so */
		close(fd);
		return -1;
	}
	r->tr.notify_fd = fd;
	r->tr.watched = true;
	r->tr.notify_req = req;
	r->tr.notify_resp = resp;
	return 0;
}

int trace_answer(struct run *r, struct lab_trace *t, int max)
{
	int done = 0;
	while (r->tr.notify_fd >= 0 && done < max) {
		struct pollfd p = {r->tr.notify_fd, POLLIN, 0};
		if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN)) {
			if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
				close_listener(r);
				return -1;
			}
			break;
		}
		struct seccomp_notif *req = r->tr.notify_req;
		memset(req, 0, sizeof *req);
		int rc = seccomp_notify_receive(r->tr.notify_fd, req);
		if (rc == -ENOENT || rc == -EINTR)
			continue; /* the caller was interrupted before we took it */
		if (rc < 0) {
			close_listener(r);
			return -1;
		}
		done++;
		if (req->data.nr == SCMP_SYS(connect)) {
			trace_connect(r, t, req);
			continue;
		}
		if (req->data.nr == SCMP_SYS(sendto)) {
			trace_sendto(r, t, req);
			continue;
		}
		if (req->data.nr == SCMP_SYS(sendmsg)) {
			trace_sendmsg(r, t, req);
			continue;
		}
		if (req->data.nr == SCMP_SYS(sendmmsg)) {
			trace_sendmmsg(r, t, req);
			continue;
		}
		/* Resource-limits' watch: it looks, and the kernel answers */
		if (r->tr.watch && r->tr.watch(r, t, req))
			continue;
		const struct lab_seccomp_path_call *pc = lab_seccomp_path_call(req->data.nr);
		if (pc) {
			trace_path(r, t, req, pc);
			continue;
		}
		char call[sizeof t->e[0].call], answer[32];
		describe_call(r->tr.notify_fd, req, call, sizeof call);
		int err = lab_seccomp_refusal_errno(req->data.nr);
		bool delivered = respond(r, req->id, err, 0);
		answer_text(answer, sizeof answer, err, delivered);
		/* socket() and socketpair() are only ever No-network's rules,
		 * merged or not */
		bool net = r->tr.layer == LAYER_NETWORK || req->data.nr == SCMP_SYS(socket) ||
		           req->data.nr == SCMP_SYS(socketpair);
		bool secretmem = lab_seccomp_is_secretmem(req->data.nr);
		bool own = lab_seccomp_is_landlock(req->data.nr) || secretmem || req->data.nr == SCMP_SYS(clone3);
		trace_add(t, call, answer,
		          !delivered                              ? NOT_DELIVERED_BY
		          : lab_seccomp_is_landlock(req->data.nr) ? "seccomp (trace: the lab makes connect() itself)"
		          : secretmem                             ? "seccomp (trace: the lab reads the calls it stops)"
		          : net                                   ? "seccomp (No-network)"
		                                                  : "seccomp (Isolation)");
		/* the attempts a layer met; clone3 and Landlock's calls are libc's
		 * and libraries' own (threads, best-effort sandboxing), and
		 * memfd_secret the trace's own need: none is a layer's */
		if (delivered && !own && net)
			t->net_refused++;
		else if (delivered && !own)
			t->iso_refused++;
	}
	return done;
}

void trace_close(struct run *r)
{
	for (int i = 0; i < RUN_CONNECTS_MAX; i++) {
		struct run_connect *c = &r->tr.connects[i];
		if (c->state == CONNECT_CALLING)
			connect_stop(c);
		if (c->state != CONNECT_FREE)
			connect_free(c);
	}
	for (int i = 0; i < 2; i++)
		if (r->tr.connect_wake[i] >= 0) {
			close(r->tr.connect_wake[i]);
			r->tr.connect_wake[i] = -1;
		}
	close_listener(r);
	if (r->tr.handoff)
		munmap(r->tr.handoff, 4096);
	r->tr.handoff = NULL;
}

/* ---------------- after the run ---------------- */

static const char *limits_on(const struct run *r)
{
	return run_on(r, LAYER_LIMITS) ? " (Resource-limits)" : "";
}

void trace_after_run(const struct run *r, struct lab_evidence *ev)
{
	struct lab_trace *t = &ev->trace;
	const struct lab_limits *lim = &r->cfg->limits;
	char by[96], sig[24];
	/* no filter watched connect(): the lab's attacker listener saw the
	 * connections that reached it. Only those that are this run's: in
	 * the run's own network namespace all of them; on the host's loopback,
	 * where any local process can reach it, a connection counts when it
	 * carried the run's token, or (at least one) when what reached the
	 * listener carried a canary. */
	/* Resource-limits' own filter watches no connect() */
	t->watch_net = r->tr.watched && r->tr.layer != LAYER_LIMITS;
	t->watch_iso = r->tr.watched && run_on(r, LAYER_ISOLATION);
	t->watch_limits = r->tr.watched && r->tr.watch_limits;
	long mine = !r->have_decoys ? 0 : r->d.inside ? r->d.conns : r->d.conns_from_run;
	if (mine == 0 && ev->exfil.attacker_from_run)
		mine = 1;
	if (!t->watch_net && mine > 0) {
		char call[48];
		snprintf(call, sizeof call, "connect(127.0.0.1:%d)", r->d.port);
		trace_add_n(t, call, "0", "accepted by the lab's attacker listener (no filter watched the call)", mine);
	}
	/* pids.events counts every fork the cgroup refused: the kernel's
	 * EAGAIN, seen by the lab afterwards (rlimits leave no such count) */
	if (ev->res.pids_max_events > 0) {
		snprintf(by, sizeof by, "pids.max %ld%s", lim->pids, limits_on(r));
		trace_add_n(t, "fork()", "-1 EAGAIN", by, ev->res.pids_max_events);
	}
	if (!ev->started)
		return;
	/* the lab's own kills: its init ends every process with SIGKILL */
	if (ev->end.timed_out) {
		snprintf(by, sizeof by, "the lab's wall clock %ld ms%s", lim->timeout_ms, limits_on(r));
		trace_add(t, "killed by SIGKILL", "", by);
	} else if (ev->end.safety_net) {
		snprintf(by, sizeof by, "the lab's safety net %ld ms (range)", r->cfg->safety_timeout_ms);
		trace_add(t, "killed by SIGKILL", "", by);
	} else if (ev->res.mem_cap_killed) {
		fmt_bytes(sig, sizeof sig, lim->memory);
		snprintf(by, sizeof by, "the lab's memory cap: the run held over %s%s", sig, limits_on(r));
		trace_add(t, "killed by SIGKILL", "", by);
	} else if (ev->end.aborted) {
		trace_add(t, "killed by SIGKILL", "", "the lab, on the user's abort");
	} else if (ev->end.exit_signal == SIGXCPU && run_on(r, LAYER_LIMITS) &&
	           evidence_rlimit_cpu(ev, lim->cpu_time) == RLIMIT_CPU_SOFT) {
		snprintf(by, sizeof by, "RLIMIT_CPU %ld s%s", lim->cpu_time, limits_on(r));
		trace_add(t, "killed by SIGXCPU", "", by);
	} else if (ev->end.exit_signal == SIGXFSZ) {
		fmt_bytes(sig, sizeof sig, lim->file_size);
		snprintf(by, sizeof by, "RLIMIT_FSIZE %s%s", sig, limits_on(r));
		trace_add(t, "killed by SIGXFSZ", "", by);
	} else if (ev->end.exit_signal == SIGKILL && ev->res.oom_kills > 0) {
		fmt_bytes(sig, sizeof sig, lim->memory);
		snprintf(by, sizeof by, "the cgroup's OOM killer, memory cap %s%s", sig, limits_on(r));
		trace_add(t, "killed by SIGKILL", "", by);
	} else if (ev->end.exit_signal == SIGKILL && run_on(r, LAYER_LIMITS) &&
	           evidence_rlimit_cpu(ev, lim->cpu_time) == RLIMIT_CPU_HARD) {
		snprintf(by, sizeof by, "RLIMIT_CPU's hard limit after %.1f s of its own CPU%s",
		         ev->res.cpu_main_ms / 1000.0, limits_on(r));
		trace_add(t, "killed by SIGKILL", "", by);
	} else if (ev->end.exit_signal) {
		const char *abbrev = sigabbrev_np(ev->end.exit_signal);
		snprintf(sig, sizeof sig, "killed by SIG%s", abbrev ? abbrev : "?");
		trace_add(t, sig, "", "");
	}
}
