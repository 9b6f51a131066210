/* box_container.c — the container box: the snippet runs on the host kernel
 * inside namespaces the lab clones, with the range always around it.
 *
 * Processes of one run:
 *
 *   lab (run.c: listener, event loop, evidence)
 *    └─ init   cloned with the range's user, PID and mount namespaces plus
 *              those of the layers that are on; walks the list of steps in
 *              child_main, then forks and stays PID 1 of the namespace: it
 *              forwards signals and reports the snippet's status
 *        └─ snippet  (PID 2: its own signals take their default action)
 *
 * Ordering constraints, in the order they happen:
 *  1. clone() creates all namespaces at once, so the new network namespace
 *     is owned by the new user namespace (rootless works).
 *  2. The lab writes uid_map/gid_map first of all (only the parent may map
 *     root-inside to an unprivileged uid outside), then lets the child on.
 *  3. The child builds its view: Isolation's private root, or the range's
 *     read-only host view; the layers add their mounts; then pivot_root, or
 *     a second user namespace that locks the range's mounts in place.
 *  4. Meanwhile the lab compiles the filters and creates the cgroup
 *     (layers' prepare) and sends "go" with them as descriptors. The child
 *     joins the cgroup before the snippet exists, so every process of it is
 *     born inside the caps (cgroup.c says why it writes "0" into v1 tasks).
 *  5. Then descriptors, the new session, capabilities (after this nothing
 *     privileged can be done), no_new_privs, the filters (the steps before
 *     use calls they refuse), and the rlimits last, right before the fork
 *     and execve, so the lab's own code never runs under them. */
#define _GNU_SOURCE
#include "box.h"
#include "hostcheck.h"
#include "layer.h"
#include "proc.h"
#include "rw_guard.h"
#include "sockmem.h"
#include "system.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------- child side: never returns ---------------- */

/* Reads a compiled filter from its memfd into out (closing the fd). */
static void run_read_filter(struct run *r, int bpf_fd, struct sock_fprog *out)
{
	struct stat st;
	errno = 0;
	if (fstat(bpf_fd, &st) < 0 || st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter))
		run_fail(r, "read a seccomp filter", "memfd", errno ? errno : EINVAL);
	struct sock_filter *prog = malloc((size_t)st.st_size);
	if (!prog || pread(bpf_fd, prog, (size_t)st.st_size, 0) != st.st_size)
		run_fail(r, "read a seccomp filter", "memfd", errno);
	close(bpf_fd);
	*out = (struct sock_fprog){.len = (unsigned short)(st.st_size / (off_t)sizeof *prog), .filter = prog};
}

/* The worker's handlers and mask must not reach the snippet. */
static void child_arm_death_signal(struct run *r);

void box_child_begin(struct run *r, int lab_sync_end)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	close(lab_sync_end);
	close(r->rep[0]);
	if (r->out[0] >= 0)
		close(r->out[0]);
	if (r->have_decoys && r->d.listen_fd >= 0)
		close(r->d.listen_fd);
	if (r->eg.api_fd >= 0) /* the small internet is the lab's, not the run's */
		close(r->eg.api_fd);
	if (r->term.master >= 0) /* exec's pty: the lab's end */
		close(r->term.master);
	child_arm_death_signal(r);
}

void box_child_own_keyring(struct run *r)
{
	/* an anonymous session keyring, gone with the run's last process */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
		run_fail(r, "join a session keyring of its own (keyctl)", "the caller's is not the run's", errno);
}

void box_child_await_lab(struct run *r, int child_sync_end)
{
	char c;
	if (read(child_sync_end, &c, 1) != 1)
		run_fail(r, "wait for the lab", "sync pipe", EPIPE);
	close(child_sync_end);
}

void box_child_fresh_proc(struct run *r)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		run_fail(r, "make mounts private", "/", errno);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		run_fail(r, "mount", "a fresh /proc", errno);
}

/* If the lab dies, the sandbox dies (this survives execve). Armed again
 * after the id change, which clears it. Should the lab already be gone,
 * its end of the sync socket is closed and "go" never comes. */
