/* sandbox.c — builds the sandbox from exactly the chosen layers, runs one
 * command in it, and gathers the evidence from outside.
 *
 * Processes of one run:
 *
 *   lab (this process: subreaper, listener, event loop, evidence)
 *    └─ snippet  cloned with the namespaces of the layers that are on; builds
 *                the new root, sets rlimits, fds, session, caps, no_new_privs,
 *                seccomp, then execve()s the snippet (PID 1 of its namespace
 *                with Isolation on: when it exits the kernel kills the rest).
 *
 * Ordering constraints, in the order they happen:
 *  1. The lab plants decoys, opens the attacker listener and builds the
 *     environment before cloning: the child only has to apply things.
 *  2. clone() creates all namespaces at once, so the child is PID 1 of its PID
 *     namespace and the new network namespace is owned by the new user
 *     namespace (rootless works).
 *  3. While the child builds its root, the lab compiles the seccomp filter
 *     (into a memfd) and creates the run's cgroup, then sends "go" with both
 *     as file descriptors. The child moves itself into the cgroup before the
 *     snippet exists, so every process of it is born inside the caps (see
 *     cgroup.c for why it writes "0" into v1 tasks files), and loads the
 *     filter later.
 *  4. The lab writes uid_map/gid_map first of all (only the parent may map
 *     root-inside to an unprivileged uid outside), then lets the child go
 *     on. After joining the cgroup and pivoting into its root, the child
 *     unshares its cgroup namespace so the snippet sees its cgroup as root.
 *  5. Then, in the same process: fds, setsid, then capabilities (after this
 *     nothing privileged can be done), then no_new_privs, then the seccomp
 *     filter, because the steps before it use calls the filter refuses; the
 *     rlimits come last, right before execve, so the lab's own code never
 *     runs under the snippet's address-space cap. */
#define _GNU_SOURCE
#include "cgroup.h"
#include "decoy.h"
#include "lab.h"
#include "proc.h"
#include "seccomp_filter.h"
#include "util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

extern char **environ;

#define POLL_MS 10
#define CANARY_MAX (DECOY_SECRETS + 1)

struct sandbox {
	const struct lab_config *cfg;
	unsigned layers;
	bool exec_mode, rw;
	bool root_lab;
	bool userns, pidns, netns;
	uid_t uid;
	gid_t gid;
	uid_t inside_uid;   /* what the snippet is inside */
	long map_uid, map_gid; /* outside ids of the sandbox (userns only) */
	bool have_decoys;
	struct lab_decoys d;
	struct lab_cgroup cg;
	char cg_why[200];
	int n_rules;            /* in Isolation's filter, for the record */
	int bpf_fd;             /* the compiled filter (memfd), for the child */
	int net_bpf_fd;         /* No-network's own filter (memfd) */
	struct sock_fprog iso_prog, net_prog; /* child: the filters, read in */
	char **envp;
	int n_env;
	char *argv[8];
	char *const *user_argv;
	char cwd[PATH_MAX];
	int cwd_tree;           /* root lab: a detached copy of the cwd mount */
	char workdir[PATH_MAX]; /* where the snippet starts */
	int sync[2], rep[2], out[2];
	pid_t child_pid;
	int pidfd;
};

/* ---------- child side: never returns, reports failures over rep ---------- */

static void __attribute__((noreturn)) child_fail(struct sandbox *sb, const char *stage, int err)
{
	char msg[160];
	int n = snprintf(msg, sizeof msg, "E %d %s\n", err, stage);
	(void)!write(sb->rep[1], msg, (size_t)n);
	_exit(125);
}

static void child_read_sync(struct sandbox *sb, const char *stage)
{
	char c;
	ssize_t r;
	do
		r = read(sb->sync[0], &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		child_fail(sb, stage, r < 0 ? errno : EPIPE);
}

/* Reads a compiled filter from its memfd (and closes it): the descriptor
 * numbers are about to be rearranged for the snippet. */
static void read_filter(struct sandbox *sb, int bpf_fd, struct sock_fprog *out)
{
	struct stat st;
	errno = 0;
	if (fstat(bpf_fd, &st) < 0 || st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter))
		child_fail(sb, "read the seccomp filter", errno ? errno : EINVAL);
	struct sock_filter *prog = malloc((size_t)st.st_size);
	if (!prog || pread(bpf_fd, prog, (size_t)st.st_size, 0) != st.st_size)
		child_fail(sb, "read the seccomp filter", errno);
	close(bpf_fd);
	*out = (struct sock_fprog){.len = (unsigned short)(st.st_size / (off_t)sizeof *prog), .filter = prog};
}

static void load_filter(struct sandbox *sb, struct sock_fprog *prog)
{
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog) < 0)
		child_fail(sb, "load the seccomp filter", errno);
}

/* "go" from the lab: the compiled seccomp filter and the cgroup files,
 * passed as file descriptors (they were made while we built our root). */
static void child_receive_go(struct sandbox *sb)
{
	char byte[4];
	union {
		char buf[CMSG_SPACE(sizeof(int) * (CG_V1_COUNT + 2))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {byte, sizeof byte};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
	ssize_t r;
	do
		r = recvmsg(sb->sync[0], &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 4 || byte[0] != 'g')
		child_fail(sb, "wait for the lab", r < 0 ? errno : EPIPE);
	int n = 0, *fds = NULL;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		fds = (int *)CMSG_DATA(c);
	}
	if (n != byte[1] + byte[2] + byte[3])
		child_fail(sb, "receive the filter and cgroup files", EPROTO);
	/* into the run's cgroup before the snippet exists: all its processes
	 * are born inside the caps (see cgroup.c for why "0" into tasks) */
	for (int i = 0; i < byte[1]; i++) {
		if (write(fds[i], "0\n", 2) != 2)
			child_fail(sb, "move into the run's cgroup", errno);
		close(fds[i]);
	}
	if (byte[2])
		read_filter(sb, fds[(int)byte[1]], &sb->iso_prog);
	if (byte[3])
		read_filter(sb, fds[byte[1] + byte[2]], &sb->net_prog);
}

static int make_ro(const char *path, bool recursive)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	if (mount_setattr(AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr, sizeof attr) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* old kernels: a remount must repeat the flags the mount is locked with */
	struct statvfs sv;
	if (statvfs(path, &sv) < 0)
		return -1;
	unsigned long fl = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		fl |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		fl |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		fl |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		fl |= MS_RELATIME;
	return mount(NULL, path, NULL, fl, NULL);
}

static void mkdir_p(struct sandbox *sb, const char *path)
{
	char tmp[PATH_MAX];
	str_copy(tmp, sizeof tmp, path);
	for (char *p = tmp + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = '\0';
			struct stat st;
			if (stat(tmp, &st) < 0 && mkdir(tmp, 0755) < 0 && errno != EEXIST)
				child_fail(sb, "mkdir in the new root", errno);
			*p = c;
			if (!c)
				break;
		}
	}
}

