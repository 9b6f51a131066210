/* layers/isolation.c — the Isolation layer (stops host takeover).
 *
 * On: root inside maps to an unprivileged uid outside (a root lab: one of
 * the run's own, run_uid.h, unless layers.ini names one) or to the user
 * (rootless); its own UTS, IPC and cgroup namespaces; a private
 * root built by rootfs.c and pivot_root'ed into; every capability dropped
 * including the bounding set (libcap-ng); no_new_privs; the seccomp filter
 * of seccomp_filter.c. Off: the snippet keeps the lab's own uid and
 * capabilities and sees the host through the range (read-only). */
#define _GNU_SOURCE
#include "layer.h"
#include "seccomp_filter.h"
#include "util.h"

#include <cap-ng.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int isolation_plan(struct run *r, struct lab_evidence *ev)
{
	ev->host.host_visible = !run_on(r, LAYER_ISOLATION);
	if (!run_on(r, LAYER_ISOLATION))
		return 0;
	r->inside_uid = 0;
	/* the trace: refusals ask the lab, which logs and answers them. Set
	 * here, before the clone: the child loads the filter accordingly. */
	r->tr.listen = r->tr.on && r->setup.rung == RUNG_CONTAINER;
	r->tr.layer = LAYER_ISOLATION;
	r->map_uid = r->uid;
	r->map_gid = r->gid;
	r->map_why = "the user's own";
	if (!r->root_lab)
		return 0;
	/* gVisor's runsc runs its Sentry as a uid of its own choosing: no
	 * uid of the lab's is mapped on that rung */
	if (r->cfg->outside_uid != LAB_OUTSIDE_UID_AUTO || r->setup.rung == RUNG_GVISOR) {
		r->map_uid = r->map_gid = r->cfg->outside_uid == LAB_OUTSIDE_UID_AUTO ? 65534 : r->cfg->outside_uid;
		r->map_why = "[isolation] outside_uid of layers.ini";
		return 0;
	}
	if (run_uid_claim(&r->own_uid, ev->error, sizeof ev->error) < 0)
		return -1;
	r->map_uid = r->map_gid = r->own_uid.uid;
	r->map_why = "a uid of this run's own";
	return 0;
}

static void isolation_cleanup(struct run *r)
{
	run_uid_release(&r->own_uid);
}

static int isolation_prepare(struct run *r, struct lab_evidence *ev)
{
	if (!run_on(r, LAYER_ISOLATION))
		return 0;
	int e = 0;
	/* the trace also watches where writes aim, when there is a host
	 * target to aim at (a run, not exec) */
	scmp_filter_ctx f = lab_seccomp_build(r->tr.listen, r->tr.listen && spec_net_closed(&r->spec),
	                                      r->tr.listen && r->have_decoys, &e, &r->layer.isolation.n_rules);
	/* the sends that name their address in memory, where a page the
	 * child's listener handoff can use was mapped */
	if (f && r->tr.listen && r->tr.handoff &&
	    (e = lab_seccomp_watch_sends(f, (unsigned long long)(uintptr_t)r->tr.handoff)) < 0) {
		seccomp_release(f);
		f = NULL;
	}
	/* Resource-limits' watch rides in the filter with the listener */
	if (f && r->tr.listen && r->tr.watch_limits && (e = lab_seccomp_watch_limits(f)) < 0) {
		seccomp_release(f);
		f = NULL;
	}
	if (!f || (e = lab_seccomp_export(f, "containment-lab-seccomp", &r->layer.isolation.bpf_fd)) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot build the seccomp filter: %s", strerror(-e));
		return -1;
	}
	return 0;
}

static void isolation_child(struct run *r, enum run_phase ph)
{
	if (!run_on(r, LAYER_ISOLATION))
		return;
	switch (ph) {
	case PHASE_ROOT:
		/* the view itself is the spec's (rootfs_build) */
		if (sethostname(r->cfg->hostname, strlen(r->cfg->hostname)) < 0)
			run_fail(r, "sethostname", r->cfg->hostname, errno);
		break;
	case PHASE_ENTERED:
		/* after joining the run's cgroup: the snippet sees it as its root */
		if (unshare(CLONE_NEWCGROUP) < 0)
			run_fail(r, "unshare", "the cgroup namespace", errno);
		break;
	case PHASE_RESTRICT:
		/* after this nothing privileged can be done; the filter last,
		 * since the steps before it use calls it refuses */
		capng_clear(CAPNG_SELECT_ALL);
		if (capng_apply(CAPNG_SELECT_ALL) < 0)
			run_fail(r, "drop capabilities (libcap-ng)", "all, incl. the bounding set", EPERM);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			run_fail(r, "prctl", "PR_SET_NO_NEW_PRIVS", errno);
		if (r->tr.listen)
			run_load_filter_listen(r, &r->layer.isolation.prog, "Isolation's seccomp filter");
		else
			run_load_filter(r, &r->layer.isolation.prog, "Isolation's seccomp filter");
		break;
	default:
		break;
	}
}