static void child_arm_death_signal(struct run *r)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		run_fail(r, "prctl", "PR_SET_PDEATHSIG", errno);
}

static void child_take_ids(struct run *r)
{
	char c;
	ssize_t n;
	do
		n = read(r->sync[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		run_fail(r, "wait for the uid map", "sync socket", n < 0 ? errno : EPIPE);
	/* root inside with Isolation; otherwise the identity map keeps the
	 * user's own ids and there is nothing to change */
	if (r->inside_uid == 0 && setresgid(0, 0, 0) < 0)
		run_fail(r, "setresgid", "0", errno);
	if (setresuid(r->inside_uid, r->inside_uid, r->inside_uid) < 0)
		run_fail(r, "setresuid", r->inside_uid ? "the user's uid" : "0", errno);
	/* a root lab's supplementary groups (gid 0!) must not follow the
	 * sandbox; rootless they are the user's own and cannot be dropped */
	if (r->root_lab && setgroups(0, NULL) < 0)
		run_fail(r, "setgroups", "none", errno);
	child_arm_death_signal(r);
}

static void child_build_view(struct run *r)
{
	bool iso = run_on(r, LAYER_ISOLATION);
	rootfs_build(r);
	run_layers_child(r, PHASE_ROOT);
	if (iso)
		rootfs_pivot(r);
	else
		rootfs_lock_range(r);
}

/* "go" from the lab: the cgroup files and the compiled filters, passed as
 * descriptors (they were made while we built our view). */
static void child_receive_go(struct run *r)
{
	unsigned char byte[4];
	union {
		char buf[CMSG_SPACE(sizeof(int) * RUN_GO_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {byte, sizeof byte};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
	ssize_t n;
	do
		n = recvmsg(r->sync[0], &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 4 || byte[0] != 'g')
		run_fail(r, "wait for the lab", "sync socket", n < 0 ? errno : EPIPE);
	int nfd = 0, *fds = NULL;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		nfd = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		fds = (int *)CMSG_DATA(c);
	}
	if (nfd != byte[1] + byte[2] + byte[3])
		run_fail(r, "receive the filters and cgroup files", "go", EPROTO);
	if (!nfd) /* none was sent: no cgroup and no filter to take in */
		return;
	if (!fds)
		run_fail(r, "receive the filters and cgroup files", "go", EPROTO);
	for (int i = 0; i < byte[1]; i++) {
		if (write(fds[i], "0\n", 2) != 2)
			run_fail(r, "move into the run's cgroup", "tasks", errno);
		close(fds[i]);
	}
	if (byte[2])
		run_read_filter(r, fds[byte[1]], &r->iso_prog);
	if (byte[3])
		run_read_filter(r, fds[byte[1] + byte[2]], &r->net_prog);
}

static void child_stdio(struct run *r)
{
	if (r->exec_mode) {
		/* exec passes the caller's stdio through, a terminal among it
		 * as the lab's pty (term.c) */
		int e = term_child_stdio(&r->term);
		if (e < 0)
			run_fail(r, "give the command the lab's pty", "its stdin, stdout and stderr", -e);
		return;
	}
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(r->out[1], 1) < 0 || dup2(r->out[1], 2) < 0)
		run_fail(r, "set up stdio", "/dev/null and the output pipe", errno);
}

/* No controlling terminal shared with the lab, whatever the layers:
 * TIOCSTI and job-control signals cannot reach the user's shell. exec's
 * command gets the lab's pty as its own (term.c): Ctrl-C and a resize
 * reach it as on any terminal, TIOCSTI only its own input. */
static void child_new_session(struct run *r)
{
	if (setsid() < 0)
		run_fail(r, "setsid", "a new session", errno);
	int e = term_child_ctty(&r->term);
	if (e < 0)
		run_fail(r, "TIOCSCTTY", "the lab's pty as the command's terminal", -e);
}

static void child_enter_workdir(struct run *r)
{
	if (chdir(r->workdir) < 0)
		run_fail(r,
		         r->exec_mode && run_on(r, LAYER_ISOLATION)
		             ? "enter the current folder (root inside is an unprivileged uid outside: the folder and "
		               "its parents must be open to it)"
		             : "enter the work folder",
		         r->workdir, errno);
}

static void __attribute__((noreturn)) child_exec(struct run *r)
{
	const char *file = r->exec_mode ? r->user_argv[0] : r->argv[0];
	char *const *argv = r->exec_mode ? r->user_argv : r->argv;
	if (strchr(file, '/'))
		execve(file, argv, r->envp);
	else
		execvpe(file, argv, r->envp);
	run_fail(r, "execve", file, errno);
}

static void init_on_signal(int sig)
{
	(void)sig;
}

/* Memory the run holds in its IPC namespace, which no sampler of
 * /proc/PID sees whole: SysV segments, semaphore sets and queued messages.
 * Read by PID 1, which is in the run's IPC namespace (the lab may not enter
 * it rootless).
 *
 * A segment's resident and swapped bytes, attached or not: an attached one
 * whose pages its process touched is in that process's share too (counted
 * twice: the figure errs high, never low); one attached and never touched
 * by its holder is in nobody's. */
static uint64_t shm_line_bytes(const char *l)
{
	unsigned long long rss, swap;
	/* key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime rss swap */
	if (sscanf(l, "%*d %*d %*o %*u %*d %*d %*u %*u %*u %*u %*u %*u %*u %*u %llu %llu", &rss, &swap) == 2)
		return rss + swap;
	return 0;
}

/* A semaphore set: its header and 64 bytes a semaphore (struct sem). */
static uint64_t sem_line_bytes(const char *l)
{
	unsigned long long nsems;
	/* key semid perms nsems uid gid cuid cgid otime ctime */
	if (sscanf(l, "%*d %*d %*o %llu", &nsems) == 1)
		return 256 + (nsems << 6);
	return 0;
}

/* Sums fn over the lines of a /proc/sysvipc file but its header. */
static uint64_t sysvipc_sum(const char *path, uint64_t (*fn)(const char *))
{
	uint64_t sum = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[4096];
	size_t have = 0;
	bool header = true;
	for (ssize_t n; fd >= 0 && (n = read(fd, buf + have, sizeof buf - 1 - have)) > 0;) {
		have += (size_t)n;
		buf[have] = '\0';
		char *l = buf, *nl;
		while ((nl = strchr(l, '\n'))) {
			*nl = '\0';
			if (!header)
				sum += fn(l);
			header = false;
			l = nl + 1;
		}
		have = (size_t)(buf + have - l);
		memmove(buf, l, have);
		if (have == sizeof buf - 1)
			have = 0; /* no line is that long: skip it */
	}
	if (fd >= 0)
		close(fd);
	return sum;
}

/* No allocation here: the init runs this under the snippet's rlimits
 * (RLIMIT_AS among them), which the lab's own code must never depend on.
 * Messages: their bytes and a header each, a 48-byte struct msg_msg in a
 * 64-byte slab object (an empty message costs one too), and each queue's
 * own. With a network namespace of the run's own, what its sockets hold in
 * kernel buffers too (sockmem.c). */
static uint64_t init_ipc_bytes(bool sockets)
{
	uint64_t sum =
	    sysvipc_sum("/proc/sysvipc/shm", shm_line_bytes) + sysvipc_sum("/proc/sysvipc/sem", sem_line_bytes);
	struct msginfo mi;
	if (msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&mi) >= 0)
		sum += (uint64_t)mi.msgtql + (uint64_t)mi.msgmap * 64 + (uint64_t)mi.msgpool * 256;
	bool complete;
	if (sockets)
		sum += sockmem_netns_bytes(&complete);
	return sum;
}

static void init_report_ipc(struct run *r, const struct box_init *bi, uint64_t *last)
{
	uint64_t now = init_ipc_bytes(bi->sock_report);
	if (now != *last)
		run_report(r, "M %llu\n", (unsigned long long)now);
	*last = now;
}

/* Who sent a signal we pass on, for the lab to name outside interference
 * (run.c): "X SIG CODE PID UID" as our namespaces see it: pid 0 is a
 * sender outside the run's PID namespace. The kernel fills the sender in
 * for kill() and tgkill() (SI_USER, SI_TKILL), which no process can forge;
 * a queued siginfo (SI_QUEUE) is the sender's own words. A few a run: a
 * snippet that signals us in a loop must not fill the lab's memory. */
static void init_report_sender(struct run *r, int sig, const siginfo_t *si)
{
	static int told;
	if (told < 4) {
		told++;
		run_report(r, "X %d %d %d %u\n", sig, si->si_code, (int)si->si_pid, (unsigned)si->si_uid);
	}
}

void box_init_loop(struct run *r, const struct box_init *bi, const sigset_t *all)
{
	/* the command may share our uid: it must not reach our report pipe
	 * through /proc/1/fd */
	prctl(PR_SET_DUMPABLE, 0);
	struct sigaction sa = {.sa_handler = init_on_signal};
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &sa, NULL);
	/* the output pipe and the terminal belong to the command */
	for (int fd = 0; !bi->keep_stdio && fd < 3; fd++)
		close(fd);
	uint64_t ipc_last = 0;
	const struct timespec tick = {0, 10L * 1000 * 1000};
	for (;;) {
		siginfo_t si;
		int sig = bi->ipc_report ? sigtimedwait(all, &si, &tick) : sigwaitinfo(all, &si);
		if (sig < 0 && errno == EAGAIN)
			init_report_ipc(r, bi, &ipc_last);
		if (sig < 0)
			continue;
		if (sig == SIGTERM && si.si_code == SI_QUEUE && si.si_pid == bi->lab_as &&
		    si.si_value.sival_int == r->end_cookie) {
			/* the lab (a process inside can queue a siginfo of its
			 * choosing, pid and all, but not the cookie): end the run but
			 * stay to reap it, so its CPU time reaches our rusage and the
			 * lab's */
			bi->end_rest(r);
			continue;
		}
		/* from the terminal (exec's pty: Ctrl-C, a resize): it went to
		 * the command's process group, the command had it already */
		if (sig != SIGCHLD && si.si_code == SI_KERNEL)
			continue;
		if (sig != SIGCHLD) {
			init_report_sender(r, sig, &si);
			kill(bi->main, sig);
			continue;
		}
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG | __WALL)) > 0) {
			if (w == bi->main) {
				bi->finish(r, st, bi->ctx);
				_exit(125); /* finish() never returns */
			}
			if (bi->reaped)
				bi->reaped(w, bi->ctx);
		}
	}
}

