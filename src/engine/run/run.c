/* run.c — one run from start to finish: plant the decoys, let the layers
 * plan, start the box, watch it (output, attacker, clocks), gather the
 * evidence outside, clean up. Also `exec`. The box (box.h) contains the
 * snippet; the layers (layer.h) shape it; this file knows neither's inside.
 *
 * Process contract (lab.h): a run only ever signals its own processes (the
 * init of its PID namespace, its cgroup), reaps only its own child, and
 * measures CPU and memory from that child's rusage, which holds every
 * process of the run once the init is reaped. */
#define _GNU_SOURCE
#include "box.h"
#include "evidence.h"
#include "hostcheck.h"
#include "inprocess.h"
#include "layer.h"
#include "layers/env.h"
#include "prefix.h" /* audit_expand */
#include "proc.h"
#include "range.h" /* spec_build */
#include "run_slot.h"
#include "system.h"
#include "trace.h"
#include "util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS       10
#define MEM_SAMPLE_MS 10
/* with a cgroup (which counts processes and memory itself), how often the
 * lab still reads each process's peak address space when Resource-limits
 * is on, for the record (peak_vm: RLIMIT_AS is per process, and no cgroup
 * file shows it; a peak near the cap is no refusal, and no verdict rests
 * on it: the watch sees refusals, limits_watch.h). VmPeak is a high-water
 * mark, so a slow pace misses only a process gone within it; a fast one
 * walks /proc often enough to slow the lab's reading of the snippet's
 * output on a loaded machine (50 ms did) */
#define VM_SCAN_MS    200
#define DRAIN_MS      300
#define KILL_GRACE_MS 300
#define TAIL_MAX      4096

/* ---------------- stale runs ---------------- */

/* A lab that was SIGKILLed could not clean up. Its temp folder and cgroups
 * carry its pid; whatever belongs to a pid that no longer exists goes now. */
static bool pid_gone(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(name, prefix, n) != 0)
		return false;
	char *end;
	long pid = strtol(name + n, &end, 10);
	return pid > 0 && (*end == '.' || *end == '-') && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

static bool run_gone(const char *run)
{
	return pid_gone(run, "run-");
}

/* A live run holds its folder flock()ed (decoy.c): its pid may only be
 * out of our sight (we run in a PID namespace of its, under `audit`). */
static void sweep_stale(void)
{
	/* rootless too: a delegated v2 subtree holds this user's runs (and
	 * the leaves labs settled in, cgroup.c); others' folders it may not
	 * remove, and does not */
	cgroup_sweep(run_gone);
	const char *tmp = temp_dir();
	DIR *d = opendir(tmp);
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[PATH_MAX];
		struct stat st;
		if (pid_gone(e->d_name, "containment-lab.") && pathf(p, sizeof p, "%s/%s", tmp, e->d_name) == 0 &&
		    lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !dir_in_use(p))
			remove_tree(p);
	}
	if (d)
		closedir(d);
}

/* ---------------- before the box starts ---------------- */

static void add_env(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_env(struct run *r, const char *fmt, ...)
{
	char *kv;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&kv, fmt, ap) < 0)
		abort();
	va_end(ap);
	lab_env_add(&r->layer.env.envp, &r->layer.env.n_env, kv);
}

/* Every descriptor field starts closed (-1), so cleanup never mistakes
 * fd 0 for one of ours. The range's ids: the lab's own, mapped to itself;
 * Isolation's plan changes them. The kind decides setup.exec (only
 * RUN_EXEC is one) and that --rw is an exec's only, whatever the caller's
 * setup said. */
static void run_init(struct run *r, const struct lab_config *cfg, const struct lab_setup *setup, enum run_kind kind)
{
	*r = (struct run){.cfg = cfg,
	                  .setup = *setup,
	                  .kind = kind,
	                  .layer = {.isolation = {.bpf_fd = -1}, .network = {.bpf_fd = -1}, .limits = {.bpf_fd = -1}},
	                  .cwd_tree = -1,
	                  .home_tree = -1,
	                  .host_fd = -1,
	                  .work_tree = -1,
	                  .slot_fd = -1,
	                  .child_pid = -1,
	                  .pidfd = -1,
	                  .own_uid = {.uid = -1, .fd = -1}};
	r->setup.exec = kind == RUN_EXEC;
	r->setup.exec_rw = r->setup.exec && setup->exec_rw;
	trace_state_init(&r->tr);
	/* known to the init (cloned after this) and the lab only */
	if (getrandom(&r->end_cookie, sizeof r->end_cookie, 0) != (ssize_t)sizeof r->end_cookie)
		r->end_cookie = (int)(monotonic_ms() ^ getpid());
	r->sync[0] = r->sync[1] = r->rep[0] = r->rep[1] = r->out[0] = r->out[1] = -1;
	r->d.listen_fd = -1;
	r->d.lock_fd = -1;
	r->d.dns.fd = -1;
	r->d.agent.fd = -1;
	r->uid = geteuid();
	r->gid = getegid();
	r->root_lab = r->uid == 0;
	r->inside_uid = r->uid;
	r->map_uid = r->uid;
	r->map_gid = r->gid;
	egress_init(&r->eg, cfg);
	tools_init(&r->tools);
	term_init(&r->term);
}

/* Every NAME=... of the run's environment goes. */
static void drop_env(struct run *r, const char *name)
{
	size_t n = strlen(name);
	int w = 0;
	for (int i = 0; i < r->layer.env.n_env; i++) {
		if (!strncmp(r->layer.env.envp[i], name, n) && r->layer.env.envp[i][n] == '=')
			free(r->layer.env.envp[i]);
		else
			r->layer.env.envp[w++] = r->layer.env.envp[i];
	}
	r->layer.env.n_env = w;
	if (r->layer.env.envp)
		r->layer.env.envp[w] = NULL;
}

/* Allow-list mode: the proxy is announced the way every HTTP client looks
 * for one, whatever Clean-env kept (like the LAB_* task inputs); a proxy
 * setting of the caller's would only point nowhere, so it goes. */
static void add_proxy_env(struct run *r)
{
	static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
	                                    "ALL_PROXY",  "all_proxy",   "NO_PROXY",   "no_proxy"};
	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		drop_env(r, names[k]);
	for (size_t k = 0; k < 4; k++)
		add_env(r, "%s=http://127.0.0.1:%d", names[k], EGRESS_PORT);
	add_env(r, "NO_PROXY=");
	add_env(r, "no_proxy=");
}

/* The run's folder, canaries and attacker listener (decoy.c). */
static int plant_decoys(struct run *r, const struct snippet *s, struct lab_evidence *ev)
{
	char err[LAB_LINE * 2] = "";
	if (decoy_plant(&r->d, r->cfg, s, err, sizeof err) < 0) {
		str_copy(ev->error, sizeof ev->error, err);
		return -1;
	}
	r->have_decoys = true;
	r->d.inside = r->eg.inside;
	int e = r->d.inside ? 0 : decoy_listen(&r->d);
	if (r->d.inside) /* the init binds it in the sandbox's own namespace */
		r->d.port = EGRESS_INSIDE_ATTACKER_PORT;
	if (e < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot start the attacker listener on 127.0.0.1: %s",
		         strerror(-e));
		return -1;
	}
	r->eg.attacker_port = r->d.port;
	return 0;
}

/* The lab's small internet (egress.h): api.lab.test on its 127.0.0.1. */
static int serve_small_internet(struct run *r, struct lab_evidence *ev)
{
	int e = egress_serve(&r->eg);
	if (e < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot start api.lab.test on 127.0.0.1: %s", strerror(-e));
		return -1;
	}
	return 0;
}

static bool attacker_accept_ok(void *eg, int fd)
{
	return egress_opened(eg, fd);
}

/* The run folder is 0700 (decoy.c). A root lab's sandbox with Isolation
 * on is an unprivileged uid outside that cannot enter it: the lab takes
 * the trees it must see now (detached copies, as exec takes the current
 * folder), and the new root is a tmpfs over /tmp of the child's own mount
 * namespace, not a folder inside the run folder. Otherwise the child has
 * the lab's own uid when it builds its view and takes them itself. */
