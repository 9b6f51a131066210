/* box_microvm.c — the microvm rung of the isolation ladder: the snippet runs
 * on its own Linux kernel, in a QEMU microvm.
 *
 * Processes of one run:
 *
 *   lab (run.c: listener, event loop, evidence)
 *    └─ supervisor   forked by start(), r->child_pid, leader of its own
 *                    process group; dies with the lab (PDEATHSIG)
 *        └─ qemu-system-x86_64 -M microvm   (same group; dies with the
 *                    supervisor): the guest kernel, our init (src/vm/init.c)
 *                    as its PID 1, the snippet as the init's child
 *
 * The initramfs is written at run time into a memfd (cpio newc, by the
 * code below): our static init, /lab/conf (what to mount, the probe, the
 * limits), /lab/argv, /lab/env (r->layer.env.envp, LAB_ATTACKER rewritten to the
 * user-mode NIC's gateway) and the guest kernel's own modules for
 * virtio-mmio, 9p and (with a NIC) virtio-net. The host's /usr, the run's
 * work folder and, with Clean-env off, the decoy home are 9p shares that
 * QEMU itself keeps read-only.
 *
 * No-network off: the NIC's gateway is QEMU's own 127.0.0.1, and QEMU runs
 * in a network namespace of the run's own (the supervisor makes it, with a
 * user namespace when the lab is rootless) where the supervisor put the
 * lab's small internet (egress.h): the guest reaches the attacker and
 * api.lab.test there, and nothing of the host's network.
 *
 * The run folder is 0700 (decoy.c) and a root lab's QEMU is the run's
 * outside uid (Isolation's map_uid: a uid of the run's own, run_uid.h):
 * the supervisor opens what QEMU reads of it (the initramfs, the 9p
 * shares) while it is still the lab's uid, and QEMU is given those
 * descriptors as /proc/self/fd/N.
 *
 * The guest speaks only in frames on its serial line (see vm/init.c); the
 * supervisor turns them into the lab's protocol: the snippet's bytes into
 * r->out, "P"/"S"/"E" lines into r->rep, and the guest kernel's release and
 * boot id (the first "K" frame, sent before the snippet exists) into a
 * private pipe (r->sync, unused by this box otherwise) that observe()
 * reads.
 *
 * exec: the command runs as the snippet does (uid 65534 in the guest), in
 * the current folder shared read-only at its own path; its stdout and
 * stderr come as frames the supervisor writes on its own stdout and stderr
 * (the lab's, or its pty's slave), and the supervisor's stdin goes to the
 * guest as frames on QEMU's stdin, the serial line's other way.
 *
 * No-network's allow-list: the supervisor's network namespace holds only
 * the egress proxy's door (127.0.0.1:EGRESS_PORT, egress_child_door), and
 * the guest's NIC routes only to its gateway, that 127.0.0.1.
 *
 * KVM: a guest under -accel kvm may hang where the host is itself a VM. If
 * /dev/kvm is usable the supervisor tries it first and falls back to TCG
 * when the guest's init has not spoken within KVM_DEADLINE_MS; nothing of
 * the snippet runs before that word. LAB_MICROVM_ACCEL=tcg|kvm forces one. */
#define _GNU_SOURCE
#include "box.h"
#include "seccomp_filter.h"
#include "system.h"
#include "trace.h"
#include "util.h"
#include "vm/guest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define KVM_DEADLINE_MS 3000
#define GUEST_MEM_MB    512 /* without Resource-limits */
#define GUEST_SLACK_MB  96  /* the guest kernel's own, beside the snippet's cap */
#define QEMU            "qemu-system-x86_64"
#define GATEWAY         "10.0.2.2" /* the user-mode NIC's host side */

/* The guest kernel's modules we load, in this order (Debian's 6.1: all are
 * modules). The NIC's three come last and only when there is a NIC. */
static const char *const base_modules[] = {
    "drivers/virtio/virtio_ring", "drivers/virtio/virtio", "drivers/virtio/virtio_mmio", "fs/netfs/netfs",
    "fs/fscache/fscache",         "net/9p/9pnet",          "net/9p/9pnet_virtio",        "fs/9p/9p",
};
static const char *const nic_modules[] = {"net/core/failover", "drivers/net/net_failover", "drivers/net/virtio_net"};

struct vm_args {
	char *v[64];
	int n;
	char store[16384];
	size_t used;
};

