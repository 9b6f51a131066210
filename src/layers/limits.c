/* layers/limits.c — the Resource-limits layer (stops resource bombs).
 *
 * On: the run's cgroup (v2 in the lab's subtree, or a subtree delegated to
 * a rootless user; v1 where the controllers live there; see cgroup.c) with
 * memory, pids and CPU caps,
 * the sandbox started in it (v2) or moved in before the snippet exists; rlimits (AS, NPROC, CPU, FSIZE, NOFILE,
 * CORE) with hard = soft, set last so nothing of ours runs under them; and
 * the layer's wall clock and output cap, which run.c enforces. Off: none of
 * it. The lab's own safety net (run.c) is not part of this layer. */
#define _GNU_SOURCE
#include "../layer.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Before the clone, so that the kernel can start the sandbox in it (v2,
 * clone3's CLONE_INTO_CGROUP: box_container.c); v1, or a kernel without
 * it, has the sandbox move itself in through the attach files. */
static int limits_place(struct run *r, struct lab_evidence *ev)
{
	if (!run_on(r, LAYER_LIMITS))
		return 0;
	/* rootless too: a v2 subtree delegated to the user is used (cgroup.c) */
	char name[64];
	static unsigned seq;
	snprintf(name, sizeof name, "run-%d-%u", getpid(), seq++);
	if (cgroup_setup(&r->cg, &r->cfg->limits, name, r->cg_why, sizeof r->cg_why) < 0)
		r->cg.ops = NULL;
	ev->cgroup_used = r->cg.ops != NULL;
	return 0;
}

static void set_rlimit(struct run *r, int res, rlim_t v, const char *what)
{
	struct rlimit rl = {v, v}; /* hard = soft: the snippet cannot raise them */
	/* CPU: SIGXCPU at the cap is the evidence that this limit fired; the
	 * hard limit a second later kills a snippet that ignores it */
	if (res == RLIMIT_CPU)
		rl.rlim_max = v + 1;
	if (setrlimit(res, &rl) < 0)
		run_fail(r, "setrlimit", what, errno);
}

static void limits_child(struct run *r, enum run_phase ph)
{
	if (ph != PHASE_LAST || !run_on(r, LAYER_LIMITS))
		return;
	const struct lab_limits *lim = &r->cfg->limits;
	set_rlimit(r, RLIMIT_AS, lim->memory, "RLIMIT_AS");
	set_rlimit(r, RLIMIT_NPROC, (rlim_t)lim->pids, "RLIMIT_NPROC");
	set_rlimit(r, RLIMIT_CPU, (rlim_t)lim->cpu_time, "RLIMIT_CPU");
	set_rlimit(r, RLIMIT_FSIZE, lim->file_size, "RLIMIT_FSIZE");
	set_rlimit(r, RLIMIT_NOFILE, (rlim_t)lim->open_files, "RLIMIT_NOFILE");
	set_rlimit(r, RLIMIT_CORE, 0, "RLIMIT_CORE");
}

static void limits_gather(struct run *r, struct lab_evidence *ev)
{
	if (r->cg.ops && !r->exec_mode) /* exec has no verdict to feed */
		r->cg.ops->read(&r->cg, ev);
}

static void limits_describe(const struct run *r, struct lab_evidence *ev)
{
	if (!run_on(r, LAYER_LIMITS))
		return;
	if (r->cg.ops)
		run_mech_add(ev, "%s", r->cg.how);
	else
		run_mech_add(ev, "rlimits-only (%s)", r->cg_why[0] ? r->cg_why : "no cgroup");
	run_mech_add(ev, "rlimits (AS, NPROC, CPU, FSIZE, NOFILE)");
	run_mech_add(ev, "wall-clock timeout");
	run_mech_add(ev, "output cap");
}

static void limits_cleanup(struct run *r)
{
	cgroup_teardown(&r->cg);
}

const struct layer_ops layer_limits_ops = {
    .place = limits_place,
    .child = limits_child,
    .gather = limits_gather,
    .describe = limits_describe,
    .cleanup = limits_cleanup,
};
