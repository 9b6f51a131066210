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
 * Resources are counted as a limit counts them: the init joins a measuring
 * cgroup of the lab's (no limits; cgroup.c, v1 or v2 as root, a delegated
 * v2 subtree rootless) before the wrapper exists, so pids.peak and the
 * memory it was charged hold every task of the tree, short-lived ones
 * too; where there is none, or the wrapper moved the snippet into a cgroup
 * of its own, a /proc walk counts every task of the snippet's subtree,
 * threads and zombies included (both count against a pids.max).
 *
 * As root there is no user namespace, so a setuid wrapper (firejail) works;
 * rootless, the range's user namespace ignores setuid bits. The host's view
 * is not made read-only here (the lab's range would otherwise decide what
 * the wrapper's sandbox could write): the decoy host target in the decoy
 * home is what the wrapper has to protect. */
#define _GNU_SOURCE
#include "box.h"
#include "cgroup.h"
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
#include <time.h>
#include <unistd.h>

struct wr_state {
	int sync[2]; /* "go" once the uid map is written */
	pid_t wrapper;
};

/* Lab side, for the sampler: the interpreter's real path, the most
 * processes the wrapper's whole tree had at once, and which of the tree's
 * processes held the decoy keys (each process looked at once). */
#define WR_LOOKED 256
struct wr_holder {
	char comm[16];
	unsigned long pidns;
	char nspid[64]; /* its PID in each namespace, outermost first */
	bool in_cmdline;
};
struct wr_seen {
	char python[PATH_MAX];
	long tree_peak;
	long snippet_peak;     /* the snippet's tasks at once, threads and zombies included */
	long start_boot_ms;    /* CLOCK_BOOTTIME when the wrapper was started */
	long long py_start_ms; /* the first interpreter's start, on the same clock (0: unseen) */
	long helpers;          /* the tree's tasks outside the snippet's subtree (the wrapper's own) at its peak */
	struct lab_cgroup meas;
	bool meas_on;
	char meas_rel[2][PATH_MAX]; /* memory's and pids' folder, as /proc/PID/cgroup names them */
	bool left_mem, left_pids;   /* a process of the snippet was seen outside them */
	char meas_why[PATH_MAX + 200];
	pid_t looked[WR_LOOKED];
	int n_looked;
	unsigned long python_pidns; /* the snippet's PID namespace, once seen */
	struct wr_holder holder[8];
	int n_holders;
	bool told;                  /* the snippet was told the lab has looked (LAB_LOOKED_FILE) */
	unsigned long long cpu_max; /* the busiest process of the snippet's: its utime+stime, clock ticks */
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

/* The run is ended before the wrapper's command is done (an abort, the
 * safety net): SIGTERM first, then the rest of WR_END_GRACE_MS, then
 * SIGKILL. A wrapper that is itself a lab (`exec`, the lab preset, the
 * screen's card) is then stopped the way it cleans up after itself: its
 * own sandbox killed and its cgroups removed, which SIGKILL, inside this
 * PID namespace where the host cannot tell its pid, would leave behind. */
#define WR_END_GRACE_MS 1500

static void wr_end_rest(struct run *r)
{
	if (!r->outside_range) {
		kill(-1, SIGTERM);
		for (long end = monotonic_ms() + WR_END_GRACE_MS; monotonic_ms() < end;) {
			while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
				;
			pid_t pids[8];
			if (proc_descendants(getpid(), pids, 8, true) <= 0)
				break;
			usleep(20000);
		}
	}
	wr_kill_rest(r);
}

/* Whether the kernel has a SIGKILL waiting for the process: one the end
 * of its PID namespace or cgroup already condemned, still on its way out. */
static bool kill_pending(pid_t pid)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	char *s = read_file(p, NULL, 16 << 10);
	bool pending = false;
	static const char *const keys[] = {"\nSigPnd:", "\nShdPnd:"}; /* the thread's, the process's */
	for (size_t i = 0; s && i < sizeof keys / sizeof *keys; i++) {
		const char *at = strstr(s, keys[i]);
		pending |= at && (strtoull(at + strlen(keys[i]), NULL, 16) & (1ULL << (SIGKILL - 1)));
	}
	free(s);
	return pending;
}

/* The snippet's processes still alive once the wrapper's command has
 * exited and the rest of its tree is gone, before the range ends them (a
 * daemon that outlived the sandbox): its interpreter, by its exe; "O N
 * name,name" to the lab. The wrapper's own processes may take a moment to
 * go (bwrap's PID 1 dies of --die-with-parent after its parent, and its
 * PID namespace with it): up to SURVIVOR_WAIT_MS, while any is left. */
#define SURVIVOR_WAIT_MS    3000
#define SURVIVOR_CONFIRM_MS 500

static void wr_report_survivors(struct run *r)
{
	char py[PATH_MAX], p[64], names[96] = "";
	if (!realpath(r->cfg->python, py))
		return;
	pid_t pids[512];
	int n = 0, alive = 0;
	for (long end = monotonic_ms() + SURVIVOR_WAIT_MS;;) {
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		n = proc_descendants(getpid(), pids, 512, true);
		int theirs = 0;
		for (int i = 0; i < n && i < 512; i++)
			theirs += !proc_runs_exe(pids[i], py) && !kill_pending(pids[i]);
		if (!theirs || monotonic_ms() >= end)
			break;
		usleep(10000);
	}
	/* One still running the interpreter with no SIGKILL pending may yet
	 * be dying of its PID namespace's end (the kill already taken from
	 * the queue, its exit under way): only one alive SURVIVOR_CONFIRM_MS
	 * later outlived the wrapper. A daemon lives on for seconds. The tree
	 * is read again each time: a daemon that forks anew and lets the old
	 * pid go (a respawner) is the same daemon. */
	for (long end = monotonic_ms() + SURVIVOR_CONFIRM_MS;;) {
		bool any = false;
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		n = proc_descendants(getpid(), pids, 512, true);
		for (int i = 0; i < n && i < 512; i++)
			any |= proc_runs_exe(pids[i], py) && !kill_pending(pids[i]);
		if (!any || monotonic_ms() >= end)
			break;
		usleep(20000);
	}
	for (int i = 0; i < n && i < 512; i++) {
		if (kill_pending(pids[i]) || !proc_runs_exe(pids[i], py))
			continue;
		alive++;
		snprintf(p, sizeof p, "/proc/%d/comm", pids[i]);
		char *comm = read_file(p, NULL, 64);
		if (comm && strlen(names) + strlen(comm) + 2 < sizeof names)
			str_append(names, sizeof names, "%s%.*s", names[0] ? "," : "", (int)strcspn(comm, "\n"), comm);
		free(comm);
	}
	if (alive)
		run_report(r, "O %d %s\n", alive, names[0] ? names : "?");
}

static void __attribute__((noreturn)) wr_finish(struct run *r, int st)
{
	if (r->have_decoys)
		wr_report_survivors(r);
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

/* Into the lab's measuring cgroup, before the wrapper exists: writing
 * "0" moves the writer, still one thread (cgroup.c). A failed write leaves
 * the count to the /proc walk: wrapper_observe sees the cgroup empty. */
static void wr_join_measure(struct run *r)
{
	struct wr_seen *seen = r->box_priv;
	for (int i = 0; seen && seen->meas_on && i < seen->meas.n_attach; i++) {
		(void)!write(seen->meas.attach_fd[i], "0", 1);
		close(seen->meas.attach_fd[i]);
		seen->meas.attach_fd[i] = -1;
	}
}

/* The init's list of steps, then PID 1's loop (as box_gvisor.c's). */
static void __attribute__((noreturn)) wr_init(struct run *r, struct wr_state *g)
{
	box_child_begin(r, g->sync[1]);
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	box_child_await_lab(r, g->sync[0]);
	wr_join_measure(r);
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
		execvpe(r->user_argv[0], r->user_argv, r->layer.env.envp);
		run_fail(r, "execve", r->user_argv[0], errno);
	}
	struct box_init bi = {.main = g->wrapper,
	                      .lab_as = r->outside_range ? getppid() : 0,
	                      .end_rest = wr_end_rest,
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

/* "/containment-lab.run-..." as /proc/PID/cgroup shows a folder of
 * /sys/fs/cgroup[/CONTROLLER]. */
static void cg_rel(const char *dir, bool v1, char *out, size_t cap)
{
	const char *p = dir + strlen("/sys/fs/cgroup");
	if (v1 && *p == '/')
		p += 1 + strcspn(p + 1, "/"); /* past the controller's folder */
	str_copy(out, cap, p);
}

static void measure_setup(struct wr_seen *seen)
{
	char name[64];
	static unsigned seq;
	snprintf(name, sizeof name, "run-%d-audit%u", getpid(), seq++);
	seen->meas_on = cgroup_setup(&seen->meas, NULL, name, seen->meas_why, sizeof seen->meas_why) == 0;
	if (!seen->meas_on)
		return;
	bool v1 = !strcmp(seen->meas.ops->name, "cgroup-v1");
	cg_rel(seen->meas.path[v1 ? CG_V1_MEMORY : 0], v1, seen->meas_rel[0], sizeof seen->meas_rel[0]);
	cg_rel(seen->meas.path[v1 ? CG_V1_PIDS : 0], v1, seen->meas_rel[1], sizeof seen->meas_rel[1]);
}

/* Whatever is still in the measuring cgroup when the run is over (a daemon
 * that left the wrapper's tree) is ended with it. */
static void measure_end(struct wr_seen *seen)
{
	if (!seen || !seen->meas_on)
		return;
	seen->meas.ops->kill_all(&seen->meas);
	cgroup_teardown(&seen->meas);
	seen->meas_on = false;
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
	measure_setup(seen);
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	seen->start_boot_ms = (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
	cgroup_close_attach(&seen->meas); /* the init has its own copies */
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
	measure_end(seen);
	free(r->box_priv);
	r->box_priv = NULL;
	return -1;
}

/* The inode of a process's PID namespace, 0 if unreadable. */
static unsigned long pidns_of(pid_t pid)
{
	char p[64], link[64];
	snprintf(p, sizeof p, "/proc/%d/ns/pid", pid);
	ssize_t k = readlink(p, link, sizeof link - 1);
	if (k <= 0)
		return 0;
	link[k] = '\0';
	return strtoul(link + strcspn(link, "[") + 1, NULL, 10);
}

/* Does this file of the process (environ, cmdline) hold one of the
 * environment's decoy keys? */
static bool holds_env_key(const struct run *r, pid_t pid, const char *what)
{
	char p[64];
	size_t len = 0;
	snprintf(p, sizeof p, "/proc/%d/%s", pid, what);
	char *buf = read_file(p, &len, 256 << 10);
	bool found = false;
	for (int i = 0; buf && i < r->d.n_secret && !found; i++)
		found = decoy_secret_in_env(&r->d, i) &&
		        memmem(buf, len, r->d.secret[i].token, strlen(r->d.secret[i].token));
	free(buf);
	return found;
}

static bool look_seen(const struct wr_seen *seen, pid_t pid)
{
	for (int i = 0; i < seen->n_looked; i++)
		if (seen->looked[i] == pid)
			return true;
	return false;
}

/* A process of the tree not looked at yet: the interpreter gives the
 * snippet's PID namespace; any other that holds the keys is whose
 * environment (or command line) a thief reading /proc can take. */
static void look_at(const struct run *r, struct wr_seen *seen, pid_t pid, bool python)
{
	/* before the "looked" test: the interpreter may have been looked at
	 * as the wrapper's fork it was, before it exec()ed python */
	if (python && !seen->python_pidns)
		seen->python_pidns = pidns_of(pid);
	if (look_seen(seen, pid) || seen->n_looked == WR_LOOKED)
		return;
	seen->looked[seen->n_looked++] = pid;
	if (python || seen->n_holders == 8)
		return;
	bool env = holds_env_key(r, pid, "environ"), cmd = !env && holds_env_key(r, pid, "cmdline");
	if (!env && !cmd)
		return;
	struct wr_holder *h = &seen->holder[seen->n_holders++];
	char p[64], *status;
	snprintf(p, sizeof p, "/proc/%d/comm", pid);
	char *comm = read_file(p, NULL, 64);
	str_copy(h->comm, sizeof h->comm, comm ? comm : "?");
	h->comm[strcspn(h->comm, "\n")] = '\0';
	free(comm);
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	status = read_file(p, NULL, 16 << 10);
	const char *ns = status ? strstr(status, "\nNSpid:") : NULL;
	if (ns)
		snprintf(h->nspid, sizeof h->nspid, "%.*s", (int)strcspn(ns + 8, "\n"), ns + 8);
	free(status);
	h->pidns = pidns_of(pid);
	h->in_cmdline = cmd;
}

/* Once the lab has looked at every process of the wrapper's tree with
 * the interpreter in it, it says so with a file beside the snippet
 * ({dir}/lab-looked); the secret thief waits for it (a bounded wait)
 * before it reads /proc, so whose environment it read is named from the
 * lab's own look however late a loaded machine let the lab sample, never
 * "another process's" because the thief was quicker. */
#define LOOKED_FILE "lab-looked"

static void tell_looked(const struct run *r)
{
	char p[PATH_MAX];
	if (pathf(p, sizeof p, "%s/" LOOKED_FILE, r->d.work) < 0)
		return;
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0)
		close(fd);
}

/* One task of the tree, from /proc/PID/stat: its parent, whether it is a
 * zombie, its threads (field 20); the interpreter by its exe. */
struct wr_task {
	pid_t pid, ppid;
	long threads;
	unsigned long long start; /* field 22: clock ticks after boot */
	unsigned long long cpu;   /* fields 14 and 15, utime + stime: what RLIMIT_CPU counts */
	bool python, snippet;
};

static bool task_read(pid_t pid, const char *python, struct wr_task *t)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/stat", pid);
	char *st = read_file(p, NULL, 4096), *close = st ? strrchr(st, ')') : NULL;
	char state = '?';
	int ppid = 0;
	long threads = 1;
	unsigned long long start = 0, utime = 0, stime = 0;
	bool ok = close &&
	          sscanf(close + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %ld %*d %llu",
	                 &state, &ppid, &utime, &stime, &threads, &start) == 6;
	free(st);
	if (!ok)
		return false;
	*t = (struct wr_task){
	    .pid = pid, .ppid = ppid, .threads = threads < 1 ? 1 : threads, .start = start, .cpu = utime + stime};
	t->python = proc_runs_exe(pid, python); /* a zombie has no exe */
	return true;
}

/* Whether a task of the tree is still in the measuring cgroup's memory
 * and pids folders: a wrapper may move the snippet, or its own sandbox
 * (gVisor's Sentry), into cgroups of its own, and then the measuring
 * cgroup no longer holds what the tree took. */
static void check_stayed(struct wr_seen *seen, pid_t pid)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/cgroup", pid);
	char *s = read_file(p, NULL, 16 << 10);
	bool in[2] = {false, false};
	bool v1 = !strcmp(seen->meas.ops->name, "cgroup-v1");
	for (char *line = s; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		/* "N:memory:/path" on v1, "0::/path" on v2 */
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		size_t clen = (size_t)(c2 - c1 - 1);
		for (int i = 0; i < 2; i++) {
			const char *ctrl = i ? "pids" : "memory";
			bool match =
			    v1 ? clen == strlen(ctrl) && !strncmp(c1 + 1, ctrl, clen) : clen == 0 && line[0] == '0';
			size_t rl = strlen(seen->meas_rel[i]);
			if (match && !strncmp(c2 + 1, seen->meas_rel[i], rl) &&
			    (c2[1 + rl] == '/' || c2[1 + rl] == '\n'))
				in[i] = true;
		}
	}
	bool said = s && *s; /* a zombie's may be empty: it says nothing */
	free(s);
	seen->left_mem |= said && !in[0];
	seen->left_pids |= said && !in[1];
}

/* Memory: the wrapper's whole process tree, its sandbox's processes and
 * daemons included (the init shares the host's /tmp, whose files are not
 * counted), less the wrapper's own chain of processes above the
 * interpreter (the lab's exec and init, bwrap's monitor): their memory is
 * the wrapper's, not the bomb's (the lab preset's 10 MiB took a balloon
 * its RLIMIT_AS held at 248 MiB to "258 MiB of 256", ESCAPED). Tasks: the snippet's subtree, every interpreter process
 * and whatever descends from one, threads and zombies included, as a pids.max counts them; the wrapper's own helpers
 * (bwrap's, the lab's exec and init, firejail's) are not the snippet's; a wrapper that hides them (gVisor's Sentry)
 * shows none. */
/* The memory of the tasks above an interpreter in the tree (its parent,
 * that one's, ...: the wrapper's own chain), at most total */
static uint64_t helpers_pss(const struct wr_task *t, int k, uint64_t total)
{
	bool helper[512] = {false};
	for (int i = 0; i < k; i++)
		for (pid_t up = t[i].python ? t[i].ppid : 0; up > 0;) {
			int j = 0;
			while (j < k && t[j].pid != up)
				j++;
			if (j == k || t[j].python || helper[j])
				break;
			helper[j] = true;
			up = t[j].ppid;
		}
	uint64_t sum = 0;
	for (int i = 0; i < k; i++)
		sum += helper[i] ? box_pss(t[i].pid) : 0;
	return sum < total ? sum : total;
}

static void wrapper_sample(const struct run *r, bool memory, struct box_sample *out)
{
	struct wr_seen *seen = r->box_priv;
	box_sample_tree(r, memory, false, out);
	if (!seen)
		return;
	pid_t pids[512];
	struct wr_task t[512];
	int n = proc_descendants(r->child_pid, pids, 512, false), k = 0;
	for (int i = 0; i < n && i < 512; i++)
		k += task_read(pids[i], seen->python, &t[k]);
	for (int i = 0; i < k; i++)
		t[i].snippet = t[i].python;
	if (memory)
		out->mem -= helpers_pss(t, k, out->mem);
	for (bool more = true; more;) {
		more = false;
		for (int i = 0; i < k; i++)
			for (int j = 0; j < k && !t[i].snippet; j++)
				if (t[j].snippet && t[j].pid == t[i].ppid)
					t[i].snippet = more = true;
	}
	long mine = 0, all = 0;
	bool python = false;
	for (int i = 0; i < k; i++) {
		all += t[i].threads;
		mine += t[i].snippet ? t[i].threads : 0;
		if (seen->meas_on && !look_seen(seen, t[i].pid))
			check_stayed(seen, t[i].pid);
		long long at = (long long)(t[i].start * 1000 / (unsigned long long)sysconf(_SC_CLK_TCK));
		if (t[i].python && (!seen->py_start_ms || at < seen->py_start_ms))
			seen->py_start_ms = at;
		if (r->have_decoys)
			look_at(r, seen, t[i].pid, t[i].python);
		if (t[i].snippet && t[i].cpu > seen->cpu_max)
			seen->cpu_max = t[i].cpu;
		python |= t[i].python;
	}
	if (python && r->have_decoys && !seen->told) {
		tell_looked(r);
		seen->told = true;
	}
	if (all > seen->tree_peak)
		seen->tree_peak = all;
	/* the wrapper's own tasks at the snippet's peak: as it dies, its
	 * orphans are reparented out of its subtree, and are not helpers */
	if (mine > seen->snippet_peak) {
		seen->snippet_peak = mine;
		seen->helpers = all - mine;
	}
	out->procs = mine;
}

/* The holders as the snippet's /proc shows them: the last NSpid of a
 * process in the snippet's own PID namespace. */
static void holders_out(const struct wr_seen *seen, struct lab_evidence *ev)
{
	for (int i = 0; i < seen->n_holders && ev->secrets.n_holders < 8; i++) {
		const struct wr_holder *h = &seen->holder[i];
		const char *last = strrchr(h->nspid, '\t');
		last = last ? last + 1 : h->nspid;
		str_copy(ev->secrets.holder[ev->secrets.n_holders].comm, sizeof ev->secrets.holder[0].comm, h->comm);
		ev->secrets.holder[ev->secrets.n_holders].pid_in_view =
		    seen->python_pidns && h->pidns == seen->python_pidns ? atoi(last) : 0;
		ev->secrets.holder[ev->secrets.n_holders++].in_cmdline = h->in_cmdline;
	}
}

/* The figures as a limit counts them: the measuring cgroup's where the
 * snippet stayed in it (its pids.peak less the init and the wrapper's own
 * tasks; the memory it was charged), never fewer tasks than the walk saw;
 * the walk's where there is no cgroup, or the wrapper moved the snippet
 * out of it. CPU is the init's rusage either way: it reaped every process;
 * and the busiest process of the snippet's, as the walk last saw it. */
static void measured(const struct wr_seen *seen, struct lab_evidence *ev)
{
	struct cgroup_figures f;
	cgroup_figures(&seen->meas, &f);
	char mem[32];
	if (seen->snippet_peak > ev->res.peak_procs)
		ev->res.peak_procs = seen->snippet_peak;
	if (seen->py_start_ms > seen->start_boot_ms)
		ev->end.snippet_start_ms = (long)(seen->py_start_ms - seen->start_boot_ms);
	if (seen->snippet_peak > 0) {
		ev->res.cpu_proc_seen = true;
		ev->res.cpu_proc_max_ms = (long)(seen->cpu_max * 1000 / (unsigned long long)sysconf(_SC_CLK_TCK));
	}
	if (!seen->meas_on || f.pids_peak <= 0) {
		snprintf(ev->res.measured_by, sizeof ev->res.measured_by,
		         "a /proc walk of the wrapper's tree every 10 ms (every task of the snippet's, threads and "
		         "zombies included; the memory of all but the wrapper's own processes above the interpreter): "
		         "no measuring cgroup (%.100s)",
		         seen->meas_why[0] ? seen->meas_why : "the init could not join it");
		return;
	}
	long cg_tasks = (long)f.pids_peak - 1 - seen->helpers;
	if (!seen->left_pids && cg_tasks > ev->res.peak_procs)
		ev->res.peak_procs = cg_tasks;
	if (!seen->left_mem && f.mem_peak > 0) {
		ev->res.peak_mem = (uint64_t)f.mem_peak;
		ev->res.peak_mem_from_cgroup = true;
	}
	fmt_bytes(mem, sizeof mem, f.mem_peak > 0 ? (uint64_t)f.mem_peak : 0);
	snprintf(ev->res.measured_by, sizeof ev->res.measured_by,
	         "the lab's measuring cgroup (%s, no limits): pids.peak %lld less the init and the wrapper's %ld "
	         "task(s)%s, %s charged%s; and a /proc walk (zombies included)",
	         seen->meas.ops->name, f.pids_peak, seen->helpers,
	         seen->left_pids ? " (not used: the wrapper moved tasks out of it)" : "", mem,
	         seen->left_mem ? " (not used: the wrapper moved tasks into a memory cgroup of its own)" : "");
}

static void wrapper_observe(struct run *r, struct lab_evidence *ev)
{
	struct wr_seen *seen = r->box_priv;
	if (seen) {
		ev->kernel.host_procs = seen->tree_peak;
		holders_out(seen, ev);
		measured(seen, ev);
		measure_end(seen);
	}
	free(seen);
	r->box_priv = NULL;
	mech_add(ev, "no layer of the lab's: the wrapper's own sandbox");
	mech_add(ev, "resources: %s", ev->res.measured_by);
}

static void wrapper_describe(const struct run *r, struct lab_evidence *ev)
{
	if (r->outside_range)
		mech_add(ev, "outside the range: the init is a subreaper, its tree ended through /proc");
	else
		mech_add(ev,
		         "range: own %spid/mount/ipc ns, own session keyring, init as PID 1, setsid; host view as the "
		         "wrapper leaves it",
		         r->root_lab ? "" : "user/");
}

const struct box_ops box_wrapper = {
    .name = "wrapper",
    .kernel = "whichever kernel the wrapper's sandbox uses",
    .start = wrapper_start,
    .kill = wrapper_kill,
    .sample = wrapper_sample,
    .observe = wrapper_observe,
    .describe = wrapper_describe,
    .kill_grace_ms = WR_END_GRACE_MS + 500, /* a wrapper that is itself a lab gets its grace to clean up */
    .pid1 = "init",
};
