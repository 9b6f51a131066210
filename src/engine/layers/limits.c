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
#include "layer.h"
#include "limits_watch.h"
#include "seccomp_filter.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The watch (limits_watch.h): where the trace has a listener on the
 * host's kernel (the container rung), for a run (exec has no verdict to
 * feed), the listener's filter also stops the calls where the caps meet
 * the run. A process has one filter with a listener: Isolation's or
 * No-network's carries the watch's rules when there is one (their plans
 * ran first), else the layer loads a filter of its own. */
static int limits_plan(struct run *r, struct lab_evidence *ev)
{
	(void)ev;
	if (!run_on(r, LAYER_LIMITS) || !r->tr.on || r->spec.rung != RUNG_CONTAINER || r->kind != RUN_SNIPPET)
		return 0;
	r->tr.watch_limits = true;
	r->tr.watch = limits_watch_call;
	if (!r->tr.listen) {
		r->tr.listen = true;
		r->tr.layer = LAYER_LIMITS;
	}
	return 0;
}

static int limits_prepare(struct run *r, struct lab_evidence *ev)
{
	if (!r->tr.listen || r->tr.layer != LAYER_LIMITS)
		return 0;
	int e = 0;
	scmp_filter_ctx f = lab_seccomp_build_limits(&e);
	if (!f || (e = lab_seccomp_export(f, "containment-lab-seccomp-limits", &r->layer.limits.bpf_fd)) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot build Resource-limits' watch (seccomp): %s",
		         strerror(-e));
		return -1;
	}
	return 0;
}

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
	if (cgroup_setup(&r->layer.limits.cg, &r->cfg->limits, name, r->layer.limits.cg_why,
	                 sizeof r->layer.limits.cg_why) < 0)
		r->layer.limits.cg.ops = NULL;
	ev->res.cgroup_used = r->layer.limits.cg.ops != NULL;
	return 0;
}

/* The container box's rendering of the spec's rlimits (limits_spec):
 * right before execve, in the snippet's own process. */
static void limits_child(struct run *r, enum run_phase ph)
{
	/* the watch's own filter, while we still hold the privilege to load
	 * one without no_new_privs (as No-network's) */
	if (ph == PHASE_FDS && r->layer.limits.prog.filter)
		run_load_filter_listen(r, &r->layer.limits.prog, "Resource-limits' watch (seccomp)");
	if (ph != PHASE_LAST)
		return;
	for (int i = 0; i < r->spec.n_rl; i++) {
		const struct spec_rlimit *l = &r->spec.rl[i];
		if (setrlimit(l->resource, &(struct rlimit){l->soft, l->hard}) < 0)
			run_fail(r, "setrlimit", l->name, errno);
	}
}

static void limits_gather(struct run *r, struct lab_evidence *ev)
{
	if (r->layer.limits.cg.ops && r->kind != RUN_EXEC) /* exec has no verdict to feed */
		r->layer.limits.cg.ops->read(&r->layer.limits.cg, ev);
}

static void limits_describe(const struct run *r, struct lab_evidence *ev)
{
	if (!run_on(r, LAYER_LIMITS))
		return;
	if (r->layer.limits.cg.ops)
		mech_add(ev, "%s", r->layer.limits.cg.how);
	else
		mech_add(ev, "rlimits-only (%s)", r->layer.limits.cg_why[0] ? r->layer.limits.cg_why : "no cgroup");
	/* the rest as the spec has it: what runs is what is said */
	char names[96] = "", size[32];
	for (int i = 0; i < r->spec.n_rl; i++)
		str_append(names, sizeof names, "%s%s", i ? ", " : "", r->spec.rl[i].name + strlen("RLIMIT_"));
	if (names[0])
		mech_add(ev, "rlimits (%s)", names);
	if (r->spec.timeout_ms > 0)
		mech_add(ev, "wall-clock timeout (%.1f s)", r->spec.timeout_ms / 1000.0);
	if (r->spec.output > 0) {
		fmt_bytes(size, sizeof size, r->spec.output);
		mech_add(ev, "output cap (%s)", size);
	}
	if (r->tr.watch_limits && r->tr.watched)
		mech_add(ev, "a watch on new tasks, waits and mappings of 1 MiB or more (seccomp notifications, each "
		             "answered by the kernel)");
}

static void limits_cleanup(struct run *r)
{
	cgroup_teardown(&r->layer.limits.cg);
}

/* On: the cgroup's caps, the rlimits (hard = soft; CPU's hard a second
 * later: SIGXCPU first), the layer's wall clock and output cap. */
static void limits_spec(struct run_spec *s, const struct lab_config *cfg)
{
	const struct lab_limits *l = &cfg->limits;
	if (!spec_on(s, LAYER_LIMITS))
		return;
	s->cgroup = true;
	s->cg_memory = l->memory;
	s->cg_pids = l->pids;
	s->cg_cpu = l->cpu;
	spec_rlimit_add(s, RLIMIT_AS, "RLIMIT_AS", "as", l->memory, l->memory);
	spec_rlimit_add(s, RLIMIT_NPROC, "RLIMIT_NPROC", "nproc", (unsigned long long)l->pids,
	                (unsigned long long)l->pids);
	spec_rlimit_add(s, RLIMIT_CPU, "RLIMIT_CPU", "cpu", (unsigned long long)l->cpu_time,
	                (unsigned long long)l->cpu_time + 1);
	spec_rlimit_add(s, RLIMIT_FSIZE, "RLIMIT_FSIZE", "fsize", l->file_size, l->file_size);
	spec_rlimit_add(s, RLIMIT_NOFILE, "RLIMIT_NOFILE", "nofile", (unsigned long long)l->open_files,
	                (unsigned long long)l->open_files);
	spec_rlimit_add(s, RLIMIT_CORE, "RLIMIT_CORE", "core", 0, 0);
	s->timeout_ms = l->timeout_ms;
	s->output = l->output;
	s->armed[MECH_WALL_CLOCK] = s->armed[MECH_CPU_RLIMIT] = s->armed[MECH_CAPS] = LAYER_LIMITS;
}

const struct layer_ops layer_limits_ops = {
    .plan = limits_plan,
    .place = limits_place,
    .prepare = limits_prepare,
    .child = limits_child,
    .gather = limits_gather,
    .describe = limits_describe,
    .cleanup = limits_cleanup,
    .spec = limits_spec,
};
