/* cgroup.c — per-run cgroups for the Resource-limits layer.
 *
 * v2 is used on a pure-v2 host (Debian 12, Ubuntu, Fedora under systemd):
 * as root in a subtree of the lab's own, /sys/fs/cgroup/containment-lab;
 * rootless in a subtree delegated to the user (systemd's user@UID.service,
 * see v2_find_base). v1 is used where memory, pids and cpu are mounted as
 * v1 hierarchies and writable (root on hybrid hosts like this one).
 * Otherwise there is no cgroup and the layer rests on rlimits and the lab's
 * own sampling; the run's mechanisms say which, and where.
 *
 * Moving a process in by writing its pid to cgroup.procs takes the kernel's
 * global threadgroup lock for writing, which waits for an RCU grace period:
 * ~4 ms and up on this machine. Writing "0" (= the writer itself) to the v1
 * `tasks` file moves one thread and skips that lock. So the lab opens the
 * files (the kernel checks the opener's credentials: root's), hands them to
 * the sandbox's first process, and that process, still single-threaded,
 * writes "0" into them before it execs the snippet. */
#define _GNU_SOURCE
#include "cgroup.h"
#include "system.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

#define CG_BASE "containment-lab"
/* how long a run's folder may stay busy with tasks dying (cg_rmdir_wait) */
#define CG_RMDIR_MS 5000

static int cg_write(const char *dir, const char *file, const char *val)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	FILE *f = fopen(p, "we");
	if (!f)
		return -errno;
	int r = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f) != 0 && !r)
		r = -errno;
	return r;
}

/* rmdir() a run's folder once its last task has left it. The lab killed
 * them all before; on a loaded machine a killed task may take a good
 * while to be scheduled and pass through exit, and until then the folder
 * is busy (EBUSY). Given up after LIMIT_MS: the next lab's sweep takes it. */
static void cg_rmdir_wait(const char *dir, long limit_ms)
{
	long end = monotonic_ms() + limit_ms;
	for (useconds_t nap = 1000; rmdir(dir) < 0 && errno == EBUSY && monotonic_ms() < end;) {
		usleep(nap);
		if (nap < 20000)
			nap *= 2;
	}
}

static long long cg_read_ll(const char *dir, const char *file)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	char *s = read_file(p, NULL, 4096);
	if (!s)
		return -1;
	long long v = strtoll(s, NULL, 10);
	free(s);
	return v;
}

/* "key value" files such as memory.events or cpu.stat */
static long long cg_read_key(const char *dir, const char *file, const char *key)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	char *s = read_file(p, NULL, 65536);
	if (!s)
		return -1;
	long long v = -1;
	size_t kl = strlen(key);
	for (char *line = s; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	free(s);
	return v;
}

/* Flat: /sys/fs/cgroup/CTRL/containment-lab.RUN. A shared parent folder
 * would cost another mkdir+rmdir per controller per run (~0.2 ms on the
 * memory controller here) and a race between parallel runs. */
static int mkdir_run(char *path, size_t cap, const char *base, const char *name)
{
	if (pathf(path, cap, "%s/" CG_BASE ".%s", base, name) < 0)
		return -ENAMETOOLONG;
	return mkdir(path, 0755) < 0 ? -errno : 0;
}

void cgroup_kill_path(const char *dir)
{
	for (int round = 0; round < 200; round++) {
		char p[PATH_MAX + 32];
		snprintf(p, sizeof p, "%s/cgroup.procs", dir);
		char *s = read_file(p, NULL, 1 << 20);
		if (!s || !*s) {
			free(s);
			return;
		}
		for (char *line = s, *end; *line; line = end) {
			pid_t pid = (pid_t)strtol(line, &end, 10);
			if (pid > 0)
				kill(pid, SIGKILL);
			if (end == line)
				end++; /* not a number: step over it */
		}
		free(s);
		usleep(1000);
	}
}

