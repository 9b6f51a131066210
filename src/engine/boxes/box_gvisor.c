/* box_gvisor.c — the gvisor rung of the isolation ladder: the snippet runs
 * under gVisor's runsc, whose Sentry (a kernel written in Go, running as an
 * ordinary host process) answers the snippet's system calls; the host
 * kernel only ever sees runsc's own processes.
 *
 * Processes of one run:
 *
 *   lab (run.c: listener, event loop, evidence)
 *    └─ init   cloned into its own PID and mount namespaces (and a user
 *              namespace when the lab is rootless), with a fresh /proc and
 *              a new session; stays PID 1: forwards signals, reports the
 *              snippet's status ("S N"), and its death ends every runsc
 *              process of the run (the range)
 *        ├─ runsc run        the snippet, from the OCI bundle written here
 *        │   ├─ runsc-gofer / runsc-sandbox (the Sentry)
 *        └─ runsc run        a probe sandbox beside it (same runsc, same
 *                            platform, same network): it prints the release
 *                            and boot id its kernel answers, and connect()s
 *                            to the attacker when No-network is on, onto the
 *                            report pipe ("K", "B", "P" lines): evidence that
 *                            comes from outside the snippet
 *
 * Everything lives in the run folder (bundle, rootfs, --root state) and
 * goes with it; `exec` has its own temp folder, removed in observe.
 *
 * Layers on this rung: Isolation is gVisor itself (the platform is ptrace:
 * the kvm platform hangs on nested VMs). No-network: --network=none (the
 * sandbox gets its own netstack with only a loopback) vs --network=host:
 * runsc's host network is the init's, a network namespace of the run's
 * own where the init put the lab's small internet (egress.h), never the
 * host's (exec keeps the host's).
 * Clean-env: the environment the layer built; off, the decoy home is
 * mounted read-only at /root (runsc passes no descriptor beyond stdio, so
 * the leaked fd 3 of the container rung does not exist here). Resource-
 * limits: the OCI rlimits (enforced by the Sentry) plus the lab's clock and
 * output cap; the lab's cgroup is not used: it would count and cap the
 * Sentry's own threads and memory, not the snippet's. */
#define _GNU_SOURCE
#include "box.h"
#include "proc.h"
#include "seccomp_filter.h"
#include "system.h"
#include "trace.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_WAIT_MS 3000 /* the probe gets this long after the snippet ends */

struct gv_state {
	char dir[PATH_MAX];   /* bundle, probe and state folders live here */
	bool own_dir;         /* exec: a temp folder of ours, removed after */
	int dir_lock;         /* our flock on it (0 = none yet: calloc'd) */
	char runsc[PATH_MAX]; /* the runsc binary */
	char python[PATH_MAX];
	char id[48];
	int sync[2]; /* rootless: the uid map is written */
	/* what the lab saw of the run's host processes while it ran */
	long scans, host_procs;
	bool python_seen;
	pid_t probe, snippet; /* init side */
	/* the Sentry's own accounting (gv_poller): the init's poller writes
	 * "G MEM PIDS CPU_NS POLLS" peaks on stats[1]; the lab keeps the last */
	int stats[2];
	pid_t poller;
	char stats_buf[256];
	size_t stats_len;
	unsigned long long s_mem, s_cpu_ns;
	long s_pids, s_polls;
};

/* ---------------- the OCI bundle ---------------- */

static void json_strs(struct strbuf *b, char *const *v)
{
	sb_puts(b, "[");
	for (int i = 0; v && v[i]; i++) {
		if (i)
			sb_puts(b, ",");
		sb_json_str(b, v[i]);
	}
	sb_puts(b, "]");
}

static void json_bind(struct strbuf *b, const char **sep, const char *src, const char *dst, bool ro)
{
	sb_printf(b, "%s{\"destination\":", *sep);
	*sep = ",";
	sb_json_str(b, dst);
	sb_puts(b, ",\"type\":\"bind\",\"source\":");
	sb_json_str(b, src);
	sb_printf(b, ",\"options\":[\"rbind\",\"%s\",\"nosuid\",\"nodev\"]}", ro ? "ro" : "rw");
}

/* Resource-limits: the run spec's rlimits, enforced by the Sentry. */
static void json_rlimits(struct strbuf *b, const struct run_spec *spec)
{
	sb_puts(b, ",\"rlimits\":[");
	for (int i = 0; i < spec->n_rl; i++)
		sb_printf(b, "%s{\"type\":\"%s\",\"soft\":%llu,\"hard\":%llu}", i ? "," : "", spec->rl[i].name,
		          spec->rl[i].soft, spec->rl[i].hard);
	sb_puts(b, "]");
}

/* No-network on, mode none: runsc's own netstack with only its loopback.
 * Otherwise runsc --network=host, and its host is the init's network
 * namespace: the small internet (No-network off) or the allow-list's one
 * door, the lab's proxy on 127.0.0.1:EGRESS_PORT. */
