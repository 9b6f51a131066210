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
	box_child_arm_death_signal(r);
}

static void child_build_view(struct run *r)
{
	bool iso = spec_private_root(&r->spec);
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
	unsigned char byte[5];
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
	if (n < 5 || byte[0] != 'g')
		run_fail(r, "wait for the lab", "sync socket", n < 0 ? errno : EPIPE);
	int nfd = 0, *fds = NULL;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		nfd = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		fds = (int *)CMSG_DATA(c);
	}
	if (nfd != byte[1] + byte[2] + byte[3] + byte[4])
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
		run_read_filter(r, fds[byte[1]], &r->layer.isolation.prog);
	if (byte[3])
		run_read_filter(r, fds[byte[1] + byte[2]], &r->layer.network.prog);
	if (byte[4])
		run_read_filter(r, fds[byte[1] + byte[2] + byte[3]], &r->layer.limits.prog);
}

static void child_stdio(struct run *r)
{
	if (r->kind == RUN_EXEC) {
		/* exec passes the caller's stdio through, a terminal among it
		 * as the lab's pty (termpty.c) */
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
 * command gets the lab's pty as its own (termpty.c): Ctrl-C and a resize
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
		         r->kind == RUN_EXEC && spec_private_root(&r->spec)
		             ? "enter the current folder (root inside is an unprivileged uid outside: the folder and "
		               "its parents must be open to it)"
		             : "enter the work folder",
		         r->workdir, errno);
}

static void __attribute__((noreturn)) child_exec(struct run *r)
{
	const char *file = r->kind == RUN_EXEC ? r->user_argv[0] : r->argv[0];
	char *const *argv = r->kind == RUN_EXEC ? r->user_argv : r->argv;
	if (strchr(file, '/'))
		execve(file, argv, r->layer.env.envp);
	else
		execvpe(file, argv, r->layer.env.envp);
	run_fail(r, "execve", file, errno);
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
	                      .cpu_report = true,
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
	if (r->kind == RUN_EXEC && r->setup.exec_rw && (e = rw_guard_load()) < 0)
		run_fail(r, "load exec --rw's guard (seccomp)", "no setuid files, devices or file caps", -e);
	/* the filters are loaded (a listener, if any, went to the lab): the
	 * sync socket has done its work, and the lab sees it close */
	close(r->sync[0]);
	r->sync[0] = -1;
	child_enter_workdir(r);
	child_init_and_exec(r);
}

/* ---------------- lab side ---------------- */

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

/* go: 'g', how many cgroup fds, whether Isolation's filter, No-network's
 * filter and Resource-limits' own (its watch) follow them */
static int send_go(struct run *r, struct lab_evidence *ev)
{
	int fds[RUN_GO_FDS], n = 0;
	for (int i = 0; i < r->layer.limits.cg.n_attach && n < RUN_GO_FDS - 2; i++)
		fds[n++] = r->layer.limits.cg.attach_fd[i];
	char byte[5] = {'g', (char)n, (char)(r->layer.isolation.bpf_fd >= 0), (char)(r->layer.network.bpf_fd >= 0),
	                (char)(r->layer.limits.bpf_fd >= 0)};
	if (r->layer.isolation.bpf_fd >= 0)
		fds[n++] = r->layer.isolation.bpf_fd;
	if (r->layer.network.bpf_fd >= 0)
		fds[n++] = r->layer.network.bpf_fd;
	if (r->layer.limits.bpf_fd >= 0)
		fds[n++] = r->layer.limits.bpf_fd;
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
	cgroup_close_attach(&r->layer.limits.cg); /* the child has its own copies now */
	return 0;
}

static void container_kill(struct run *r, bool hard)
{
	if (r->child_pid <= 0)
		return;
	if (!hard && box_ask_init_to_end(r))
		return;
	/* the init is PID 1 of the run's namespace: its death ends them all */
	kill(r->child_pid, SIGKILL);
	if (r->layer.limits.cg.ops)
		r->layer.limits.cg.ops->kill_all(&r->layer.limits.cg);
}

/* The range's host folder (rootfs.c's range_host), sent while the child
 * builds its view: the lab waits for it before "go", so that no snippet
 * runs whose host folder the lab could not look into afterwards. */
static int take_host_folder(struct run *r, struct lab_evidence *ev)
{
	if (!spec_has_step(&r->spec, SPEC_FS_HOSTDIR))
		return 0;
	struct pollfd p = {r->sync[1], POLLIN, 0};
	char tag = 0;
	int fd = -1;
	if (poll(&p, 1, (int)r->cfg->safety_timeout_ms) == 1)
		fd = fd_recv(r->sync[1], &tag);
	if (fd >= 0 && tag == 'h') {
		r->host_fd = fd;
		if (r->have_decoys) /* before "go": the snippet's first write is seen */
			decoy_watch_host(&r->d, fd);
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
	if (r->layer.limits.cg.ops && r->layer.limits.cg.dir_fd >= 0) {
		struct clone3_args a = {.flags = (flags & ~(unsigned long)CSIGNAL) | CLONE_INTO_CGROUP,
		                        .exit_signal = flags & CSIGNAL,
		                        .cgroup = (uint64_t)r->layer.limits.cg.dir_fd};
		pid_t pid = (pid_t)syscall(SYS_clone3, &a, sizeof a);
		if (pid > 0)
			cgroup_born_in(&r->layer.limits.cg);
		if (pid >= 0)
			return pid;
	}
	return (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
}

static int container_start(struct run *r, struct lab_evidence *ev)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->sync) < 0 || pipe2(r->rep, O_CLOEXEC) < 0 ||
	    (r->kind != RUN_EXEC && pipe2(r->out, O_CLOEXEC) < 0)) {
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

/* The snippet was a child of our init, a process of the host's kernel: the
 * host's own release and boot id (run.c read them just before) answered it. */
static void container_observe(struct run *r, struct lab_evidence *ev)
{
	(void)r;
	ev->kernel.snippet_on_host = ev->started;
	str_copy(ev->kernel.kernel_release, sizeof ev->kernel.kernel_release, ev->kernel.host_release);
	str_copy(ev->kernel.kernel_boot_id, sizeof ev->kernel.kernel_boot_id, ev->kernel.host_boot_id);
}

static void container_sample(const struct run *r, bool memory, struct box_sample *out)
{
	box_sample_tree(r, memory, true, out);
}

/* The range: always its own namespaces; with the range's view (no
 * private root), the host's own, read-only, with what hides the homes. */
static void container_describe(const struct run *r, struct lab_evidence *ev)
{
	mech_add(ev, "range: own user/pid/mount/ipc ns, own session keyring, init as PID 1, setsid%s",
	         spec_private_root(&r->spec) ? ""
	                                     : ", host view read-only and locked, homes and /run hidden, "
	                                       "host folder a nosuid,nodev tmpfs of the run's own");
}

const struct box_ops box_container = {
    .name = "container",
    .kernel = "the host's kernel",
    .start = container_start,
    .kill = container_kill,
    .sample = container_sample,
    .observe = container_observe,
    .describe = container_describe,
    .pid1 = "init",
    .host_filter = true,
    .own_userns = true,
};