static void arg_add(struct vm_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg_add(struct vm_args *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(a->store + a->used, sizeof a->store - a->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof a->store - a->used || a->n >= 63)
		abort(); /* the command line is ours and bounded: a bug */
	a->v[a->n++] = a->store + a->used;
	a->v[a->n] = NULL;
	a->used += (size_t)n + 1;
}

/* ---------------- the guest kernel ---------------- */

/* The release a bzImage names in its setup header ("6.1.0-57-amd64"). */
static int kernel_release_of(const char *path, char *out, size_t cap)
{
	size_t len = 0;
	char *img = read_file(path, &len, 64 << 20);
	if (!img)
		return -1;
	int ok = -1;
	if (len > 0x210 && !memcmp(img + 0x202, "HdrS", 4)) {
		size_t off = (size_t)(unsigned char)img[0x20E] + ((size_t)(unsigned char)img[0x20F] << 8) + 0x200;
		if (off < len) {
			size_t k = strcspn(img + off, " \n");
			if (off + k < len && k > 0 && k < cap) {
				memcpy(out, img + off, k);
				out[k] = '\0';
				ok = 0;
			}
		}
	}
	free(img);
	return ok;
}

static int find_kernel(const struct lab_config *cfg, char *path, size_t cap, char *release, size_t rcap, char *err,
                       size_t ecap)
{
	if (cfg->guest_kernel[0]) {
		str_copy(path, cap, cfg->guest_kernel);
	} else {
		path[0] = '\0';
		DIR *d = opendir("/boot");
		char best[256] = "";
		for (struct dirent *e; d && (e = readdir(d));)
			if (!strncmp(e->d_name, "vmlinuz-", 8) && strverscmp(e->d_name, best) > 0)
				str_copy(best, sizeof best, e->d_name);
		if (d)
			closedir(d);
		if (best[0])
			pathf(path, cap, "/boot/%s", best);
	}
	if (!path[0] || access(path, R_OK) < 0) {
		snprintf(err, ecap,
		         "no guest kernel%s%.200s: apt-get install linux-image-amd64 or set [isolation] kernel",
		         path[0] ? " readable at " : "", path);
		return -1;
	}
	if (kernel_release_of(path, release, rcap) < 0) {
		snprintf(err, ecap, "%.200s is not a bzImage with a version in its header", path);
		return -1;
	}
	return 0;
}

/* The module file for the guest's release, or "" when the kernel has it
 * built in. -1 when it has neither. */
static int module_path(const char *release, const char *mod, char *out, size_t cap)
{
	pathf(out, cap, "/lib/modules/%s/kernel/%s.ko", release, mod);
	if (access(out, R_OK) == 0)
		return 0;
	char p[PATH_MAX], needle[200];
	pathf(p, sizeof p, "/lib/modules/%s/modules.builtin", release);
	snprintf(needle, sizeof needle, "kernel/%s.ko\n", mod);
	char *builtin = read_file(p, NULL, 4 << 20);
	bool in = builtin && strstr(builtin, needle);
	free(builtin);
	out[0] = '\0';
	return in ? 0 : -1;
}

/* build/vm-init beside the binary (the source tree, or the sanitizer build
 * in build/), else the installed one. */
static int find_init(char *out, size_t cap)
{
	const char *env = getenv("LAB_VM_INIT");
	if (env && env[0] == '/') {
		str_copy(out, cap, env);
		return access(out, R_OK);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		if (pathf(out, cap, "%s/build/vm-init", exe) == 0 && access(out, R_OK) == 0)
			return 0;
		if (pathf(out, cap, "%s/vm-init", exe) == 0 && access(out, R_OK) == 0)
			return 0;
	}
	str_copy(out, cap, LAB_SHAREDIR "/vm-init");
	return access(out, R_OK);
}

static bool find_qemu(char *out, size_t cap)
{
	const char *path = getenv("PATH");
	char buf[4096];
	str_copy(buf, sizeof buf, path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *save = NULL, *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		if (dir[0] == '/' && pathf(out, cap, "%s/" QEMU, dir) == 0 && access(out, X_OK) == 0)
			return true;
	return false;
}

/* ---------------- the initramfs (cpio newc) ---------------- */

static int cpio_entry(FILE *f, const char *name, unsigned mode, const char *data, size_t len, unsigned rmaj,
                      unsigned rmin)
{
	static unsigned ino = 1;
	static const char zeros[4] = {0};
	size_t nlen = strlen(name) + 1;
	fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ino++, mode, 0u, 0u,
	        S_ISDIR(mode) ? 2u : 1u, 0u, len, 0u, 0u, rmaj, rmin, nlen, 0u);
	fwrite(name, 1, nlen, f);
	fwrite(zeros, 1, (4 - (110 + nlen) % 4) % 4, f);
	if (len) {
		fwrite(data, 1, len, f);
		fwrite(zeros, 1, (4 - len % 4) % 4, f);
	}
	return ferror(f) ? -1 : 0;
}

static int cpio_file(FILE *f, const char *name, const char *src, unsigned mode, struct lab_evidence *ev)
{
	size_t len = 0;
	char *data = read_file(src, &len, 64 << 20);
	if (!data) {
		snprintf(ev->error, sizeof ev->error, "cannot read %.200s for the guest's initramfs: %s", src,
		         strerror(errno));
		return -1;
	}
	int r = cpio_entry(f, name, S_IFREG | mode, data, len, 0, 0);
	free(data);
	return r;
}

/* The guest's environment: the run's, with the attacker and the egress
 * proxy, and api.lab.test behind the NIC's gateway (QEMU's 127.0.0.1 is the guest's
 * 10.0.2.2). */
static void env_block(const struct run *r, struct strbuf *b)
{
	static const char *const names[] = {"LAB_ATTACKER", "LAB_API",    "HTTP_PROXY",
	                                    "HTTPS_PROXY",  "http_proxy", "https_proxy"};
	static const char local[] = "http://127.0.0.1:";
	for (char **e = r->layer.env.envp; e && *e; e++) {
		const char *eq = strchr(*e, '='), *rest = NULL;
		for (size_t i = 0; eq && i < sizeof names / sizeof *names; i++)
			if ((size_t)(eq - *e) == strlen(names[i]) && !strncmp(*e, names[i], strlen(names[i])) &&
			    !strncmp(eq + 1, local, sizeof local - 1))
				rest = eq + sizeof local;
		if (rest)
			sb_printf(b, "%.*s=http://" GATEWAY ":%s", (int)(eq - *e), *e, rest);
		else
			sb_puts(b, *e);
		sb_add(b, "", 1);
	}
}

/* The command line, NUL-ended entries (vm/init.c reads /lab/argv): the
 * interpreter as the guest finds it, its real path in /usr (a link
 * outside /usr or "/usr/../" would name nothing there); exec's command
 * as the user typed it, looked up in the guest. */
static void argv_block(const struct run *r, struct strbuf *b)
{
	char real[PATH_MAX];
	char *const *argv = r->kind == RUN_EXEC ? r->user_argv : r->argv;
	for (int i = 0; argv[i]; i++) {
		sb_puts(b, i == 0 && r->kind != RUN_EXEC && realpath(argv[0], real) ? real : argv[i]);
		sb_add(b, "", 1);
	}
}

/* No-network off, or its allow-list: the guest has a user-mode NIC. */
static bool has_nic(const struct run *r)
{
	return !spec_net_closed(&r->spec) || r->spec.net == SPEC_NET_ALLOWLIST;
}

/* ---- the guest's view, walked from the spec's file-system steps ----
 *
 * The spec's steps (spec.h), in order, become the guest init's "fs" lines
 * (vm/init.c walks them as the container box's rootfs.c does): a folder
 * the host binds (/usr), the task's folder, the current folder of an exec
 * and the decoy home are 9p shares QEMU keeps read-only; a top-level
 * folder the host has as a symlink into /usr is that symlink; folders,
 * /proc, the minimal /dev and tmpfs mounts are the guest's own. The lab's
 * small files and a host file bound read-only (/etc/ld.so.cache) travel in
 * the initramfs. The root is the initramfs itself. */
#define GUEST_SHARES_MAX 6

struct guest_share {
	const char *host, *guest;
};

/* The host folder behind a step that is a 9p share, or NULL */
static const char *share_source(const struct run *r, const struct spec_fs_op *op)
{
	struct stat st;
	switch (op->kind) {
	case SPEC_FS_BIND:
		return stat(op->src, &st) == 0 && S_ISDIR(st.st_mode) ? op->src : NULL;
	case SPEC_FS_WORK:
		return r->d.work;
	case SPEC_FS_CWD:
		return r->cwd;
	case SPEC_FS_HOME:
		return r->d.home;
	default:
		return NULL;
	}
}

/* Where a step lands in the guest: exec's current folder at its own path */
static const char *guest_path(const struct run *r, const struct spec_fs_op *op)
{
	return op->kind == SPEC_FS_CWD ? r->cwd : op->dst;
}

/* The 9p shares, in the spec's order (QEMU's tags s0, s1, ...) */
static int guest_shares(const struct run *r, struct guest_share *sh)
{
	int n = 0;
	for (int i = 0; i < r->spec.n_fs && n < GUEST_SHARES_MAX; i++) {
		const char *host = share_source(r, &r->spec.fs[i]);
		if (host)
			sh[n++] = (struct guest_share){host, guest_path(r, &r->spec.fs[i])};
	}
	return n;
}

static int share_count(const struct run *r)
{
	struct guest_share sh[GUEST_SHARES_MAX];
	return guest_shares(r, sh);
}

/* The "fs" lines of /lab/conf, one a step; 0, or -1 with ev->error naming
 * the step this box cannot render. */
static int fs_block(const struct run *r, struct strbuf *b, struct lab_evidence *ev)
{
	int share = 0;
	for (int i = 0; i < r->spec.n_fs; i++) {
		const struct spec_fs_op *op = &r->spec.fs[i];
		const char *link = NULL;
		if (share_source(r, op)) {
			sb_printf(b, "fs share s%d %s\n", share++, guest_path(r, op));
			continue;
		}
		switch (op->kind) {
		case SPEC_FS_ROOT: /* the initramfs, read-only once built */
			sb_puts(b, "fs root /\n");
			break;
		case SPEC_FS_FILE: /* in the initramfs (guest_files) */
		case SPEC_FS_BIND: /* a host file: in the initramfs; nothing there: skipped, as rootfs.c does */
			break;
		case SPEC_FS_HOST_TOP:
			if (!spec_host_top(&r->host, op->dst, &link))
				break;
			if (!*link) {
				snprintf(ev->error, sizeof ev->error,
				         "the microvm rung cannot render step %d: this host's %s is a folder of its "
				         "own, not "
				         "a symlink into /usr, and the guest is given /usr alone",
				         i + 1, op->dst);
				return -1;
			}
			sb_printf(b, "fs link %s %s\n", link, op->dst);
			break;
		case SPEC_FS_DIR:
			sb_printf(b, "fs dir %s %o\n", op->dst, op->mode);
			break;
		case SPEC_FS_PROC:
			sb_printf(b, "fs proc %s\n", op->dst);
			break;
		case SPEC_FS_DEV:
			sb_printf(b, "fs dev %s\n", op->dst);
			break;
		case SPEC_FS_TMPFS:
			sb_printf(b, "fs tmpfs %s %llu %o\n", op->dst, (unsigned long long)op->size, op->mode);
			break;
		default: /* the range's (Isolation off): the container box's alone */
			snprintf(ev->error, sizeof ev->error,
			         "the microvm rung cannot render step %d (%s): Isolation off "
			         "runs in the container box",
			         i + 1, op->dst ? op->dst : "?");
			return -1;
		}
	}
	return 0;
}

/* Every folder above name, as initramfs entries (0755) */
static int cpio_parents(FILE *f, const char *name)
{
	char dir[PATH_MAX];
	int rc = 0;
	for (const char *p = strchr(name, '/'); p && !rc; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof dir, "%.*s", (int)(p - name), name);
		rc = cpio_entry(f, dir, S_IFDIR | 0755, NULL, 0, 0, 0);
	}
	return rc;
}