static bool gv_netstack(const struct run *r)
{
	return r->spec.net == SPEC_NET_NONE;
}

/* The init makes a network namespace of the run's own and opens what the
 * lab serves there (egress_child_door). */
static bool gv_own_netns(const struct run *r)
{
	return r->eg.inside || r->spec.net == SPEC_NET_ALLOWLIST;
}

/* The mounts of the run spec's file-system view: binds, /proc and the
 * tmpfs steps (folders, files and symlinks are the bundle's rootfs,
 * gv_bundle). /dev is runsc's own minimal one. The probe gets the system's
 * part only, none of the run's folders. */
static void gv_mounts(const struct run *r, bool probe, struct strbuf *b)
{
	const char *sep = "";
	for (int i = 0; i < r->spec.n_fs; i++) {
		const struct spec_fs_op *op = &r->spec.fs[i];
		const char *link;
		switch (op->kind) {
		case SPEC_FS_BIND:
			if (!access(op->src, F_OK))
				json_bind(b, &sep, op->src, op->dst, op->ro);
			break;
		case SPEC_FS_HOST_TOP:
			if (spec_host_top(&r->host, op->dst, &link) && !*link)
				json_bind(b, &sep, op->dst, op->dst, true);
			break;
		case SPEC_FS_PROC:
			sb_printf(b, "%s{\"destination\":", sep);
			sb_json_str(b, op->dst);
			sb_puts(b, ",\"type\":\"proc\",\"source\":\"proc\"}");
			sep = ",";
			break;
		case SPEC_FS_TMPFS:
			sb_printf(b, "%s{\"destination\":", sep);
			sb_json_str(b, op->dst);
			sb_printf(
			    b,
			    ",\"type\":\"tmpfs\",\"source\":\"tmpfs\",\"options\":[\"nosuid\",\"nodev\",\"mode=%o\","
			    "\"size=%llu\"]}",
			    op->mode, (unsigned long long)op->size);
			sep = ",";
			break;
		case SPEC_FS_WORK:
			if (!probe)
				json_bind(b, &sep, r->d.work, op->dst, true);
			break;
		case SPEC_FS_CWD:
			if (!probe)
				json_bind(b, &sep, r->cwd, r->cwd, op->ro);
			break;
		case SPEC_FS_HOME:
			if (!probe && op->dst) /* the naive integration's credentials */
				json_bind(b, &sep, r->d.home, op->dst, true);
			break;
		default: /* ROOT: the bundle's rootfs; DIR, FILE: in it; DEV: runsc's */
			break;
		}
	}
	if (!probe && r->tools.listen_fd >= 0) /* the tool door (tools.h, runsc --host-uds=open) */
		json_bind(b, &sep, r->tools.sock_path, TOOLS_SANDBOX_SOCK, false);
}

/* The snippet's config.json (probe = false) or the probe's. */
static void gv_config(const struct run *r, bool probe, char *const *args, char *const *env, struct strbuf *b)
{
	sb_puts(b, "{\"ociVersion\":\"1.0.0\",\"process\":{\"user\":{\"uid\":0,\"gid\":0},\"args\":");
	json_strs(b, args);
	sb_puts(b, ",\"env\":");
	json_strs(b, env);
	sb_puts(b, ",\"cwd\":");
	sb_json_str(b, probe ? "/" : r->workdir);
	if (!probe)
		json_rlimits(b, &r->spec);
	sb_puts(b, "},\"root\":{\"path\":\"rootfs\",\"readonly\":true},\"hostname\":");
	sb_json_str(b, r->cfg->hostname);
	sb_puts(b, ",\"mounts\":[");
	gv_mounts(r, probe, b);
	/* the Sentry's own cgroup view: no cgroup namespace to ask for */
	sb_puts(b, "],\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"mount\"}");
	if (r->spec.ns & SPEC_NS_IPC)
		sb_puts(b, ",{\"type\":\"ipc\"}");
	if (r->spec.ns & SPEC_NS_UTS)
		sb_puts(b, ",{\"type\":\"uts\"}");
	if (gv_netstack(r))
		sb_puts(b, ",{\"type\":\"network\"}");
	sb_puts(b, "]}}\n");
}