static void bind_into(struct sandbox *sb, const char *src, const char *root, const char *dst, bool ro)
{
	char target[PATH_MAX];
	snprintf(target, sizeof target, "%s%s", root, dst);
	struct stat st;
	if (stat(src, &st) < 0)
		return; /* nothing to bind on this host */
	if (S_ISDIR(st.st_mode)) {
		mkdir_p(sb, target);
	} else {
		int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST && errno != EROFS)
			child_fail(sb, "create a bind target", errno);
		if (fd >= 0)
			close(fd);
	}
	if (mount(src, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		child_fail(sb, "bind-mount into the new root", errno);
	if (ro && make_ro(target, true) < 0)
		child_fail(sb, "make a bind mount read-only", errno);
}

static void put_file(struct sandbox *sb, const char *root, const char *name, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s%s", root, name);
	if (write_file(p, text, 0644) < 0)
		child_fail(sb, "write the sandbox's /etc", errno);
}

/* Isolation: a fresh tmpfs root with only what the interpreter needs. */
static void build_root(struct sandbox *sb)
{
	const struct lab_config *cfg = sb->cfg;
	const char *root = sb->d.root;
	char p[PATH_MAX], opts[64];

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(sb, "make mounts private", errno);
	/* exec: take the current folder before /tmp is covered by the new root
	 * (a root lab took it already, see sandbox_prepare) */
	if (sb->exec_mode && sb->cwd_tree < 0 && strcmp(sb->cwd, "/") != 0) {
		sb->cwd_tree = open_tree(AT_FDCWD, sb->cwd, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (sb->cwd_tree < 0)
			child_fail(sb, "take the current folder (open_tree needs Linux 5.2)", errno);
	}
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4m") < 0)
		child_fail(sb, "mount the new root tmpfs", errno);

	bind_into(sb, "/usr", root, "/usr", true);
	/* merged-/usr hosts have symlinks; others get read-only binds */
	static const char *const top[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
	for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
		char link[PATH_MAX];
		ssize_t n = readlink(top[i], link, sizeof link - 1);
		snprintf(p, sizeof p, "%s%s", root, top[i]);
		if (n > 0) {
			link[n] = '\0';
			if (symlink(link, p) < 0)
				child_fail(sb, "symlink in the new root", errno);
		} else {
			bind_into(sb, top[i], root, top[i], true);
		}
	}

	pathf(p, sizeof p, "%s/etc", root);
	mkdir(p, 0755);
	put_file(sb, root, "/etc/passwd",
		 "root:x:0:0:sandbox root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
	put_file(sb, root, "/etc/group", "root:x:0:\nnogroup:x:65534:\n");
	put_file(sb, root, "/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n");
	put_file(sb, root, "/etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files\n");
	pathf(opts, sizeof opts, "%s\n", cfg->hostname);
	put_file(sb, root, "/etc/hostname", opts);
	bind_into(sb, "/etc/ld.so.cache", root, "/etc/ld.so.cache", true);
	bind_into(sb, "/etc/localtime", root, "/etc/localtime", true);

	/* fresh /proc for the new PID namespace */
	pathf(p, sizeof p, "%s/proc", root);
	mkdir(p, 0555);
	if (mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		child_fail(sb, "mount a fresh /proc (is the host's /proc masked, as in a container?)", errno);

	/* minimal /dev: a few character devices, no terminal */
	pathf(p, sizeof p, "%s/dev", root);
	mkdir(p, 0755);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") < 0)
		child_fail(sb, "mount /dev", errno);
	static const char *const devs[] = {"null", "zero", "full", "random", "urandom"};
	for (size_t i = 0; i < sizeof devs / sizeof *devs; i++) {
		char src[32], dst[32];
		snprintf(src, sizeof src, "/dev/%s", devs[i]);
		snprintf(dst, sizeof dst, "/dev/%s", devs[i]);
		bind_into(sb, src, root, dst, false);
	}
	static const char *const links[][2] = {
		{"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"},
		{"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"}};
	for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
		snprintf(p, sizeof p, "%s%s", root, links[i][1]);
		if (symlink(links[i][0], p) < 0)
			child_fail(sb, "symlink in /dev", errno);
	}
	/* nothing more goes into /dev: only /tmp stays writable */
	pathf(p, sizeof p, "%s/dev", root);
	if (make_ro(p, false) < 0)
		child_fail(sb, "make /dev read-only", errno);

	/* private, size-capped /tmp */
	pathf(p, sizeof p, "%s/tmp", root);
	mkdir(p, 01777);
	snprintf(opts, sizeof opts, "mode=1777,size=%llu", (unsigned long long)cfg->tmp_size);
	if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		child_fail(sb, "mount the private /tmp", errno);

	pathf(p, sizeof p, "%s/root", root);
	mkdir(p, 0700);
	if (sb->exec_mode) {
		/* A root lab cloned the folder's mount before clone(): root inside
		 * is an unprivileged uid outside and may not be able to walk to the
		 * folder (/root is 0700), though it may use the folder itself. */
		if (sb->cwd_tree >= 0) {
			pathf(p, sizeof p, "%s%s", root, sb->cwd);
			mkdir_p(sb, p);
			if (move_mount(sb->cwd_tree, "", AT_FDCWD, p, MOVE_MOUNT_F_EMPTY_PATH) < 0)
				child_fail(sb, "attach the current folder", errno);
			if (!sb->rw && make_ro(p, true) < 0)
				child_fail(sb, "make the current folder read-only", errno);
		}
	} else {
		bind_into(sb, sb->d.work, root, "/work", true);
		/* Clean-env off: the naive integration mounts the user's credentials */
		if (!(sb->layers & LAYER_BIT(LAYER_ENV)))
			bind_into(sb, sb->d.home, root, "/root", true);
	}

	/* the root itself becomes read-only: only /tmp is writable */
	if (make_ro(root, false) < 0)
		child_fail(sb, "make the new root read-only", errno);
	if (chdir(root) < 0)
		child_fail(sb, "enter the new root", errno);
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		child_fail(sb, "pivot_root", errno);
	/* the old root is stacked under the new one: detach it */
	if (umount2(".", MNT_DETACH) < 0)
		child_fail(sb, "detach the old root", errno);
	if (chdir("/") < 0)
		child_fail(sb, "chdir /", errno);
}

static void set_rlimit(struct sandbox *sb, int res, rlim_t v, const char *what)
{
	struct rlimit rl = {v, v}; /* hard = soft: the snippet cannot raise them */
	if (setrlimit(res, &rl) < 0)
		child_fail(sb, what, errno);
}

static void __attribute__((noreturn)) snippet_exec(struct sandbox *sb)
{
	const struct lab_limits *lim = &sb->cfg->limits;
	bool iso = sb->layers & LAYER_BIT(LAYER_ISOLATION);

	signal(SIGPIPE, SIG_DFL);
	if (!sb->exec_mode) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(sb->out[1], 1) < 0 || dup2(sb->out[1], 2) < 0)
			child_fail(sb, "set up stdio", errno);
	}
	/* Clean-env: nothing beyond stdio survives execve. CLOEXEC rather than
	 * close, so the report pipe still tells the lab if execve fails. Off,
	 * the naive integration leaks a handle: the decoy credentials file,
	 * open as fd 3. (The caller's own descriptors never get this far, see
	 * main.) */
	if (sb->layers & LAYER_BIT(LAYER_ENV)) {
		if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
			child_fail(sb, "close_range", errno);
	} else if (sb->have_decoys) {
		/* keep the report pipe clear of the slot the handle takes */
		if (sb->rep[1] == 3 && (sb->rep[1] = fcntl(3, F_DUPFD_CLOEXEC, 4)) < 0)
			_exit(125);
		int fd = open(iso ? "/root/.aws/credentials" : sb->d.creds, O_RDONLY);
		if (fd >= 0 && fd != 3 && (dup2(fd, 3) < 0 || close(fd) < 0))
			child_fail(sb, "hand over the leaked credentials handle", errno);
	}
	/* No-network's own filter, while we still hold the privilege to load
	 * one without no_new_privs (Isolation sets that just below anyway) */
	if (sb->net_prog.filter)
		load_filter(sb, &sb->net_prog);
	if (iso) {
		/* no controlling terminal shared with the lab */
		if (setsid() < 0)
			child_fail(sb, "setsid", errno);
		capng_clear(CAPNG_SELECT_ALL);
		if (capng_apply(CAPNG_SELECT_ALL) < 0)
			child_fail(sb, "drop capabilities (libcap-ng)", EPERM);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			child_fail(sb, "PR_SET_NO_NEW_PRIVS", errno);
		load_filter(sb, &sb->iso_prog);
	}
	if (chdir(sb->workdir) < 0)
		child_fail(sb, sb->exec_mode && iso ? "enter the current folder (root inside is an unprivileged uid outside: "
						   "the folder and its parents must be open to it)"
						 : "enter the work folder",
			   errno);
	/* Last, so nothing of ours runs under the address-space cap (lowering a
	 * limit needs no privilege, so the order against caps is free). */
	if (sb->layers & LAYER_BIT(LAYER_LIMITS)) {
		set_rlimit(sb, RLIMIT_AS, lim->memory, "setrlimit(RLIMIT_AS)");
		set_rlimit(sb, RLIMIT_NPROC, (rlim_t)lim->pids, "setrlimit(RLIMIT_NPROC)");
		set_rlimit(sb, RLIMIT_CPU, (rlim_t)lim->cpu_time, "setrlimit(RLIMIT_CPU)");
		set_rlimit(sb, RLIMIT_FSIZE, lim->file_size, "setrlimit(RLIMIT_FSIZE)");
		set_rlimit(sb, RLIMIT_NOFILE, (rlim_t)lim->open_files, "setrlimit(RLIMIT_NOFILE)");
		set_rlimit(sb, RLIMIT_CORE, 0, "setrlimit(RLIMIT_CORE)");
	}
	const char *file = sb->exec_mode ? sb->user_argv[0] : sb->argv[0];
	char *const *argv = sb->exec_mode ? sb->user_argv : sb->argv;
	if (strchr(file, '/'))
		execve(file, argv, sb->envp);
	else
		execvpe(file, argv, sb->envp);
	child_fail(sb, "execve", errno);
}

/* The sandbox's first process: builds what the layers ask for, then becomes
 * the snippet (PID 1 of its namespace with Isolation on). The lab is the
 * subreaper and the one who waits: no extra process stands in between. */
static void __attribute__((noreturn)) child_main(struct sandbox *sb)
{
	close(sb->sync[1]);
	close(sb->rep[0]);
	if (sb->out[0] >= 0)
		close(sb->out[0]);
	if (sb->have_decoys && sb->d.listen_fd >= 0)
		close(sb->d.listen_fd);
	/* if the lab dies, the sandbox dies (this survives execve); armed
	 * again below, since changing ids clears it. Should the lab already be
	 * gone, its end of the sync socket is closed and "go" never comes. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	if (sb->userns) {
		child_read_sync(sb, "wait for the uid map");
		/* root inside with Isolation; otherwise the identity map keeps
		 * the user's own ids and there is nothing to change */
		if (sb->inside_uid == 0 && setresgid(0, 0, 0) < 0)
			child_fail(sb, "setresgid in the user namespace", errno);
		if (setresuid(sb->inside_uid, sb->inside_uid, sb->inside_uid) < 0)
			child_fail(sb, "setresuid in the user namespace", errno);
		/* a root lab's supplementary groups (gid 0!) must not follow the
		 * sandbox; rootless they are the user's own and cannot be dropped */
		if (sb->root_lab && setgroups(0, NULL) < 0)
			child_fail(sb, "setgroups", errno);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	}
	if (sb->layers & LAYER_BIT(LAYER_ISOLATION)) {
		if (sethostname(sb->cfg->hostname, strlen(sb->cfg->hostname)) < 0)
			child_fail(sb, "sethostname", errno);
		build_root(sb);
	}
	/* as late as possible: the lab has been busy while we built */
	child_receive_go(sb);
	close(sb->sync[0]);
	if ((sb->layers & LAYER_BIT(LAYER_ISOLATION)) && unshare(CLONE_NEWCGROUP) < 0)
		child_fail(sb, "unshare the cgroup namespace", errno);
	/* No-network: prove from inside, before the snippet, that the
	 * attacker cannot be reached. */
	if (sb->netns && sb->have_decoys) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int e = 0;
		if (fd < 0) {
			e = errno;
		} else {
			struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sb->d.port),
						.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
			e = connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ? errno : 0;
			close(fd);
		}
		char msg[32];
		int n = snprintf(msg, sizeof msg, "P %d\n", e);
		(void)!write(sb->rep[1], msg, (size_t)n);
	}

	snippet_exec(sb);
}