static bool fs_is(const char *path, long magic)
{
	struct statfs sf;
	return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

/* ---- v1 ---- */
static const char *const v1_ctrl[CG_V1_COUNT] = {"memory", "pids", "cpu"};

static int v1_create(struct lab_cgroup *cg, const struct lab_limits *lim, const char *run)
{
	char val[64];
	int r;
	for (int i = 0; i < CG_V1_COUNT; i++) {
		char hier[64];
		snprintf(hier, sizeof hier, "/sys/fs/cgroup/%s", v1_ctrl[i]);
		if ((r = mkdir_run(cg->path[i], sizeof cg->path[i], hier, run)) < 0)
			return r;
	}
	if (!lim)
		return 0; /* measuring only: a new cgroup has no limits */
	snprintf(val, sizeof val, "%llu", (unsigned long long)lim->memory);
	if ((r = cg_write(cg->path[CG_V1_MEMORY], "memory.limit_in_bytes", val)) < 0)
		return r;
	/* v1 charges TCP buffers only to a cgroup given a TCP limit of its
	 * own, before its first socket: without one, bytes parked in the
	 * run's own loopback connections are in no figure and under no cap
	 * (v2 charges them to memory.current). A kernel without the file
	 * leaves them so; the sampler's socket figure is then all there is. */
	cg_write(cg->path[CG_V1_MEMORY], "memory.kmem.tcp.limit_in_bytes", val);
	snprintf(val, sizeof val, "%ld", lim->pids);
	if ((r = cg_write(cg->path[CG_V1_PIDS], "pids.max", val)) < 0)
		return r;
	if ((r = cg_write(cg->path[CG_V1_CPU], "cpu.cfs_period_us", "100000")) < 0)
		return r;
	snprintf(val, sizeof val, "%ld", (long)(lim->cpu * 100000));
	return cg_write(cg->path[CG_V1_CPU], "cpu.cfs_quota_us", val);
}

static int open_attach_file(struct lab_cgroup *cg, const char *dir, const char *file)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	cg->attach_fd[cg->n_attach++] = fd;
	return 0;
}

static int v1_open_attach(struct lab_cgroup *cg)
{
	for (int i = 0; i < CG_V1_COUNT; i++) {
		int r = open_attach_file(cg, cg->path[i], "tasks");
		if (r < 0)
			return r;
	}
	return 0;
}

static void v1_read(struct lab_cgroup *cg, struct lab_evidence *ev)
{
	long long v;
	if ((v = cg_read_ll(cg->path[CG_V1_MEMORY], "memory.max_usage_in_bytes")) >= 0) {
		ev->res.peak_mem = (uint64_t)v;
		ev->res.peak_mem_from_cgroup = true;
	}
	/* TCP buffers are a count of their own in v1, not in max_usage: the
	 * run held both at once at worst */
	if (ev->res.peak_mem_from_cgroup &&
	    (v = cg_read_ll(cg->path[CG_V1_MEMORY], "memory.kmem.tcp.max_usage_in_bytes")) > 0)
		ev->res.peak_mem += (uint64_t)v;
	ev->res.mem_failcnt = cg_read_ll(cg->path[CG_V1_MEMORY], "memory.failcnt");
	if ((v = cg_read_ll(cg->path[CG_V1_MEMORY], "memory.kmem.tcp.failcnt")) > 0)
		ev->res.mem_failcnt = (ev->res.mem_failcnt > 0 ? ev->res.mem_failcnt : 0) + v;
	ev->res.oom_kills = cg_read_key(cg->path[CG_V1_MEMORY], "memory.oom_control", "oom_kill");
	if ((v = cg_read_ll(cg->path[CG_V1_PIDS], "pids.peak")) > 0)
		ev->res.peak_procs = v - 1; /* the run's init is one of them */
	ev->res.pids_max_events = cg_read_key(cg->path[CG_V1_PIDS], "pids.events", "max");
	ev->res.cpu_throttled = cg_read_key(cg->path[CG_V1_CPU], "cpu.stat", "nr_throttled");
}

static void v1_kill_all(struct lab_cgroup *cg)
{
	cgroup_kill_path(cg->path[CG_V1_PIDS]);
}

static void v1_destroy(struct lab_cgroup *cg)
{
	for (int i = 0; i < CG_V1_COUNT; i++) {
		if (!cg->path[i][0])
			continue;
		cg_rmdir_wait(cg->path[i], CG_RMDIR_MS);
	}
}

static const struct cgroup_ops v1_ops = {"cgroup-v1", v1_create, v1_open_attach, v1_read, v1_kill_all, v1_destroy};