static int gv_put(const char *dir, const char *name, const char *text, struct lab_evidence *ev)
{
	char p[PATH_MAX];
	if (pathf(p, sizeof p, "%s/%s", dir, name) < 0 || write_file(p, text, 0644) < 0) {
		snprintf(ev->error, sizeof ev->error, "gvisor: cannot write %.200s: %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

/* A bundle folder: config.json and a small read-only rootfs (the merged-
 * /usr symlinks and a few files of /etc; the rest are mounts). */
static int gv_bundle(const struct run *r, const char *dir, const struct strbuf *config, struct lab_evidence *ev)
{
	char p[PATH_MAX];
	if (pathf(p, sizeof p, "%s/rootfs", dir) < 0 || mkdirs(p, 0755) < 0) {
		snprintf(ev->error, sizeof ev->error, "gvisor: cannot create %.200s: %s", p, strerror(errno));
		return -1;
	}
	for (int i = 0; i < r->spec.n_fs; i++) {
		const struct spec_fs_op *op = &r->spec.fs[i];
		const char *link;
		char at[PATH_MAX];
		if (pathf(at, sizeof at, "%s/rootfs%s", dir, op->dst ? op->dst : "") < 0)
			goto fail;
		if (op->kind == SPEC_FS_HOST_TOP && spec_host_top(&r->host, op->dst, &link) && *link &&
		    symlink(link, at) < 0)
			goto fail;
		if (op->kind == SPEC_FS_DIR && mkdir(at, op->mode) < 0 && errno != EEXIST)
			goto fail;
		if (op->kind == SPEC_FS_FILE && write_file(at, op->text, 0644) < 0)
			goto fail;
		continue;
	fail:
		snprintf(ev->error, sizeof ev->error, "gvisor: cannot create %.200s: %s", at, strerror(errno));
		return -1;
	}
	return gv_put(dir, "config.json", config->s, ev);
}

/* The probe: what its kernel answers, in report-pipe lines. */
static const char probe_code[] = "import os,socket,sys\n"
                                 "o=['K '+os.uname().release]\n"
                                 "try:\n b=open('/proc/sys/kernel/random/boot_id').read().strip() or '-'\n"
                                 "except OSError:\n b='-'\n"
                                 "o.append('B '+b)\n"
                                 "if len(sys.argv)>1:\n"
                                 " s=socket.socket();s.settimeout(2)\n"
                                 " try:\n  s.connect(('127.0.0.1',int(sys.argv[1])));e=0\n"
                                 " except OSError as x:\n  e=x.errno or 110\n"
                                 " o.append('P %d'%e)\n"
                                 "if len(sys.argv)>2:\n"
                                 " s=socket.socket();s.settimeout(2)\n"
                                 " try:\n  s.connect(('192.0.2.1',80));e=0\n"
                                 " except OSError as x:\n  e=x.errno or 110\n"
                                 " o.append('R %d'%e)\n"
                                 "os.write(1,('\\n'.join(o)+'\\n').encode())\n";

static int gv_write_bundles(struct run *r, struct gv_state *g, struct lab_evidence *ev)
{
	char dir[PATH_MAX], port[16];
	struct strbuf b = {0};
	char *run_args[] = {r->argv[0], r->argv[1], r->argv[2], NULL};
	gv_config(r, false, r->kind == RUN_EXEC ? r->user_argv : run_args, r->layer.env.envp, &b);
	int rc = pathf(dir, sizeof dir, "%s/bundle", g->dir) < 0 ? -1 : gv_bundle(r, dir, &b, ev);
	sb_free(&b);
	if (rc < 0 || r->kind == RUN_EXEC)
		return rc;
	snprintf(port, sizeof port, "%d", r->d.port);
	/* the allow-list's lo is up: the attacker's port there is the run's
	 * own loopback, and only an address off it shows there is no route */
	char *probe_args[] = {g->python,
	                      "-S",
	                      "-c",
	                      (char *)probe_code,
	                      spec_net_closed(&r->spec) ? port : NULL,
	                      r->spec.net == SPEC_NET_ALLOWLIST ? "route" : NULL,
	                      NULL};
	char *probe_env[] = {"PATH=/usr/bin:/bin", NULL};
	memset(&b, 0, sizeof b);
	gv_config(r, true, probe_args, probe_env, &b);
	rc = pathf(dir, sizeof dir, "%s/probe", g->dir) < 0 ? -1 : gv_bundle(r, dir, &b, ev);
	sb_free(&b);
	return rc;
}

/* ---------------- the init (child side, never returns) ---------------- */

/* The trace inside the Sentry: Isolation's deny list, as runsc --strace
 * takes it. gVisor's table of late 2022 stops before pidfd_open (434): a
 * runsc that meets a name it lacks refuses to start, so later calls are
 * left out of the trace (the Sentry still answers them). */
static bool gv_traced(const struct run *r)
{
	return r->tr.on && r->spec.seccomp && r->kind != RUN_EXEC;
}

/* A process cap in the spec (RLIMIT_NPROC): the Sentry enforces it and
 * counts nothing the lab can read, so its refusals of a fork are taken
 * from the same strace (clone3 is past the table: glibc's fork is clone). */
static bool gv_nproc_capped(const struct run *r)
{
	for (int i = 0; i < r->spec.n_rl; i++)
		if (r->spec.rl[i].resource == RLIMIT_NPROC)
			return true;
	return false;
}

static void gv_strace_list(const struct run *r, char *out, size_t cap)
{
	const char *const *names;
	size_t n = lab_seccomp_refused_names(&names);
	size_t k = 0;
	str_copy(out, cap, "--strace-syscalls=");
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		if (nr >= 0 && nr < 434)
			str_append(out, cap, "%s%s", k++ ? "," : "", names[i]);
	}
	if (gv_nproc_capped(r))
		str_append(out, cap, "%sclone,fork,vfork", k ? "," : "");
}

static void __attribute__((noreturn)) gv_exec_runsc(struct run *r, struct gv_state *g, bool probe)
{
	char root[PATH_MAX + 16], bundle[PATH_MAX + 16], id[64], strace[1024], debug_log[PATH_MAX + 32];
	snprintf(root, sizeof root, "--root=%s/state", g->dir);
	snprintf(bundle, sizeof bundle, "%s/%s", g->dir, probe ? "probe" : "bundle");
	snprintf(id, sizeof id, "%s%s", g->id, probe ? "-probe" : "");
	char *argv[16];
	int n = 0;
	argv[n++] = g->runsc;
	if (!probe && gv_traced(r)) {
		gv_strace_list(r, strace, sizeof strace);
		snprintf(debug_log, sizeof debug_log, "--debug-log=%s/strace/", g->dir);
		argv[n++] = "--strace";
		argv[n++] = strace;
		argv[n++] = debug_log;
	}
	if (!r->root_lab)
		argv[n++] = "--rootless";
	argv[n++] = gv_netstack(r) ? "--network=none" : "--network=host";
	argv[n++] = "--platform=ptrace";
	argv[n++] = "--ignore-cgroups"; /* none of runsc's own: a killed lab would leave them */
	/* the tool door: the gofer may connect to a host socket bound in (and
	 * to nothing else: there is no other socket in the bundle's view) */
	if (!probe && r->tools.listen_fd >= 0)
		argv[n++] = "--host-uds=open";
	argv[n++] = root;
	argv[n++] = "run";
	argv[n++] = "--bundle";
	argv[n++] = bundle;
	argv[n++] = id;
	argv[n] = NULL;
	execv(g->runsc, argv);
	run_fail(r, "execve", g->runsc, errno);
}

static pid_t gv_spawn(struct run *r, struct gv_state *g, bool probe, const sigset_t *mask)
{
	pid_t pid = fork();
	if (pid < 0)
		run_fail(r, "fork", probe ? "the probe's runsc" : "runsc", errno);
	if (pid)
		return pid;
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (probe) {
		/* its answer goes to the lab on the report pipe, nothing else */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(r->rep[1], 1) < 0 || dup2(null, 2) < 0)
			run_fail(r, "set up the probe's stdio", "/dev/null and the report pipe", errno);
	}
	gv_exec_runsc(r, g, probe);
}

/* runsc run exits with the container's status, a signal as 128+N (as a
 * shell says it), and 128 itself when runsc failed. */
static int gv_status(int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 128 + NSIG)
		return WEXITSTATUS(st) - 128; /* a wait status "killed by signal N" */
	return st;
}