static int take_trees(struct run *r, struct lab_evidence *ev)
{
	if (!run_on(r, LAYER_ISOLATION))
		return 0;
	str_copy(r->d.root, sizeof r->d.root, "/tmp");
	if (!r->root_lab || r->setup.rung != RUNG_CONTAINER)
		return 0;
	const char *what = r->d.work;
	r->work_tree = open_tree(AT_FDCWD, r->d.work, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (r->work_tree >= 0 && !run_on(r, LAYER_ENV)) {
		what = r->d.home;
		r->home_tree = open_tree(AT_FDCWD, r->d.home, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	}
	if (r->work_tree < 0 || (!run_on(r, LAYER_ENV) && r->home_tree < 0)) {
		int e = errno;
		/* refused rather than missing: the lab itself runs in a sandbox
		 * (a container's seccomp profile), and so will the clone */
		struct hostcheck h;
		char why[LAB_LINE] = "";
		if (e == EPERM) {
			hostcheck_read(&h);
			hostcheck_advice(&h, e, why, sizeof why);
		}
		if (why[0])
			snprintf(ev->error, sizeof ev->error, "%.240s (open_tree: %s)", why, strerror(e));
		else
			snprintf(ev->error, sizeof ev->error,
			         "cannot take %.120s for the sandbox (open_tree needs Linux 5.2): %s", what,
			         strerror(e));
		return -1;
	}
	return 0;
}

/* The spec first (spec.h): what the layers and the range ask for, as
 * data; then the layers' plans, which read it. */
static int plan_layers(struct run *r, struct lab_evidence *ev)
{
	spec_build(&r->spec, r->cfg, &r->setup);
	spec_host_probe(&r->host);
	return run_layers_plan(r, ev);
}

static int plan_snippet(struct run *r, const struct snippet *s, struct lab_evidence *ev)
{
	bool iso = run_on(r, LAYER_ISOLATION);
	/* No-network off: the small internet lives in the sandbox's own
	 * network namespace, where only the run can reach it (egress.h) */
	r->eg.inside = !run_on(r, LAYER_NETWORK);
	if (plant_decoys(r, s, ev) < 0 || serve_small_internet(r, ev) < 0 || take_trees(r, ev) < 0)
		return -1;
	const char *base = strrchr(r->d.dir, '/');
	pathf(r->inside_dir, sizeof r->inside_dir, "/tmp/%s", base ? base + 1 : r->d.dir);
	ev->secrets.canaries_planted = r->d.n_secret;
	str_copy(ev->host.host_target, sizeof ev->host.host_target, r->d.host_target);
	if (plan_layers(r, ev) < 0)
		return -1;
	/* the task's inputs, where the snippet sees them */
	add_env(r, "LAB_DATA=%s%s", iso ? "/work" : r->inside_dir, iso ? "/sales.csv" : "/work/sales.csv");
	/* behind the allow-list the sandbox reaches the small internet by
	 * name, through the proxy; with No-network off at 127.0.0.1 of its
	 * own network namespace, where nobody else can connect */
	/* the small internet looks for this run's canaries in all it gets.
	 * With No-network on the sandbox cannot reach the lab's 127.0.0.1
	 * but through the proxy: any other connection there is another
	 * run's or a local user's, shut unread (it must not forge, count or
	 * crowd out this run's evidence) */
	egress_watch(&r->eg, &r->d, run_on(r, LAYER_NETWORK));
	if (run_on(r, LAYER_NETWORK)) {
		r->d.accept_ok = attacker_accept_ok;
		r->d.accept_ctx = &r->eg;
	}
	if (run_allowlist(r)) {
		add_env(r, "LAB_ATTACKER=http://attacker.lab.test/%s/", r->d.run_token);
		add_env(r, "LAB_API=http://api.lab.test/");
		add_proxy_env(r);
	} else {
		add_env(r, "LAB_ATTACKER=http://127.0.0.1:%d/%s/", r->d.port, r->d.run_token);
		add_env(r, "LAB_API=http://127.0.0.1:%d/", r->eg.api_port);
	}
	add_env(r, "LAB_HOST_TARGET=%s%s", iso ? r->d.host_target : r->inside_dir,
	        iso ? "" : r->d.host_target + strlen(r->d.dir));
	ev->secrets.env_vars = r->layer.env.n_env;
	r->argv[0] = (char *)r->cfg->python;
	r->argv[1] = "-u";
	if (iso) {
		r->argv[2] = "/work/snippet.py";
		str_copy(r->workdir, sizeof r->workdir, "/work");
	} else {
		snprintf(r->snippet_path, sizeof r->snippet_path, "%s/work/snippet.py", r->inside_dir);
		r->argv[2] = r->snippet_path;
		pathf(r->workdir, sizeof r->workdir, "%s/work", r->inside_dir);
	}
	r->argv[3] = NULL;
	return 0;
}

/* lab:tools: the tool door (tools.h). The container box hands the
 * sandbox a socket pair as fd 9; runsc passes no descriptor beyond stdio,
 * so on the gvisor rung the door is a socket in the run folder that runsc's
 * gofer connects to for the sandbox (box_gvisor.c binds it in). The
 * microvm's 9p shares pass no socket at all: not tried there. */
static int plan_tools(struct run *r, const struct snippet *s, const struct lab_run_opts *opts, struct lab_evidence *ev)
{
	char sock[PATH_MAX];
	bool gv = run_on(r, LAYER_ISOLATION) && r->setup.rung == RUNG_GVISOR;
	if (!s->tools)
		return 0;
	if (run_on(r, LAYER_ISOLATION) && r->setup.rung == RUNG_MICROVM) {
		snprintf(ev->error, sizeof ev->error,
		         "the tool door is a socket the sandbox reaches outside its own kernel, and the microvm rung's "
		         "guest has no way to one yet (9p passes no socket): run %s on the in-process, container or "
		         "gvisor rung",
		         s->name);
		return -1;
	}
	if (gv && pathf(sock, sizeof sock, "%s/tools.sock", r->d.dir) < 0) {
		snprintf(ev->error, sizeof ev->error, "the run folder's path is too long for the tool door's socket");
		return -1;
	}
	return tools_open(&r->tools, r->cfg, r->setup.approve, r->d.work, gv ? sock : NULL, opts, ev->error,
	                  sizeof ev->error);
}

/* Whether dir is path or one of its parents. */
static bool contains(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* A real home itself: /root, or one level below /home or /run/user. */
static bool is_home(const char *path)
{
	static const char *const bases[] = {"/home/", "/run/user/"};
	if (!strcmp(path, "/root"))
		return true;
	for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
		size_t n = strlen(bases[i]);
		if (!strncmp(path, bases[i], n) && path[n] && !strchr(path + n, '/'))
			return true;
	}
	return false;
}

/* exec never hands the host to a command: not from /, nor from a folder
 * that holds the real homes or the lab's run folders, nor from a home
 * itself (its ~/.ssh and ~/.aws would be in view). */
static int plan_exec(struct run *r, struct lab_evidence *ev)
{
	if (!getcwd(r->cwd, sizeof r->cwd)) {
		snprintf(ev->error, sizeof ev->error, "cannot read the current folder: %s", strerror(errno));
		return -1;
	}
	if (is_home(r->cwd)) {
		snprintf(ev->error, sizeof ev->error,
		         "exec shares the current folder with the command, and %.120s is a home folder (its ~/.ssh and "
		         "~/.aws would be in view): cd into a project folder first",
		         r->cwd);
		ev->end.exit_code = 2;
		return -1;
	}
	/* /run holds the host's service sockets, which the range covers: a
	 * folder there would bring them back */
	if (contains("/run", r->cwd)) {
		snprintf(ev->error, sizeof ev->error,
		         "exec shares the current folder with the command, and %.120s is under /run, where the host's "
		         "service sockets live (the range hides them): cd into a project folder first",
		         r->cwd);
		ev->end.exit_code = 2;
		return -1;
	}
	static const char *const guarded[] = {"/root", "/home", "/run/user", "/tmp"};
	for (size_t i = 0; i < sizeof guarded / sizeof *guarded + 1; i++) {
		const char *g = i < sizeof guarded / sizeof *guarded ? guarded[i] : temp_dir();
		if (contains(r->cwd, g)) {
			snprintf(ev->error, sizeof ev->error,
			         "exec shares the current folder with the command, and %.200s holds %s: cd into a "
			         "project folder first",
			         r->cwd,
			         !strcmp(g, "/tmp") || g == temp_dir() ? "other runs' folders" : "real home folders");
			ev->end.exit_code = 2;
			return -1;
		}
	}
	str_copy(r->workdir, sizeof r->workdir, r->cwd);
	if (run_on(r, LAYER_ISOLATION) && r->root_lab)
		r->cwd_tree = open_tree(AT_FDCWD, ".", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	/* Isolation's new root is a tmpfs over /tmp in the run's own mount
	 * namespace: no temp folder to make and remove for exec */
	str_copy(r->d.root, sizeof r->d.root, "/tmp");
	if (plan_layers(r, ev) < 0)
		return -1;
	if (run_allowlist(r)) {
		if (serve_small_internet(r, ev) < 0)
			return -1;
		egress_watch(&r->eg, NULL, true);
		add_proxy_env(r);
	}
	return 0;
}

/* ---------------- watching the run ---------------- */

/* A signal the run's init passed on, and its sender as the init saw it. */
struct watch_sent {
	int sig, code, pid;
	long uid;
};

struct watch {
	struct run *r;
	const struct box_ops *box;
	const struct lab_run_opts *opts;
	struct lab_evidence *ev;
	struct strbuf *output, rep;
	/* the planted secrets in what comes out (the output under the cap),
	 * and apart, in what the cap dropped: read by the lab, never out */
	struct decoy_scanner sc, sc_dropped;
	uint64_t cap;
	long t0, limit_deadline, safety_deadline, drain_deadline, last_scan, last_mem, kill_deadline;
	bool clock_restarted; /* the box said when the snippet itself started */
	long t_snippet;       /* then (0: at the start, as for every box that starts at once) */
	size_t rep_seen;      /* the report's bytes already looked at for "M" lines */
	uint64_t ipc_bytes;   /* the init's last "M": IPC memory no process maps */
	char tail[TAIL_MAX];  /* the last bytes of output, for how it ended */
	size_t tail_len;
	bool main_done, killed;
	int status;
	bool status_said; /* the init said how the snippet ended ("S"): status is the snippet's, not the init's */
	struct watch_sent sent[4]; /* the init's "X" lines */
	int n_sent;
	long machine_oom0; /* the kernel's count of OOM kills on the machine when the run began */
	struct rusage ru;
};

static void keep_tail(struct watch *w, const char *buf, size_t n)
{
	if (n >= TAIL_MAX) {
		memcpy(w->tail, buf + n - TAIL_MAX, TAIL_MAX);
		w->tail_len = TAIL_MAX;
		return;
	}
	if (w->tail_len + n > TAIL_MAX) {
		size_t drop = w->tail_len + n - TAIL_MAX;
		memmove(w->tail, w->tail + drop, w->tail_len - drop);
		w->tail_len -= drop;
	}
	memcpy(w->tail + w->tail_len, buf, n);
	w->tail_len += n;
}

/* The path an OSError's line names: "FileNotFoundError: [Errno 2] No such
 * file or directory: '/x'" -> "/x" (the first of two, for a rename), ""
 * if none. */
static void exception_path(const char *line, char *out, size_t cap)
{
	out[0] = '\0';
	const char *e = strstr(line, "[Errno ");
	const char *q = e ? strstr(e, ": '") : NULL, *dq = e ? strstr(e, ": \"") : NULL;
	if (!q || (dq && dq < q))
		q = dq;
	if (!q)
		return;
	const char *end = strchr(q + 3, q[2]);
	if (end && (size_t)(end - (q + 3)) < cap)
		snprintf(out, cap, "%.*s", (int)(end - (q + 3)), q + 3);
}

/* The interpreter's last word: the exception named at the start of the
 * last line that names one ("SyntaxError: invalid syntax"), the path it
 * names if any, and the line of the snippet named in the last
 * 'File "...", line N' before it. */
static void find_exception(const char *tail, size_t len, struct lab_evidence *ev)
{
	char *t = strndup(tail, len);
	if (!t)
		return;
	int line = 0;
	for (char *l = t, *next; l && *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		const char *f = strstr(l, "File \"");
		const char *ln = f ? strstr(f, "\", line ") : NULL;
		if (ln)
			line = atoi(ln + 8);
		size_t k = 0;
		while (l[k] == '_' || l[k] == '.' || (l[k] >= 'A' && l[k] <= 'Z') || (l[k] >= 'a' && l[k] <= 'z') ||
		       (k && l[k] >= '0' && l[k] <= '9'))
			k++;
		if (k >= 5 && k < sizeof ev->end.exception && (l[k] == ':' || l[k] == '\0') &&
		    (strstr(l, "Error") || strstr(l, "Exception") || strstr(l, "Interrupt") || strstr(l, "Exit"))) {
			const char *dot = memrchr(l, '.', k); /* "urllib.error.URLError" -> "URLError" */
			size_t from = dot ? (size_t)(dot - l) + 1 : 0;
			snprintf(ev->end.exception, sizeof ev->end.exception, "%.*s", (int)(k - from), l + from);
			ev->end.exception_line = line;
			exception_path(l, ev->end.exception_path, sizeof ev->end.exception_path);
		}
	}
	free(t);
}

static void watch_output(struct watch *w)
{
	char buf[65536];
	ssize_t n = read(w->r->out[0], buf, sizeof buf);
	if (n > 0) {
		w->ev->res.out_bytes += (uint64_t)n;
		keep_tail(w, buf, (size_t)n);
		size_t keep = 0;
		if (w->output->len < w->cap) {
			keep = (size_t)n < w->cap - w->output->len ? (size_t)n : w->cap - w->output->len;
			sb_add(w->output, buf, keep);
			if (w->opts && w->opts->on_output)
				w->opts->on_output(w->opts->output_ctx, buf, keep);
		}
		if (w->r->have_decoys) {
			if (keep)
				decoy_scan(&w->r->d, &w->sc, buf, keep);
			if ((size_t)n > keep)
				decoy_scan(&w->r->d, &w->sc_dropped, buf + keep, (size_t)n - keep);
		}
		if (w->ev->res.out_bytes > w->cap)
			w->ev->res.out_truncated = true;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(w->r->out[0]);
		w->r->out[0] = -1;
	}
}

/* The init's "M BYTES" lines, as they come: the sampler adds the latest. */
static void watch_ipc_lines(struct watch *w)
{
	for (;;) {
		const char *line = w->rep.s + w->rep_seen;
		const char *nl = memchr(line, '\n', w->rep.len - w->rep_seen);
		if (!nl)
			return;
		if (line[0] == 'M' && line[1] == ' ')
			w->ipc_bytes = strtoull(line + 2, NULL, 10);
		w->rep_seen = (size_t)(nl + 1 - w->rep.s);
	}
}

static void watch_report(struct watch *w)
{
	char buf[512];
	ssize_t n = read(w->r->rep[0], buf, sizeof buf);
	if (n > 0) {
		sb_add(&w->rep, buf, (size_t)n);
		watch_ipc_lines(w);
		/* "T": a box whose snippet starts late (a VM boots first) says
		 * when it starts; the layer's wall clock is the snippet's, not
		 * the boot's. The safety net still counts from the start. */
		if (w->box->late_start && !w->clock_restarted && w->rep.len >= 2 &&
		    (!strncmp(w->rep.s, "T\n", 2) || memmem(w->rep.s, w->rep.len, "\nT\n", 3))) {
			w->clock_restarted = true;
			w->t_snippet = monotonic_ms();
			if (run_on(w->r, LAYER_LIMITS))
				w->limit_deadline = w->t_snippet + w->r->cfg->limits.timeout_ms;
		}
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(w->r->rep[0]);
		w->r->rep[0] = -1;
	}
}

/* Soft first (the init ends the run and reaps it), hard if the init has
 * not gone within KILL_GRACE_MS. */
static void watch_kill(struct watch *w, bool *flag)
{
	if (flag)
		*flag = true;
	/* a box's init may need longer (box_ops.kill_grace_ms) */
	if (!w->killed)
		w->kill_deadline = monotonic_ms() + (w->box->kill_grace_ms ? w->box->kill_grace_ms : KILL_GRACE_MS);
	w->killed = true;
	w->box->kill(w->r, false);
}

static void watch_reap(struct watch *w, long now)
{
	pid_t p = wait4(w->r->child_pid, &w->status, WNOHANG | __WALL, &w->ru);
	if (p != w->r->child_pid)
		return;
	w->main_done = true;
	w->ev->end.duration_ms = now - (w->t_snippet ? w->t_snippet : w->t0);
	w->drain_deadline = now + DRAIN_MS;
}

static long watch_timeout(const struct watch *w, long now)
{
	long wait = 200;
	if (!w->main_done && (w->r->pidfd < 0 || !w->r->layer.limits.cg.ops))
		wait = POLL_MS; /* counting processes in /proc, or no pidfd */
	/* held waits: a child forked meanwhile by another thread, or a
	 * caller a signal took out of its wait, is seen by looking again */
	if (!w->main_done && limits_watch_holding(w->r) && wait > LIMITS_WATCH_LOOK_MS)
		wait = LIMITS_WATCH_LOOK_MS;
	if (!w->killed && w->limit_deadline > 0 && w->limit_deadline - now < wait)
		wait = w->limit_deadline - now;
	if (!w->killed && w->safety_deadline - now < wait)
		wait = w->safety_deadline - now;
	if (w->drain_deadline > 0 && w->drain_deadline - now < wait)
		wait = w->drain_deadline - now;
	if (w->killed && !w->main_done && w->kill_deadline - now < wait)
		wait = w->kill_deadline - now;
	return wait < 0 ? 0 : wait;
}

/* Without a cgroup the lab counts the run's processes itself, and sums
 * its memory: with Resource-limits on, a run past the memory cap in total
 * (not only per process, as RLIMIT_AS is) is ended here. */
static void watch_sample(struct watch *w, long now)
{
	struct box_sample s;
	bool memory = now - w->last_mem >= MEM_SAMPLE_MS;
	w->box->sample(w->r, memory, &s);
	s.mem += w->ipc_bytes;
	w->last_scan = now;
	if (s.procs > w->ev->res.peak_procs)
		w->ev->res.peak_procs = s.procs;
	if (s.vm_peak > w->ev->res.peak_vm)
		w->ev->res.peak_vm = s.vm_peak;
	if (!memory)
		return;
	w->last_mem = now;
	w->ev->res.peak_mem_sampled = true;
	if (s.mem > w->ev->res.peak_mem)
		w->ev->res.peak_mem = s.mem;
	if (s.unseen > w->ev->res.mem_unseen)
		w->ev->res.mem_unseen = s.unseen;
	if (run_on(w->r, LAYER_LIMITS) && !w->killed && s.mem > w->r->cfg->limits.memory)
		watch_kill(w, &w->ev->res.mem_cap_killed);
}

/* With a cgroup: only the largest address space of one process, for the
 * record; the cgroup counts the rest. */
static void watch_sample_vm(struct watch *w, long now)
{
	struct box_sample s;
	w->box->sample(w->r, false, &s);
	w->last_scan = now;
	if (s.vm_peak > w->ev->res.peak_vm)
		w->ev->res.peak_vm = s.vm_peak;
}

/* No-network off: the attacker's listener, made by the init in the
 * sandbox's network namespace, becomes the decoys' once it came over. */
static void adopt_attacker(struct run *r)
{
	int fd = egress_take_attacker(&r->eg);
	if (fd >= 0 && r->have_decoys && r->d.listen_fd < 0)
		r->d.listen_fd = fd;
	else if (fd >= 0)
		close(fd);
}

/* A run waiting at the tool gate for a human is not running: its clocks
 * (the snippet's duration, Resource-limits' wall clock, the safety net)
 * move on by the time the human takes (tools.h bounds it). */
static void watch_gate_pause(struct watch *w, long now)
{
	long p = tools_take_paused(&w->r->tools, now);
	if (p <= 0)
		return;
	w->t0 += p;
	if (w->t_snippet)
		w->t_snippet += p;
	if (w->limit_deadline > 0)
		w->limit_deadline += p;
	w->safety_deadline += p;
}

/* ---- the watch loop's event sources ----
 * Each source adds its descriptors to one turn's poll set (add: how many,
 * at most max) and is then told what poll said about them (ready: its own
 * slice of the set, n may be 0; it is called every turn). The table's
 * order is the order they are served in, and it matters where noted. */
struct watch_source {
	int max;
	int (*add)(struct watch *w, struct pollfd *pfd, int max);
	void (*ready)(struct watch *w, const struct pollfd *pfd, int n, long now);
};

/* one descriptor, when fd >= 0 and on: the common shape */
static int add_one(struct pollfd *pfd, int max, int fd, bool on)
{
	if (max < 1 || fd < 0 || !on)
		return 0;
	pfd[0] = (struct pollfd){fd, POLLIN, 0};
	return 1;
}

static bool any_revents(const struct pollfd *pfd, int n)
{
	for (int j = 0; j < n; j++)
		if (pfd[j].revents)
			return true;
	return false;
}

/* the egress proxy's sockets: first, as what it relays to the attacker is
 * read by the attacker's source below */
static int src_egress_add(struct watch *w, struct pollfd *pfd, int max)
{
	return egress_poll(&w->r->eg, pfd, max);
}

static void src_egress_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	egress_ready(&w->r->eg, pfd, n, now);
	adopt_attacker(w->r);
}

/* the tool door, and the time a human kept its gate waiting */
static int src_tools_add(struct watch *w, struct pollfd *pfd, int max)
{
	return tools_poll(&w->r->tools, pfd, max);
}

static void src_tools_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	tools_ready(&w->r->tools, pfd, n, now);
	watch_gate_pause(w, now);
}

/* the snippet's output */
static int src_out_add(struct watch *w, struct pollfd *pfd, int max)
{
	return add_one(pfd, max, w->r->out[0], true);
}

static void src_out_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	if (any_revents(pfd, n))
		watch_output(w);
}

