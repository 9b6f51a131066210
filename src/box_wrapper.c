/* box_wrapper.c — the audit's box: a foreign sandbox's command prefix
 * (bwrap, firejail, runsc do, srt, the lab's own exec ...) runs the snippet,
 * and only the range surrounds it. No layer of the lab's is applied: what
 * the wrapper lets through is the wrapper's doing, and the lab judges it
 * by the same outside evidence as its own runs (run.c, verdict.c).
 *
 * Processes of one run:
 *
 *   lab (run.c: listener, event loop, evidence, the run-wide sampler)
 *    └─ init   cloned into its own PID and mount namespaces (and a user
 *              namespace when the lab is rootless: a PID namespace needs
 *              one then), with a fresh /proc and a new session; stays
 *              PID 1: forwards signals, reports the wrapper's status
 *              ("S N"), and its death ends every process the wrapper
 *              started, double-forked or not
 *        └─ the wrapper (r->user_argv, the caller's command prefix with
 *              the snippet's command line in it), in the run's work folder,
 *              with the environment a real integration would hand it
 *              (run.c: the decoy secrets, HOME = the decoy home)
 *
 * Outside the range (r->outside_range: a wrapper that will not run inside
 * a PID namespace — firejail then runs "without any additional sandboxing
 * features"): the init is a plain child and a subreaper, and ends the
 * wrapper's tree by walking /proc; a process that leaves the tree (a
 * daemon's) is out of the lab's reach, and the card says so.
 *
 * As root there is no user namespace, so a setuid wrapper (firejail) works;
 * rootless, the range's user namespace ignores setuid bits. The host's view
 * is not made read-only here (the lab's range would otherwise decide what
 * the wrapper's sandbox could write): the decoy host target in the decoy
 * home is what the wrapper has to protect. */
#define _GNU_SOURCE
#include "box.h"
#include "proc.h"
#include "system.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct wr_state {
	int sync[2]; /* "go" once the uid map is written */
	pid_t wrapper;
};

/* Lab side, for the sampler: the interpreter's real path, and the most
 * processes the wrapper's whole tree had at once. */
struct wr_seen {
	char python[PATH_MAX];
	long tree_peak;
};

/* Every process of the run but the init. In the range, PID 1's kill(-1)
 * reaches exactly them; outside it (r->outside_range) kill(-1) would reach
 * every process of the user's, so the init, a subreaper, walks its own
 * descendants instead, until none is left. */
static void wr_kill_rest(struct run *r)
{
	if (!r->outside_range) {
		kill(-1, SIGKILL);
		return;
	}
	for (int round = 0; round < 50; round++) {
		pid_t pids[512];
		int n = proc_descendants(getpid(), pids, 512, true);
		if (n <= 0)
			return;
		for (int i = 0; i < n && i < 512; i++)
			kill(pids[i], SIGKILL);
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
	}
}

