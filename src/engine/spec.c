/* spec.c — the run spec's data (see spec.h): the steps the contributors
 * add, what the host has at the top-level folders, and the spec in words. */
#define _GNU_SOURCE
#include "spec.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

struct spec_fs_op *spec_fs_add(struct run_spec *s, int by, enum spec_fs_kind kind, const char *src, const char *dst)
{
	if (s->n_fs >= SPEC_FS_MAX)
		abort(); /* the list is the lab's own: a full one is a bug, never input */
	struct spec_fs_op *op = &s->fs[s->n_fs++];
	*op = (struct spec_fs_op){.kind = kind, .by = by, .src = src, .dst = dst};
	return op;
}

void spec_rlimit_add(struct run_spec *s, int resource, const char *name, const char *ulimit, unsigned long long soft,
                     unsigned long long hard)
{
	if (s->n_rl >= SPEC_RLIMITS_MAX)
		abort();
	s->rl[s->n_rl++] = (struct spec_rlimit){resource, name, ulimit, soft, hard};
}

bool spec_private_root(const struct run_spec *s)
{
	return s->n_fs > 0 && s->fs[0].kind == SPEC_FS_ROOT;
}

bool spec_has_step(const struct run_spec *s, enum spec_fs_kind kind)
{
	for (int i = 0; i < s->n_fs; i++)
		if (s->fs[i].kind == kind)
			return true;
	return false;
}

bool spec_net_closed(const struct run_spec *s)
{
	return s->net == SPEC_NET_NONE || s->net == SPEC_NET_ALLOWLIST;
}

const char *const spec_top_dirs[SPEC_TOP_DIRS] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

void spec_host_probe(struct spec_host *h)
{
	*h = (struct spec_host){0};
	for (int i = 0; i < SPEC_TOP_DIRS; i++) {
		struct stat st;
		h->top[i].path = spec_top_dirs[i];
		h->top[i].exists = lstat(spec_top_dirs[i], &st) == 0;
		ssize_t n = readlink(spec_top_dirs[i], h->top[i].link, sizeof h->top[i].link - 1);
		h->top[i].link[n > 0 ? n : 0] = '\0';
	}
	h->n_top = SPEC_TOP_DIRS;
}

bool spec_host_top(const struct spec_host *h, const char *path, const char **link)
{
	for (int i = 0; i < h->n_top; i++)
		if (!strcmp(h->top[i].path, path)) {
			*link = h->top[i].link;
			return h->top[i].exists;
		}
	*link = "";
	return false;
}

/* ---------------- the spec in words ---------------- */

static const char *by_name(int by)
{
	return by == SPEC_BY_RANGE ? "range" : lab_layers[by].name;
}

/* 268435456 -> "256MiB" */
static void size_text(uint64_t v, char *out, size_t len)
{
	fmt_size_exact(out, len, v, "GMK", "iB", " B");
}