/* exec's terminal and the lab's pty */
static int src_term_add(struct watch *w, struct pollfd *pfd, int max)
{
	return term_poll(&w->r->term, !w->main_done, pfd, max);
}

static void src_term_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	if (n)
		term_ready(&w->r->term, pfd);
}

/* the child's (then the init's) report pipe */
static int src_rep_add(struct watch *w, struct pollfd *pfd, int max)
{
	return add_one(pfd, max, w->r->rep[0], true);
}

static void src_rep_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	if (any_revents(pfd, n))
		watch_report(w);
}

/* the trace: the child sends its filter's listener over the sync socket */
static int src_sync_add(struct watch *w, struct pollfd *pfd, int max)
{
	struct run *r = w->r;
	return add_one(pfd, max, r->sync[1], r->tr.listen && r->tr.notify_fd < 0);
}

static void src_sync_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	if (any_revents(pfd, n) && trace_take_listener(w->r) < 0 && w->r->sync[1] < 0)
		str_copy(
		    w->ev->trace.note, sizeof w->ev->trace.note,
		    "the lab could not take the filter's listener: the kernel refused those calls (ENOSYS) unlogged");
}

/* the trace: the listener's notifications (a listener taken this turn is
 * polled from the next: its slice here is empty) */
static int src_notify_add(struct watch *w, struct pollfd *pfd, int max)
{
	return add_one(pfd, max, w->r->tr.notify_fd, !w->main_done);
}

