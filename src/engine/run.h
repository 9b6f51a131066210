/* run.h — the state of one run, shared by the box that contains it and the
 * layers that shape it. Internal to the engine: callers use lab.h.
 *
 * Life cycle of a run (run.c):
 *   run_init -> layers' plan (parent, before the box starts: namespaces,
 *   decoys' view, environment) -> box start (clone; the child walks its list
 *   of steps, calling each layer at each phase) -> layers' prepare (parent,
 *   while the child builds its root) -> go -> event loop -> layers' gather
 *   -> describe -> run_cleanup.
 *
 * Two error regimes, as in minijail: the parent returns -1 with ev->error
 * filled and unwinds; the child cannot undo what it did, so every failure
 * goes to the lab over the report pipe (run_fail) and the child exits with
 * the reserved code 125. */
#ifndef LAB_RUN_H
#define LAB_RUN_H

#include "cgroup.h"
#include "decoy.h"
#include "egress.h"
#include "evidence.h" /* mech_add */
#include "lab.h"
#include "run_uid.h"
#include "spec.h"
#include "termpty.h"
#include "tools.h"
#include "trace_state.h"

#include <linux/filter.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The steps of the child, in order. Each layer acts at the phases it
 * cares about; see box_container.c for why this order. */
enum run_phase {
	PHASE_ROOT,     /* in the new mount namespace, before "go": build the view */
	PHASE_ENTERED,  /* after "go": in the cgroup, before any descriptor work */
	PHASE_FDS,      /* descriptors the snippet will inherit */
	PHASE_RESTRICT, /* session, capabilities, no_new_privs, filters */
	PHASE_LAST,     /* right before execve: nothing of ours runs after */
};

#define RUN_GO_FDS 8 /* descriptors that "go" may carry */

/* What a run is: a snippet under the lab's layers (`run`, the matrix, the
 * screen), a command of the caller's (`exec`: its stdio and folder, no
 * decoys, no verdict), or a snippet through a foreign sandbox's prefix
 * (`audit`, box_wrapper.c). */
enum run_kind { RUN_SNIPPET, RUN_EXEC, RUN_AUDIT };

struct run {
	const struct lab_config *cfg;
	/* the run's choices beside layers.ini (config.h): its layers, rung,
	 * No-network's mode, the gate; exec and --rw for an exec */
	struct lab_setup setup;
	enum run_kind kind;
	/* what the layers asked for, as data (spec.h): built by
	 * run_layers_plan, rendered by the box; and this host's facts */
	struct run_spec spec;
	struct spec_host host;
	bool outside_range; /* audit: the wrapper runs without the range's namespaces (box_wrapper.c) */
	bool root_lab;
	uid_t uid;
	gid_t gid;
	uid_t inside_uid;       /* what the snippet is inside */
	long map_uid, map_gid;  /* outside ids of the sandbox */
	const char *map_why;    /* why those: "a uid of this run's own", "the user's own" */
	struct run_uid own_uid; /* a root lab's claim on map_uid (run_uid.h) */
	bool have_decoys;
	struct lab_decoys d;
	char inside_dir[PATH_MAX]; /* the run folder as the snippet sees it (Isolation off) */
	int home_tree;             /* the decoy home, kept for the range (Clean-env off) */
	/* the range's host folder, a tmpfs of the run's own (never on the
	 * real disk, so nothing planted there can be run from outside):
	 * the lab's handle to it, sent by the child ('h'), kept past the
	 * run's end so the evidence can be read from it */
	int host_fd;
	int work_tree; /* the work folder, taken before the child drops the lab's uid (run.c) */
	int slot_fd;   /* one of the machine's run slots, flock()ed (run_slot.h), -1 if none */
	/* each layer's own state for this run, written by its file in
	 * layers/ (the boxes read what they render: the filters, the
	 * environment, the cgroup) */
	struct {
		struct {
			int n_rules;            /* in its filter, for the record */
			int bpf_fd;             /* its compiled filter (memfd) */
			struct sock_fprog prog; /* child: the filter, read in */
		} isolation;
		struct {
			bool netns;             /* a network namespace of the run's own, with no interface */
			int bpf_fd;             /* its own filter (memfd) */
			struct sock_fprog prog; /* child: the filter, read in */
		} network;
		struct {
			char **envp; /* what the snippet gets */
			int n_env;
		} env;
		struct {
			struct lab_cgroup cg;
			char cg_why[PATH_MAX + 200]; /* why there is none, when there is none */
			int bpf_fd; /* its watch in a filter of its own (memfd), when no other holds the listener */
			struct sock_fprog prog; /* child: that filter, read in */
		} limits;
	} layer;
	struct trace_state tr; /* the trace's listener and its calls (trace_state.h; trace.c's own) */
	char *argv[16];
	char audit_proof[24]; /* audit: the word each attack turns into its proof of attempt */
	int end_cookie;       /* in the lab's "end the run" signal: a process inside can forge the rest */
	char *const *user_argv;
	char cwd[PATH_MAX];
	int cwd_tree;                     /* root lab, exec: a detached copy of the cwd mount */
	char workdir[PATH_MAX];           /* where the snippet starts */
	char snippet_path[PATH_MAX + 32]; /* the snippet as it sees it */
	char app_path[PATH_MAX + 32];     /* in-process: the app server as it sees it (inprocess.h) */
	char app_token[48];               /* in-process: the app's session token, "" otherwise */
	int sync[2], rep[2], out[2];
	pid_t child_pid;
	int pidfd;
	void *box_priv;          /* the box's own state for this run (box_gvisor.c) */
	struct term term;        /* exec: the lab's pty in place of the caller's terminal (termpty.h) */
	struct egress eg;        /* the small internet, and No-network's allow-list proxy (egress.h) */
	struct tools_door tools; /* lab:tools: the tool door and its gate (tools.h) */
};