/* The lab's small files and the host files the spec binds read-only, in
 * the initramfs at their paths (mode 0644, root's: the snippet, uid 65534
 * in the guest, cannot change them). */
static int guest_files(const struct run *r, FILE *f, struct lab_evidence *ev)
{
	int rc = 0;
	struct stat st;
	for (int i = 0; i < r->spec.n_fs && !rc; i++) {
		const struct spec_fs_op *op = &r->spec.fs[i];
		bool file = op->kind == SPEC_FS_FILE;
		bool host_file = op->kind == SPEC_FS_BIND && stat(op->src, &st) == 0 && S_ISREG(st.st_mode);
		if (!file && !host_file)
			continue;
		const char *name = op->dst + (op->dst[0] == '/');
		rc = cpio_parents(f, name);
		if (!rc && file)
			rc = cpio_entry(f, name, S_IFREG | 0644, op->text, strlen(op->text), 0, 0);
		else if (!rc)
			rc = cpio_file(f, name, op->src, 0644, ev);
	}
	return rc;
}

/* Isolation's deny list in the guest (the spec's seccomp): the filter is
 * /lab/filter.bpf, every refusal asks the guest's init, which answers
 * each call listed here with its errno ("deny NR ERRNO SHAPE", the shape
 * telling it which arguments are strings to read) and lets the rest go
 * on. */
static void filter_block(const struct run *r, struct strbuf *b)
{
	if (!r->spec.seccomp)
		return;
	int nrs[96];
	size_t n = lab_seccomp_iso_calls(nrs, sizeof nrs / sizeof *nrs);
	sb_puts(b, "seccomp /lab/filter.bpf\n");
	for (size_t i = 0; i < n; i++) {
		const char *shape = trace_call_shape(nrs[i]);
		sb_printf(b, "deny %d %d %s\n", nrs[i], lab_seccomp_refusal_errno(nrs[i]),
		          shape && *shape ? shape : "-");
	}
}

static int conf_block(const struct run *r, struct strbuf *b, struct lab_evidence *ev)
{
	if (fs_block(r, b, ev) < 0)
		return -1;
	if (r->kind == RUN_EXEC)
		sb_printf(b, "exec 1\n");
	else if (spec_has_step(&r->spec, SPEC_FS_HOME)) /* the naive integration's credentials */
		sb_printf(b, "leak /root/.aws/credentials\n");
	if (!spec_net_closed(&r->spec))
		sb_printf(b, "net 1\n");
	else if (r->spec.net == SPEC_NET_ALLOWLIST)
		sb_printf(b, "net 2\n"); /* the NIC reaches the gateway alone: the proxy's door */
	if (spec_net_closed(&r->spec) && r->have_decoys)
		sb_printf(b, "probe " GATEWAY " %d\n", r->d.port);
	if (r->spec.net == SPEC_NET_ALLOWLIST && r->have_decoys) /* off the door: TEST-NET-1, nothing would answer */
		sb_printf(b, "route 192.0.2.1 80\n");
	/* Resource-limits, from the run spec: the guest cgroup's caps, and
	 * the rlimits the guest init sets on the snippet's process */
	if (r->spec.cgroup)
		sb_printf(b, "limit memory %llu\nlimit pids %ld\n", (unsigned long long)r->spec.cg_memory,
		          r->spec.cg_pids);
	for (int i = 0; i < r->spec.n_rl; i++)
		sb_printf(b, "rlimit %s %llu %llu\n", r->spec.rl[i].name, r->spec.rl[i].soft, r->spec.rl[i].hard);
	sb_printf(b, "cwd %s\n", r->workdir);
	filter_block(r, b);
	return 0;
}

/* The initramfs goes into a memfd (fd): no file of the run's on disk, and
 * exec has no run folder. */