static void src_notify_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	if (any_revents(pfd, n))
		trace_answer(w->r, &w->ev->trace, 64);
}

/* Resource-limits' watch: the children its held waits wait for (after
 * the listener, which may have held one this turn), and a look now and
 * then while waits are held, for a child forked meanwhile, or a caller
 * gone */
static int src_held_add(struct watch *w, struct pollfd *pfd, int max)
{
	return w->main_done ? 0 : limits_watch_poll(w->r, pfd, max);
}

static void src_held_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	if (limits_watch_holding(w->r))
		limits_watch_recheck(w->r, &w->ev->trace, any_revents(pfd, n), now);
}

/* the connect()s the lab makes for stopped callers, and their wake pipe */
static int src_connects_add(struct watch *w, struct pollfd *pfd, int max)
{
	return w->main_done ? 0 : trace_connect_poll(w->r, pfd, max);
}

static void src_connects_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	if (any_revents(pfd, n))
		trace_connects_ready(w->r, &w->ev->trace, false);
}

/* the attacker's listener and connections, the agent's socket */
static int src_attacker_add(struct watch *w, struct pollfd *pfd, int max)
{
	int fds[DECOY_POLL_MAX];
	int k = w->r->have_decoys ? decoy_poll_fds(&w->r->d, fds, max < DECOY_POLL_MAX ? max : DECOY_POLL_MAX) : 0;
	for (int j = 0; j < k; j++)
		pfd[j] = (struct pollfd){fds[j], POLLIN, 0};
	return k;
}

static void src_attacker_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	for (int j = 0; j < n; j++)
		if (pfd[j].revents)
			decoy_attacker_event(&w->r->d, pfd[j].fd);
}

/* the caller's abort key */
static int src_abort_add(struct watch *w, struct pollfd *pfd, int max)
{
	return add_one(pfd, max, w->opts ? w->opts->abort_fd : -1, !w->killed);
}

static void src_abort_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	(void)now;
	if (any_revents(pfd, n))
		watch_kill(w, &w->ev->end.aborted);
}

/* the run's init: its pidfd, or, without one, a wait each turn; last, so
 * what the init's end left in the pipes above was read first */
static int src_pid_add(struct watch *w, struct pollfd *pfd, int max)
{
	return add_one(pfd, max, w->r->pidfd, !w->main_done);
}

static void src_pid_ready(struct watch *w, const struct pollfd *pfd, int n, long now)
{
	if (!w->main_done && (w->r->pidfd < 0 || any_revents(pfd, n)))
		watch_reap(w, now);
}

static const struct watch_source watch_sources[] = {
    {EGRESS_POLL_MAX, src_egress_add, src_egress_ready},
    {TOOLS_POLL_MAX, src_tools_add, src_tools_ready},
    {1, src_out_add, src_out_ready},
    {3, src_term_add, src_term_ready},
    {1, src_rep_add, src_rep_ready},
    {1, src_sync_add, src_sync_ready},
    {1, src_notify_add, src_notify_ready},
    {LIMITS_WATCH_PIDFD_MAX, src_held_add, src_held_ready},
    {1 + RUN_CONNECTS_MAX, src_connects_add, src_connects_ready},
    {DECOY_POLL_MAX, src_attacker_add, src_attacker_ready},
    {1, src_abort_add, src_abort_ready},
    {1, src_pid_add, src_pid_ready},
};
#define WATCH_SOURCES ((int)(sizeof watch_sources / sizeof watch_sources[0]))
#define WATCH_POLL_MAX                                                                                                 \
	(EGRESS_POLL_MAX + TOOLS_POLL_MAX + 1 + 3 + 1 + 1 + 1 + LIMITS_WATCH_PIDFD_MAX + 1 + RUN_CONNECTS_MAX +        \
	 DECOY_POLL_MAX + 1 + 1)

/* The run's own clocks, after the sources: the sampling of a run without
 * a cgroup, Resource-limits' wall clock, the safety net, and the hard
 * kill of an init that outlived its grace. */
static void watch_clocks(struct watch *w, long now)
{
	struct run *r = w->r;
	if (!w->main_done && !r->layer.limits.cg.ops && r->kind != RUN_EXEC && now - w->last_scan >= POLL_MS)
		watch_sample(w, now);
	else if (!w->main_done && r->layer.limits.cg.ops && r->kind != RUN_EXEC && run_on(r, LAYER_LIMITS) &&
	         now - w->last_scan >= VM_SCAN_MS)
		watch_sample_vm(w, now);
	if (!w->killed && !w->main_done && w->limit_deadline > 0 && now >= w->limit_deadline)
		watch_kill(w, &w->ev->end.timed_out);
	if (!w->killed && !w->main_done && now >= w->safety_deadline)
		watch_kill(w, &w->ev->end.safety_net);
	if (w->killed && !w->main_done && now >= w->kill_deadline) {
		w->box->kill(r, true);
		w->kill_deadline = now + KILL_GRACE_MS;
	}
}

/* One turn of the event loop. Returns false when the run is over. */
static bool watch_turn(struct watch *w)
{
	struct run *r = w->r;
	struct pollfd pfd[WATCH_POLL_MAX];
	int at[WATCH_SOURCES], cnt[WATCH_SOURCES], n = 0;
	for (int i = 0; i < WATCH_SOURCES; i++) {
		int room = WATCH_POLL_MAX - n;
		at[i] = n;
		cnt[i] = watch_sources[i].add(w, pfd + n, watch_sources[i].max < room ? watch_sources[i].max : room);
		n += cnt[i];
	}
	if (poll(pfd, (nfds_t)n, (int)watch_timeout(w, monotonic_ms())) < 0 && errno != EINTR)
		return false;
	long now = monotonic_ms();
	for (int i = 0; i < WATCH_SOURCES; i++)
		watch_sources[i].ready(w, pfd + at[i], cnt[i], now);
	watch_clocks(w, now);
	return !(w->main_done &&
	         ((r->out[0] < 0 && r->rep[0] < 0 && term_drained(&r->term)) || now >= w->drain_deadline));
}

/* Attacker bytes still in flight after the run ended, and what the proxy
 * still relays to the small internet: pumped until nothing is ready and
 * the proxy holds nothing more for it (on loopback a sent byte is
 * readable at once), so the verdict does not hang on who got scheduled
 * first. Bounded by EGRESS_DRAIN_MS; a relay still open then is logged
 * "cut at the end of the run" by egress_finish. */
static void drain_attacker(struct run *r)
{
	long deadline = monotonic_ms() + EGRESS_DRAIN_MS;
	while (monotonic_ms() < deadline) {
		int fds[DECOY_POLL_MAX], k = r->have_decoys ? decoy_poll_fds(&r->d, fds, DECOY_POLL_MAX) : 0;
		struct pollfd pfd[DECOY_POLL_MAX + EGRESS_POLL_MAX];
		for (int j = 0; j < k; j++)
			pfd[j] = (struct pollfd){fds[j], POLLIN, 0};
		int n = k + egress_poll(&r->eg, pfd + k, EGRESS_POLL_MAX);
		bool pending = egress_in_flight(&r->eg);
		int ready = n ? poll(pfd, (nfds_t)n, pending ? 10 : 0) : 0;
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0 && !pending)
			break;
		if (ready <= 0)
			continue;
		egress_ready(&r->eg, pfd + k, n - k, monotonic_ms());
		adopt_attacker(r);
		for (int j = 0; j < k; j++)
			if (pfd[j].revents)
				decoy_attacker_event(&r->d, pfd[j].fd);
	}
}