/* The first number that follows "key": after from_key in json, or -1
 * ("usage":{"usage":N}: the object is skipped, the number taken). */
static long long json_num_after(const char *json, const char *from_key, const char *key)
{
	const char *at = json && from_key ? strstr(json, from_key) : json;
	while (at && (at = strstr(at, key))) {
		at += strlen(key);
		while (*at == ' ' || *at == ':')
			at++;
		if (*at >= '0' && *at <= '9')
			return strtoll(at, NULL, 10);
	}
	return -1;
}

/* One `runsc events --stats ID`: the Sentry's answer over its control
 * socket (outside the sandbox: the snippet cannot reach it). 0 or -1. */
static int gv_stats_once(struct run *r, struct gv_state *g, long long *mem, long long *pids, long long *cpu)
{
	char root[PATH_MAX + 16], buf[16384];
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	snprintf(root, sizeof root, "--root=%s/state", g->dir);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		char *argv[8];
		int k = 0;
		argv[k++] = g->runsc;
		if (!r->root_lab)
			argv[k++] = "--rootless";
		argv[k++] = root;
		argv[k++] = "events";
		argv[k++] = "--stats";
		argv[k++] = g->id;
		argv[k] = NULL;
		execv(g->runsc, argv);
		_exit(127);
	}
	close(p[1]);
	size_t have = 0;
	for (ssize_t n; pid > 0 && have < sizeof buf - 1 && (n = read(p[0], buf + have, sizeof buf - 1 - have)) != 0;)
		if (n > 0)
			have += (size_t)n;
		else if (errno != EINTR)
			break;
	buf[have] = '\0';
	close(p[0]);
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	*pids = json_num_after(buf, "\"pids\"", "\"current\"");
	*mem = json_num_after(buf, "\"memory\"", "\"usage\"");
	/* this build's cpu.usage.total is not the container's (thousands of
	 * seconds for a task of one): not taken */
	*cpu = 0;
	return *mem >= 0 ? 0 : -1;
}

/* Polls the Sentry's accounting while the snippet runs and keeps the
 * peaks: a figure the host cannot see (the snippet's processes and memory
 * live in the Sentry). Each poll is a runsc process, so the peaks are
 * samples, not the kernel's own maxima. Ended by the init's kill(-1). */