static void fs_text(const struct spec_fs_op *op, const struct spec_host *h, struct strbuf *b)
{
	char sz[32];
	const char *link;
	size_text(op->size, sz, sizeof sz);
	sb_printf(b, "  fs %-10s ", by_name(op->by));
	switch (op->kind) {
	case SPEC_FS_ROOT:
		sb_printf(b, "root: a fresh tmpfs (%s), read-only once built, then pivot_root\n", sz);
		break;
	case SPEC_FS_HOSTVIEW:
		sb_puts(b, "root: the host's own view, read-only and locked; private /tmp and /dev/shm, "
		           "the real homes covered\n");
		break;
	case SPEC_FS_BIND:
		sb_printf(b, "bind %s at %s, %s\n", op->src, op->dst, op->ro ? "read-only" : "writable");
		break;
	case SPEC_FS_HOST_TOP:
		if (!spec_host_top(h, op->dst, &link))
			sb_printf(b, "%s: nothing (this host has none)\n", op->dst);
		else if (*link)
			sb_printf(b, "%s: a symlink to %s, as on the host\n", op->dst, link);
		else
			sb_printf(b, "bind %s at %s, read-only\n", op->dst, op->dst);
		break;
	case SPEC_FS_DIR:
		sb_printf(b, "dir %s (%04o)\n", op->dst, op->mode);
		break;
	case SPEC_FS_FILE:
		sb_printf(b, "file %s (%zu bytes of the lab's)\n", op->dst, strlen(op->text));
		break;
	case SPEC_FS_PROC:
		sb_printf(b, "proc at %s: the run's own PID namespace, /proc/keys hidden\n", op->dst);
		break;
	case SPEC_FS_DEV:
		sb_printf(b, "dev at %s: null zero full random urandom, the fd links, read-only\n", op->dst);
		break;
	case SPEC_FS_TMPFS:
		sb_printf(b, "tmpfs %s (%s, %04o)\n", op->dst, sz, op->mode);
		break;
	case SPEC_FS_WORK:
		sb_printf(b, "the task's folder (snippet, data) at %s, read-only\n",
		          op->dst ? op->dst : "the run's folder (/tmp/NAME/work)");
		break;
	case SPEC_FS_CWD:
		sb_printf(b, "the caller's folder at its own path, %s\n", op->ro ? "read-only" : "writable (--rw)");
		break;
	case SPEC_FS_HOSTDIR:
		sb_puts(b, "the run's host folder, writable: the host the naive integration exposes\n");
		break;
	case SPEC_FS_HOME:
		sb_printf(b, "the decoy home with ~/.aws/credentials at %s, read-only\n",
		          op->dst ? op->dst : "the run's home");
		break;
	}
}

static const char *rung_kernel(const struct run_spec *s)
{
	if (s->in_process)
		return "the host's, the app server's process and its privileges";
	if (!spec_on(s, LAYER_ISOLATION))
		return "the host's (Isolation off: the rung matters only with it on)";
	switch (s->setup.rung) {
	case RUNG_GVISOR:
		return "gVisor's Sentry (runsc) answers the system calls";
	case RUNG_MICROVM:
		return "a guest kernel of its own (QEMU microvm)";
	default:
		return "the host's, behind namespaces, seccomp and no capabilities";
	}
}

/* What an upper rung's box renders otherwise, or not yet: said beside
 * the spec, so a reviewer sees it rather than trusts it. */
static void rung_gaps(const struct run_spec *s, struct strbuf *b)
{
	if (!spec_on(s, LAYER_ISOLATION))
		return; /* the container box runs it: Isolation off is the range on every rung */
	if (s->setup.rung == RUNG_GVISOR)
		sb_printf(
		    b,
		    "  rendered otherwise here: /dev is runsc's own; the seccomp list and capabilities are the "
		    "Sentry's (it answers the calls); neither the cgroup nor its namespace: a cgroup would count the "
		    "Sentry, so the rlimits only%s\n",
		    s->creds_fd ? "; no fd 3 (runsc passes stdio only)" : "");
	if (s->setup.rung == RUNG_MICROVM)
		sb_puts(b,
		        "  rendered otherwise here: the root is the guest's initramfs, the binds of folders 9p shares, "
		        "/proc the guest kernel's own (nothing of the host's in it to hide); the snippet is uid 65534 "
		        "in the guest, under the deny list as a seccomp filter the guest's init installs and answers; "
		        "the cgroup is the guest's\n");
}

/* Who armed what the judge credits: "armed: wall clock (Resource-limits),
 * ..." or "armed: nothing the judge credits". */
static void armed_text(const struct run_spec *s, struct strbuf *b)
{
	static const char *const mech[MECH_COUNT] = {
	    [MECH_WALL_CLOCK] = "wall clock",
	    [MECH_CPU_RLIMIT] = "RLIMIT_CPU",
	    [MECH_CAPS] = "caps",
	    [MECH_NET_CLOSED] = "no network",
	    [MECH_PROXY] = "egress proxy",
	    [MECH_CLEAN_ENV] = "clean environment",
	    [MECH_PRIVATE_ROOT] = "private root",
	    [MECH_SECCOMP] = "seccomp",
	    [MECH_OWN_KERNEL] = "a kernel of its own",
	};
	int n = 0;
	sb_puts(b, "  armed:");
	for (int m = 0; m < MECH_COUNT; m++) {
		int by = s->armed[m];
		if (by == MECH_UNARMED)
			continue;
		sb_printf(b, "%s %s (%s)", n++ ? "," : "", mech[m],
		          by >= 0 && by < LAYER_COUNT ? lab_layers[by].name : "range");
	}
	sb_puts(b, n ? "\n" : " nothing the judge credits\n");
}