/* The report pipe: "E errno stage: what" (setup failed), "P errno" (the
 * network probe), "S status" (the init's word on how the snippet ended),
 * "U ms" (the snippet's own CPU, read by the init before reaping it),
 * "O N names" (an audit's: processes that outlived the wrapper). */
static void parse_report(struct watch *w)
{
	struct lab_evidence *ev = w->ev;
	sb_add(&w->rep, "", 0);
	for (char *line = w->rep.s, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			break;
		*next++ = '\0';
		if (line[0] == 'P') {
			ev->exfil.net_probe_errno = atoi(line + 2);
		} else if (line[0] == 'R' && line[1] == ' ') {
			ev->egress.net_route_errno = atoi(line + 2);
		} else if (line[0] == 'K' && line[1] == ' ') {
			/* a box's probe: the release its kernel answered */
			str_copy(ev->kernel.kernel_release, sizeof ev->kernel.kernel_release, line + 2);
		} else if (line[0] == 'B' && line[1] == ' ') {
			str_copy(ev->kernel.kernel_boot_id, sizeof ev->kernel.kernel_boot_id,
			         strcmp(line + 2, "-") ? line + 2 : "");
		} else if (line[0] == 'S') {
			w->status = atoi(line + 2);
			w->status_said = true;
		} else if (line[0] == 'U' && line[1] == ' ' && !ev->res.cpu_main_seen) {
			/* the snippet's own CPU, as its init read it before reaping
			 * it (box_common.c, vm/init.c): what RLIMIT_CPU counted */
			long ms = atol(line + 2);
			ev->res.cpu_main_ms = ms > 0 ? ms : 0;
			ev->res.cpu_main_seen = true;
		} else if (line[0] == 'O' && line[1] == ' ') {
			/* an audit's init: the snippet's processes alive when the
			 * wrapper's command had exited */
			char names[sizeof ev->end.outlived_what] = "";
			int n = 0;
			if (sscanf(line + 2, "%d %127s", &n, names) >= 1 && n > 0) {
				ev->end.outlived = n;
				str_copy(ev->end.outlived_what, sizeof ev->end.outlived_what, names);
			}
		} else if (line[0] == 'X' && line[1] == ' ' && w->n_sent < 4) {
			int sig, code, pid;
			unsigned uid;
			if (sscanf(line + 2, "%d %d %d %u", &sig, &code, &pid, &uid) == 4 && sig > 0 && sig < NSIG)
				w->sent[w->n_sent++] = (struct watch_sent){sig, code, pid, (long)uid};
		} else if (line[0] == 'E' && !ev->error[0]) {
			char *stage = strchr(line + 2, ' ');
			int e = atoi(line + 2);
			snprintf(ev->error, sizeof ev->error, "sandbox setup failed at %s: %s", stage ? stage + 1 : "?",
			         strerror(e));
			if (stage && !strncmp(stage + 1, "execve:", 7) && w->r->kind == RUN_EXEC)
				ev->end.exit_code = e == ENOENT ? 127 : 126;
		}
	}
}

/* Where a leaked environment key was read, from the output line that
 * first shows it: "/proc/N/environ" or "/proc/N/cmdline" named on it,
 * else the snippet's own environment. N is matched against the processes
 * the lab itself saw hold the keys (an audit's wrapper tree), so the name
 * is the lab's: "bwrap's own environment via /proc/1/environ". */
static void env_key_via(const struct run *r, const struct strbuf *output, int i, const struct lab_evidence *ev,
                        char *via, size_t cap)
{
	const char *tok = r->d.secret[i].token;
	const char *at = output->s ? memmem(output->s, output->len, tok, strlen(tok)) : NULL;
	const char *line = at, *end = at;
	while (line && line > output->s && line[-1] != '\n')
		line--;
	while (end && end < output->s + output->len && *end != '\n')
		end++;
	const char *proc = line ? memmem(line, (size_t)(end - line), "/proc/", 6) : NULL;
	int pid = 0, n = 0;
	char what[8] = "";
	if (!proc || sscanf(proc, "/proc/%d/%7[a-z]%n", &pid, what, &n) < 2 ||
	    (strcmp(what, "environ") != 0 && strcmp(what, "cmdline") != 0)) {
		snprintf(via, cap, at ? "the snippet's own environment" : "the environment handed in");
		return;
	}
	bool cmdline = !strcmp(what, "cmdline");
	for (int h = 0; h < ev->secrets.n_holders; h++)
		if (ev->secrets.holder[h].pid_in_view == pid && ev->secrets.holder[h].in_cmdline == cmdline) {
			snprintf(via, cap, "%s's own %s via /proc/%d/%s", ev->secrets.holder[h].comm,
			         cmdline ? "command line" : "environment", pid, what);
			return;
		}
	snprintf(via, cap, "another process's %s via /proc/%d/%s", cmdline ? "command line" : "environment", pid, what);
}

/* ev->secrets.leaked: each source that leaked, the environment's keys by where
 * they were read, each decoy file by its own canaries ("~/.ssh/id_ed25519
 * (the private key)"). */
static void leak_sources(const struct run *r, const struct strbuf *output, const bool out[DECOY_SECRETS],
                         struct lab_evidence *ev)
{
	char vias[DECOY_SECRETS][LAB_LINE];
	for (int i = 0; i < r->d.n_secret; i++) {
		vias[i][0] = '\0';
		if (out[i] && decoy_secret_in_env(&r->d, i))
			env_key_via(r, output, i, ev, vias[i], sizeof vias[i]);
	}
	/* one group per place: the keys read there, then the files */
	for (int i = 0; i < r->d.n_secret; i++) {
		if (!out[i] || !vias[i][0])
			continue;
		bool first = true;
		for (int j = 0; j < i; j++)
			first &= !(out[j] && !strcmp(vias[j], vias[i]));
		if (!first)
			continue;
		str_append(ev->secrets.leaked, sizeof ev->secrets.leaked, "%s", ev->secrets.leaked[0] ? "; " : "");
		for (int j = i, k = 0; j < r->d.n_secret; j++)
			if (out[j] && !strcmp(vias[j], vias[i]))
				str_append(ev->secrets.leaked, sizeof ev->secrets.leaked, "%s%s", k++ ? ", " : "",
				           r->d.secret[j].name);
		str_append(ev->secrets.leaked, sizeof ev->secrets.leaked, " from %s", vias[i]);
		str_append(ev->secrets.leak_places, sizeof ev->secrets.leak_places, "%s%s",
		           ev->secrets.leak_places[0] ? ", " : "", vias[i]);
	}
	for (int i = 0; i < r->d.n_secret; i++) {
		if (!out[i] || decoy_secret_in_env(&r->d, i))
			continue;
		bool first = true;
		for (int j = 0; j < i; j++)
			first &= !(out[j] && !strcmp(r->d.secret[j].file, r->d.secret[i].file));
		if (first) {
			str_append(ev->secrets.leaked, sizeof ev->secrets.leaked, "%s%s (%s",
			           ev->secrets.leaked[0] ? "; " : "", r->d.secret[i].file, r->d.secret[i].name);
			str_append(ev->secrets.leak_places, sizeof ev->secrets.leak_places, "%s%s",
			           ev->secrets.leak_places[0] ? ", " : "", r->d.secret[i].file);
		} else
			str_append(ev->secrets.leaked, sizeof ev->secrets.leaked, ", %s", r->d.secret[i].name);
		if (i + 1 >= r->d.n_secret || strcmp(r->d.secret[i + 1].file, r->d.secret[i].file) != 0 || !out[i + 1])
			str_append(ev->secrets.leaked, sizeof ev->secrets.leaked, ")");
	}
}

/* A secret cut by the output cap: the kept output ends with the first
 * half of its token or more. Neither scanner sees it whole (one has the
 * kept bytes, the other the dropped ones), but what came out is most of
 * it: out, not dropped (the red team's round 7). */
static bool secret_cut_by_cap(const struct run *r, const struct watch *w, int i)
{
	const char *tok = r->d.secret[i].token;
	size_t len = strlen(tok), have = w->output->len;
	if (!w->ev->res.out_truncated || len < 2)
		return false;
	for (size_t k = len - 1; k >= (len + 1) / 2; k--)
		if (have >= k && !memcmp(w->output->s + have - k, tok, k))
			return true;
	return false;
}