/* ---------- lab side ---------- */

long monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int write_map(pid_t pid, const char *file, const char *text)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/%s", pid, file);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, text, strlen(text));
	close(fd);
	return r;
}

static long read_long_file(const char *path)
{
	char *s = read_file(path, NULL, 64);
	if (!s)
		return -1;
	long v = strtol(s, NULL, 10);
	free(s);
	return v;
}

/* Why clone() with a user namespace failed, and what to do about it. */
static void userns_advice(char *out, size_t cap, int err)
{
	if (read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		snprintf(out, cap,
			 "cannot create a user namespace (%s): AppArmor restricts unprivileged user namespaces "
			 "(Ubuntu 23.10+). Run the lab as root, or allow them: sudo sysctl -w "
			 "kernel.apparmor_restrict_unprivileged_userns=0",
			 strerror(err));
	else if (read_long_file("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		snprintf(out, cap,
			 "cannot create a user namespace (%s): unprivileged user namespaces are disabled. "
			 "Run as root, or: sudo sysctl -w kernel.unprivileged_userns_clone=1",
			 strerror(err));
	else if (read_long_file("/proc/sys/user/max_user_namespaces") == 0)
		snprintf(out, cap,
			 "cannot create a user namespace (%s): user.max_user_namespaces is 0. "
			 "Run as root, or: sudo sysctl -w user.max_user_namespaces=15000",
			 strerror(err));
	else
		snprintf(out, cap,
			 "cannot create the sandbox's namespaces (%s). Inside a container the default seccomp "
			 "profile blocks them: run the container with --security-opt seccomp=unconfined, or run "
			 "the lab on the host",
			 strerror(err));
}

static void env_add(struct sandbox *sb, char *kv) { lab_env_add(&sb->envp, &sb->n_env, kv); }

static void build_env(struct sandbox *sb, char *const *source, const char *clean_home)
{
	lab_env_build(sb->cfg, source, (sb->layers & LAYER_BIT(LAYER_ENV)) != 0, clean_home, &sb->envp, &sb->n_env);
}

static void free_env(struct sandbox *sb)
{
	lab_env_free(sb->envp);
	sb->envp = NULL;
	sb->n_env = 0;
}

static void mech_add(struct lab_evidence *ev, const char *m)
{
	str_append(ev->mechanisms, sizeof ev->mechanisms, "%s%s", ev->mechanisms[0] ? ", " : "", m);
}

/* Everything before clone(): decide the namespaces, plant, compile, create. */
static int sandbox_prepare(struct sandbox *sb, const struct snippet *s, struct lab_evidence *ev)
{
	const struct lab_config *cfg = sb->cfg;
	bool iso = sb->layers & LAYER_BIT(LAYER_ISOLATION);
	bool net = sb->layers & LAYER_BIT(LAYER_NETWORK);
	bool lim = sb->layers & LAYER_BIT(LAYER_LIMITS);
	char err[LAB_LINE * 2] = "";

	sb->uid = geteuid();
	sb->gid = getegid();
	sb->root_lab = sb->uid == 0;
	/* A rootless lab needs a user namespace to own a network namespace, and
	 * uses one so RLIMIT_NPROC counts only this run's processes. With
	 * Isolation off it maps the user to itself: same uid, no privileges. */
	sb->userns = iso || (!sb->root_lab && (net || lim));
	sb->pidns = iso;
	sb->netns = net;
	if (iso) {
		sb->inside_uid = 0;
		sb->map_uid = sb->root_lab ? cfg->outside_uid : sb->uid;
		sb->map_gid = sb->root_lab ? cfg->outside_uid : sb->gid;
	} else {
		sb->inside_uid = sb->uid;
		sb->map_uid = sb->uid;
		sb->map_gid = sb->gid;
	}

	if (!sb->exec_mode) {
		if (decoy_plant(&sb->d, cfg, s, err, sizeof err) < 0) {
			str_copy(ev->error, sizeof ev->error, err);
			return -1;
		}
		sb->have_decoys = true;
		int r = decoy_listen(&sb->d);
		if (r < 0) {
			snprintf(ev->error, sizeof ev->error, "cannot start the attacker listener on 127.0.0.1: %s",
				 strerror(-r));
			return -1;
		}
		ev->canaries_planted = sb->d.n_secret;
		str_copy(ev->host_target, sizeof ev->host_target, sb->d.host_target);
		char cleanhome[PATH_MAX + 16];
		snprintf(cleanhome, sizeof cleanhome, "%s/cleanhome", sb->d.dir);
		if (!iso)
			mkdir(cleanhome, 0755);
		char **naive = NULL;
		decoy_naive_env(&sb->d, iso ? "/root" : sb->d.home, &naive);
		build_env(sb, naive, iso ? cfg->clean_home : cleanhome);
		for (char **e = naive; *e; e++)
			free(*e);
		free(naive);
		char *kv;
		if (asprintf(&kv, "LAB_DATA=%s", iso ? "/work/sales.csv" : sb->d.csv) < 0)
			abort();
		env_add(sb, kv);
		if (asprintf(&kv, "LAB_ATTACKER=http://127.0.0.1:%d/", sb->d.port) < 0)
			abort();
		env_add(sb, kv);
		if (asprintf(&kv, "LAB_HOST_TARGET=%s", sb->d.host_target) < 0)
			abort();
		env_add(sb, kv);
		ev->env_vars = sb->n_env;
		ev->creds_mounted = !(sb->layers & LAYER_BIT(LAYER_ENV));
		ev->host_visible = !iso;
		sb->argv[0] = (char *)cfg->python;
		sb->argv[1] = "-u";
		sb->argv[2] = iso ? "/work/snippet.py" : sb->d.snippet_file;
		sb->argv[3] = NULL;
		str_copy(sb->workdir, sizeof sb->workdir, iso ? "/work" : sb->d.work);
	} else {
		if (!getcwd(sb->cwd, sizeof sb->cwd)) {
			snprintf(ev->error, sizeof ev->error, "cannot read the current folder: %s", strerror(errno));
			return -1;
		}
		str_copy(sb->workdir, sizeof sb->workdir, sb->cwd);
		if (iso && sb->root_lab)
			sb->cwd_tree = open_tree(AT_FDCWD, ".", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		/* The new root is a tmpfs the sandbox mounts over /tmp in its own
		 * mount namespace: no temp folder to make and remove for exec. */
		str_copy(sb->d.root, sizeof sb->d.root, "/tmp");
		build_env(sb, environ, iso ? cfg->clean_home : (lab_env_get(environ, "HOME") ?: "/"));
	}

	return 0;
}

/* A lab that was SIGKILLed could not clean up. Its temp folder and cgroups
 * carry its pid; whatever belongs to a pid that no longer exists goes now. */
static bool pid_gone(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(name, prefix, n))
		return false;
	char *end;
	long pid = strtol(name + n, &end, 10);
	return pid > 0 && (*end == '.' || *end == '-') && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

static bool run_gone(const char *run) { return pid_gone(run, "run-"); }

static void sweep_stale(void)
{
	if (geteuid() == 0)
		cgroup_sweep(run_gone);
	const char *tmp = temp_dir();
	DIR *d = opendir(tmp);
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[PATH_MAX];
		struct stat st;
		if (pid_gone(e->d_name, "containment-lab.") && pathf(p, sizeof p, "%s/%s", tmp, e->d_name) == 0 &&
		    lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
			remove_tree(p);
	}
	if (d)
		closedir(d);
}

/* Compiles a filter to BPF in a memfd for the child, and releases it. */
static int export_filter(scmp_filter_ctx f, const char *name, int *fd_out)
{
	int fd = memfd_create(name, MFD_CLOEXEC), r = fd < 0 ? -errno : seccomp_export_bpf(f, fd);
	seccomp_release(f);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}

static void close_filters(struct sandbox *sb)
{
	if (sb->bpf_fd >= 0)
		close(sb->bpf_fd);
	if (sb->net_bpf_fd >= 0)
		close(sb->net_bpf_fd);
	sb->bpf_fd = sb->net_bpf_fd = -1;
}

/* The lab's slower preparation, done after clone() while the child builds
 * its root: the seccomp filter compiled into a memfd, the run's cgroup.
 * Then "go" carries both to the child as file descriptors. */
static int sandbox_prepare_parallel(struct sandbox *sb, struct lab_evidence *ev)
{
	const struct lab_config *cfg = sb->cfg;
	bool iso = sb->layers & LAYER_BIT(LAYER_ISOLATION);
	bool net = sb->layers & LAYER_BIT(LAYER_NETWORK);
	bool lim = sb->layers & LAYER_BIT(LAYER_LIMITS);
	if (iso) {
		int e = 0;
		scmp_filter_ctx f = lab_seccomp_build(&e, &sb->n_rules);
		if (!f || (e = export_filter(f, "containment-lab-seccomp", &sb->bpf_fd)) < 0) {
			snprintf(ev->error, sizeof ev->error, "cannot build the seccomp filter: %s", strerror(-e));
			return -1;
		}
	}
	if (net) {
		int e = 0;
		scmp_filter_ctx f = lab_seccomp_build_network(&e);
		if (!f || (e = export_filter(f, "containment-lab-seccomp-net", &sb->net_bpf_fd)) < 0) {
			snprintf(ev->error, sizeof ev->error, "cannot build No-network's socket filter: %s", strerror(-e));
			return -1;
		}
	}
	if (lim && sb->root_lab) {
		char name[64];
		static unsigned seq;
		snprintf(name, sizeof name, "run-%d-%u", getpid(), seq++);
		if (cgroup_setup(&sb->cg, &cfg->limits, name, sb->cg_why, sizeof sb->cg_why) < 0)
			sb->cg.ops = NULL;
	} else if (lim) {
		snprintf(sb->cg_why, sizeof sb->cg_why, "rootless: the lab creates cgroups only as root");
	}
	ev->cgroup_used = sb->cg.ops != NULL;

	/* go: 'g', how many cgroup fds, whether Isolation's filter and
	 * No-network's filter follow them */
	int fds[CG_V1_COUNT + 2], n = 0;
	for (int i = 0; i < sb->cg.n_attach; i++)
		fds[n++] = sb->cg.attach_fd[i];
	char byte[4] = {'g', (char)n, (char)(sb->bpf_fd >= 0), (char)(sb->net_bpf_fd >= 0)};
	if (sb->bpf_fd >= 0)
		fds[n++] = sb->bpf_fd;
	if (sb->net_bpf_fd >= 0)
		fds[n++] = sb->net_bpf_fd;
	union {
		char buf[CMSG_SPACE(sizeof fds)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {byte, sizeof byte};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	if (n) {
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	}
	if (sendmsg(sb->sync[1], &msg, MSG_NOSIGNAL) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot hand the sandbox its filter and cgroup: %s",
			 strerror(errno));
		return -1;
	}
	cgroup_close_attach(&sb->cg); /* the child has its own copies now */
	close_filters(sb);
	sweep_stale(); /* we would only wait otherwise */

	/* what is really used, for the record */
	if (iso) {
		char m[200];
		snprintf(m, sizeof m, "userns (root inside = uid %ld outside)", sb->map_uid);
		mech_add(ev, m);
		mech_add(ev, "mount ns + pivot_root (ro /usr, fresh /proc, minimal /dev, tmpfs /tmp)");
		mech_add(ev, "pid/uts/ipc/cgroup ns");
		mech_add(ev, "caps dropped incl. bounding set (libcap-ng)");
		mech_add(ev, "no_new_privs");
		snprintf(m, sizeof m, "seccomp (%d rules, foreign ABIs killed)", sb->n_rules);
		mech_add(ev, m);
		mech_add(ev, "setsid");
	} else if (sb->userns) {
		mech_add(ev, "userns (same uid, for the layers below)");
	}
	if (net)
		mech_add(ev, "netns (no interface), AF_VSOCK refused (seccomp)");
	if (sb->layers & LAYER_BIT(LAYER_ENV)) {
		char m[64];
		snprintf(m, sizeof m, "env allow-list (%d vars)", sb->n_env);
		mech_add(ev, m);
		mech_add(ev, "fds > 2 closed");
	}
	if (lim) {
		if (sb->cg.ops) {
			mech_add(ev, sb->cg.ops->name);
		} else {
			char m[LAB_LINE];
			snprintf(m, sizeof m, "rlimits-only (%s)", sb->cg_why[0] ? sb->cg_why : "no cgroup");
			mech_add(ev, m);
		}
		mech_add(ev, "rlimits (AS, NPROC, CPU, FSIZE, NOFILE)");
		mech_add(ev, "wall-clock timeout");
		mech_add(ev, "output cap");
	}
	mech_add(ev, sb->root_lab ? "lab runs as root" : "rootless");
	return 0;
}

struct scanner {
	char tail[128]; /* longer than any canary or encoded variant */
	size_t tail_len;
};

/* Looks for every canary in the stream, including across read boundaries. */
static void scan_canaries(struct sandbox *sb, struct scanner *sc, bool *found, const char *data, size_t n)
{
	if (!sb->have_decoys)
		return;
	size_t len = sc->tail_len + n;
	char *buf = malloc(len + 1);
	if (!buf)
		return;
	memcpy(buf, sc->tail, sc->tail_len);
	memcpy(buf + sc->tail_len, data, n);
	buf[len] = '\0';
	for (int i = 0; i < sb->d.n_secret; i++) {
		const char *tok = sb->d.secret[i].token;
		if (!found[i] && memmem(buf, len, tok, strlen(tok)))
			found[i] = true;
		for (int v = 0; !found[i] && v < sb->d.secret[i].n_variant; v++) {
			const char *enc = sb->d.secret[i].variant[v];
			if (memmem(buf, len, enc, strlen(enc)))
				found[i] = true;
		}
	}
	size_t keep = len < sizeof sc->tail ? len : sizeof sc->tail;
	memcpy(sc->tail, buf + len - keep, keep);
	sc->tail_len = keep;
	free(buf);
}

static void kill_run(struct sandbox *sb)
{
	if (sb->child_pid > 0)
		kill(sb->child_pid, SIGKILL); /* with a PID namespace this ends them all */
	if (sb->cg.ops)
		sb->cg.ops->kill_all(&sb->cg);
	proc_kill_descendants(getpid(), false);
}

static void parse_report(struct sandbox *sb, char *buf, struct lab_evidence *ev)
{
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			break;
		*next++ = '\0';
		if (line[0] == 'P') {
			ev->net_probe_errno = atoi(line + 2);
		} else if (line[0] == 'E' && !ev->error[0]) {
			char *stage = strchr(line + 2, ' ');
			int e = atoi(line + 2);
			snprintf(ev->error, sizeof ev->error, "sandbox setup failed at '%s': %s", stage ? stage + 1 : "?",
				 strerror(e));
			if (stage && !strcmp(stage + 1, "execve") && sb->exec_mode)
				ev->exit_code = e == ENOENT ? 127 : 126;
		}
	}
	(void)sb;
}

/* clone(), maps, cgroup, event loop, evidence. Fills ev and the output. */
static void sandbox_run(struct sandbox *sb, const struct lab_run_opts *opts, struct lab_evidence *ev,
			struct strbuf *output)
{
	const struct lab_config *cfg = sb->cfg;
	bool lim = sb->layers & LAYER_BIT(LAYER_LIMITS);
	sb->sync[0] = sb->sync[1] = sb->rep[0] = sb->rep[1] = sb->out[0] = sb->out[1] = -1;
	sb->pidfd = -1;
	ev->net_probe_errno = -1;
	ev->own_netns = sb->netns;
	ev->exit_code = -1;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sb->sync) < 0 || pipe2(sb->rep, O_CLOEXEC) < 0 ||
	    (!sb->exec_mode && pipe2(sb->out, O_CLOEXEC) < 0)) {
		snprintf(ev->error, sizeof ev->error, "pipe: %s", strerror(errno));
		goto out;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	unsigned long flags = SIGCHLD;
	if (sb->userns)
		flags |= CLONE_NEWUSER;
	if (sb->layers & LAYER_BIT(LAYER_ISOLATION))
		flags |= CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC;
	if (sb->netns)
		flags |= CLONE_NEWNET;

	fflush(NULL);
	long t0 = monotonic_ms();
	struct timespec ts0;
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		int e = errno;
		if (sb->userns || sb->netns)
			userns_advice(ev->error, sizeof ev->error, e);
		else
			snprintf(ev->error, sizeof ev->error, "clone: %s", strerror(e));
		goto out;
	}
	if (pid == 0)
		child_main(sb);
	sb->child_pid = pid;
	close(sb->sync[0]);
	sb->sync[0] = -1;
	close(sb->rep[1]);
	sb->rep[1] = -1;
	if (sb->out[1] >= 0) {
		close(sb->out[1]);
		sb->out[1] = -1;
	}
	sb->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (sb->userns) {
		char map[64];
		int r;
		if (!sb->root_lab && (r = write_map(pid, "setgroups", "deny")) < 0) {
			snprintf(ev->error, sizeof ev->error, "cannot deny setgroups: %s", strerror(-r));
			goto kill;
		}
		snprintf(map, sizeof map, "%d %ld 1\n", sb->inside_uid, sb->map_uid);
		if ((r = write_map(pid, "uid_map", map)) < 0) {
			snprintf(ev->error, sizeof ev->error, "cannot write the uid map: %s", strerror(-r));
			goto kill;
		}
		snprintf(map, sizeof map, "%d %ld 1\n", sb->inside_uid == 0 ? 0 : (int)sb->gid, sb->map_gid);
		if ((r = write_map(pid, "gid_map", map)) < 0) {
			snprintf(ev->error, sizeof ev->error, "cannot write the gid map: %s", strerror(-r));
			goto kill;
		}
		(void)!write(sb->sync[1], "m", 1);
	}
	if (sandbox_prepare_parallel(sb, ev) < 0)
		goto kill;

	/* ---- event loop ---- */
	long limit_deadline = lim ? t0 + cfg->limits.timeout_ms : -1;
	long safety_deadline = t0 + cfg->safety_timeout_ms;
	uint64_t cap = cfg->safety_output;
	if (lim && cfg->limits.output < cap)
		cap = cfg->limits.output;
	bool main_done = false, killed = false;
	int status = 0;
	struct rusage ru0;
	getrusage(RUSAGE_CHILDREN, &ru0);
	long drain_deadline = -1, last_scan = 0;
	struct strbuf rep = {0};
	struct scanner sc = {0};
	bool found[CANARY_MAX] = {0};
	struct rusage ru = {0};
	/* peak processes: the cgroup counts them; otherwise we count in /proc
	 * (not for exec, which has no verdict to feed) */
	bool poll_procs = !sb->cg.ops && !sb->exec_mode;

	for (;;) {
		struct pollfd pfd[16];
		int n = 0, i_out = -1, i_rep = -1, i_pid = -1, i_abort = -1, i_att = -1;
		if (sb->out[0] >= 0)
			i_out = n, pfd[n++] = (struct pollfd){sb->out[0], POLLIN, 0};
		if (sb->rep[0] >= 0)
			i_rep = n, pfd[n++] = (struct pollfd){sb->rep[0], POLLIN, 0};
		if (!main_done && sb->pidfd >= 0)
			i_pid = n, pfd[n++] = (struct pollfd){sb->pidfd, POLLIN, 0};
		if (opts && opts->abort_fd >= 0 && !killed)
			i_abort = n, pfd[n++] = (struct pollfd){opts->abort_fd, POLLIN, 0};
		if (sb->have_decoys) {
			int fds[ATTACKER_CONNS + 1];
			int k = decoy_poll_fds(&sb->d, fds, ATTACKER_CONNS + 1);
			i_att = n;
			for (int j = 0; j < k; j++)
				pfd[n++] = (struct pollfd){fds[j], POLLIN, 0};
		}
		long now = monotonic_ms();
		long wait = 200;
		if (!main_done && poll_procs)
			wait = POLL_MS;
		if (limit_deadline > 0 && !killed && limit_deadline - now < wait)
			wait = limit_deadline - now;
		if (!killed && safety_deadline - now < wait)
			wait = safety_deadline - now;
		if (drain_deadline > 0 && drain_deadline - now < wait)
			wait = drain_deadline - now;
		if (wait < 0)
			wait = 0;
		if (sb->pidfd < 0 && !main_done && wait > POLL_MS)
			wait = POLL_MS;
		int pr = poll(pfd, (nfds_t)n, (int)wait);
		if (pr < 0 && errno != EINTR)
			break;
		now = monotonic_ms();

		if (i_out >= 0 && pfd[i_out].revents) {
			char buf[65536];
			ssize_t r = read(sb->out[0], buf, sizeof buf);
			if (r > 0) {
				ev->out_bytes += (uint64_t)r;
				scan_canaries(sb, &sc, found, buf, (size_t)r);
				if (output->len < cap) {
					size_t take = (size_t)r;
					if (take > cap - output->len)
						take = (size_t)(cap - output->len);
					sb_add(output, buf, take);
				}
				if (ev->out_bytes > cap)
					ev->out_truncated = true;
			} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(sb->out[0]);
				sb->out[0] = -1;
			}
		}
		if (i_rep >= 0 && pfd[i_rep].revents) {
			char buf[512];
			ssize_t r = read(sb->rep[0], buf, sizeof buf);
			if (r > 0)
				sb_add(&rep, buf, (size_t)r);
			else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(sb->rep[0]);
				sb->rep[0] = -1;
			}
		}
		if (i_att >= 0)
			for (int j = i_att; j < n; j++)
				if (pfd[j].revents)
					decoy_attacker_event(&sb->d, pfd[j].fd);
		if (i_abort >= 0 && pfd[i_abort].revents) {
			ev->aborted = true;
			killed = true;
			kill_run(sb);
		}
		if (!main_done && (sb->pidfd < 0 || (i_pid >= 0 && pfd[i_pid].revents))) {
			pid_t w = wait4(pid, &status, WNOHANG | __WALL, NULL);
			if (w == pid) {
				main_done = true;
				struct timespec ts1;
				clock_gettime(CLOCK_MONOTONIC, &ts1);
				ev->duration_ms = (ts1.tv_sec - ts0.tv_sec) * 1000L + (ts1.tv_nsec - ts0.tv_nsec) / 1000000L;
				drain_deadline = now + 300;
				/* The run ends with its main process: what it left behind
				 * goes now (with a PID namespace the kernel did this). */
				if (!sb->pidns)
					proc_kill_descendants(getpid(), false);
			}
		}
		if (!main_done && poll_procs && now - last_scan >= POLL_MS) {
			pid_t tmp[1];
			int cnt = proc_descendants(getpid(), tmp, 0, false);
			if (cnt > ev->peak_procs)
				ev->peak_procs = cnt;
			last_scan = now;
		}
		if (!killed && limit_deadline > 0 && now >= limit_deadline && !main_done) {
			ev->timed_out = true;
			killed = true;
			kill_run(sb);
		}
		if (!killed && now >= safety_deadline && !main_done) {
			ev->safety_net = true;
			killed = true;
			kill_run(sb);
		}
		if (main_done && ((sb->out[0] < 0 && sb->rep[0] < 0) || now >= drain_deadline))
			break;
	}
	/* whatever is still there: attacker bytes in flight, then the output */
	if (sb->have_decoys)
		for (int round = 0; round < 3; round++) {
			int fds[ATTACKER_CONNS + 1];
			int k = decoy_poll_fds(&sb->d, fds, ATTACKER_CONNS + 1);
			struct pollfd pfd[ATTACKER_CONNS + 1];
			for (int j = 0; j < k; j++)
				pfd[j] = (struct pollfd){fds[j], POLLIN, 0};
			if (poll(pfd, (nfds_t)k, 0) <= 0)
				break;
			for (int j = 0; j < k; j++)
				if (pfd[j].revents)
					decoy_attacker_event(&sb->d, pfd[j].fd);
		}
	if (!main_done) {
		kill_run(sb);
		if (wait4(pid, &status, __WALL, NULL) == pid)
			main_done = true;
	}
	/* the safety net's last word: nothing of this run survives it */
	proc_kill_descendants(getpid(), true);

	getrusage(RUSAGE_CHILDREN, &ru);
	if (rep.len)
		parse_report(sb, rep.s, ev);
	sb_free(&rep);
	/* the report pipe closed on execve without an error line: it ran */
	ev->started = main_done && !ev->error[0];
	if (ev->started) {
		if (WIFEXITED(status))
			ev->exit_code = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			ev->exit_signal = WTERMSIG(status);
	} else if (!ev->error[0]) {
		snprintf(ev->error, sizeof ev->error, "the sandbox's first process could not be reaped");
	}
	/* everything this run's processes used: all were waited for by us, by
	 * their parents, or by the kernel for a dying PID namespace's init */
	ev->cpu_s = (double)(ru.ru_utime.tv_sec - ru0.ru_utime.tv_sec) + (ru.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
		    (double)(ru.ru_stime.tv_sec - ru0.ru_stime.tv_sec) + (ru.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	if (sb->cg.ops && !sb->exec_mode) /* exec has no verdict to feed */
		sb->cg.ops->read(&sb->cg, ev);
	if (!ev->peak_mem_from_cgroup)
		ev->peak_mem = (uint64_t)ru.ru_maxrss * 1024;

	if (sb->have_decoys) {
		for (int i = 0; i < sb->d.n_secret; i++)
			if (found[i]) {
				ev->canaries_leaked++;
				str_append(ev->leaked, sizeof ev->leaked, "%s%s", ev->leaked[0] ? ", " : "",
					   sb->d.secret[i].name);
			}
		ev->attacker_conns = sb->d.conns;
		ev->attacker_bytes = sb->d.bytes;
		ev->attacker_got_canary = decoy_attacker_got_canary(&sb->d);
		struct stat st;
		if (lstat(sb->d.host_target, &st) == 0) {
			ev->host_target_written = true;
			ev->host_target_size = (uint64_t)st.st_size;
		}
	}
	goto out;

kill:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, __WALL);
	proc_kill_descendants(getpid(), true);
out:
	for (int i = 0; i < 2; i++) {
		if (sb->sync[i] >= 0)
			close(sb->sync[i]);
		if (sb->rep[i] >= 0)
			close(sb->rep[i]);
		if (sb->out[i] >= 0)
			close(sb->out[i]);
	}
	if (sb->pidfd >= 0)
		close(sb->pidfd);
}

