/* box.h — what contains the snippet. The four layers shape a run; the box
 * is how the run is contained and how it is observed. One file per box,
 * each a struct box_ops: the isolation ladder's rungs, a namespace
 * container on the host kernel (box_container.c), gVisor's runsc
 * (box_gvisor.c) and a QEMU microvm with its own kernel (box_microvm.c),
 * and audit's foreign sandbox run by its command prefix (box_wrapper.c);
 * box.c picks one for a run.
 *
 * The box always adds the range (docs/layers.md, "The range"): whatever
 * the layers, the run has its own user, PID and mount namespaces, a new
 * session, and a minimal init as PID 1 that forwards signals and reports
 * the snippet's status, so the run cannot signal, stop or outlive the lab. */
#ifndef LAB_BOX_H
#define LAB_BOX_H

#include "run.h"

struct box_sample {
	long procs; /* tasks: each thread counts, as pids.max and RLIMIT_NPROC count them */
	uint64_t mem;
	uint64_t vm_peak;
	int unseen; /* shared memory objects mapped whose pages the sum cannot see */
};

struct box_ops {
	const char *name;   /* "container" */
	const char *kernel; /* who answers the snippet's system calls */
	/* The snippet starts late (a VM boots first): the box reports "T"
	 * when it does, and the layer's wall clock and the duration count
	 * from there. The safety net counts from the start, whatever. */
	bool late_start;
	/* Starts the snippet and hands it "go": on success r->child_pid,
	 * r->pidfd, r->rep[0] and (a run, not exec) r->out[0] are set.
	 * 0, or -1 with ev->error filled (nothing is left running then). */
	int (*start)(struct run *r, struct lab_evidence *ev);
	/* Ends every process of the run; safe to call twice. Soft: the init
	 * ends the rest and reports, so their CPU time is counted; the caller
	 * waits a little, then asks again, hard. */
	void (*kill)(struct run *r, bool hard);
	/* What the lab can see of the run from outside without a cgroup:
	 * its processes and, when asked, its memory (the run's total: each
	 * process's proportional share plus its private tmpfs), and the
	 * largest address space of one process. */
	void (*sample)(const struct run *r, bool memory, struct box_sample *out);
	/* After the run: which kernel served the snippet (snippet_on_host,
	 * kernel_release, kernel_boot_id) and anything else only this box
	 * can see. */
	void (*observe)(struct run *r, struct lab_evidence *ev);
	/* The range as this box built it, for the mechanisms line (mech_add). */
	void (*describe)(const struct run *r, struct lab_evidence *ev);
	/* How long a soft kill gives the init to end the rest before the hard
	 * one (0: the lab's usual grace). */
	long kill_grace_ms;
	/* PID 1 as the host sees it: "init", or the VM's "supervisor". */
	const char *pid1;
	/* The snippet's exit status is its own kernel's word (a guest's): no
	 * host process can signal the snippet, only end the box. */
	bool guest_status;
	/* Refused calls come from the lab's own filter listener on the host
	 * (trace.c); elsewhere the box reports them itself, or cannot. */
	bool host_filter;
	/* The run always has a user namespace of its own, as root too: a
	 * sender's uid is seen through the run's id map. */
	bool own_userns;
};

/* Helpers the boxes share (box_common.c). */
/* Writes the child's uid_map and gid_map ("IN OUT 1"), after denying
 * setgroups when asked (an unprivileged writer must). 0, or -1 with
 * ev->error naming the file. */
int box_write_id_maps(const struct run *r, unsigned in_uid, long out_uid, unsigned in_gid, long out_gid,
                      bool deny_setgroups, struct lab_evidence *ev);
/* A soft kill: asks the run's init, from outside its namespace, to end
 * and reap everything else (see child_init_and_exec). true when asked. */
bool box_ask_init_to_end(const struct run *r);
/* The first steps of every box's child, right after the clone: the
 * worker's handlers back to default with every signal blocked (the init
 * waits for them with sigwaitinfo, the command unblocks), the lab's ends
 * closed (lab_sync_end is the lab's end of the box's sync pair), and the
 * death signal armed: if the lab dies, the run dies. */
void box_child_begin(struct run *r, int lab_sync_end);
/* Waits for the lab's one byte on the child's end of the sync pair (its
 * maps are written), then closes it. */
void box_child_await_lab(struct run *r, int child_sync_end);
/* If the lab dies, the run dies: PR_SET_PDEATHSIG, armed again after
 * every change of ids (which clears it). */
void box_child_arm_death_signal(struct run *r);
/* The range's own session keyring: with Isolation off the snippet could
 * otherwise read and add to the caller's (a login's keys, tickets), which
 * outlives the run. After the ids are taken, so it is the run's uid's. */
void box_child_own_keyring(struct run *r);
/* A /proc of the run's own PID namespace, in a mount namespace of its own
 * (tools read /proc/self; runsc re-executes /proc/self/exe). */
void box_child_fresh_proc(struct run *r);

/* PID 1 of a run, shared by the boxes' inits: the kernel drops signals
 * PID 1 has no handler for, so the init installs one for every signal,
 * waits for them (all blocked by the caller before it forked `main`),
 * forwards what it is sent to `main`, takes the lab's queued SIGTERM (from
 * `lab_as`: 0 when the lab is outside the namespace) as "end the rest and
 * stay to reap", and calls finish() once `main` is reaped. */
struct box_init {
	pid_t main;
	pid_t lab_as;
	bool keep_stdio;  /* the caller's terminal is the command's */
	bool ipc_report;  /* say "M BYTES" when the run's IPC memory no process maps changes (box_container.c) */
	bool sock_report; /* ...and its sockets' buffers: the init is in the run's own network namespace */
	bool cpu_report;  /* say "U MS", main's own CPU, before reaping it: main is the snippet itself */
	void (*end_rest)(struct run *r);                      /* everything but the init (PID 1's kill(-1)) */
	void (*reaped)(pid_t pid, void *ctx);                 /* another child of the init ended (optional) */
	void (*finish)(struct run *r, int status, void *ctx); /* must not return */
	void *ctx;
};
void __attribute__((noreturn)) box_init_loop(struct run *r, const struct box_init *bi, const sigset_t *all);

/* The lab's side right after the clone: keeps the init's pid and a pidfd,
 * closes the child's ends (its end of the sync pair, the report and
 * output pipes' write ends). */
void box_after_clone(struct run *r, pid_t pid, int *child_sync_end);

extern const struct box_ops box_container, box_gvisor, box_microvm, box_wrapper;

/* The sampler of a box whose run is a tree of host processes below
 * r->child_pid (box_container.c): how many there are and, when asked, their
 * memory (proportional shares, memfds once each, and with private_tmp the
 * files in the init's own /tmp and /dev/shm). */
void box_sample_tree(const struct run *r, bool memory, bool private_tmp, struct box_sample *out);
/* A process's proportional share of the memory it maps (smaps_rollup's
 * Pss), in bytes; 0 when it is gone */
uint64_t box_pss(pid_t pid);

/* The box for a run: the Isolation layer's rung when it is on; with it
 * off every rung is the same container (the range, no Isolation). In box.c. */
const struct box_ops *box_for(const struct run_spec *s);

/* lab_rung_ready's answers for the upper rungs (lab.h). */
bool gvisor_ready(char *why, size_t cap);
bool microvm_ready(const struct lab_config *cfg, char *why, size_t cap);

#endif