static void gather_decoys(struct run *r, struct watch *w, struct lab_evidence *ev)
{
	bool at_attacker[DECOY_SECRETS] = {0};
	ev->exfil.attacker_from_run = decoy_attacker_from_run(&r->d, at_attacker);
	/* api.lab.test is out of the sandbox too: through the allow-list,
	 * or straight at it with No-network off */
	bool out[DECOY_SECRETS] = {0};
	for (int i = 0; i < r->d.n_secret; i++)
		if (w->sc.found[i] || at_attacker[i] || egress_secret_seen(&r->eg, i) || secret_cut_by_cap(r, w, i)) {
			out[i] = true;
			ev->secrets.canaries_leaked++;
			ev->exfil.secrets_to_attacker += at_attacker[i];
		} else if (w->sc_dropped.found[i]) {
			ev->secrets.secrets_past_cap++;
		}
	leak_sources(r, w->output, out, ev);
	ev->exfil.attacker_conns = r->d.conns;
	ev->exfil.attacker_bytes = r->d.bytes;
	ev->exfil.attacker_untied_bytes = r->d.bytes_by_origin[DECOY_ORIGIN_UNTIED];
	ev->exfil.attacker_stranger_bytes = r->d.bytes_by_origin[DECOY_ORIGIN_STRANGER];
	ev->exfil.attacker_got_canary = decoy_attacker_got_canary(&r->d);
	/* the range's own host folder (Isolation off): watched while the run
	 * lived, compared with what the lab planted, never through a symlink
	 * the run left there; else the one on disk, which no sandbox had in
	 * its view */
	struct stat st = {0};
	bool own = r->host_fd >= 0;
	if (own && r->d.host_watch) {
		struct hostfs_result h;
		hostfs_finish(r->d.host_watch, &h);
		ev->host.host_target_written = h.target_there || h.target_seen;
		ev->host.host_target_gone = h.target_seen && !h.target_there;
		ev->host.host_target_size = h.target_size;
		if (h.changed)
			str_copy(ev->host.host_changed, sizeof ev->host.host_changed, h.changed_text);
		str_copy(ev->host.host_seen, sizeof ev->host.host_seen, h.seen_text);
	} else if (own ? hostfs_stat_beneath(r->host_fd, r->d.host_target + strlen(r->d.host) + 1, &st) == 0
	               : lstat(r->d.host_target, &st) == 0) {
		ev->host.host_target_written = true;
		ev->host.host_target_size = (uint64_t)st.st_size;
	}
	/* a setuid file or device node left where the run could write: the
	 * range's host folder, or the run folder on disk (an audit's wrapper
	 * writes the decoy home there) */
	int fd = own ? r->host_fd : open(r->d.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	decoy_host_planted(fd, ev->host.host_planted, sizeof ev->host.host_planted);
	if (!own && fd >= 0)
		close(fd);
}

/* The host's own release and boot id: what a box's kernel is compared with. */
static void host_kernel(struct lab_evidence *ev)
{
	struct utsname u;
	if (uname(&u) == 0)
		str_copy(ev->kernel.host_release, sizeof ev->kernel.host_release, u.release);
	char *id = read_file("/proc/sys/kernel/random/boot_id", NULL, 64);
	if (id) {
		id[strcspn(id, "\n")] = '\0';
		str_copy(ev->kernel.host_boot_id, sizeof ev->kernel.host_boot_id, id);
		free(id);
	}
}

/* Why the trace lists no refused call of a filter, when it cannot. */
static void trace_note(const struct run *r, const struct box_ops *box, struct lab_evidence *ev)
{
	char *note = ev->trace.note;
	size_t cap = sizeof ev->trace.note;
	if (note[0])
		return;
	if (!run_on(r, LAYER_ISOLATION))
		str_copy(note, cap, "Isolation is off: no call refused by its seccomp filter");
	else if (!box->host_filter)
		snprintf(note, cap,
		         "refused calls: not available on the %s rung (%s answers them, not a seccomp filter)",
		         box->name, box->kernel);
	else if (!r->tr.on)
		str_copy(note, cap, "refused calls: not traced (LAB_TRACE=0); the filter answered them itself");
}

/* The path the last error names, made plain, as the host names the run's
 * folder: with Isolation off the range shows it to the snippet at
 * /tmp/NAME (inside_dir), with Isolation on at its own path. */
static void exception_path_on_host(const struct run *r, struct lab_evidence *ev)
{
	char *p = ev->end.exception_path;
	path_lexical(p);
	size_t n = strlen(r->inside_dir);
	if (!r->have_decoys || run_on(r, LAYER_ISOLATION) || !n || strncmp(p, r->inside_dir, n) != 0 ||
	    (p[n] != '/' && p[n] != '\0'))
		return;
	char host[sizeof ev->end.exception_path];
	if (pathf(host, sizeof host, "%s%s", r->d.dir, p + n) == 0)
		str_copy(p, sizeof ev->end.exception_path, host);
}

/* ---------------- a signal the lab did not send ---------------- */

/* The kernel's count of OOM kills on the whole machine (/proc/vmstat),
 * -1 if unknown. */
static long machine_oom_kills(void)
{
	char *t = read_file("/proc/vmstat", NULL, 1 << 16);
	const char *p = t ? strstr(t, "\noom_kill ") : NULL;
	long n = p ? strtol(p + 10, NULL, 10) : -1;
	free(t);
	return n;
}

/* Signals only a sender sends: neither a fault of the snippet's own
 * (SIGSEGV, SIGABRT...), nor a timer it set (SIGALRM), nor a limit of the
 * lab's (SIGXCPU, SIGXFSZ, seccomp's SIGSYS). */
static const char *sent_signal_name(int sig)
{
	switch (sig) {
	case SIGKILL:
		return "SIGKILL";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGINT:
		return "SIGINT";
	case SIGQUIT:
		return "SIGQUIT";
	case SIGUSR1:
		return "SIGUSR1";
	case SIGUSR2:
		return "SIGUSR2";
	default:
		return NULL;
	}
}

/* The sender's uid as the host knows it: the init's user namespace shows
 * the run's own uid as its inside id, and any uid it does not map as the
 * overflow uid. */
static void sender_uid(const struct run *r, const struct box_ops *box, long seen, char *out, size_t cap)
{
	bool own_userns = box->own_userns || !r->root_lab;
	if (own_userns && seen == (long)r->inside_uid)
		snprintf(out, cap, "uid %ld (the sandbox's own uid outside)", r->map_uid);
	else if (own_userns && seen == 65534)
		snprintf(out, cap,
		         "a uid the run's id map does not hold (root or another user: the kernel shows them "
		         "all as 65534)");
	else
		snprintf(out, cap, "uid %ld", seen);
}

/* The run ended by a signal: the lab's own doing (its clocks and caps,
 * the kernel's OOM killer, RLIMIT_CPU), the snippet's (a fault, a timer),
 * or someone's outside the sandbox, whom the lab names as far as it knows
 * them. On the microvm rung the snippet's status is its guest kernel's
 * word, and no host process can signal a guest's: only the supervisor's
 * own death is. A signal the snippet sent itself looks the same as one from
 * outside where the kernel keeps no sender (the snippet's own SIGKILL):
 * named as either, which takes credit away from every layer, never gives
 * it, and never hides an escape the evidence shows (verdict.c). */
static void name_foreign_kill(const struct run *r, const struct box_ops *box, const struct watch *w,
                              struct lab_evidence *ev)
{
	int sig = ev->end.exit_signal;
	const char *name = sent_signal_name(sig);
	if (!ev->started || !sig || w->killed || ev->end.timed_out || ev->end.safety_net || ev->res.mem_cap_killed ||
	    ev->end.aborted)
		return;
	long oom = machine_oom_kills();
	bool oom_killer = ev->res.oom_kills > 0 || (w->machine_oom0 >= 0 && oom > w->machine_oom0);
	char who[160];
	int k = w->n_sent - 1;
	while (k >= 0 && w->sent[k].sig != sig)
		k--;
	bool attested = k >= 0 && (w->sent[k].code == SI_USER || w->sent[k].code == SI_TKILL);
	bool own_pidns = !r->outside_range; /* an audit's wrapper run outside the range */
	if (attested && own_pidns && w->sent[k].pid != 0)
		return; /* the init passed on a kill() of a process of the run's own */
	if (attested && own_pidns) {
		sender_uid(r, box, w->sent[k].uid, who, sizeof who);
		snprintf(ev->end.foreign, sizeof ev->end.foreign,
		         "%s (%d) sent to the run's init from outside its PID namespace, by %s, passed on to the "
		         "snippet",
		         name ? name : "signal", sig, who);
	} else if (k >= 0 && w->sent[k].code == SI_QUEUE && own_pidns) {
		snprintf(
		    ev->end.foreign, sizeof ev->end.foreign,
		    "%s (%d) queued to the run's init with a siginfo its sender wrote itself (sigqueue), passed on "
		    "to the snippet: from inside or outside, the lab cannot tell, and the lab did not send it",
		    name ? name : "signal", sig);
	} else if (!w->status_said && sig == SIGKILL && !oom_killer) {
		/* the kernel keeps SIGKILL from a PID namespace's init from
		 * inside it: only a process outside can end it so */
		snprintf(ev->end.foreign, sizeof ev->end.foreign,
		         "the run's %s was killed by SIGKILL, which no process inside the sandbox can send it: "
		         "from outside the sandbox",
		         box->pid1);
	} else if (name && !box->guest_status && !(sig == SIGKILL && oom_killer) &&
	           !(sig == SIGKILL && run_on(r, LAYER_LIMITS) &&
	             evidence_rlimit_cpu(ev, r->cfg->limits.cpu_time) == RLIMIT_CPU_HARD)) {
		snprintf(
		    ev->end.foreign, sizeof ev->end.foreign,
		    "the snippet was killed by %s, and no clock or cap of the lab's, no OOM kill and no RLIMIT_CPU "
		    "sent it: the snippet's own, or another process's from outside the sandbox (the kernel keeps "
		    "no sender to tell)",
		    name);
	} else {
		return;
	}
	ev->end.foreign_signal = sig;
}

/* Starts the box, watches it to the end, gathers the evidence. */
static void run_watch(struct run *r, const struct box_ops *box, const struct lab_run_opts *opts,
                      struct lab_evidence *ev, struct strbuf *output)
{
	const struct lab_config *cfg = r->cfg;
	struct watch w = {.r = r, .box = box, .opts = opts, .ev = ev, .output = output};
	ev->exfil.net_probe_errno = -1;
	ev->egress.net_route_errno = -1;
	ev->end.exit_code = -1;
	/* a slot of the machine's first, if layers.ini bounds them: the
	 * clocks are the run's, not the queue's */
	bool aborted = false;
	r->slot_fd = run_slot_take(cfg, opts ? opts->abort_fd : -1, &aborted, ev->error, sizeof ev->error);
	if (r->slot_fd == -2) {
		r->slot_fd = -1;
		ev->end.aborted = aborted;
		return;
	}
	w.t0 = monotonic_ms();
	w.machine_oom0 = machine_oom_kills();
	if (box->start(r, ev) < 0)
		return;
	tools_after_clone(&r->tools);
	term_started(&r->term);
	sweep_stale(); /* we would only wait otherwise */
	w.limit_deadline = run_on(r, LAYER_LIMITS) && !box->late_start ? w.t0 + cfg->limits.timeout_ms : -1;
	w.safety_deadline = w.t0 + cfg->safety_timeout_ms;
	w.cap = cfg->safety_output;
	if (run_on(r, LAYER_LIMITS) && cfg->limits.output < w.cap)
		w.cap = cfg->limits.output;
	while (watch_turn(&w))
		;
	drain_attacker(r);
	egress_finish(&r->eg, r->have_decoys ? &r->d : NULL, ev);
	tools_finish(&r->tools, ev);
	if (!w.main_done) {
		box->kill(r, true);
		if (wait4(r->child_pid, &w.status, __WALL, &w.ru) == r->child_pid)
			w.main_done = true;
	}
	r->child_pid = -1; /* reaped: its pid may be anyone's now */
	trace_connects_ready(r, &ev->trace, true);
	limits_watch_close(r); /* before the listener goes */
	trace_close(r);        /* every caller under the filter is gone */
	parse_report(&w);
	sb_free(&w.rep);
	if (box->late_start && !w.clock_restarted && !ev->error[0])
		snprintf(ev->error, sizeof ev->error,
		         "the %s box never started the snippet (no word from its guest before the run ended%s)",
		         box->name, ev->end.safety_net ? ": the safety net ended it" : "");
	/* the report pipe closed on execve without an error line: it ran */
	ev->started = w.main_done && !ev->error[0];
	if (ev->started) {
		if (WIFEXITED(w.status))
			ev->end.exit_code = WEXITSTATUS(w.status);
		else if (WIFSIGNALED(w.status))
			ev->end.exit_signal = WTERMSIG(w.status);
	} else if (!ev->error[0]) {
		snprintf(ev->error, sizeof ev->error, "the sandbox's first process could not be reaped");
	}
	/* the init's rusage holds every process of the run: all were reaped
	 * by it, or by the kernel for the dying namespace, before it was */
	ev->res.cpu_s = (double)w.ru.ru_utime.tv_sec + w.ru.ru_utime.tv_usec / 1e6 + (double)w.ru.ru_stime.tv_sec +
	                w.ru.ru_stime.tv_usec / 1e6;
	run_layers_gather(r, ev);
	name_foreign_kill(r, box, &w, ev);
	host_kernel(ev); /* before observe(): a box compares with it, the container copies it */
	if (box->observe)
		box->observe(r, ev);
	if (ev->res.peak_mem_from_cgroup)
		ev->res.peak_mem_sampled = false, ev->res.mem_unseen = 0; /* the cgroup charges what the sum misses */
	else if ((uint64_t)w.ru.ru_maxrss * 1024 > ev->res.peak_mem)
		ev->res.peak_mem = (uint64_t)w.ru.ru_maxrss * 1024; /* at least its largest process */
	find_exception(w.tail, w.tail_len, ev);
	exception_path_on_host(r, ev);
	if (r->have_decoys)
		gather_decoys(r, &w, ev);
	trace_after_run(r, ev);
	trace_note(r, box, ev);
	run_layers_describe(r, ev);
	box->describe(r, ev);
	mech_add(ev, "%s", r->root_lab ? "lab runs as root" : "rootless");
	if (r->slot_fd >= 0)
		mech_add(ev, "one of the machine's %ld run slots ([safety] slots)", cfg->safety_slots);
}

static void run_cleanup(struct run *r)
{
	if (r->child_pid > 0) {
		kill(r->child_pid, SIGKILL);
		waitpid(r->child_pid, NULL, __WALL);
	}
	int *fds[] = {&r->sync[0],
	              &r->sync[1],
	              &r->rep[0],
	              &r->rep[1],
	              &r->out[0],
	              &r->out[1],
	              &r->pidfd,
	              &r->layer.isolation.bpf_fd,
	              &r->layer.network.bpf_fd,
	              &r->layer.limits.bpf_fd,
	              &r->cwd_tree,
	              &r->home_tree,
	              &r->host_fd,
	              &r->d.lock_fd,
	              &r->work_tree,
	              &r->slot_fd};
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	limits_watch_close(r);
	trace_close(r);
	run_layers_cleanup(r);
	egress_close(&r->eg);
	tools_close(&r->tools);
	if (r->have_decoys)
		decoy_remove(&r->d);
	else if (r->d.dir[0])
		remove_tree(r->d.dir);
	r->d.dir[0] = '\0';
	if (r->d.lock_fd >= 0) /* a plant that failed half-way */
		close(r->d.lock_fd);
	r->d.lock_fd = -1;
}

/* A result's header, the same for a run of the lab's and an audit's. */
static void result_begin(struct lab_result *res, const struct snippet *s)
{
	memset(res, 0, sizeof *res);
	str_copy(res->snippet, sizeof res->snippet, s->name);
	res->threat = s->threat;
	res->expected_layer = s->layer;
	str_copy(res->consequence, sizeof res->consequence, s->consequence);
}

/* The output the run kept becomes the result's (lab_judge decides). */
static void result_finish(struct lab_result *res, struct strbuf *output)
{
	res->output = output->s ? output->s : strdup("");
	res->output_len = output->len;
}

void lab_run(const struct lab_config *cfg, const struct lab_setup *setup, const struct snippet *s,
             const struct lab_run_opts *opts, struct lab_result *res)
{
	/* in-process: a container run with no layer, its app server the
	 * command (inprocess.h); judged with the layers that applied */
	struct lab_setup own;
	bool inproc = inprocess_setup(setup, &own);
	unsigned toggles = setup->layers;
	if (inproc)
		setup = &own;
	result_begin(res, s);
	res->layers = setup->layers;
	res->rung = setup->rung;

	struct run r;
	run_init(&r, cfg, setup, RUN_SNIPPET);
	struct strbuf output = {0};
	if (plan_snippet(&r, s, &res->ev) == 0 && (!inproc || inprocess_plan(&r, &res->ev) == 0) &&
	    plan_tools(&r, s, opts, &res->ev) == 0)
		run_watch(&r, box_for(&r.spec), opts, &res->ev, &output);
	if (inproc)
		inprocess_gather(&r, &output, toggles, res);
	run_cleanup(&r);
	result_finish(res, &output);
}

/* ---------------- audit: a foreign sandbox ---------------- */

/* The work folder is a project, as an agent's is: a git checkout's .git
 * (HEAD, config, an empty hooks/), so persistence through it has the
 * place it would use on a real machine. */
#define GIT_CONFIG "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"

static int plant_git(struct run *r, struct lab_evidence *ev)
{
	static const char *const files[][2] = {
	    {".git/HEAD", "ref: refs/heads/main\n"},
	    {".git/config", GIT_CONFIG},
	    {".git/description", "the task's project\n"},
	};
	char p[PATH_MAX];
	if (pathf(p, sizeof p, "%s/.git/hooks", r->d.work) < 0 || mkdirs(p, 0755) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (pathf(p, sizeof p, "%s/%s", r->d.work, files[i][0]) < 0 || write_file(p, files[i][1], 0644) < 0)
			goto fail;
	return 0;
fail:
	snprintf(ev->error, sizeof ev->error, "cannot create %.200s: %s", p, strerror(errno));
	return -1;
}

/* What the host runs later that appeared in an audit's work folder: any
 * hook, the start-up files of direnv and the editors' tasks, and a change
 * to the git config the lab wrote. */
static void gather_work(const struct run *r, struct lab_evidence *ev)
{
	char p[PATH_MAX];
	struct stat st;
	if (pathf(p, sizeof p, "%s/.git/hooks", r->d.work) == 0) {
		DIR *d = opendir(p);
		for (struct dirent *e; d && (e = readdir(d));) {
			char f[PATH_MAX];
			if (e->d_name[0] == '.' || pathf(f, sizeof f, "%s/%s", p, e->d_name) < 0 || lstat(f, &st) < 0)
				continue;
			str_append(ev->host.work_planted, sizeof ev->host.work_planted,
			           "%s.git/hooks/%.64s (%lld bytes%s)", ev->host.work_planted[0] ? ", " : "", e->d_name,
			           (long long)st.st_size, st.st_mode & 0111 ? ", executable" : "");
		}
		if (d)
			closedir(d);
	}
	static const char *const later[] = {".envrc", ".vscode/tasks.json"};
	for (size_t i = 0; i < sizeof later / sizeof *later; i++)
		if (pathf(p, sizeof p, "%s/%s", r->d.work, later[i]) == 0 && lstat(p, &st) == 0)
			str_append(ev->host.work_planted, sizeof ev->host.work_planted, "%s%s (%lld bytes)",
			           ev->host.work_planted[0] ? ", " : "", later[i], (long long)st.st_size);
	/* git runs what its config names (core.fsmonitor, core.hooksPath,
	 * an alias with "!"): the config the lab wrote, changed, is a plant */
	char *cfg = pathf(p, sizeof p, "%s/.git/config", r->d.work) == 0 ? read_file(p, NULL, 64 << 10) : NULL;
	if (cfg ? strcmp(cfg, GIT_CONFIG) != 0 : lstat(p, &st) == 0)
		str_append(ev->host.work_planted, sizeof ev->host.work_planted, "%s.git/config changed (%zu bytes)",
		           ev->host.work_planted[0] ? ", " : "", cfg ? strlen(cfg) : (size_t)0);
	free(cfg);
}

/* The agent counts a connection only from the snippet's own processes:
 * the interpreter running the snippet's file, or a process it started,
 * below the range's init (the wrapper's helpers around it, even a python
 * of its own, and strangers of the same uid, are not). A process the
 * snippet double-forked away from it is not seen as its own here. */
static bool agent_peer_ok(void *ctx, pid_t pid)
{
	const struct run *r = ctx;
	char py[PATH_MAX];
	return r->child_pid > 0 && realpath(r->cfg->python, py) &&
	       proc_descends_via(pid, r->child_pid, py, r->d.snippet_file);
}

/* What a real integration hands the wrapper: the caller's environment with
 * its secrets, HOME = the decoy home (~/.aws/credentials in it), the task's
 * inputs, and a host target outside the work folder: a shell start-up
 * file in that home (~/.bashrc.d/persist), where a planted line would run
 * in every shell the user opens. */
static int plan_audit(struct run *r, const struct snippet *s, struct lab_evidence *ev)
{
	char dir[PATH_MAX];
	if (plant_decoys(r, s, ev) < 0 || serve_small_internet(r, ev) < 0)
		return -1;
	if (pathf(dir, sizeof dir, "%s/.bashrc.d", r->d.home) < 0 || mkdirs(dir, 0755) < 0 ||
	    pathf(r->d.host_target, sizeof r->d.host_target, "%s/persist", dir) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot create %.200s: %s", dir, strerror(errno));
		return -1;
	}
	ev->secrets.canaries_planted = r->d.n_secret;
	str_copy(ev->host.host_target, sizeof ev->host.host_target, r->d.host_target);
	ev->host.host_visible = true;
	/* the wrapper's network is its own: the small internet serves anyone */
	egress_watch(&r->eg, &r->d, false);
	decoy_naive_env(&r->d, r->d.home, &r->layer.env.envp);
	while (r->layer.env.envp[r->layer.env.n_env])
		r->layer.env.n_env++;
	add_env(r, "LAB_DATA=%s", r->d.csv);
	add_env(r, "LAB_ATTACKER=http://127.0.0.1:%d/%s/", r->d.port, r->d.run_token);
	add_env(r, "LAB_API=http://127.0.0.1:%d/", r->eg.api_port);
	add_env(r, "LAB_HOST_TARGET=%s", r->d.host_target);
	/* the attacker's DNS zone, on the host's 127.0.0.1 as the listener is */
	int e = resolver_open(&r->d.dns, r->d.run_token);
	if (e < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot open the DNS zone's socket on 127.0.0.1: %s",
		         strerror(-e));
		return -1;
	}
	add_env(r, "LAB_DNS=dns://127.0.0.1:%d/%s", r->d.dns.port, r->d.dns.zone);
	/* the user's ssh-agent, as a developer's session has one: a socket in
	 * the home, named by SSH_AUTH_SOCK (the caller's own is never handed) */
	char sock[PATH_MAX];
	if (pathf(sock, sizeof sock, "%s/.ssh/agent.sock", r->d.home) < 0 ||
	    (e = agent_open(&r->d.agent, sock, "deploy@billing-api")) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot serve the agent's socket %.200s: %s", sock,
		         strerror(e < 0 ? -e : ENAMETOOLONG));
		return -1;
	}
	r->d.agent.peer_ok = agent_peer_ok;
	r->d.agent.peer_ctx = r;
	drop_env(r, "SSH_AUTH_SOCK");
	add_env(r, "SSH_AUTH_SOCK=%s", sock);
	add_env(r, "LAB_AGENT=%s", sock);
	if (plant_git(r, ev) < 0)
		return -1;
	/* a temp folder of this audit's own: a wrapper that leaves a socket
	 * or a lock in $TMPDIR (srt's srt-mux-PID-0.sock, always PID 2 in
	 * the range) must not trip the next audit, another user's least */
	char tmp[PATH_MAX];
	if (pathf(tmp, sizeof tmp, "%s/tmp", r->d.dir) < 0 || mkdirs(tmp, 0700) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot create %.200s: %s", tmp, strerror(errno));
		return -1;
	}
	drop_env(r, "TMPDIR");
	add_env(r, "TMPDIR=%s", tmp);
	random_token(r->audit_proof, 16);
	add_env(r, "LAB_PROOF=%s", r->audit_proof);
	ev->secrets.env_vars = r->layer.env.n_env;
	str_copy(r->workdir, sizeof r->workdir, r->d.work);
	r->argv[0] = (char *)r->cfg->python;
	r->argv[1] = "-u";
	r->argv[2] = r->d.snippet_file;
	/* the task's inputs on the command line too: a wrapper may clear the
	 * environment (the snippets take NAME=VALUE arguments) */
	static const char *const inputs[] = {"LAB_DATA",  "LAB_ATTACKER", "LAB_API",  "LAB_HOST_TARGET",
	                                     "LAB_PROOF", "LAB_DNS",      "LAB_AGENT"};
	int n = 3;
	for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++)
		for (int i = 0; i < r->layer.env.n_env; i++)
			if (!strncmp(r->layer.env.envp[i], inputs[k], strlen(inputs[k])) &&
			    r->layer.env.envp[i][strlen(inputs[k])] == '=') {
				r->argv[n++] = r->layer.env.envp[i];
				break;
			}
	r->argv[n] = NULL;
	return 0;
}