static inline bool run_on(const struct run *r, enum lab_layer l)
{
	return (r->setup.layers & LAYER_BIT(l)) != 0;
}

/* No-network is on with its allow-list: the proxy is the sandbox's door. */
static inline bool run_allowlist(const struct run *r)
{
	return run_on(r, LAYER_NETWORK) && r->setup.net_mode == NET_MODE_ALLOWLIST;
}

/* ---- child side (never return on failure; child.c) ---- */
/* Reports "stage: what: strerror(err)" to the lab and exits 125. */
void __attribute__((noreturn)) run_fail(struct run *r, const char *stage, const char *what, int err);
/* A line for the lab over the report pipe ("P 101", "S 9"). */
void run_report(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void run_load_filter(struct run *r, struct sock_fprog *prog, const char *which);
/* Loads a filter whose refusals ask a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER),
 * hands the listener to the lab over the sync socket and closes our copy:
 * nothing in the sandbox may hold it, or it could answer its own calls. */
void run_load_filter_listen(struct run *r, struct sock_fprog *prog, const char *which);

/* ---- parent side ---- */
/* Every layer's hook at one point of the run, in table order. */
int run_layers_plan(struct run *r, struct lab_evidence *ev);
int run_layers_place(struct run *r, struct lab_evidence *ev);
int run_layers_prepare(struct run *r, struct lab_evidence *ev);
void run_layers_child(struct run *r, enum run_phase ph);
void run_layers_gather(struct run *r, struct lab_evidence *ev);
void run_layers_describe(const struct run *r, struct lab_evidence *ev);
void run_layers_cleanup(struct run *r);
unsigned long run_layers_clone_flags(const struct run *r);

/* ---- the views the child builds (rootfs.c) ---- */
/* The view r->spec asks for, step by step: Isolation's fresh tmpfs root
 * with only what the interpreter needs (then rootfs_pivot into it), or the
 * range's (Isolation off): the host's view, read-only and locked
 * (rootfs_lock_range), with private /tmp and /dev/shm, the real homes
 * hidden, the run folder back; and what the layers add (Clean-env off:
 * the credentials). */
void rootfs_build(struct run *r);
void rootfs_pivot(struct run *r);
void rootfs_lock_range(struct run *r);
/* Helpers the layers use inside the new root. */
void rootfs_bind(struct run *r, const char *src, const char *root, const char *dst, bool ro);
/* Mounts a tree taken with open_tree() at path (closing it). */
void rootfs_attach(struct run *r, int tree, const char *path, bool ro);

#endif