static void __attribute__((noreturn)) wr_finish(struct run *r, int st)
{
	wr_kill_rest(r);
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	run_report(r, "S %d\n", st);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static void wr_finish_cb(struct run *r, int status, void *ctx)
{
	(void)ctx;
	wr_finish(r, status);
}

/* The init's list of steps, then PID 1's loop (as box_gvisor.c's). */
static void __attribute__((noreturn)) wr_init(struct run *r, struct wr_state *g)
{
	box_child_begin(r, g->sync[1]);
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	box_child_await_lab(r, g->sync[0]);
	box_child_own_keyring(r);
	if (!r->outside_range)
		box_child_fresh_proc(r); /* the wrapper's tools read /proc/self */
	/* outside the range, orphans come back to us, not to the host's init */
	if (r->outside_range && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		run_fail(r, "prctl", "PR_SET_CHILD_SUBREAPER", errno);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(r->out[1], 1) < 0 || dup2(r->out[1], 2) < 0)
		run_fail(r, "set up stdio", "/dev/null and the output pipe", errno);
	close(r->out[1]);
	if (setsid() < 0)
		run_fail(r, "setsid", "a new session", errno);
	if (chdir(r->workdir) < 0)
		run_fail(r, "enter the work folder", r->workdir, errno);
	g->wrapper = fork();
	if (g->wrapper < 0)
		run_fail(r, "fork", "the wrapper", errno);
	if (g->wrapper == 0) {
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvpe(r->user_argv[0], r->user_argv, r->envp);
		run_fail(r, "execve", r->user_argv[0], errno);
	}
	struct box_init bi = {.main = g->wrapper,
	                      .lab_as = r->outside_range ? getppid() : 0,
	                      .end_rest = wr_kill_rest,
	                      .finish = wr_finish_cb};
	box_init_loop(r, &bi, &all);
}

/* ---------------- lab side ---------------- */

static void wrapper_kill(struct run *r, bool hard)
{
	if (r->child_pid <= 0)
		return;
	if (!hard && box_ask_init_to_end(r))
		return;
	/* in the range the init is PID 1 of the run's namespace: the wrapper's
	 * whole tree dies with it; outside, its descendants are ended first */
	if (r->outside_range) {
		pid_t pids[512];
		int n = proc_descendants(r->child_pid, pids, 512, true);
		for (int i = 0; i < n && i < 512; i++)
			kill(pids[i], SIGKILL);
	}
	kill(r->child_pid, SIGKILL);
}

static int wrapper_start(struct run *r, struct lab_evidence *ev)
{
	struct wr_state g = {.sync = {-1, -1}};
	struct wr_seen *seen = calloc(1, sizeof *seen);
	if (!seen)
		abort();
	if (!realpath(r->cfg->python, seen->python))
		str_copy(seen->python, sizeof seen->python, r->cfg->python);
	r->box_priv = seen;
	if (!r->user_argv || !r->user_argv[0] || pipe2(g.sync, O_CLOEXEC) < 0 || pipe2(r->rep, O_CLOEXEC) < 0 ||
	    pipe2(r->out, O_CLOEXEC) < 0) {
		snprintf(ev->error, sizeof ev->error, "pipe: %s", strerror(errno));
		goto fail;
	}
	unsigned long flags = SIGCHLD;
	if (!r->outside_range)
		flags |= CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | (r->root_lab ? 0 : CLONE_NEWUSER);
	fflush(NULL);
	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot create the range's namespaces for the wrapper: %s",
		         strerror(errno));
		goto fail;
	}
	if (pid == 0)
		wr_init(r, &g);
	box_after_clone(r, pid, &g.sync[0]);
	if ((!r->root_lab && !r->outside_range &&
	     box_write_id_maps(r, (unsigned)r->uid, r->uid, (unsigned)r->gid, r->gid, true, ev) < 0) ||
	    write(g.sync[1], "g", 1) != 1) {
		if (!ev->error[0])
			snprintf(ev->error, sizeof ev->error, "cannot hand the wrapper's init its go: %s",
			         strerror(errno));
		wrapper_kill(r, true);
		waitpid(pid, NULL, __WALL);
		r->child_pid = -1;
		goto fail;
	}
	close(g.sync[1]);
	return 0;
fail:
	for (int i = 0; i < 2; i++)
		if (g.sync[i] >= 0)
			close(g.sync[i]);
	free(r->box_priv);
	r->box_priv = NULL;
	return -1;
}

/* Memory: the wrapper's whole process tree, its sandbox's processes and
 * daemons included (the init shares the host's /tmp, whose files are not
 * counted). Processes: only the snippet's, the interpreter's processes of
 * that tree, so a wrapper's own helpers (bwrap's, the lab's exec and init,
 * firejail's) do not count against the cap; a wrapper that hides them
 * (gVisor's Sentry) shows none. */
static void wrapper_sample(const struct run *r, bool memory, struct box_sample *out)
{
	struct wr_seen *seen = r->box_priv;
	box_sample_tree(r, memory, false, out);
	if (!seen)
		return;
	if (out->procs > seen->tree_peak)
		seen->tree_peak = out->procs;
	pid_t pids[512];
	int n = proc_descendants(r->child_pid, pids, 512, true);
	out->procs = 0;
	for (int i = 0; i < n && i < 512; i++) {
		char p[64], exe[PATH_MAX];
		snprintf(p, sizeof p, "/proc/%d/exe", pids[i]);
		ssize_t k = readlink(p, exe, sizeof exe - 1);
		if (k > 0) {
			exe[k] = '\0';
			out->procs += !strcmp(exe, seen->python);
		}
	}
}

static void wrapper_observe(struct run *r, struct lab_evidence *ev)
{
	struct wr_seen *seen = r->box_priv;
	if (seen)
		ev->host_procs = seen->tree_peak;
	free(seen);
	r->box_priv = NULL;
	run_mech_add(ev, "no layer of the lab's: the wrapper's own sandbox");
	run_mech_add(ev, "resources sampled over the wrapper's whole process tree");
}

const struct box_ops box_wrapper = {
    .name = "wrapper",
    .kernel = "whichever kernel the wrapper's sandbox uses",
    .start = wrapper_start,
    .kill = wrapper_kill,
    .sample = wrapper_sample,
    .observe = wrapper_observe,
};