static void __attribute__((noreturn)) gv_poller(struct run *r, struct gv_state *g)
{
	long long peak_mem = 0, peak_pids = 0, cpu = 0;
	long polls = 0;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0)
		dup2(null, 0), dup2(null, 1), dup2(null, 2);
	fcntl(g->stats[1], F_SETFL, O_NONBLOCK); /* a full pipe drops a line, never blocks us */
	for (;;) {
		long long mem = -1, pids = -1, c = -1;
		if (gv_stats_once(r, g, &mem, &pids, &c) == 0) {
			polls++;
			peak_mem = mem > peak_mem ? mem : peak_mem;
			peak_pids = pids > peak_pids ? pids : peak_pids;
			cpu = c > cpu ? c : cpu;
			dprintf(g->stats[1], "G %lld %lld %lld %ld\n", peak_mem, peak_pids, cpu, polls);
		}
		struct timespec ts = {0, 20L * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static void __attribute__((noreturn)) gv_finish(struct run *r, struct gv_state *g, int st)
{
	/* the probe has a little longer: its answer is the evidence */
	long until = monotonic_ms() + PROBE_WAIT_MS;
	while (g->probe > 0 && monotonic_ms() < until) {
		pid_t w = waitpid(g->probe, NULL, WNOHANG);
		if (w == g->probe)
			break;
		struct timespec ts = {0, 10L * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 128)
		run_fail(r, "runsc run", "runsc failed (exit 128): its message is in the run's output", EPROTO);
	int raw = gv_status(st);
	run_report(r, "S %d\n", raw);
	_exit(WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw));
}

static void gv_end_rest(struct run *r)
{
	(void)r;
	kill(-1, SIGKILL); /* the lab ends the run; we stay to reap it */
}

static void gv_reaped(pid_t pid, void *ctx)
{
	struct gv_state *g = ctx;
	if (pid == g->probe)
		g->probe = -1;
}

static void gv_finish_cb(struct run *r, int status, void *ctx)
{
	gv_finish(r, ctx, status);
}

static void __attribute__((noreturn)) gv_init(struct run *r, struct gv_state *g)
{
	box_child_begin(r, g->sync[1]);
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	box_child_await_lab(r, g->sync[0]);
	box_child_own_keyring(r);
	if (gv_own_netns(r)) { /* still with every capability of our namespaces */
		const char *what = "";
		int e = egress_child_door(&r->eg, r->spec.net == SPEC_NET_ALLOWLIST, &what);
		if (e)
			run_fail(r,
			         (r->spec.net == SPEC_NET_ALLOWLIST) ? "open the egress proxy's door"
			                                             : "open the small internet",
			         what, e);
	}
	box_child_fresh_proc(r); /* runsc re-executes /proc/self/exe */
	if (r->kind != RUN_EXEC) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(r->out[1], 1) < 0 || dup2(r->out[1], 2) < 0)
			run_fail(r, "set up stdio", "/dev/null and the output pipe", errno);
		close(r->out[1]);
	}
	/* exec: a terminal among the caller's stdio is the lab's pty for runsc
	 * (termpty.c), the session's terminal, so Ctrl-C reaches runsc, which
	 * passes it on */
	int e = r->kind == RUN_EXEC ? term_child_stdio(&r->term) : 0;
	if (e < 0)
		run_fail(r, "give the command the lab's pty", "its stdin, stdout and stderr", -e);
	if (setsid() < 0)
		run_fail(r, "setsid", "a new session", errno);
	if ((e = term_child_ctty(&r->term)) < 0)
		run_fail(r, "TIOCSCTTY", "the lab's pty as runsc's terminal", -e);
	g->snippet = gv_spawn(r, g, false, &none);
	g->probe = r->kind == RUN_EXEC ? -1 : gv_spawn(r, g, true, &none);
	if (r->kind != RUN_EXEC) {
		g->poller = fork();
		if (g->poller == 0) {
			sigprocmask(SIG_SETMASK, &none, NULL);
			gv_poller(r, g);
		}
	}
	close(g->stats[1]);
	struct box_init bi = {.main = g->snippet,
	                      .lab_as = 0,
	                      .keep_stdio = r->kind == RUN_EXEC,
	                      .end_rest = gv_end_rest,
	                      .reaped = gv_reaped,
	                      .finish = gv_finish_cb,
	                      .ctx = g};
	box_init_loop(r, &bi, &all);
}

/* ---------------- lab side ---------------- */

static bool find_runsc(char *out, size_t cap)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	bool found = false;
	for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save))
		found = d[0] == '/' && pathf(out, cap, "%s/runsc", d) == 0 && access(out, X_OK) == 0;
	free(copy);
	if (!found && access("/usr/bin/runsc", X_OK) == 0) {
		str_copy(out, cap, "/usr/bin/runsc");
		found = true;
	}
	return found;
}