/* The attack's "lab-attempt: WORD" line, WORD being this run's proof
 * reversed: what a wrapper that ran no code cannot print. */
static bool attempt_in(const struct run *r, const struct strbuf *output)
{
	char want[64];
	size_t n = strlen(r->audit_proof);
	int k = snprintf(want, sizeof want, "lab-attempt: ");
	for (size_t i = 0; i < n; i++)
		want[k++] = r->audit_proof[n - 1 - i];
	want[k] = '\0';
	return output->s && memmem(output->s, output->len, want, (size_t)k);
}

void lab_audit_run(const struct lab_config *cfg, const struct snippet *s, char *const *wrapper, bool outside_range,
                   const struct lab_run_opts *opts, struct lab_result *res)
{
	result_begin(res, s);
	res->audit = true;

	/* a foreign sandbox's run: no layer, rung or mode of the lab's */
	struct run r;
	run_init(&r, cfg, &(struct lab_setup){.layers = 0}, RUN_AUDIT);
	r.outside_range = outside_range;
	struct strbuf output = {0};
	char **argv = NULL;
	if (plan_audit(&r, s, &res->ev) == 0) {
		argv = audit_expand(wrapper, r.argv, r.d.work, r.layer.env.envp);
		r.user_argv = argv;
		run_watch(&r, &box_wrapper, opts, &res->ev, &output);
		res->ev.attempt_seen = attempt_in(&r, &output);
		gather_work(&r, &res->ev);
		res->ev.exfil.dns_queries = r.d.dns.queries;
		res->ev.exfil.dns_strays = r.d.dns.strays;
		res->ev.exfil.dns_bytes = r.d.dns.bytes;
		res->ev.exfil.dns_got_canary = decoy_dns_got_canary(&r.d);
		res->ev.host.agent_conns = r.d.agent.conns;
		res->ev.host.agent_requests = r.d.agent.requests;
		res->ev.host.agent_listed = r.d.agent.listed;
		res->ev.host.agent_strays = r.d.agent.strays;
	}
	run_cleanup(&r);
	audit_argv_free(argv);
	result_finish(res, &output);
}