/* Every descriptor field starts closed (-1), so cleanup never mistakes
 * fd 0 for one of ours. */
static void sandbox_init(struct sandbox *sb, const struct lab_config *cfg, unsigned layers)
{
	*sb = (struct sandbox){.cfg = cfg, .layers = layers, .bpf_fd = -1, .net_bpf_fd = -1, .cwd_tree = -1};
	sb->d.listen_fd = -1;
}

static void sandbox_cleanup(struct sandbox *sb)
{
	close_filters(sb);
	if (sb->cwd_tree >= 0)
		close(sb->cwd_tree);
	cgroup_teardown(&sb->cg);
	free_env(sb);
	if (sb->have_decoys)
		decoy_remove(&sb->d);
	else if (sb->d.dir[0])
		remove_tree(sb->d.dir);
	sb->d.dir[0] = '\0';
}

void lab_run(const struct lab_config *cfg, const struct snippet *s, unsigned layers,
	     const struct lab_run_opts *opts, struct lab_result *res)
{
	memset(res, 0, sizeof *res);
	str_copy(res->snippet, sizeof res->snippet, s->name);
	res->threat = s->threat;
	res->expected_layer = s->layer;
	res->layers = layers;
	str_copy(res->consequence, sizeof res->consequence, s->consequence);

	struct sandbox sb;
	sandbox_init(&sb, cfg, layers);
	struct strbuf output = {0};
	if (sandbox_prepare(&sb, s, &res->ev) == 0)
		sandbox_run(&sb, opts, &res->ev, &output);
	if (res->ev.started && s->threat == THREAT_LEGIT && output.s) {
		res->ev.expect_found = true;
		for (int i = 0; i < s->n_expect; i++)
			if (!strstr(output.s, s->expect[i]))
				res->ev.expect_found = false;
	}
	sandbox_cleanup(&sb);
	res->output = output.s ? output.s : strdup("");
	res->output_len = output.len;
	verdict_decide(s, cfg, res);
}

