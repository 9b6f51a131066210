/* cgroup.c — per-run cgroups for the Resource-limits layer.
 *
 * v2 is used where this process may create a cgroup whose parent offers the
 * memory, pids and cpu controllers (a root lab on a pure-v2 host). v1 is used
 * where those controllers are mounted as v1 hierarchies and writable (root on
 * hybrid hosts like this one). Otherwise there is no cgroup and the layer
 * rests on rlimits; the run's mechanisms say so.
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
	snprintf(val, sizeof val, "%llu", (unsigned long long)lim->memory);
	if ((r = cg_write(cg->path[CG_V1_MEMORY], "memory.limit_in_bytes", val)) < 0)
		return r;
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
		ev->peak_mem = (uint64_t)v;
		ev->peak_mem_from_cgroup = true;
	}
	ev->mem_failcnt = cg_read_ll(cg->path[CG_V1_MEMORY], "memory.failcnt");
	ev->oom_kills = cg_read_key(cg->path[CG_V1_MEMORY], "memory.oom_control", "oom_kill");
	if ((v = cg_read_ll(cg->path[CG_V1_PIDS], "pids.peak")) > 0)
		ev->peak_procs = v - 1; /* the run's init is one of them */
	ev->pids_max_events = cg_read_key(cg->path[CG_V1_PIDS], "pids.events", "max");
	ev->cpu_throttled = cg_read_key(cg->path[CG_V1_CPU], "cpu.stat", "nr_throttled");
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
		for (int t = 0; t < 100 && rmdir(cg->path[i]) < 0 && errno == EBUSY; t++)
			usleep(1000);
	}
}

static const struct cgroup_ops v1_ops = {"cgroup-v1", v1_create, v1_open_attach, v1_read, v1_kill_all, v1_destroy};

/* ---- v2 ---- */
static int v2_create(struct lab_cgroup *cg, const struct lab_limits *lim, const char *run)
{
	char val[64];
	int r;
	/* Our parent folder must delegate the controllers to its children. */
	if ((r = cg_write("/sys/fs/cgroup", "cgroup.subtree_control", "+memory +pids +cpu")) < 0)
		return r;
	if ((r = mkdir_run(cg->path[0], sizeof cg->path[0], "/sys/fs/cgroup", run)) < 0)
		return r;
	snprintf(val, sizeof val, "%llu", (unsigned long long)lim->memory);
	if ((r = cg_write(cg->path[0], "memory.max", val)) < 0)
		return r;
	cg_write(cg->path[0], "memory.swap.max", "0");
	snprintf(val, sizeof val, "%ld", lim->pids);
	if ((r = cg_write(cg->path[0], "pids.max", val)) < 0)
		return r;
	snprintf(val, sizeof val, "%ld 100000", (long)(lim->cpu * 100000));
	return cg_write(cg->path[0], "cpu.max", val);
}

/* v2 has no per-thread file outside threaded subtrees: cgroup.procs it is
 * (clone3's CLONE_INTO_CGROUP would avoid the move; not done yet). */
static int v2_open_attach(struct lab_cgroup *cg)
{
	return open_attach_file(cg, cg->path[0], "cgroup.procs");
}

static void v2_read(struct lab_cgroup *cg, struct lab_evidence *ev)
{
	long long v;
	if ((v = cg_read_ll(cg->path[0], "memory.peak")) >= 0) {
		ev->peak_mem = (uint64_t)v;
		ev->peak_mem_from_cgroup = true;
	}
	ev->mem_failcnt = cg_read_key(cg->path[0], "memory.events", "max");
	ev->oom_kills = cg_read_key(cg->path[0], "memory.events", "oom_kill");
	if ((v = cg_read_ll(cg->path[0], "pids.peak")) > 0)
		ev->peak_procs = v - 1; /* the run's init is one of them */
	ev->pids_max_events = cg_read_key(cg->path[0], "pids.events", "max");
	ev->cpu_throttled = cg_read_key(cg->path[0], "cpu.stat", "nr_throttled");
}

static void v2_kill_all(struct lab_cgroup *cg)
{
	if (cg_write(cg->path[0], "cgroup.kill", "1") < 0)
		cgroup_kill_path(cg->path[0]);
}

static void v2_destroy(struct lab_cgroup *cg)
{
	for (int t = 0; t < 100 && rmdir(cg->path[0]) < 0 && errno == EBUSY; t++)
		usleep(1000);
}

static const struct cgroup_ops v2_ops = {"cgroup-v2", v2_create, v2_open_attach, v2_read, v2_kill_all, v2_destroy};

static bool fs_is(const char *path, long magic)
{
	struct statfs sf;
	return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

static bool v2_has_controllers(void)
{
	char *s = read_file("/sys/fs/cgroup/cgroup.controllers", NULL, 4096);
	bool ok = s && strstr(s, "memory") && strstr(s, "pids") && strstr(s, "cpu");
	free(s);
	return ok;
}

void cgroup_sweep(bool (*owner_gone)(const char *run))
{
	static const char *const hier[] = {"/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/cpu",
	                                   "/sys/fs/cgroup"};
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
			for (int t = 0; t < 50 && rmdir(p) < 0 && errno == EBUSY; t++)
				usleep(1000);
		}
		if (d)
			closedir(d);
	}
}

int cgroup_setup(struct lab_cgroup *cg, const struct lab_limits *lim, const char *run, char *why, size_t whylen)
{
	memset(cg, 0, sizeof *cg);
	const struct cgroup_ops *ops = NULL;
	if (fs_is("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC)) {
		if (!v2_has_controllers()) {
			snprintf(why, whylen, "cgroup v2 offers no memory/pids/cpu controllers here");
			return -ENOTSUP;
		}
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
		snprintf(why, whylen, "%s: cannot create a cgroup here (%s)%s", ops->name, strerror(-r),
		         geteuid() ? ": not delegated to this user" : "");
		return r;
	}
	cg->ops = ops;
	return 0;
}

void cgroup_close_attach(struct lab_cgroup *cg)
{
	for (int i = 0; i < cg->n_attach; i++)
		if (cg->attach_fd[i] >= 0) {
			close(cg->attach_fd[i]);
			cg->attach_fd[i] = -1;
		}
}

void cgroup_teardown(struct lab_cgroup *cg)
{
	cgroup_close_attach(cg);
	if (cg->ops)
		cg->ops->destroy(cg);
	for (int i = 0; cg->ops && i < CG_V1_COUNT; i++)
		if (cg->lock_fd[i] > 2) /* a struct never set up holds zeros, not descriptors */
			close(cg->lock_fd[i]);
	cg->ops = NULL;
}