/* `runsc --version` exits 0 within 10 s: a file called runsc that is not
 * gVisor (a stub, a directory, a broken install) is not a ready rung. */
static bool runsc_answers(const char *runsc, int *status)
{
	*status = -1;
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execl(runsc, "runsc", "--version", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return false;
	for (int i = 0; i < 1000; i++) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
		if (w < 0 && errno != EINTR)
			return false;
		struct timespec ts = {0, 10000000L}; /* 10 ms */
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL); /* ours, by PID */
	waitpid(pid, status, 0);
	*status = -1;
	return false;
}

bool gvisor_ready(char *why, size_t cap)
{
	char runsc[PATH_MAX];
	int status;
	why[0] = '\0';
	if (!find_runsc(runsc, sizeof runsc))
		snprintf(why, cap, "runsc is not installed (apt-get install runsc)");
	else if (!runsc_answers(runsc, &status))
		snprintf(why, cap,
		         "%.200s --version %s: it is not a working gVisor (apt-get install --reinstall runsc)", runsc,
		         status < 0          ? "did not answer within 10 s"
		         : WIFEXITED(status) ? "exited non-zero"
		                             : "was killed by a signal");
	return !why[0];
}

static void gv_free(struct run *r)
{
	struct gv_state *g = r->box_priv;
	if (!g)
		return;
	if (g->stats[0] > 0)
		close(g->stats[0]);
	if (g->own_dir && g->dir[0])
		remove_tree(g->dir);
	if (g->own_dir && g->dir_lock > 0)
		close(g->dir_lock);
	free(g);
	r->box_priv = NULL;
}

static int gv_prepare(struct run *r, struct gv_state *g, struct lab_evidence *ev)
{
	if (!find_runsc(g->runsc, sizeof g->runsc)) {
		snprintf(ev->error, sizeof ev->error,
		         "the gvisor rung needs runsc, which is not installed "
		         "(apt-get install runsc): run with --rung container");
		return -1;
	}
	if (!realpath(r->cfg->python, g->python))
		str_copy(g->python, sizeof g->python, r->cfg->python);
	char tok[9];
	random_token(tok, sizeof tok - 1); /* n characters, then the NUL */
	snprintf(g->id, sizeof g->id, "lab-%d-%s", getpid(), tok);
	if (r->kind == RUN_EXEC) {
		if (pathf(g->dir, sizeof g->dir, "%s/containment-lab.%d.gv.XXXXXX", temp_dir(), getpid()) < 0 ||
		    !mkdtemp(g->dir)) {
			snprintf(ev->error, sizeof ev->error, "gvisor: cannot create a temp folder in %s: %s",
			         temp_dir(), strerror(errno));
			g->dir[0] = '\0';
			return -1;
		}
		g->own_dir = true;
		g->dir_lock = dir_lock(g->dir); /* another lab's sweep leaves it alone */
	} else if (pathf(g->dir, sizeof g->dir, "%s/runsc", r->d.dir) < 0 || mkdir(g->dir, 0755) < 0) {
		snprintf(ev->error, sizeof ev->error, "gvisor: cannot create %.200s: %s", g->dir, strerror(errno));
		return -1;
	}
	/* the lab's cgroup would hold runsc's threads, not the snippet's */
	if (r->spec.cgroup)
		snprintf(r->layer.limits.cg_why, sizeof r->layer.limits.cg_why,
		         "gVisor: the Sentry enforces the OCI rlimits; a cgroup would count the Sentry's own threads");
	return gv_write_bundles(r, g, ev);
}

static void gvisor_kill(struct run *r, bool hard)
{
	if (r->child_pid <= 0)
		return;
	if (!hard && box_ask_init_to_end(r))
		return;
	/* the init is PID 1 of the run's namespace: every runsc dies with it */
	kill(r->child_pid, SIGKILL);
}

static int gvisor_start(struct run *r, struct lab_evidence *ev)
{
	struct gv_state *g = calloc(1, sizeof *g);
	if (!g)
		abort();
	g->sync[0] = g->sync[1] = -1;
	r->box_priv = g;
	g->stats[0] = g->stats[1] = -1;
	if (gv_prepare(r, g, ev) < 0 || pipe2(g->sync, O_CLOEXEC) < 0 || pipe2(r->rep, O_CLOEXEC) < 0 ||
	    pipe2(g->stats, O_CLOEXEC) < 0 || (r->kind != RUN_EXEC && pipe2(r->out, O_CLOEXEC) < 0)) {
		if (!ev->error[0])
			snprintf(ev->error, sizeof ev->error, "pipe: %s", strerror(errno));
		goto fail;
	}
	unsigned long flags = SIGCHLD | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | (r->root_lab ? 0 : CLONE_NEWUSER) |
	                      (gv_own_netns(r) ? CLONE_NEWNET : 0);
	fflush(NULL);
	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot create the range's namespaces for runsc: %s",
		         strerror(errno));
		goto fail;
	}
	if (pid == 0)
		gv_init(r, g);
	box_after_clone(r, pid, &g->sync[0]);
	close(g->stats[1]);
	g->stats[1] = -1;
	fcntl(g->stats[0], F_SETFL, O_NONBLOCK);
	egress_after_clone(&r->eg);
	if ((!r->root_lab && box_write_id_maps(r, (unsigned)r->uid, r->uid, (unsigned)r->gid, r->gid, true, ev) < 0) ||
	    write(g->sync[1], "g", 1) != 1) {
		if (!ev->error[0])
			snprintf(ev->error, sizeof ev->error, "cannot hand runsc's init its go: %s", strerror(errno));
		gvisor_kill(r, true);
		waitpid(pid, NULL, __WALL);
		r->child_pid = -1;
		goto fail;
	}
	close(g->sync[1]);
	g->sync[1] = -1;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (g->sync[i] >= 0)
			close(g->sync[i]);
		if (g->stats[i] >= 0)
			close(g->stats[i]);
	}
	g->stats[0] = -1;
	gv_free(r);
	return -1;
}