/* ---- v2 ---- */

/* The lab's own subtree on a v2 host: one folder of its own, made once,
 * whose children are the runs (a folder with controllers in its
 * subtree_control may hold no process: "no internal processes").
 *  - root: /sys/fs/cgroup/containment-lab, beside systemd's slices;
 *  - rootless: the nearest ancestor of the lab's own cgroup that is
 *    delegated to the user (systemd's user@UID.service with Delegate=yes,
 *    or any folder whose cgroup.procs and cgroup.subtree_control the user
 *    may write) and holds no process itself, then containment-lab in it.
 *    The sandbox is moved there from the lab's cgroup: the kernel asks for
 *    write access to the common ancestor, that delegated folder.
 * On success base holds the subtree, how what the mechanisms line says. */
struct v2_base {
	char dir[PATH_MAX];
	char how[PATH_MAX + 64];
	bool cpu; /* the cpu controller was there to enable */
};

static bool v2_mine(const char *dir)
{
	char p[PATH_MAX + 32];
	struct stat st;
	if (stat(dir, &st) < 0 || st.st_uid != geteuid())
		return false;
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	if (access(p, W_OK) < 0)
		return false;
	snprintf(p, sizeof p, "%s/cgroup.subtree_control", dir);
	return access(p, W_OK) == 0;
}

static bool v2_empty(const char *dir)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	char *s = read_file(p, NULL, 1 << 16);
	bool empty = s && !*s;
	free(s);
	return empty;
}

/* The lab's own cgroup: "0::/path" in /proc/self/cgroup. */
static int v2_own(char *dir, size_t cap)
{
	char *s = read_file("/proc/self/cgroup", NULL, 1 << 16);
	const char *line = s ? (strncmp(s, "0::", 3) ? strstr(s, "\n0::") : s - 1) : NULL;
	int r = -ENOENT;
	if (line) {
		line += 4;
		size_t n = strcspn(line, "\n");
		r = pathf(dir, cap, "/sys/fs/cgroup%.*s", (int)n, line) < 0 ? -ENAMETOOLONG : 0;
		if (!r && !strcmp(dir, "/sys/fs/cgroup/")) /* the root itself */
			dir[strlen(dir) - 1] = '\0';
	}
	free(s);
	return r;
}

/* Whether word is one of the space-separated words of list. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; p && *p; p += strcspn(p, " \n"), p += strspn(p, " \n"))
		if (!strncmp(p, word, n) && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/* memory and pids are needed, cpu is used where there. */
static int v2_enable(const char *dir, bool *cpu)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/cgroup.controllers", dir);
	char *have = read_file(p, NULL, 4096);
	bool ok = have && has_word(have, "memory") && has_word(have, "pids");
	*cpu = have && has_word(have, "cpu");
	free(have);
	if (!ok)
		return -ENOTSUP;
	return cg_write(dir, "cgroup.subtree_control", *cpu ? "+memory +pids +cpu" : "+memory +pids");
}

/* Enables memory and pids (and cpu) in dir, first in the folders above it
 * that are the user's too and hold no process, where dir's parent does not
 * offer them yet (app.slice between user@UID.service and a scope). */
static int v2_enable_path(const char *dir, bool *cpu, int depth)
{
	int r = v2_enable(dir, cpu);
	if (r != -ENOTSUP || depth > 8)
		return r;
	char parent[PATH_MAX];
	str_copy(parent, sizeof parent, dir);
	char *slash = strrchr(parent, '/');
	if (!slash || slash - parent <= (ptrdiff_t)strlen("/sys/fs/cgroup"))
		return r;
	*slash = '\0';
	bool pcpu = false;
	if (!v2_mine(parent) || !v2_empty(parent) || v2_enable_path(parent, &pcpu, depth + 1) < 0)
		return r;
	return v2_enable(dir, cpu);
}