static int write_initramfs(const struct run *r, int fd, const char *init, const char *release, struct lab_evidence *ev)
{
	static const char path[] = "the memfd";
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	FILE *f = dup_fd < 0 ? NULL : fdopen(dup_fd, "w");
	if (!f) {
		if (dup_fd >= 0)
			close(dup_fd);
		snprintf(ev->error, sizeof ev->error, "cannot write the guest's initramfs into %s: %s", path,
		         strerror(errno));
		return -1;
	}
	/* the guest init's own: where it mounts its /proc, /sys and /dev
	 * before it reads its conf, and its files */
	static const char *const dirs[] = {"dev", "proc", "sys", "lab", "lab/mod"};
	int rc = 0;
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !rc; i++)
		rc = cpio_entry(f, dirs[i], S_IFDIR | 0755, NULL, 0, 0, 0);
	if (!rc)
		rc = cpio_entry(f, "dev/console", S_IFCHR | 0600, NULL, 0, 5, 1);
	if (!rc)
		rc = cpio_file(f, "init", init, 0755, ev);
	if (!rc)
		rc = guest_files(r, f, ev);
	struct strbuf b = {0};
	if (!rc && conf_block(r, &b, ev) < 0)
		rc = -2;
	if (!rc)
		rc = cpio_entry(f, "lab/conf", S_IFREG | 0644, b.s, b.len, 0, 0);
	sb_free(&b);
	if (!rc && r->spec.seccomp) {
		void *bpf = NULL;
		size_t len = 0;
		int e = lab_seccomp_guest_bpf(&bpf, &len, NULL);
		if (e < 0) {
			snprintf(ev->error, sizeof ev->error, "cannot build the guest's seccomp filter: %s",
			         strerror(-e));
			rc = -2;
		} else {
			rc = cpio_entry(f, "lab/filter.bpf", S_IFREG | 0644, bpf, len, 0, 0);
		}
		free(bpf);
	}
	env_block(r, &b);
	if (!rc)
		rc = cpio_entry(f, "lab/env", S_IFREG | 0644, b.s ? b.s : "", b.len, 0, 0);
	sb_free(&b);
	argv_block(r, &b);
	if (!rc)
		rc = cpio_entry(f, "lab/argv", S_IFREG | 0644, b.s ? b.s : "", b.len, 0, 0);
	sb_free(&b);
	size_t nb = sizeof base_modules / sizeof *base_modules, nn = has_nic(r) ? 3 : 0;
	for (size_t i = 0; i < nb + nn && !rc; i++) {
		const char *mod = i < nb ? base_modules[i] : nic_modules[i - nb];
		char src[PATH_MAX], name[128];
		if (module_path(release, mod, src, sizeof src) < 0) {
			snprintf(ev->error, sizeof ev->error,
			         "the guest kernel %.64s has no %s module under /lib/modules/%.64s (the microVM needs "
			         "virtio-mmio and 9p): install its modules or set [isolation] kernel",
			         release, strrchr(mod, '/') + 1, release);
			rc = -2;
		} else if (src[0]) {
			snprintf(name, sizeof name, "lab/mod/%02zu-%s.ko", i + 10, strrchr(mod, '/') + 1);
			rc = cpio_file(f, name, src, 0644, ev);
		}
	}
	if (!rc)
		rc = cpio_entry(f, "TRAILER!!!", 0, NULL, 0, 0, 0);
	if (fclose(f) != 0 && !rc)
		rc = -1;
	if (rc == -1 && !ev->error[0])
		snprintf(ev->error, sizeof ev->error, "cannot write the guest's initramfs into %s: %s", path,
		         strerror(errno));
	return rc ? -1 : 0;
}

/* ---------------- the supervisor (child side) ---------------- */

static volatile sig_atomic_t stop_asked;
static volatile pid_t qemu_pid;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
	if (qemu_pid > 0)
		kill(qemu_pid, SIGTERM); /* the guest ends with QEMU */
}

struct sup {
	struct run *r;
	char qemu[PATH_MAX], kernel[PATH_MAX];
	int initrd_memfd; /* the lab wrote the initramfs there */
	const char *accel;
	char why[120];
	struct vm_args args;
	int serial, err;
	unsigned char buf[4 + 65535];
	size_t have;
	char qerr[240];
	size_t qerr_len;
	bool said_kernel, said_status, said_error, said_cgroup, said_cpu;
	bool debug;
	long tsc_khz;
	int share_fd[GUEST_SHARES_MAX], initrd_fd; /* opened by the supervisor, kept across QEMU's execve */
	/* exec: the lab's stdin to the guest, as "I" frames on QEMU's stdin
	 * (an empty frame is its end) */
	int qin;      /* QEMU's stdin, non-blocking; -1 when none */
	bool in_done; /* our stdin ended (its end frame is queued or sent) */
	unsigned char in_buf[4 + 4096];
	size_t in_len, in_off;
};

static pid_t spawn_qemu(struct sup *s)
{
	int out[2], err[2], in[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
	    (s->r->kind == RUN_EXEC && pipe2(in, O_CLOEXEC) < 0))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		/* exec: the serial line's other way is the command's stdin */
		int null = in[0] >= 0 ? in[0] : open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigaction(SIGTERM, &dfl, NULL);
		/* A QEMU bug (virtio, 9p, slirp) must not hand out the lab's
		 * root: a root lab runs it as the sandbox's outside uid (a uid
		 * of the run's own unless layers.ini names one), with no
		 * capabilities and no way back */
		if (geteuid() == 0) {
			uid_t u = (uid_t)s->r->map_uid;
			gid_t g = (gid_t)s->r->map_gid;
			if (setgroups(0, NULL) < 0 || setresgid(g, g, g) < 0 || setresuid(u, u, u) < 0)
				_exit(127);
		}
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(127);
		execv(s->args.v[0], s->args.v);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	if (in[0] >= 0)
		close(in[0]);
	if (pid < 0) {
		close(out[0]);
		close(err[0]);
		if (in[1] >= 0)
			close(in[1]);
		return -1;
	}
	s->serial = out[0];
	s->err = err[0];
	s->have = 0;
	if (s->qin >= 0) /* a KVM attempt's: that guest is gone, and so is what it had not read */
		close(s->qin);
	s->qin = in[1];
	if (s->qin >= 0)
		fcntl(s->qin, F_SETFL, O_NONBLOCK);
	s->in_len = s->in_off = 0;
	s->in_done = false;
	return pid;
}

/* exec: one chunk of our stdin as an "I" frame, once the last one is out;
 * at its end (or an error: a terminal hung up) the empty frame. */
static void stdin_read(struct sup *s)
{
	ssize_t n = read(0, s->in_buf + 4, sizeof s->in_buf - 4);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0)
		n = 0;
	s->in_buf[0] = 0xFE;
	s->in_buf[1] = 'I';
	s->in_buf[2] = (unsigned char)((size_t)n >> 8);
	s->in_buf[3] = (unsigned char)n;
	s->in_len = 4 + (size_t)n;
	s->in_off = 0;
	s->in_done = n == 0;
}

static void stdin_write(struct sup *s)
{
	ssize_t w = write(s->qin, s->in_buf + s->in_off, s->in_len - s->in_off);
	if (w > 0 && (s->in_off += (size_t)w) == s->in_len)
		s->in_len = s->in_off = 0;
	else if (w < 0 && errno != EAGAIN && errno != EINTR) { /* QEMU is gone */
		close(s->qin);
		s->qin = -1;
	}
}