/* The poller's latest "G" line: its peaks so far. */
static void gv_take_stats(struct gv_state *g)
{
	for (;;) {
		if (g->stats[0] < 0 || g->stats_len >= sizeof g->stats_buf - 1)
			g->stats_len = 0; /* a line longer than any we write: drop it */
		ssize_t n = g->stats[0] < 0 ? 0
		                            : read(g->stats[0], g->stats_buf + g->stats_len,
		                                   sizeof g->stats_buf - 1 - g->stats_len);
		if (n <= 0)
			return;
		g->stats_len += (size_t)n;
		g->stats_buf[g->stats_len] = '\0';
		char *nl;
		while ((nl = strchr(g->stats_buf, '\n'))) {
			unsigned long long mem, cpu;
			long pids, polls;
			*nl = '\0';
			if (sscanf(g->stats_buf, "G %llu %ld %llu %ld", &mem, &pids, &cpu, &polls) == 4)
				g->s_mem = mem, g->s_pids = pids, g->s_cpu_ns = cpu, g->s_polls = polls;
			size_t used = (size_t)(nl + 1 - g->stats_buf);
			memmove(g->stats_buf, nl + 1, g->stats_len - used + 1);
			g->stats_len -= used;
		}
	}
}

/* The run's host processes: how many, and whether one of them was the
 * interpreter (the snippet's code as a process of the host kernel). Memory
 * is the run's host footprint (runsc's processes hold the guest's memory
 * in their memory file). */
static void gvisor_sample(const struct run *r, bool memory, struct box_sample *out)
{
	struct gv_state *g = r->box_priv;
	pid_t pids[512];
	*out = (struct box_sample){0};
	if (r->child_pid <= 0 || !g)
		return;
	int n = proc_descendants(r->child_pid, pids, 512, true);
	g->scans++;
	if (n > g->host_procs)
		g->host_procs = n;
	for (int i = 0; i < n && i < 512; i++) {
		char p[64], exe[PATH_MAX];
		snprintf(p, sizeof p, "/proc/%d/exe", pids[i]);
		ssize_t k = readlink(p, exe, sizeof exe - 1);
		if (k > 0) {
			exe[k] = '\0';
			if (!strcmp(exe, g->python))
				g->python_seen = true;
		}
	}
	(void)memory;
	gv_take_stats(g);
}

/* One line of runsc's strace: "... strace.go:611] [   1:   1] python3 X
 * mount(0x7f.. x, 0x7f.. /tmp, ...) = 0 (0x0) errno=1 (operation not
 * permitted) (29µs)". A refusal (an errno) goes into the trace, its call
 * without the argument addresses. */
static void gv_strace_line(const char *line, struct lab_evidence *ev)
{
	struct lab_trace *t = &ev->trace;
	const char *x = strstr(line, "strace.go:"), *err;
	if (!x || !(x = strstr(x, " X ")) || !(err = strstr(x, " errno=")))
		return;
	x += 3;
	const char *end = strstr(x, ") = ");
	if (!end || end > err)
		return;
	char call[128] = "";
	size_t k = 0;
	for (const char *c = x; c <= end && k + 1 < sizeof call; c++) {
		/* "0x7f870a151f70 /tmp": the address goes, the string stays */
		if (c[0] == '0' && c[1] == 'x' && (c == x || c[-1] == '(' || c[-1] == ' ')) {
			const char *h = c + 2;
			while (isxdigit((unsigned char)*h))
				h++;
			if (*h == ' ' && h - c > 8) {
				c = h;
				continue;
			}
		}
		call[k++] = *c;
	}
	call[k] = '\0';
	int e = atoi(err + 7);
	const char *name = e > 0 ? strerrorname_np(e) : NULL;
	char answer[32];
	snprintf(answer, sizeof answer, "-1 %s", name ? name : "?");
	/* a fork is no call of Isolation's deny list: traced for the process
	 * cap, and only its EAGAIN (the Sentry's RLIMIT_NPROC) is evidence */
	if (!strncmp(call, "clone(", 6) || !strncmp(call, "fork(", 5) || !strncmp(call, "vfork(", 6)) {
		if (e == EAGAIN) {
			ev->res.sentry_forks_refused++;
			trace_add(t, call, answer, "gVisor's Sentry: RLIMIT_NPROC (Resource-limits)");
		}
		return;
	}
	trace_add(t, call, answer, "gVisor's Sentry (Isolation)");
}