static int v2_find_base(struct v2_base *b, char *why, size_t whylen)
{
	char dir[PATH_MAX], own[PATH_MAX];
	int r;
	bool root = geteuid() == 0;
	if (root) {
		str_copy(dir, sizeof dir, "/sys/fs/cgroup");
	} else {
		if ((r = v2_own(own, sizeof own)) < 0) {
			snprintf(why, whylen, "rootless: cannot tell the lab's own cgroup (/proc/self/cgroup)");
			return r;
		}
		/* the nearest delegated, empty ancestor (the lab's own cgroup has the lab in it) */
		str_copy(dir, sizeof dir, own);
		for (;;) {
			char *slash = strrchr(dir, '/');
			if (!slash || slash - dir < (ptrdiff_t)strlen("/sys/fs/cgroup")) {
				snprintf(
				    why, whylen,
				    "rootless: no cgroup v2 subtree is delegated to uid %u above %s: start the lab in "
				    "one "
				    "(systemd-run --user --scope -p Delegate=yes containment-lab ...), or run as root",
				    (unsigned)geteuid(), own);
				return -EACCES;
			}
			*slash = '\0';
			if (strlen(dir) <= strlen("/sys/fs/cgroup"))
				continue; /* the root is never a user's */
			/* the lab's own subtree, where cgroup_lab_settle put it: its
			 * parent is the delegated folder */
			const char *last = strrchr(dir, '/');
			if (last && !strcmp(last + 1, CG_BASE) && v2_mine(dir))
				continue;
			if (v2_mine(dir) && v2_empty(dir))
				break;
		}
	}
	bool cpu = false;
	if ((r = root ? v2_enable(dir, &cpu) : v2_enable_path(dir, &cpu, 0)) < 0) {
		snprintf(why, whylen, "cgroup-v2: %s offers no memory and pids controllers to enable (%s)", dir,
		         strerror(-r));
		return r;
	}
	if (pathf(b->dir, sizeof b->dir, "%s/" CG_BASE, dir) < 0)
		return -ENAMETOOLONG;
	if (mkdir(b->dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		snprintf(why, whylen, "cgroup-v2: cannot create %s (%s)", b->dir, strerror(-r));
		return r;
	}
	bool cpu2 = false;
	if ((r = v2_enable(b->dir, &cpu2)) < 0) {
		snprintf(why, whylen, "cgroup-v2: cannot enable memory and pids in %s (%s)", b->dir, strerror(-r));
		return r;
	}
	b->cpu = cpu && cpu2;
	snprintf(b->how, sizeof b->how, "cgroup-v2%s: %s%s", root ? "" : ", delegated", b->dir,
	         b->cpu ? "" : " (no cpu controller: no CPU quota)");
	return 0;
}

void cgroup_lab_settle(void)
{
	char own[PATH_MAX], base[PATH_MAX], leaf[PATH_MAX], procs[PATH_MAX + 16], me[32];
	if (geteuid() == 0 || !fs_is("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC) || v2_own(own, sizeof own) < 0 ||
	    !v2_mine(own) || pathf(procs, sizeof procs, "%s/cgroup.procs", own) < 0)
		return;
	/* only the lab itself in it: another process there (the shell that
	 * started it) would keep the controllers from being handed down */
	char *list = read_file(procs, NULL, 4096);
	snprintf(me, sizeof me, "%d\n", (int)getpid());
	bool alone = list && !strcmp(list, me);
	free(list);
	if (!alone || pathf(base, sizeof base, "%s/" CG_BASE, own) < 0 ||
	    pathf(leaf, sizeof leaf, "%s/lab-%d", base, (int)getpid()) < 0)
		return;
	if ((mkdir(base, 0755) < 0 && errno != EEXIST) || mkdir(leaf, 0755) < 0)
		return;
	if (cg_write(leaf, "cgroup.procs", "0") < 0)
		rmdir(leaf);
}

/* found once per lab process: the subtree stays */
static struct v2_base base;

static int v2_create(struct lab_cgroup *cg, const struct lab_limits *lim, const char *run)
{
	char val[64];
	int r;
	if (!base.dir[0] && (r = v2_find_base(&base, cg->why, sizeof cg->why)) < 0) {
		base.dir[0] = '\0';
		return r;
	}
	str_copy(cg->how, sizeof cg->how, base.how);
	str_copy(cg->base, sizeof cg->base, base.dir);
	if ((r = mkdir_run(cg->path[0], sizeof cg->path[0], base.dir, run)) < 0)
		return r;
	if (!lim)
		return 0; /* measuring only: a new cgroup has no limits */
	snprintf(val, sizeof val, "%llu", (unsigned long long)lim->memory);
	if ((r = cg_write(cg->path[0], "memory.max", val)) < 0)
		return r;
	cg_write(cg->path[0], "memory.swap.max", "0");
	snprintf(val, sizeof val, "%ld", lim->pids);
	if ((r = cg_write(cg->path[0], "pids.max", val)) < 0)
		return r;
	snprintf(val, sizeof val, "%ld 100000", (long)(lim->cpu * 100000));
	return base.cpu ? cg_write(cg->path[0], "cpu.max", val) : 0;
}

/* The folder itself, for clone3's CLONE_INTO_CGROUP (5.7+): the kernel
 * starts the sandbox in it. Where clone3 cannot, cgroup.procs it is (v2 has
 * no per-thread file outside threaded subtrees); the kernel checks the
 * opener's credentials, the lab's, for the move. */
static int v2_open_attach(struct lab_cgroup *cg)
{
	cg->dir_fd = open(cg->path[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return open_attach_file(cg, cg->path[0], "cgroup.procs");
}

static void v2_read(struct lab_cgroup *cg, struct lab_evidence *ev)
{
	long long v;
	if ((v = cg_read_ll(cg->path[0], "memory.peak")) >= 0) {
		ev->res.peak_mem = (uint64_t)v;
		ev->res.peak_mem_from_cgroup = true;
	}
	ev->res.mem_failcnt = cg_read_key(cg->path[0], "memory.events", "max");
	ev->res.oom_kills = cg_read_key(cg->path[0], "memory.events", "oom_kill");
	if ((v = cg_read_ll(cg->path[0], "pids.peak")) > 0)
		ev->res.peak_procs = v - 1; /* the run's init is one of them */
	ev->res.pids_max_events = cg_read_key(cg->path[0], "pids.events", "max");
	ev->res.cpu_throttled = cg_read_key(cg->path[0], "cpu.stat", "nr_throttled");
}

static void v2_kill_all(struct lab_cgroup *cg)
{
	if (cg_write(cg->path[0], "cgroup.kill", "1") < 0)
		cgroup_kill_path(cg->path[0]);
}

static void v2_destroy(struct lab_cgroup *cg)
{
	cg_rmdir_wait(cg->path[0], CG_RMDIR_MS);
}

static const struct cgroup_ops v2_ops = {"cgroup-v2", v2_create, v2_open_attach, v2_read, v2_kill_all, v2_destroy};

void cgroup_sweep(bool (*owner_gone)(const char *run))
{
	/* v1's hierarchies, v2's root (older labs made their runs there) and
	 * the v2 subtree this lab uses, if it has found one */
	const char *const hier[] = {"/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/cpu",
	                            "/sys/fs/cgroup", base.dir[0] ? base.dir : "/sys/fs/cgroup"};
	const size_t plen = strlen(CG_BASE ".");
	for (size_t i = 0; i < sizeof hier / sizeof *hier; i++) {
		DIR *d = opendir(hier[i]);
		for (struct dirent *e; d && (e = readdir(d));) {
			char p[PATH_MAX];
			if (strncmp(e->d_name, CG_BASE ".", plen) != 0 || !owner_gone(e->d_name + plen) ||
			    pathf(p, sizeof p, "%s/%s", hier[i], e->d_name) < 0 || dir_in_use(p))
				continue;
			/* whatever still runs in a dead lab's cgroup is a sandbox that
			 * outlived it: the safety net ends it now */
			if (rmdir(p) < 0 && errno == EBUSY)
				cgroup_kill_path(p);
			cg_rmdir_wait(p, CG_RMDIR_MS);
		}
		if (d)
			closedir(d);
	}
	/* leaves that labs moved themselves into (cgroup_lab_settle), of labs gone */
	DIR *d = base.dir[0] ? opendir(base.dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[PATH_MAX];
		long pid = strncmp(e->d_name, "lab-", 4) ? 0 : strtol(e->d_name + 4, NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH &&
		    pathf(p, sizeof p, "%s/%s", base.dir, e->d_name) == 0)
			rmdir(p);
	}
	if (d)
		closedir(d);
}

int cgroup_setup(struct lab_cgroup *cg, const struct lab_limits *lim, const char *run, char *why, size_t whylen)
{
	memset(cg, 0, sizeof *cg);
	const struct cgroup_ops *ops = NULL;
	if (fs_is("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC)) {
		ops = &v2_ops;
	} else if (fs_is("/sys/fs/cgroup/memory", CGROUP_SUPER_MAGIC) &&
	           fs_is("/sys/fs/cgroup/pids", CGROUP_SUPER_MAGIC) &&
	           fs_is("/sys/fs/cgroup/cpu", CGROUP_SUPER_MAGIC)) {
		ops = &v1_ops;
	} else {
		snprintf(why, whylen, "no cgroup memory/pids/cpu controllers are mounted");
		return -ENOTSUP;
	}
	for (int i = 0; i < CG_V1_COUNT; i++)
		cg->attach_fd[i] = cg->lock_fd[i] = -1;
	cg->dir_fd = -1;
	int r = ops->create(cg, lim, run);
	/* a lab in another PID namespace cannot see our pid: the lock, not
	 * the pid, tells its sweep that this cgroup's run is alive */
	for (int i = 0; r == 0 && i < CG_V1_COUNT; i++)
		if (cg->path[i][0])
			cg->lock_fd[i] = dir_lock(cg->path[i]);
	if (r == 0)
		r = ops->open_attach(cg);
	if (r < 0) {
		cg->ops = ops;
		cgroup_teardown(cg);
		if (cg->why[0])
			str_copy(why, whylen, cg->why);
		else if (geteuid())
			snprintf(why, whylen, "rootless: %s is not delegated to uid %u (%s)", ops->name,
			         (unsigned)geteuid(), strerror(-r));
		else
			snprintf(why, whylen, "%s: cannot create a cgroup here (%s)", ops->name, strerror(-r));
		return r;
	}
	cg->ops = ops;
	if (!cg->how[0])
		str_copy(cg->how, sizeof cg->how, ops->name);
	return 0;
}

void cgroup_figures(const struct lab_cgroup *cg, struct cgroup_figures *f)
{
	bool v2 = cg->ops == &v2_ops;
	const char *mem = v2 ? cg->path[0] : cg->path[CG_V1_MEMORY], *pids = v2 ? cg->path[0] : cg->path[CG_V1_PIDS];
	*f = (struct cgroup_figures){.pids_peak = -1, .mem_peak = -1, .oom_kills = -1};
	if (!cg->ops)
		return;
	f->pids_peak = cg_read_ll(pids, "pids.peak");
	f->mem_peak = cg_read_ll(mem, v2 ? "memory.peak" : "memory.max_usage_in_bytes");
	f->oom_kills =
	    v2 ? cg_read_key(mem, "memory.events", "oom_kill") : cg_read_key(mem, "memory.oom_control", "oom_kill");
	str_copy(f->mem_dir, sizeof f->mem_dir, mem);
	str_copy(f->pids_dir, sizeof f->pids_dir, pids);
}

void cgroup_close_attach(struct lab_cgroup *cg)
{
	for (int i = 0; i < cg->n_attach; i++)
		if (cg->attach_fd[i] >= 0) {
			close(cg->attach_fd[i]);
			cg->attach_fd[i] = -1;
		}
}

void cgroup_born_in(struct lab_cgroup *cg)
{
	cgroup_close_attach(cg);
	cg->n_attach = 0;
	if (cg->dir_fd > 2)
		close(cg->dir_fd);
	cg->dir_fd = -1;
	cg->born_in = true;
	str_append(cg->how, sizeof cg->how, " (the sandbox started in it: clone3 CLONE_INTO_CGROUP)");
}

void cgroup_teardown(struct lab_cgroup *cg)
{
	cgroup_close_attach(cg);
	if (cg->ops && cg->dir_fd > 2) /* a struct never set up holds zeros, not descriptors */
		close(cg->dir_fd);
	cg->dir_fd = -1;
	if (cg->ops)
		cg->ops->destroy(cg);
	for (int i = 0; cg->ops && i < CG_V1_COUNT; i++)
		if (cg->lock_fd[i] > 2) /* a struct never set up holds zeros, not descriptors */
			close(cg->lock_fd[i]);
	cg->ops = NULL;
}