static void isolation_describe(const struct run *r, struct lab_evidence *ev)
{
	/* an upper rung's box names its own mechanisms */
	if (!run_on(r, LAYER_ISOLATION) || r->spec.rung != RUNG_CONTAINER)
		return;
	mech_add(ev, "userns (root inside = uid %ld outside, %s)", r->map_uid, r->map_why);
	mech_add(ev, "mount ns + pivot_root (ro /usr, fresh /proc, minimal /dev, tmpfs /tmp)");
	mech_add(ev, "uts/ipc/cgroup ns");
	mech_add(ev, "caps dropped incl. bounding set (libcap-ng)");
	mech_add(ev, "no_new_privs");
	mech_add(ev, "seccomp (%d rules, foreign ABIs killed)", r->layer.isolation.n_rules);
}

/* On: a private root of the lab's, in the order rootfs.c builds it (and
 * gvisor's config.json, and the twin's bwrap flags, list it). Off: the
 * range's read-only host view, with what the naive integration exposes. */
static void isolation_spec(struct run_spec *s, const struct lab_config *cfg)
{
	const int I = LAYER_ISOLATION;
	struct spec_fs_op *op;
	if (!spec_on(s, I)) {
		spec_fs_add(s, SPEC_BY_RANGE, SPEC_FS_HOSTVIEW, NULL, "/");
		if (s->setup.exec) {
			spec_fs_add(s, SPEC_BY_RANGE, SPEC_FS_CWD, NULL, NULL)->ro = !s->setup.exec_rw;
		} else {
			spec_fs_add(s, SPEC_BY_RANGE, SPEC_FS_WORK, NULL, NULL);
			spec_fs_add(s, I, SPEC_FS_HOSTDIR, NULL, NULL);
		}
		return;
	}
	s->rung = s->setup.rung;
	s->armed[MECH_PRIVATE_ROOT] = s->armed[MECH_SECCOMP] = I;
	if (s->rung != RUNG_CONTAINER)
		s->armed[MECH_OWN_KERNEL] = I;
	s->ns |= SPEC_NS_IPC | SPEC_NS_UTS | SPEC_NS_CGROUP;
	s->caps_dropped = s->no_new_privs = s->seccomp = true;
	spec_fs_add(s, I, SPEC_FS_ROOT, NULL, "/")->size = 4 << 20;
	spec_fs_add(s, I, SPEC_FS_BIND, "/usr", "/usr")->ro = true;
	for (int i = 0; i < SPEC_TOP_DIRS; i++)
		spec_fs_add(s, I, SPEC_FS_HOST_TOP, spec_top_dirs[i], spec_top_dirs[i]);
	spec_fs_add(s, I, SPEC_FS_DIR, NULL, "/etc")->mode = 0755;
	static const char *const etc[][2] = {
	    {"/etc/passwd",
	     "root:x:0:0:sandbox root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"},
	    {"/etc/group", "root:x:0:\nnogroup:x:65534:\n"},
	    {"/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n"},
	    {"/etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files\n"},
	};
	for (size_t i = 0; i < sizeof etc / sizeof *etc; i++)
		str_copy(spec_fs_add(s, I, SPEC_FS_FILE, NULL, etc[i][0])->text, SPEC_TEXT_MAX, etc[i][1]);
	op = spec_fs_add(s, I, SPEC_FS_FILE, NULL, "/etc/hostname");
	snprintf(op->text, sizeof op->text, "%s\n", cfg->hostname);
	spec_fs_add(s, I, SPEC_FS_BIND, "/etc/ld.so.cache", "/etc/ld.so.cache")->ro = true;
	spec_fs_add(s, I, SPEC_FS_BIND, "/etc/localtime", "/etc/localtime")->ro = true;
	spec_fs_add(s, I, SPEC_FS_PROC, NULL, "/proc");
	spec_fs_add(s, I, SPEC_FS_DEV, NULL, "/dev");
	op = spec_fs_add(s, I, SPEC_FS_TMPFS, NULL, "/tmp");
	op->size = cfg->tmp_size;
	op->mode = 01777;
	spec_fs_add(s, I, SPEC_FS_DIR, NULL, "/root")->mode = 0700;
	if (s->setup.exec)
		spec_fs_add(s, I, SPEC_FS_CWD, NULL, NULL)->ro = !s->setup.exec_rw;
	else
		spec_fs_add(s, I, SPEC_FS_WORK, NULL, "/work");
}

const struct layer_ops layer_isolation_ops = {
    .clone_flags = CLONE_NEWUTS | CLONE_NEWIPC,
    .plan = isolation_plan,
    .prepare = isolation_prepare,
    .child = isolation_child,
    .describe = isolation_describe,
    .cleanup = isolation_cleanup,
    .spec = isolation_spec,
};