/* What the Sentry refused of Isolation's deny list (runsc --strace, the
 * boot log under strace/): read by the lab after the run, where the
 * snippet never reached. */
static void gv_take_strace(const struct run *r, const struct gv_state *g, struct lab_evidence *ev)
{
	char dir[PATH_MAX + 16], p[PATH_MAX * 2];
	if (!gv_traced(r))
		return;
	snprintf(dir, sizeof dir, "%s/strace", g->dir);
	DIR *d = opendir(dir);
	if (!d)
		return;
	const struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 9 || strcmp(de->d_name + len - 9, ".boot.txt") != 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		FILE *f = fopen(p, "re");
		char line[2048];
		while (f && fgets(line, sizeof line, f))
			gv_strace_line(line, ev);
		if (f)
			fclose(f);
	}
	closedir(d);
	snprintf(ev->trace.note, sizeof ev->trace.note,
	         "refused calls: as gVisor's Sentry answered Isolation's deny list (runsc --strace)");
}

/* Which kernel served the snippet: the probe's answer (K, B lines parsed
 * by run.c) and what the host's /proc showed while it ran. */
static void gvisor_observe(struct run *r, struct lab_evidence *ev)
{
	struct gv_state *g = r->box_priv;
	if (!g)
		return;
	/* the probe sandbox, started by the same runsc the same way, names the
	 * kernel that served it; without that word nothing shows a sandbox ever
	 * ran (a runsc that exits at once leaves a "contained" snippet that
	 * never started), so the run cannot be judged */
	if (r->kind != RUN_EXEC && ev->started && !ev->kernel.kernel_release[0] && !ev->end.aborted) {
		ev->started = false;
		if (ev->end.timed_out || ev->end.safety_net)
			snprintf(
			    ev->error, sizeof ev->error,
			    "the %s ended the run before runsc had started a sandbox the lab could see (its probe "
			    "sandbox gave no word): nothing of the snippet is known to have run (a loaded machine?)",
			    ev->end.timed_out ? "wall clock" : "safety net");
		else
			snprintf(ev->error, sizeof ev->error,
			         "runsc never started a sandbox the lab could see: its probe sandbox gave no word (the "
			         "snippet's runsc ended with status %d); is runsc working? (runsc --version)",
			         ev->end.exit_signal ? 128 + ev->end.exit_signal : ev->end.exit_code);
	}
	gv_take_stats(g);
	gv_take_strace(r, g, ev);
	if (g->s_polls > 0) {
		/* the Sentry's figures replace the host's (runsc's own) */
		ev->res.guest_measured = true;
		ev->res.peak_mem = g->s_mem;
		ev->res.peak_mem_from_cgroup = true;
		ev->res.peak_mem_sampled = false;
		ev->res.peak_procs = g->s_pids;
		ev->res.peak_vm = 0;
		mech_add(ev,
		         "figures from the Sentry's own accounting (runsc events --stats, polled %ld time(s) by the "
		         "run's init: peak tasks, peak memory-file usage)",
		         g->s_polls);
	}
	ev->kernel.snippet_on_host = g->python_seen;
	ev->kernel.host_scans = g->scans;
	ev->kernel.host_procs = g->host_procs;
	mech_add(ev, "gVisor runsc (ptrace platform, %s)", r->root_lab ? "root" : "rootless");
	if (r->spec.net == SPEC_NET_ALLOWLIST)
		mech_add(ev,
		         "runsc --network=host in the run's own netns with only lo, the lab's egress proxy at "
		         "127.0.0.1:%d as the one door (allow-list)",
		         EGRESS_PORT);
	else
		mech_add(ev, "%s",
		         spec_net_closed(&r->spec) ? "runsc --network=none (own netstack, loopback only)"
		         : r->eg.inside            ? "runsc --network=host, in the run's own netns"
		                                   : "runsc --network=host");
	gv_free(r);
}

static void gvisor_describe(const struct run *r, struct lab_evidence *ev)
{
	mech_add(ev, "range: own %spid/mount/ipc ns, own session keyring, init as PID 1, setsid",
	         r->root_lab ? "" : "user/");
}

const struct box_ops box_gvisor = {
    .name = "gvisor",
    .kernel = "gVisor's Sentry",
    .start = gvisor_start,
    .kill = gvisor_kill,
    .sample = gvisor_sample,
    .observe = gvisor_observe,
    .describe = gvisor_describe,
    .pid1 = "init",
};