static void end_rest_in_namespace(struct run *r)
{
	(void)r;
	kill(-1, SIGKILL); /* as PID 1: everything in the namespace but us */
}

/* The snippet is gone: the run ends with it. What it left behind is ended
 * and reaped here, by us, so that its CPU time reaches our rusage (the
 * kernel's own clean-up of a dying namespace would not count it). */
static void init_finish(struct run *r, int status, void *ctx)
{
	(void)ctx;
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	run_report(r, "S %d\n", status);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* PID 1 of the run: the snippet is its child, not PID 1 itself (see
 * box_init_loop). When the snippet ends, its raw status goes to the lab
 * ("S N"). */
static void __attribute__((noreturn)) child_init_and_exec(struct run *r)
{
	sigset_t all, none; /* every signal is blocked since box_child_begin */
	sigfillset(&all);
	sigemptyset(&none);
	pid_t pid = fork();
	if (pid < 0)
		run_fail(r, "fork", "the snippet (init stays PID 1)", errno);
	if (pid == 0) {
		/* the layers' last step (the rlimits) in the snippet's process
		 * only: the init is the lab's, and its sampling must not spend
		 * the snippet's RLIMIT_CPU (a run waiting at the gate for a
		 * human was killed by it after 10 s, blamed on Resource-limits) */
		run_layers_child(r, PHASE_LAST);
		sigprocmask(SIG_SETMASK, &none, NULL);
		child_exec(r);
	}
	struct box_init bi = {.main = pid,
	                      .lab_as = 0,
	                      .ipc_report = true,
	                      .sock_report = (run_layers_clone_flags(r) & CLONE_NEWNET) != 0,
	                      .end_rest = end_rest_in_namespace,
	                      .finish = init_finish};
	box_init_loop(r, &bi, &all);
}

/* The tool door to its fixed number, the child's own pipes moved clear
 * of it first (as Clean-env's leaked handle keeps clear of fd 3). */
static void child_tool_door(struct run *r)
{
	int *mine[] = {&r->rep[1], &r->sync[0], &r->out[1]};
	for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
		if (*mine[i] == TOOLS_SANDBOX_FD && (*mine[i] = fcntl(TOOLS_SANDBOX_FD, F_DUPFD_CLOEXEC, 10)) < 0)
			run_fail(r, "move a pipe clear of the tool door", "fd 9", errno);
	if (r->tools.child_fd != TOOLS_SANDBOX_FD && dup2(r->tools.child_fd, TOOLS_SANDBOX_FD) < 0)
		run_fail(r, "hand over the tool door", "fd 9", errno);
	if (r->tools.child_fd == TOOLS_SANDBOX_FD && fcntl(TOOLS_SANDBOX_FD, F_SETFD, 0) < 0)
		run_fail(r, "hand over the tool door", "fd 9", errno);
}

/* The child's whole setup, one checked step after another. */
static void __attribute__((noreturn)) child_main(struct run *r)
{
	box_child_begin(r, r->sync[1]);
	child_take_ids(r);
	box_child_own_keyring(r);
	child_build_view(r);
	child_receive_go(r);
	run_layers_child(r, PHASE_ENTERED);
	child_stdio(r);
	run_layers_child(r, PHASE_FDS);
	/* the tool door (tools.h): after Clean-env closed the rest, so the
	 * lab's one channel is the one descriptor kept (dup2 clears CLOEXEC) */
	if (r->tools.child_fd >= 0)
		child_tool_door(r);
	child_new_session(r);
	run_layers_child(r, PHASE_RESTRICT);
	/* exec --rw: the current folder is on the real disk (rw_guard.c) */
	int e;
	if (r->exec_mode && r->rw && (e = rw_guard_load()) < 0)
		run_fail(r, "load exec --rw's guard (seccomp)", "no setuid files, devices or file caps", -e);
	/* the filters are loaded (a listener, if any, went to the lab): the
	 * sync socket has done its work, and the lab sees it close */
	close(r->sync[0]);
	r->sync[0] = -1;
	child_enter_workdir(r);
	child_init_and_exec(r);
}

/* ---------------- lab side ---------------- */

int box_write_id_maps(const struct run *r, unsigned in_uid, long out_uid, unsigned in_gid, long out_gid,
                      bool deny_setgroups, struct lab_evidence *ev)
{
	char p[64], map[64];
	int e;
	snprintf(p, sizeof p, "/proc/%d/setgroups", r->child_pid);
	if (deny_setgroups && (e = file_put(p, "deny")) < 0)
		goto fail;
	snprintf(p, sizeof p, "/proc/%d/uid_map", r->child_pid);
	snprintf(map, sizeof map, "%u %ld 1\n", in_uid, out_uid);
	if ((e = file_put(p, map)) < 0)
		goto fail;
	snprintf(p, sizeof p, "/proc/%d/gid_map", r->child_pid);
	snprintf(map, sizeof map, "%u %ld 1\n", in_gid, out_gid);
	if ((e = file_put(p, map)) < 0)
		goto fail;
	return 0;
fail:
	snprintf(ev->error, sizeof ev->error, "cannot write %s (\"%.*s\"): %s", p, (int)strcspn(map, "\n"), map,
	         strerror(-e));
	return -1;
}

/* The lab's ids, or Isolation's (root inside, an unprivileged uid out),
 * then "m": the child may take them. */
static int write_maps(struct run *r, struct lab_evidence *ev)
{
	if (box_write_id_maps(r, (unsigned)r->inside_uid, r->map_uid, r->inside_uid == 0 ? 0 : (unsigned)r->gid,
	                      r->map_gid, !r->root_lab, ev) < 0)
		return -1;
	if (write(r->sync[1], "m", 1) != 1) {
		snprintf(ev->error, sizeof ev->error, "cannot let the sandbox take its ids: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* go: 'g', how many cgroup fds, whether Isolation's filter and
 * No-network's filter follow them */
static int send_go(struct run *r, struct lab_evidence *ev)
{
	int fds[RUN_GO_FDS], n = 0;
	for (int i = 0; i < r->cg.n_attach && n < RUN_GO_FDS - 2; i++)
		fds[n++] = r->cg.attach_fd[i];
	char byte[4] = {'g', (char)n, (char)(r->bpf_fd >= 0), (char)(r->net_bpf_fd >= 0)};
	if (r->bpf_fd >= 0)
		fds[n++] = r->bpf_fd;
	if (r->net_bpf_fd >= 0)
		fds[n++] = r->net_bpf_fd;
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
	if (sendmsg(r->sync[1], &msg, MSG_NOSIGNAL) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot hand the sandbox its filter and cgroup: %s",
		         strerror(errno));
		return -1;
	}
	cgroup_close_attach(&r->cg); /* the child has its own copies now */
	return 0;
}

void box_after_clone(struct run *r, pid_t pid, int *child_sync_end)
{
	r->child_pid = pid;
	int *ends[] = {child_sync_end, &r->rep[1], &r->out[1]};
	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
		if (*ends[i] >= 0) {
			close(*ends[i]);
			*ends[i] = -1;
		}
	r->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
}

bool box_ask_init_to_end(const struct run *r)
{
	union sigval v = {.sival_int = r->end_cookie};
	return r->child_pid > 0 && sigqueue(r->child_pid, SIGTERM, v) == 0;
}

static void container_kill(struct run *r, bool hard)
{
	if (r->child_pid <= 0)
		return;
	if (!hard && box_ask_init_to_end(r))
		return;
	/* the init is PID 1 of the run's namespace: its death ends them all */
	kill(r->child_pid, SIGKILL);
	if (r->cg.ops)
		r->cg.ops->kill_all(&r->cg);
}

/* The range's host folder (rootfs.c's range_host), sent while the child
 * builds its view: the lab waits for it before "go", so that no snippet
 * runs whose host folder the lab could not look into afterwards. */
static int take_host_folder(struct run *r, struct lab_evidence *ev)
{
	if (run_on(r, LAYER_ISOLATION) || !r->have_decoys)
		return 0;
	struct pollfd p = {r->sync[1], POLLIN, 0};
	char tag = 0;
	int fd = -1;
	if (poll(&p, 1, (int)r->cfg->safety_timeout_ms) == 1)
		fd = fd_recv(r->sync[1], &tag);
	if (fd >= 0 && tag == 'h') {
		r->host_fd = fd;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	/* the child's own reason, when it failed before sending */
	char why[LAB_LINE] = "";
	ssize_t n = read(r->rep[0], why, sizeof why - 1);
	why[n > 0 ? n : 0] = '\0';
	why[strcspn(why, "\n")] = '\0';
	const char *stage = why[0] == 'E' ? strchr(why + 2, ' ') : NULL;
	snprintf(ev->error, sizeof ev->error, "sandbox setup failed at %s: %s",
	         stage ? stage + 1 : "the range's host folder",
	         stage ? strerror(atoi(why + 2)) : "no word from the sandbox");
	return -1;
}

/* clone3's arguments (linux/sched.h's struct clone_args, v2 of it), kept
 * here: that header and glibc's sched.h define the same flags twice. */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
	    cgroup;
};
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* The range's clone. With a v2 cgroup for the run, the kernel starts the
 * child in it (clone3, CLONE_INTO_CGROUP, 5.7+), so that not one
 * instruction of the sandbox runs outside it; a kernel without it (ENOSYS,
 * E2BIG), or one that refuses the folder, gets the plain clone and the
 * child moves itself in, as on v1. */
static pid_t clone_into(struct run *r, unsigned long flags)
{
	if (r->cg.ops && r->cg.dir_fd >= 0) {
		struct clone3_args a = {.flags = (flags & ~(unsigned long)CSIGNAL) | CLONE_INTO_CGROUP,
		                        .exit_signal = flags & CSIGNAL,
		                        .cgroup = (uint64_t)r->cg.dir_fd};
		pid_t pid = (pid_t)syscall(SYS_clone3, &a, sizeof a);
		if (pid > 0)
			cgroup_born_in(&r->cg);
		if (pid >= 0)
			return pid;
	}
	return (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
}

static int container_start(struct run *r, struct lab_evidence *ev)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->sync) < 0 || pipe2(r->rep, O_CLOEXEC) < 0 ||
	    (!r->exec_mode && pipe2(r->out, O_CLOEXEC) < 0)) {
		snprintf(ev->error, sizeof ev->error, "pipe: %s", strerror(errno));
		return -1;
	}
	/* the range's namespaces, whatever the layers: its own IPC namespace
	 * too, so no SysV segment, queue or POSIX mqueue outlives the run or
	 * reaches the host's */
	unsigned long flags =
	    SIGCHLD | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | run_layers_clone_flags(r);
	if (run_layers_place(r, ev) < 0)
		return -1;
	sockmem_probe();
	fflush(NULL);
	pid_t pid = clone_into(r, flags);
	if (pid < 0) {
		int e = errno;
		struct hostcheck h;
		hostcheck_read(&h);
		hostcheck_advice(&h, e, ev->error, sizeof ev->error);
		return -1;
	}
	if (pid == 0)
		child_main(r);
	box_after_clone(r, pid, &r->sync[0]);
	if (write_maps(r, ev) < 0 || run_layers_prepare(r, ev) < 0 || take_host_folder(r, ev) < 0 ||
	    send_go(r, ev) < 0) {
		container_kill(r, true);
		waitpid(pid, NULL, __WALL);
		r->child_pid = -1;
		return -1;
	}
	return 0;
}

/* A "Key:   N kB" field of a /proc file, in bytes; 0 if absent. */
static uint64_t proc_kb(const char *path, const char *key)
{
	char *text = read_file(path, NULL, 1 << 16);
	if (!text)
		return 0;
	uint64_t v = 0;
	const char *p = strstr(text, key);
	if (p)
		v = strtoull(p + strlen(key), NULL, 10) << 10;
	free(text);
	return v;
}

/* What a tmpfs holds: its used blocks, and about 1 KiB of kernel memory
 * (inode and dentry) for each file or folder in it, which the block count
 * misses (a hundred thousand empty folders cost ~100 MiB of slab). */
static uint64_t tmpfs_bytes(const struct statvfs *sv)
{
	uint64_t blocks = sv->f_blocks > sv->f_bfree ? (uint64_t)(sv->f_blocks - sv->f_bfree) * sv->f_frsize : 0;
	uint64_t inodes = sv->f_files > sv->f_ffree ? (uint64_t)(sv->f_files - sv->f_ffree) : 0;
	return blocks + (inodes << 10);
}

static uint64_t tmpfs_used(pid_t pid, const char *where)
{
	char p[64];
	struct statvfs sv;
	snprintf(p, sizeof p, "/proc/%d/root%s", pid, where);
	return statvfs(p, &sv) < 0 ? 0 : tmpfs_bytes(&sv);
}

/* Memory a process holds in memfds, mapped or not (a memfd need not be
 * mapped to hold pages): each one counted once across the run. */
struct seen_files {
	ino_t ino[256];
	int n;
};

static uint64_t memfd_bytes(pid_t pid, struct seen_files *seen)
{
	char p[64], link[64];
	uint64_t sum = 0;
	snprintf(p, sizeof p, "/proc/%d/fd", pid);
	DIR *d = opendir(p);
	for (struct dirent *e; d && (e = readdir(d));) {
		char fdp[64 + sizeof e->d_name];
		snprintf(fdp, sizeof fdp, "%s/%s", p, e->d_name);
		ssize_t n = readlink(fdp, link, sizeof link - 1);
		struct stat st;
		if (n < 7 || strncmp(link, "/memfd:", 7) != 0 || stat(fdp, &st) < 0)
			continue;
		bool dup = false;
		for (int i = 0; i < seen->n && !dup; i++)
			dup = seen->ino[i] == st.st_ino;
		if (dup)
			continue;
		if (seen->n < 256)
			seen->ino[seen->n++] = st.st_ino;
		sum += (uint64_t)st.st_blocks * 512;
	}
	if (d)
		closedir(d);
	return sum;
}

/* Shared memory a process maps whose pages no /proc file of ours shows:
 * shared anonymous memory (its object keeps every page a madvise() or a
 * partial munmap() took out of the process's share) and memfds no
 * descriptor of the run holds (the object's size is in its inode, which
 * only /proc/PID/map_files reaches, and that takes CAP_SYS_ADMIN). A
 * memory cgroup charges them; the lab's own sum cannot. */
static int shmem_unseen(pid_t pid, const struct seen_files *seen)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/maps", pid);
	FILE *f = fopen(p, "re");
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	while (f && getline(&line, &cap, f) > 0) {
		char perms[8] = "", path[64] = "";
		unsigned long long ino = 0;
		/* start-end perms offset dev inode path */
		if (sscanf(line, "%*s %7s %*s %*s %llu %63s", perms, &ino, path) < 3 || perms[3] != 's')
			continue;
		bool memfd = strncmp(path, "/memfd:", 7) == 0;
		bool held = false;
		for (int i = 0; memfd && i < seen->n && !held; i++)
			held = seen->ino[i] == (ino_t)ino;
		if ((memfd && !held) || strcmp(path, "/dev/zero") == 0)
			n++;
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

void box_sample_tree(const struct run *r, bool memory, bool private_tmp, struct box_sample *out)
{
	pid_t pids[512];
	*out = (struct box_sample){0};
	if (r->child_pid <= 0)
		return;
	int n = proc_descendants(r->child_pid, pids, 512, true);
	out->procs = n;
	if (!memory)
		return;
	struct seen_files seen = {.n = 0};
	for (int i = 0; i < n && i < 512; i++)
		out->mem += memfd_bytes(pids[i], &seen);
	for (int i = 0; i < n && i < 512; i++) {
		char p[64];
		out->unseen += shmem_unseen(pids[i], &seen);
		snprintf(p, sizeof p, "/proc/%d/smaps_rollup", pids[i]);
		out->mem += proc_kb(p, "\nPss:");
		snprintf(p, sizeof p, "/proc/%d/status", pids[i]);
		uint64_t vm = proc_kb(p, "VmPeak:");
		if (vm > out->vm_peak)
			out->vm_peak = vm;
	}
	/* files parked in the run's private /tmp and /dev/shm (a box whose
	 * init shares the host's /tmp would count the host's files) */
	if (n > 0 && private_tmp)
		out->mem += tmpfs_used(pids[0], "/tmp") + tmpfs_used(pids[0], "/dev/shm");
	/* and the range's own host folder, a tmpfs too (Isolation off) */
	struct statvfs sv;
	if (r->host_fd >= 0 && fstatvfs(r->host_fd, &sv) == 0)
		out->mem += tmpfs_bytes(&sv);
}

/* The snippet was a child of our init, a process of the host's kernel: the
 * host's own release and boot id (run.c read them just before) answered it. */
static void container_observe(struct run *r, struct lab_evidence *ev)
{
	(void)r;
	ev->snippet_on_host = ev->started;
	str_copy(ev->kernel_release, sizeof ev->kernel_release, ev->host_release);
	str_copy(ev->kernel_boot_id, sizeof ev->kernel_boot_id, ev->host_boot_id);
}

static void container_sample(const struct run *r, bool memory, struct box_sample *out)
{
	box_sample_tree(r, memory, true, out);
}

const struct box_ops box_container = {
    .name = "container",
    .kernel = "the host's kernel",
    .start = container_start,
    .kill = container_kill,
    .sample = container_sample,
    .observe = container_observe,
};

bool lab_rung_ready(const struct lab_config *cfg, enum lab_rung rung, char *why, size_t cap)
{
	if (rung == RUNG_GVISOR)
		return gvisor_ready(why, cap);
	if (rung == RUNG_MICROVM)
		return microvm_ready(cfg, why, cap);
	if (cap)
		why[0] = '\0';
	return true;
}