int lab_exec(const struct lab_config *cfg, const struct lab_setup *setup, char *const argv[],
             const struct lab_run_opts *opts)
{
	if (setup->rung == RUNG_INPROCESS) {
		fprintf(stderr,
		        "containment-lab: exec: the in-process rung exec()s a snippet inside the lab's app "
		        "server; a command needs a process of its own: use --rung container, gvisor or microvm\n");
		return 2;
	}
	struct run r;
	run_init(&r, cfg, setup, RUN_EXEC);
	r.user_argv = argv;
	struct lab_evidence ev = {0};
	struct strbuf none = {0};
	int code = 125;
	if (plan_exec(&r, &ev) == 0 && term_open(&r.term, ev.error, sizeof ev.error) == 0)
		run_watch(&r, box_for(&r.spec), opts, &ev, &none);
	run_cleanup(&r);
	/* every process of the run is gone: the terminal as it was, before
	 * the lab says anything more on it */
	term_close(&r.term);
	sb_free(&none);
	if (ev.started) {
		code = ev.end.exit_signal ? 128 + ev.end.exit_signal : ev.end.exit_code;
	} else if (ev.end.exit_code == 126 || ev.end.exit_code == 127) {
		fprintf(stderr, "containment-lab: %s: %s\n", argv[0],
		        ev.end.exit_code == 127 ? "command not found" : "cannot execute");
		code = ev.end.exit_code;
	} else {
		fprintf(stderr, "containment-lab: %s\n", ev.error[0] ? ev.error : "the sandbox failed");
		if (ev.end.exit_code == 2)
			code = 2;
	}
	/* the proxy's log is the evidence of what the command sent out */
	for (const char *l = ev.egress.proxy_log; *l;) {
		size_t len = strcspn(l, "\n");
		fprintf(stderr, "containment-lab: egress: %.*s\n", (int)len, l);
		l += len + (l[len] == '\n');
	}
	if (ev.end.timed_out)
		fprintf(stderr, "containment-lab: killed: the Resource-limits wall clock (%ld ms) ran out\n",
		        cfg->limits.timeout_ms);
	if (ev.end.safety_net)
		fprintf(stderr, "containment-lab: killed by the safety net after %ld ms\n", cfg->safety_timeout_ms);
	return code;
}

void lab_result_free(struct lab_result *r)
{
	free(r->output);
	r->output = NULL;
	r->output_len = 0;
}
