/* cgroup.h — the Resource-limits layer's cgroup caps, v2 or v1 behind one
 * small table of operations (as crun does).
 * Life cycle: cgroup_setup (create + caps + open the attach files, just
 * before the clone) -> on v2, clone3 starts the sandbox in the folder
 * (CLONE_INTO_CGROUP, cgroup_born_in); elsewhere the files are passed to
 * the sandbox, which writes "0" into them -> ops->read -> cgroup_teardown. */
#ifndef LAB_CGROUP_H
#define LAB_CGROUP_H
#include "lab.h"
#include <stdbool.h>
#include <sys/types.h>

enum { CG_V1_MEMORY, CG_V1_PIDS, CG_V1_CPU, CG_V1_COUNT };

struct lab_cgroup {
	const struct cgroup_ops *ops;     /* NULL = no cgroup for this run */
	char path[CG_V1_COUNT][PATH_MAX]; /* v2 uses path[0] */
	int attach_fd[CG_V1_COUNT];       /* opened by the lab, written by the sandbox */
	int n_attach;
	int lock_fd[CG_V1_COUNT]; /* our flock on each folder: another lab's sweep leaves a live run's cgroup alone */
	int dir_fd;               /* v2: the run's folder, for clone3's CLONE_INTO_CGROUP (-1: none) */
	bool born_in;             /* the sandbox was started in it by the kernel, never outside */
	char base[PATH_MAX];      /* v2: the lab's subtree the run's folder is in */
	char how[PATH_MAX + 64];  /* for the mechanisms line: "cgroup-v2, delegated: /sys/fs/cgroup/..." */
	char why[PATH_MAX + 200]; /* why not, as create found it ("" if it did not say) */
};

struct cgroup_ops {
	const char *name; /* "cgroup-v2" / "cgroup-v1" */
	int (*create)(struct lab_cgroup *cg, const struct lab_limits *lim, const char *run_name);
	/* Opens the files through which init moves itself in (see cgroup.c). */
	int (*open_attach)(struct lab_cgroup *cg);
	void (*read)(struct lab_cgroup *cg, struct lab_evidence *ev);
	void (*kill_all)(struct lab_cgroup *cg);
	void (*destroy)(struct lab_cgroup *cg);
};

/* Picks v2 (controllers available to us) or v1 (memory+pids+cpu mounted and
 * writable) and creates the run's cgroup with the caps. 0, or -errno with a
 * reason in why (the caller then relies on rlimits alone). lim NULL: a
 * measuring cgroup, with no limits at all (audit's, around a wrapper). */
int cgroup_setup(struct lab_cgroup *cg, const struct lab_limits *lim, const char *run_name, char *why, size_t whylen);
void cgroup_teardown(struct lab_cgroup *cg);
/* Rootless on cgroup v2, once, while the lab is one process: when its own
 * cgroup is delegated to the user and holds only the lab (systemd-run
 * --user --scope -p Delegate=yes, or a user@UID.service it was started in),
 * the lab moves itself into a leaf of its subtree (OWN/containment-lab/
 * lab-PID), so that OWN may hand the controllers down to the runs ("no
 * internal processes"). Nothing otherwise. */
void cgroup_lab_settle(void);
void cgroup_close_attach(struct lab_cgroup *cg);
/* clone3 started the sandbox in the run's v2 cgroup: nothing to move in
 * any more (the attach files and the folder's descriptor are closed), and
 * the mechanisms line says so. */
void cgroup_born_in(struct lab_cgroup *cg);
/* What a cgroup counted, as its limits count: the most tasks at once
 * (pids.peak, the cgroup's own processes included), the most memory it
 * was charged, the OOM kills in it; -1 where it does not say. */
struct cgroup_figures {
	long long pids_peak, mem_peak, oom_kills;
	char mem_dir[PATH_MAX], pids_dir[PATH_MAX]; /* where, for /proc/PID/cgroup */
};
void cgroup_figures(const struct lab_cgroup *cg, struct cgroup_figures *f);
/* Removes the cgroups of runs whose lab is gone (owner_gone is asked with
 * the RUN part of the name), ending anything still running in them. */
void cgroup_sweep(bool (*owner_gone)(const char *run));
/* SIGKILLs every process listed in DIR/cgroup.procs until none is left. */
void cgroup_kill_path(const char *dir);
#endif