static void put_line(int fd, const char *text, size_t n)
{
	(void)write_all(fd, text, n);
}

/* One frame from the guest. */
static void on_frame(struct sup *s, char type, const char *data, size_t n)
{
	struct run *r = s->r;
	if (type == 'O' || (type == 'e' && r->kind == RUN_EXEC)) {
		/* a run's output goes to the lab's pipe; exec's command writes
		 * on our stdout and stderr, the lab's own (or its pty) */
		int fd = r->kind != RUN_EXEC ? r->out[1] : type == 'O' ? 1 : 2;
		if (fd >= 0)
			(void)write_all(fd, data, n);
		return;
	}
	if (type != 'R' || n < 2)
		return;
	if (data[0] == 'K') {
		if (!s->said_kernel) { /* later ones may be the snippet's */
			char line[200];
			const char *nl = memchr(data, '\n', n);
			int k = snprintf(line, sizeof line, "%.*s %s %s\n", (int)(nl ? (size_t)(nl - data) : n), data,
			                 s->accel, s->why);
			put_line(r->sync[1], line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
		}
		if (!s->said_kernel)
			put_line(r->rep[1], "T\n", 2); /* the snippet starts now: its wall clock too */
		s->said_kernel = true;
		return;
	}
	if (data[0] == 'X' && !s->said_cgroup && !s->said_status) {
		/* what Isolation's filter in the guest refused, after the
		 * snippet ended and before its cgroup's figures: for observe() */
		put_line(r->sync[1], data, n);
		return;
	}
	if (data[0] == 'C' && !s->said_cgroup && !s->said_status) {
		/* the guest cgroup's figures, once, before the status: for
		 * observe(), beside the kernel's line */
		put_line(r->sync[1], data, n);
		s->said_cgroup = true;
		return;
	}
	if (data[0] == 'S')
		s->said_status = true;
	if (data[0] == 'E')
		s->said_error = true;
	/* "U": the snippet's own CPU, read by the guest's init before the
	 * status (vm/init.c), once: what RLIMIT_CPU counted in the guest */
	bool cpu = data[0] == 'U' && !s->said_cpu && !s->said_status;
	if (cpu)
		s->said_cpu = true;
	if (data[0] == 'S' || data[0] == 'E' || data[0] == 'P' || data[0] == 'R' || cpu)
		put_line(r->rep[1], data, n);
}

/* Frames: 0xFE, type, length (16 bits, big-endian), bytes. Anything else on
 * the line is skipped up to the next 0xFE. */
static void parse_frames(struct sup *s)
{
	size_t i = 0;
	while (i < s->have) {
		if (s->buf[i] != 0xFE) {
			if (s->debug) /* LAB_VM_DEBUG: the kernel's console, to stderr */
				(void)!write(2, s->buf + i, 1);
			i++;
			continue;
		}
		if (s->have - i < 4)
			break;
		size_t len = ((size_t)s->buf[i + 2] << 8) | s->buf[i + 3];
		if (s->have - i < 4 + len)
			break;
		on_frame(s, (char)s->buf[i + 1], (const char *)s->buf + i + 4, len);
		i += 4 + len;
	}
	memmove(s->buf, s->buf + i, s->have - i);
	s->have -= i;
}

/* Watches one QEMU to its end. Returns its wait status, or -2 when the
 * deadline for the guest's first word passed (QEMU killed and reaped). */
static int watch_qemu(struct sup *s, pid_t pid, long deadline)
{
	while (s->serial >= 0 || s->err >= 0) {
		/* exec's stdin: read once the guest has spoken (a KVM attempt
		 * that never boots must not eat it), one chunk at a time */
		bool want_in = s->qin >= 0 && s->said_kernel && !s->in_len && !s->in_done;
		struct pollfd pf[4] = {{s->serial, POLLIN, 0},
		                       {s->err, POLLIN, 0},
		                       {want_in ? 0 : -1, POLLIN, 0},
		                       {s->qin >= 0 && s->in_len ? s->qin : -1, POLLOUT, 0}};
		long wait = deadline > 0 && !s->said_kernel ? deadline - monotonic_ms() : -1;
		if (wait == 0 || (deadline > 0 && !s->said_kernel && wait < 0)) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(s->serial);
			close(s->err);
			s->serial = s->err = -1;
			return -2;
		}
		if (poll(pf, 4, (int)wait) < 0)
			continue;
		if (pf[2].revents)
			stdin_read(s);
		if (pf[3].revents)
			stdin_write(s);
		if (pf[0].revents) {
			ssize_t n = read(s->serial, s->buf + s->have, sizeof s->buf - s->have);
			if (n > 0) {
				s->have += (size_t)n;
				parse_frames(s);
				if (s->have == sizeof s->buf)
					s->have = 0; /* no frame is that long: noise */
			} else if (n == 0 || errno != EINTR) {
				close(s->serial);
				s->serial = -1;
			}
		}
		if (pf[1].revents) {
			char tmp[512];
			ssize_t n = read(s->err, tmp, sizeof tmp);
			if (n > 0) {
				size_t room = sizeof s->qerr - 1 - s->qerr_len, k = (size_t)n < room ? (size_t)n : room;
				memcpy(s->qerr + s->qerr_len, tmp, k);
				s->qerr_len += k;
			} else if (n == 0 || errno != EINTR) {
				close(s->err);
				s->err = -1;
			}
		}
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* Under TCG the guest reads the host's TSC. Its kernel calibrates that
 * against the emulated PIT, which fails on a loaded host ("tsc: Unable to
 * calibrate against PIT") and then hangs the boot: measured here, its
 * frequency goes on the command line (tsc_early_khz) instead. 0 if unsure. */
static long host_tsc_khz(void)
{
	struct timespec a, b, pause = {0, 20000000L};
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	unsigned long long t0 = __rdtsc();
	nanosleep(&pause, NULL);
	unsigned long long t1 = __rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	long long ns = (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	if (ns <= 0 || t1 <= t0)
		return 0;
	return (long)((t1 - t0) * 1000000ULL / (unsigned long long)ns);
}

/* QEMU's command line for one attempt: KVM with the host's CPU, or TCG
 * emulating every feature it has. */
static void build_args(struct sup *s)
{
	struct run *r = s->r;
	struct vm_args *a = &s->args;
	bool kvm = !strcmp(s->accel, "kvm");
	a->n = 0;
	a->used = 0;
	arg_add(a, "%s", s->qemu);
	arg_add(a, "-M");
	arg_add(a, "microvm");
	arg_add(a, "-accel");
	arg_add(a, "%s", s->accel);
	arg_add(a, "-cpu");
	arg_add(a, "%s", kvm ? "host" : "max");
	uint64_t mb = r->spec.cgroup ? (r->spec.cg_memory >> 20) + GUEST_SLACK_MB : GUEST_MEM_MB;
	arg_add(a, "-m");
	arg_add(a, "%lluM", (unsigned long long)mb);
	arg_add(a, "-smp");
	arg_add(a, "1");
	arg_add(a, "-nodefaults");
	arg_add(a, "-nographic");
	arg_add(a, "-no-reboot");
	arg_add(a, "-serial");
	arg_add(a, "stdio");
	arg_add(a, "-kernel");
	arg_add(a, "%s", s->kernel);
	arg_add(a, "-initrd");
	arg_add(a, "/proc/self/fd/%d", s->initrd_fd);
	arg_add(a, "-append");
	char tsc[64] = "";
	if (!kvm && s->tsc_khz > 0)
		snprintf(tsc, sizeof tsc, " tsc_early_khz=%ld tsc=reliable", s->tsc_khz);
	/* lab.tcg=1: the guest init scales the spec's RLIMIT_CPU (vm/init.c) */
	arg_add(a, "%s panic=-1 random.trust_cpu=on%s%s", s->debug ? "console=ttyS0 loglevel=7" : "quiet loglevel=1",
	        tsc, kvm ? "" : " lab.tcg=1");
	for (int i = 0; i < share_count(r); i++) {
		arg_add(a, "-fsdev");
		arg_add(a, "local,id=f%d,path=/proc/self/fd/%d,security_model=none,readonly=on", i, s->share_fd[i]);
		arg_add(a, "-device");
		arg_add(a, "virtio-9p-device,fsdev=f%d,mount_tag=s%d", i, i);
	}
	/* No-network off, or its allow-list: a user-mode NIC. QEMU runs in a
	 * network namespace of the run's own then (supervise), where the
	 * small internet, or the egress proxy alone, listens on 127.0.0.1 */
	if (has_nic(r)) {
		arg_add(a, "-netdev");
		arg_add(a, "user,id=n0,ipv6=off");
		arg_add(a, "-device");
		arg_add(a, "virtio-net-device,netdev=n0");
	}
}

/* What QEMU reads of the run folder, opened now with the lab's uid (not
 * close-on-exec: QEMU opens them again as /proc/self/fd/N). */
static void open_shares(struct run *r, struct sup *s)
{
	struct guest_share sh[GUEST_SHARES_MAX];
	int n = guest_shares(r, sh);
	for (int i = 0; i < n; i++)
		if ((s->share_fd[i] = open(sh[i].host, O_PATH | O_DIRECTORY)) < 0) {
			dprintf(r->rep[1], "E %d open a 9p share: %s\n", errno, sh[i].host);
			_exit(125);
		}
	if ((s->initrd_fd = dup(s->initrd_memfd)) < 0) { /* without close-on-exec */
		dprintf(r->rep[1], "E %d keep the initramfs for QEMU: memfd\n", errno);
		_exit(125);
	}
}

/* No-network off: a network namespace of the run's own for QEMU, with the
 * small internet on its lo; with No-network's allow-list, the egress
 * proxy's door alone on it (127.0.0.1:EGRESS_PORT, the guest's
 * 10.0.2.2:EGRESS_PORT), nothing else anywhere. Rootless, a user namespace
 * owns it: our own uid and gid mapped to themselves, so QEMU's files are
 * the same. */
static void own_network(struct run *r)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	const char *what = "unshare a network namespace";
	int e = 0;
	if (unshare(CLONE_NEWNET | (uid ? CLONE_NEWUSER : 0)) < 0) {
		e = errno;
	} else if (uid) {
		what = "map our ids in the new user namespace";
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		if (file_put("/proc/self/setgroups", "deny") < 0 || file_put("/proc/self/uid_map", map) < 0)
			e = errno;
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		if (!e && file_put("/proc/self/gid_map", map) < 0)
			e = errno;
	}
	if (!e)
		e = egress_child_door(&r->eg, r->spec.net == SPEC_NET_ALLOWLIST, &what);
	if (e) {
		dprintf(r->rep[1], "E %d %s: %s\n", e,
		        (r->spec.net == SPEC_NET_ALLOWLIST) ? "open the egress proxy's door"
		                                            : "open the small internet",
		        what);
		_exit(125);
	}
}

static void __attribute__((noreturn)) supervise(struct run *r, struct sup *s)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(125);
	open_shares(r, s);
	if (r->eg.inside || r->spec.net == SPEC_NET_ALLOWLIST)
		own_network(r);
	if (r->kind == RUN_EXEC) {
		/* exec: our stdio is the command's (the terminal among it as
		 * the lab's pty, our session's own), so Ctrl-C there ends the
		 * guest as it would end a command (SIGINT: exit 130) */
		int e = term_child_stdio(&r->term);
		if (!e)
			e = term_child_ctty(&r->term);
		if (e < 0) {
			dprintf(r->rep[1], "E %d give the command the lab's pty: its stdin, stdout and stderr\n", -e);
			_exit(125);
		}
		if (r->term.master >= 0)
			close(r->term.master);
	}
	struct sigaction sa = {.sa_handler = on_stop};
	sigaction(SIGTERM, &sa, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	close(r->out[0]);
	close(r->rep[0]);
	close(r->sync[0]);
	int st = 0;
	for (;;) {
		bool try_kvm = !strcmp(s->accel, "kvm") && !s->why[0];
		build_args(s);
		pid_t pid = spawn_qemu(s);
		if (pid < 0) {
			dprintf(r->rep[1], "E %d start %s: %s\n", errno, QEMU, s->args.v[0]);
			_exit(125);
		}
		qemu_pid = pid;
		if (stop_asked)
			kill(pid, SIGTERM);
		st = watch_qemu(s, pid,
		                try_kvm && getenv("LAB_MICROVM_ACCEL") == NULL ? monotonic_ms() + KVM_DEADLINE_MS : -1);
		qemu_pid = -1;
		if (!try_kvm || s->said_kernel || stop_asked)
			break;
		s->accel = "tcg"; /* KVM failed or hung before the guest spoke */
		if (st == -2)
			snprintf(s->why, sizeof s->why, "(a KVM guest did not boot within %d ms)", KVM_DEADLINE_MS);
		else
			snprintf(s->why, sizeof s->why, "(QEMU under KVM failed: exit %d)",
			         WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		s->qerr_len = 0;
	}
	if (!s->said_status && !s->said_error) {
		if (stop_asked) {
			dprintf(r->rep[1], "S %d\n", SIGKILL); /* ended by the lab, as the container's init says */
		} else {
			s->qerr[s->qerr_len] = '\0';
			for (char *c = s->qerr; *c; c++)
				if (*c == '\n' || *c == '\r')
					*c = ' ';
			dprintf(r->rep[1], "E %d the microVM (%s, exit %d): %s\n", EIO,
			        s->said_kernel ? "the guest ended without the snippet's status"
			                       : "the guest's init never spoke",
			        WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
			        s->qerr_len ? s->qerr : "no word from QEMU");
		}
	}
	_exit(0);
}

/* ---------------- lab side ---------------- */

static bool kvm_usable(void)
{
	const char *force = getenv("LAB_MICROVM_ACCEL");
	if (force)
		return !strcmp(force, "kvm");
	return access("/dev/kvm", R_OK | W_OK) == 0;
}

static void microvm_kill(struct run *r, bool hard)
{
	if (r->child_pid <= 0)
		return;
	if (!hard && kill(r->child_pid, SIGTERM) == 0)
		return;
	kill(-r->child_pid, SIGKILL); /* the supervisor's group: QEMU too */
	kill(r->child_pid, SIGKILL);
}

/* The guest sees the host's /usr only: python must really be in it, not
 * "/usr/../tmp/..." or a link in /usr that points elsewhere. */
static bool under_usr(const char *path)
{
	char real[PATH_MAX];
	return realpath(path, real) && !strncmp(real, "/usr/", 5);
}

/* What the rung needs from the host, found once for the readiness check
 * (`matrix --rung all`) and for each run. */
struct vm_parts {
	char qemu[PATH_MAX], kernel[PATH_MAX], release[64], init[PATH_MAX];
};

/* 0, or -1 with what is missing and what to install in why. */
static int find_parts(const struct lab_config *cfg, const char *python, struct vm_parts *p, char *why, size_t cap)
{
	if (!find_qemu(p->qemu, sizeof p->qemu)) {
		snprintf(why, cap,
		         QEMU " not found on PATH: apt-get install qemu-system-x86 (the microvm rung runs the "
		              "snippet in a QEMU microVM)");
		return -1;
	}
	if (find_kernel(cfg, p->kernel, sizeof p->kernel, p->release, sizeof p->release, why, cap) < 0)
		return -1;
	if (find_init(p->init, sizeof p->init) < 0) {
		snprintf(why, cap,
		         "the guest's init (%.200s) is missing: `make build/vm-init` builds it (it needs static "
		         "glibc: apt-get install libc6-dev)",
		         p->init);
		return -1;
	}
	if (python && !under_usr(python)) {
		snprintf(why, cap, "the microVM sees only the host's /usr: [paths] python (%.200s) is not under /usr",
		         python);
		return -1;
	}
	return 0;
}

bool microvm_ready(const struct lab_config *cfg, char *why, size_t cap)
{
	struct vm_parts p;
	why[0] = '\0';
	return find_parts(cfg, cfg->python, &p, why, cap) == 0;
}

static int microvm_start(struct run *r, struct lab_evidence *ev)
{
	if (r->kind == RUN_EXEC && r->setup.exec_rw) {
		snprintf(ev->error, sizeof ev->error,
		         "exec --rw is not built on the microvm rung: the guest sees the current folder read-only "
		         "(drop --rw, or use --rung container)");
		ev->end.exit_code = 2;
		return -1;
	}
	if (r->kind == RUN_EXEC && strchr(r->cwd, '\n')) {
		snprintf(ev->error, sizeof ev->error,
		         "the current folder's name holds a newline, which the guest's /lab/conf cannot carry: cd "
		         "elsewhere");
		ev->end.exit_code = 2;
		return -1;
	}
	if (r->kind != RUN_EXEC && !r->have_decoys) {
		snprintf(ev->error, sizeof ev->error, "the microvm rung runs a snippet of the lab's or exec's command");
		return -1;
	}
	static struct vm_parts vp; /* large, like the supervisor's state below */
	if (find_parts(r->cfg, r->kind == RUN_EXEC ? NULL : r->argv[0], &vp, ev->error, sizeof ev->error) < 0)
		return -1;
	int memfd = memfd_create("containment-lab-initramfs", MFD_CLOEXEC);
	if (memfd < 0) {
		snprintf(ev->error, sizeof ev->error, "memfd_create for the guest's initramfs: %s", strerror(errno));
		return -1;
	}
	if (write_initramfs(r, memfd, vp.init, vp.release, ev) < 0) {
		close(memfd);
		return -1;
	}
	/* exec's command writes on the lab's stdout and stderr itself (the
	 * supervisor's): no output pipe to the lab */
	if (pipe2(r->rep, O_CLOEXEC) < 0 || (r->kind != RUN_EXEC && pipe2(r->out, O_CLOEXEC) < 0) ||
	    pipe2(r->sync, O_CLOEXEC) < 0) {
		snprintf(ev->error, sizeof ev->error, "pipe: %s", strerror(errno));
		close(memfd);
		return -1;
	}
	static struct sup s; /* large; the supervisor's own copy after fork */
	memset(&s, 0, sizeof s);
	s.r = r;
	s.accel = kvm_usable() ? "kvm" : "tcg";
	s.serial = s.err = s.qin = -1;
	s.initrd_memfd = memfd;
	str_copy(s.qemu, sizeof s.qemu, vp.qemu);
	str_copy(s.kernel, sizeof s.kernel, vp.kernel);
	s.debug = getenv("LAB_VM_DEBUG") != NULL;
	s.tsc_khz = host_tsc_khz();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(ev->error, sizeof ev->error, "fork: %s", strerror(errno));
		close(memfd);
		return -1;
	}
	if (pid == 0) {
		/* a group of its own, QEMU in it (exec: a session, whose
		 * terminal the lab's pty becomes) */
		if (r->kind == RUN_EXEC ? setsid() < 0 : setpgid(0, 0) < 0)
			_exit(125);
		supervise(r, &s);
	}
	if (r->kind != RUN_EXEC)
		setpgid(pid, pid); /* whichever of us is first */
	close(s.initrd_memfd);     /* the supervisor's now */
	egress_after_clone(&r->eg);
	r->child_pid = pid;
	r->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	close(r->rep[1]);
	close(r->out[1]);
	close(r->sync[1]);
	r->rep[1] = r->out[1] = r->sync[1] = -1;
	return 0;
}

/* From outside, the lab sees QEMU, not the guest's processes: none are
 * counted, and the memory cap is the VM's own size (and the guest's cgroup). */
static void microvm_sample(const struct run *r, bool memory, struct box_sample *out)
{
	(void)r;
	(void)memory;
	*out = (struct box_sample){0};
}

/* "C memory.peak pids.peak oom_kill memory.max-events pids.max-events
 * usage_usec" from the guest's init (vm/init.c report_cgroup): the
 * snippet's processes and memory as the guest kernel counted them, which
 * the host cannot see. -1 is a file that kernel does not have. */
static void take_guest_cgroup(const char *line, struct lab_evidence *ev)
{
	long long mem, pids, oom, memmax, pidsmax, usec;
	if (sscanf(line, "C %lld %lld %lld %lld %lld %lld", &mem, &pids, &oom, &memmax, &pidsmax, &usec) != 6 ||
	    mem < 0)
		return;
	ev->res.guest_measured = true;
	ev->res.peak_mem = (uint64_t)mem;
	ev->res.peak_mem_from_cgroup = true;
	ev->res.peak_mem_sampled = false;
	if (pids >= 0)
		ev->res.peak_procs = pids;
	ev->res.oom_kills = oom > 0 ? oom : 0;
	ev->res.mem_failcnt = memmax > 0 ? memmax : 0;
	ev->res.pids_max_events = pidsmax > 0 ? pidsmax : 0;
	if (usec >= 0)
		ev->res.cpu_s = (double)usec / 1e6;
}

/* "X NR ERRNO COUNT A0..A5 S0..S5" (vm/init.c report_refusals): one call
 * Isolation's filter refused in the guest, as its init answered it. */
static void take_guest_refusal(const char *line, struct lab_evidence *ev)
{
	int nr, err;
	long count;
	unsigned long long a[6];
	char sx[6][100], *strs[6] = {0};
	if (sscanf(line, "X %d %d %ld %llx %llx %llx %llx %llx %llx %99s %99s %99s %99s %99s %99s", &nr, &err, &count,
	           &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], sx[0], sx[1], sx[2], sx[3], sx[4], sx[5]) != 15 ||
	    count < 1)
		return;
	for (int i = 0; i < 6; i++) {
		size_t len = strlen(sx[i]);
		if (!strcmp(sx[i], "*"))
			continue;
		if (!strcmp(sx[i], "-") || !strcmp(sx[i], "?")) {
			strs[i] = sx[i];
			continue;
		}
		/* hex, then '.' or '+': decoded in place (half the length) */
		size_t k = 0;
		for (size_t j = 0; j + 2 <= len - 1; j += 2) {
			unsigned v;
			if (sscanf(sx[i] + j, "%2x", &v) != 1 || !v)
				break;
			sx[i][k++] = (char)v;
		}
		sx[i][k++] = sx[i][len - 1];
		sx[i][k] = '\0';
		strs[i] = sx[i];
	}
	trace_add_refused(&ev->trace, nr, a, (const char *const *)strs, err, count, "seccomp (Isolation) in the guest");
}

/* The guest's init named its kernel before the snippet existed, and what
 * the snippet's cgroup took and its filter refused after it ended. */
static void microvm_observe(struct run *r, struct lab_evidence *ev)
{
	static char line[48 << 10];
	char rel[64] = "?", id[40] = "", accel[8] = "?";
	ev->kernel.snippet_on_host = false;
	size_t have = 0;
	if (r->sync[0] >= 0) {
		fcntl(r->sync[0], F_SETFL, O_NONBLOCK);
		for (ssize_t n;
		     have < sizeof line - 1 && (n = read(r->sync[0], line + have, sizeof line - 1 - have)) > 0;)
			have += (size_t)n;
	}
	line[have] = '\0';
	const char *c = strstr(line, "\nC ");
	if (c)
		take_guest_cgroup(c + 1, ev);
	long refused_on = -1, dropped;
	int nr;
	for (const char *x = strstr(line, "\nX "); x; x = strstr(x + 1, "\nX ")) {
		if (sscanf(x + 1, "X on %ld", &refused_on) == 1)
			continue;
		if (sscanf(x + 1, "X dropped %d %ld", &nr, &dropped) == 2) {
			if (dropped > 0) /* past the init's table: counted, not listed */
				trace_add_refused_unlisted(&ev->trace, nr, dropped);
			continue;
		}
		take_guest_refusal(x + 1, ev);
	}
	if (refused_on >= 0) {
		/* not watch_iso: the guest's filter has no path rules, so a
		 * write aimed at the host target is not seen there */
		str_copy(
		    ev->trace.note, sizeof ev->trace.note,
		    "refused calls: as the guest's seccomp filter answered Isolation's deny list (its init listened)");
	} else if (r->spec.seccomp) {
		/* the guest had the filter, and its init never said what it
		 * refused: the run ended first (a clock, a kill), not "none" */
		str_copy(ev->trace.note, sizeof ev->trace.note,
		         "refused calls: not listed, the guest's init sent no report of its filter (the run ended "
		         "before it could)");
	}
	line[strcspn(line, "\n")] = '\0'; /* the K line only: " %n" would run on into the next */
	int pos = 0;
	if (sscanf(line, "K %63s %39s %7s %n", rel, id, accel, &pos) >= 3) {
		str_copy(ev->kernel.kernel_release, sizeof ev->kernel.kernel_release, rel);
		str_copy(ev->kernel.kernel_boot_id, sizeof ev->kernel.kernel_boot_id, id);
	}
	bool why = pos > 0 && line[pos];
	mech_add(ev, "microVM: QEMU microvm, guest kernel %s, %s%s%s, 9p /usr ro", rel, accel, why ? " " : "",
	         why ? line + pos : "");
	if (r->root_lab)
		mech_add(ev, "QEMU as uid %ld (%s), no capabilities, no_new_privs", r->map_uid, r->map_why);
	if (r->spec.net == SPEC_NET_ALLOWLIST)
		mech_add(ev,
		         "allow-list: a user-mode NIC whose one route is its gateway " GATEWAY
		         ", QEMU's 127.0.0.1 in the run's own netns, where only the lab's egress proxy listens "
		         "(" GATEWAY ":%d)",
		         EGRESS_PORT);
	else if (spec_net_closed(&r->spec))
		mech_add(ev, "microVM without a NIC");
	else
		mech_add(ev, "user-mode NIC (QEMU's 127.0.0.1, in the run's own netns, is the guest's " GATEWAY ")");
	if (r->spec.cgroup)
		mech_add(ev, "VM memory %lluM, 1 vCPU, guest cgroup v2 memory.max/pids.max",
		         (unsigned long long)(r->spec.cg_memory >> 20) + GUEST_SLACK_MB);
	if (r->spec.n_rl && !strcmp(accel, "tcg"))
		mech_add(ev,
		         "RLIMIT_CPU x%d in the guest (under TCG its CPU seconds are emulated: 10 to 20 for one "
		         "of the host's)",
		         TCG_CPU_SCALE);
	if (ev->res.guest_measured)
		mech_add(ev, "figures from the guest's cgroup (memory.peak, pids.peak, events), sent by its init");
	if (refused_on >= 0)
		mech_add(ev, "guest seccomp: Isolation's deny list, its init answers and reports");
	else if (r->spec.seccomp && ev->started)
		mech_add(ev, "guest seccomp: Isolation's deny list (its init reported no listener)");
}

static void microvm_describe(const struct run *r, struct lab_evidence *ev)
{
	(void)r;
	mech_add(ev, "range: QEMU in its own process group, killed with the run (no host namespaces)");
}

const struct box_ops box_microvm = {
    .name = "microvm",
    .kernel = "the guest's own kernel",
    .late_start = true,
    .start = microvm_start,
    .kill = microvm_kill,
    .sample = microvm_sample,
    .observe = microvm_observe,
    .describe = microvm_describe,
    .pid1 = "supervisor",
    .guest_status = true,
};