int lab_exec(const struct lab_config *cfg, unsigned layers, bool rw, char *const argv[])
{
	struct sandbox sb;
	sandbox_init(&sb, cfg, layers);
	sb.exec_mode = true;
	sb.rw = rw;
	sb.user_argv = argv;
	struct lab_evidence ev = {0};
	struct strbuf none = {0};
	int code = 125;
	if (sandbox_prepare(&sb, NULL, &ev) == 0)
		sandbox_run(&sb, NULL, &ev, &none);
	sandbox_cleanup(&sb);
	sb_free(&none);
	if (ev.started)
		code = ev.exit_signal ? 128 + ev.exit_signal : ev.exit_code;
	else if (ev.exit_code == 126 || ev.exit_code == 127) {
		fprintf(stderr, "containment-lab: %s: %s\n", argv[0],
			ev.exit_code == 127 ? "command not found" : "cannot execute");
		code = ev.exit_code;
	} else {
		fprintf(stderr, "containment-lab: %s\n", ev.error[0] ? ev.error : "the sandbox failed");
	}
	if (ev.timed_out)
		fprintf(stderr, "containment-lab: killed: the Resource-limits wall clock (%ld ms) ran out\n",
			cfg->limits.timeout_ms);
	if (ev.safety_net)
		fprintf(stderr, "containment-lab: killed by the safety net after %ld ms\n", cfg->safety_timeout_ms);
	return code;
}