void spec_text(const struct run_spec *s, const struct spec_host *h, struct strbuf *b)
{
	char label[LAYER_COUNT + 1];
	for (int l = 0; l < LAYER_COUNT; l++)
		label[l] = spec_on(s, l) ? "INEL"[l] : '-';
	label[LAYER_COUNT] = '\0';
	sb_printf(b, "spec %s, rung %s, network mode %s%s\n", label, lab_rung_key(s->setup.rung),
	          lab_net_mode_key(s->setup.net_mode),
	          s->setup.exec ? (s->setup.exec_rw ? ", exec --rw" : ", exec") : "");
	if (s->in_process)
		sb_puts(b,
		        "  in-process: exec() in the app's own process; no layer has a process boundary to apply at, "
		        "so none applies; the app server itself runs in the range:\n");
	sb_printf(b, "  kernel: %s\n", rung_kernel(s));
	rung_gaps(s, b);
	sb_printf(b, "  namespaces: user pid mount ipc%s (range)%s%s%s\n", s->net == SPEC_NET_HOST ? " net" : "",
	          s->ns & SPEC_NS_UTS ? " uts" : "", s->ns & SPEC_NS_CGROUP ? " cgroup" : "",
	          s->ns & SPEC_NS_NET ? " net" : "");
	for (int i = 0; i < s->n_fs; i++)
		fs_text(&s->fs[i], h, b);
	if (s->caps_dropped)
		sb_printf(b, "  process: no capabilities, no_new_privs, seccomp deny list, host name %s\n",
		          s->hostname);
	else
		sb_puts(b, "  process: the range's only (root of its user namespace, the host read-only)\n");
	sb_puts(b, "  session (range): one of its own, no controlling terminal\n");
	if (!s->caps_dropped)
		sb_puts(b, "  uid outside (root lab): the lab's own (0 is 0), every capability in its user "
		           "namespace, the host's view read-only\n");
	else if (s->outside_uid == LAB_OUTSIDE_UID_AUTO)
		sb_puts(b, "  uid outside (root lab): one of the run's own, from the lab's block\n");
	else
		sb_printf(b, "  uid outside (root lab): %ld\n", s->outside_uid);
	if (s->env == SPEC_ENV_ALLOW)
		sb_printf(b, "  env: [env] allow only, HOME=%s; descriptors above 2 closed\n", s->home);
	else
		sb_printf(b, "  env: the whole environment, secrets and all%s\n",
		          s->creds_fd ? "; the credentials open as fd 3" : "");
	sb_printf(b, "  network: %s\n",
	          s->net == SPEC_NET_NONE        ? "an empty namespace, loopback only"
	          : s->net == SPEC_NET_ALLOWLIST ? "an empty namespace, the lab's egress proxy its one door"
	          : s->net == SPEC_NET_SHARED    ? "the host's own (exec)"
	                                         : "the range's own namespace, its loopback the small internet: "
	                                           "the attacker's listener and api.lab.test");
	if (s->cgroup) {
		char mem[32];
		size_text(s->cg_memory, mem, sizeof mem);
		sb_printf(b, "  cgroup: memory %s, pids %ld, cpu %g cores\n", mem, s->cg_pids, s->cg_cpu);
	}
	for (int i = 0; i < s->n_rl; i++)
		sb_printf(b, "  rlimit %s %llu:%llu\n", s->rl[i].name, s->rl[i].soft, s->rl[i].hard);
	if (s->timeout_ms) {
		char out[32];
		size_text(s->output, out, sizeof out);
		sb_printf(b, "  wall clock %.1f s, output kept %s\n", s->timeout_ms / 1000.0, out);
	}
	char so[32];
	size_text(s->safety_output, so, sizeof so);
	sb_printf(b, "  safety net (range): %.0f s, %s of output\n", s->safety_timeout_ms / 1000.0, so);
	armed_text(s, b);
}
