/* lab.h — the engine's public face: layers, snippets, config, one run, its result.
 *
 * Life cycle of a run (see run.c):
 *   config_load -> snippet_load -> lab_run (plant decoys, let the layers
 *   (layer.h, src/engine/layers/) plan, start the box (box.h) inside the
 *   range, gather evidence outside, tear everything down)
 *   -> lab_judge (judge.h, src/judge/judge.c), which the caller calls after
 *   lab_run: the verdict from the evidence -> report_* (report.h).
 * Nothing here knows about curses. The TUI and `matrix` run cells through
 * job.h so that a slow snippet never blocks them. */
#ifndef LAB_H
#define LAB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"   /* layers, rungs, network modes by name */
#include "snippet.h" /* enum lab_threat, struct snippet */

#define LAB_VERSION "0.1.0"

enum lab_verdict {
	VERDICT_RAN_OK,
	VERDICT_FAILED,
	VERDICT_CONTAINED,
	VERDICT_ESCAPED,
	VERDICT_ERROR,
	VERDICT_BROKE, /* the attack failed by itself: no layer takes credit */
	VERDICT_COUNT
};

#include "config.h"

/* ---- evidence and result ---- */
#define LAB_EVIDENCE_MAX 12
#define LAB_LINE         320

/* The trace: the calls of a run that mattered and what answered them, as
 * the lab saw them from outside (trace.c). Calls refused by Isolation's
 * seccomp filter come from its user-notification listener, each with its
 * decoded arguments; forks refused by pids.max and the signal or clock that
 * ended the run come from the lab's own counters after the run. Identical
 * calls are one entry with a count; past LAB_TRACE_MAX entries the rest are
 * only counted (dropped), so a snippet that loops cannot grow it. The
 * screen draws lab_trace_line() of each entry, then the note if any. The
 * verdict decides on the trace's counts of what the snippet tried
 * (attempts, below), kept whatever the cap on entries, and only quotes its
 * lines. */
#define LAB_TRACE_MAX 24
struct lab_trace_entry {
	char call[128];  /* "unshare(CLONE_NEWUSER)", "fork()", "killed by SIGXCPU" */
	char answer[32]; /* "-1 EPERM"; "" when it is not a call (a signal) */
	char by[96];     /* what answered and its layer: "seccomp (Isolation)", "pids.max 32 (Resource-limits)" */
	long count;      /* times it happened (>= 1) */
};
struct lab_trace {
	struct lab_trace_entry e[LAB_TRACE_MAX];
	int n;
	long dropped;   /* calls past the cap, counted but not listed */
	char note[128]; /* why refused calls cannot be listed ("not available on the gvisor rung"), or "" */
	/* attempts: what the listener saw the snippet try and what met it.
	 * A count is only evidence where its listener watched (watch_*):
	 * elsewhere 0 means "not seen", never "not tried" */
	bool watch_net;      /* a filter's listener watched connect(), and sendto(), sendmsg() and sendmmsg()
	                        with an address (any filter of the lab's) */
	bool watch_iso;      /* Isolation's filter's listener: its refusals, and writes aimed at the host target */
	long net_refused;    /* connect() and sends with an address the sandbox's own network refused,
	                        socket()/socketpair()    No-network's filter refused */
	long iso_refused;    /* calls Isolation's filter refused (not clone3 or Landlock's: libc and libraries
	                        make those by themselves) */
	long target_touches; /* opens for writing, mkdir, rename, link... of the host target or a parent of it
	                        in the run's folder: the private root answered them, not the host */
	/* Resource-limits' watch (limits_watch.c): where a cap met the run,
	 * read from /proc while the caller was stopped in the call, which the
	 * kernel then answered itself. Counts only where watch_limits */
	bool watch_limits;  /* mappings of 1 MiB or more, new tasks and waits stopped for the lab */
	long nproc_refused; /* fork()s and clone()s asked with the caller's user at RLIMIT_NPROC: EAGAIN */
	long nproc_tasks;   /* the tasks of that user in the run at the first one */
	long as_refused;    /* mmap()s and mremap()s that asked past RLIMIT_AS: ENOMEM */
	long long as_len;   /* the first one's growth of the address space, bytes */
	long long as_vm;    /* the caller's address space at it, bytes */
	bool as_mremap;     /* it was an mremap() growing a mapping, not an mmap() */
	long ends_seen;     /* other processes' ends the lab read, each while a zombie */
	long cpu_kills;     /* of them, the ones RLIMIT_CPU ended (their own CPU at the cap) */
	long cpu_kill_ms;   /* the first one's own CPU at its end (its PROF clock, as RLIMIT_CPU counts) */
	int cpu_kill_sig;   /* how: SIGXCPU (the soft cap) or SIGKILL (the hard one, SIGXCPU ignored) */
};
/* One entry as a line: "unshare(CLONE_NEWUSER) = -1 EPERM  seccomp (Isolation)",
 * with "  (x10000)" when it happened more than once; out holds
 * LAB_TRACE_LINE_MAX bytes to never cut one. */
#define LAB_TRACE_LINE_MAX 288
void lab_trace_line(const struct lab_trace_entry *e, char *out, size_t cap);

/* What the lab measured outside the sandbox; verdict_decide reads only this.
 * One sub-struct per source of evidence (how it ended, resources, secrets,
 * the attacker, the egress proxy, the host folder, the kernel, the tool
 * door, the trace), so that a change to one source touches its own part;
 * every field is written to the worker's stream and the JSON record from
 * the one list in lab_fields.h, under its own flat name. */
struct lab_evidence {
	bool started;         /* the sandbox was built and the snippet exec'd */
	char error[LAB_LINE]; /* why not, and what to do */
	/* how the run ended, as its init and the lab saw it */
	struct {
		int exit_code;   /* -1 if killed by a signal */
		int exit_signal; /* 0 if exited */
		/* killed by a signal the lab did not send (none of its clocks or caps,
		 * no OOM kill, no RLIMIT_CPU): which, 0 if not, and what the lab knows
		 * of the sender ("SIGTERM sent to the run's init from outside its PID
		 * namespace, by uid 1000"). Never credited to a layer (verdict.c) */
		int foreign_signal;
		char foreign[LAB_LINE];
		bool timed_out;  /* the limits layer's wall clock fired */
		bool safety_net; /* the outer safety net fired */
		bool aborted;
		long duration_ms;
		long snippet_start_ms; /* an audit's: when the snippet's interpreter started, after the wrapper (0:
		                          unseen) */
		/* an audit's: processes still alive when the wrapper's command had
		 * exited (a daemon), before the range ended them; their names */
		int outlived;
		char outlived_what[128];
		/* how it ended in the interpreter's words: the last exception named
		 * at the end of the output ("SyntaxError"), "" if none */
		char exception[64];
		int exception_line; /* the snippet's line it names, 0 if unknown */
		/* the path that error names ("[Errno 2] ...: '/x'"), as the host sees
		 * the run's folder (Isolation off: the range shows it at /tmp/NAME), ""
		 * if it names none */
		char exception_path[LAB_LINE];
	} end;
	/* resources: the run's processes, memory, CPU and output, and the caps that met them */
	struct {
		long peak_procs;   /* snippet processes at once (init excluded) */
		uint64_t peak_mem; /* bytes: cgroup peak, else the run's sampled total, else largest process */
		bool peak_mem_from_cgroup;
		bool peak_mem_sampled; /* the lab summed the run's processes itself */
		uint64_t peak_vm;      /* largest address space of one process, sampled */
		bool mem_cap_killed;   /* the lab's run-wide memory cap ended the run */
		int mem_unseen; /* sampled: shared memory objects whose pages the sum could not see (most at once) */
		double cpu_s;   /* user+sys of every process of the run */
		/* an audit's: the CPU of the snippet's busiest process, utime+stime as
		 * RLIMIT_CPU counts it (the cap is per process), as last sampled */
		long cpu_proc_max_ms;
		bool cpu_proc_seen; /* a process of the snippet's was seen at all */
		/* the snippet's own process's CPU (utime+stime of all its threads, not
		 * its children's), read by the run's init from the process's CPU clock
		 * as it ended, before reaping it: what RLIMIT_CPU, a cap per process,
		 * counted. cpu_main_seen is false where no init of the lab's could
		 * read it (gVisor's Sentry runs the snippet): no figure, no credit */
		long cpu_main_ms;
		bool cpu_main_seen;
		/* an audit's: how the figures were taken (the lab's measuring cgroup
		 * around the wrapper, or a /proc walk of its tree, and why) */
		char measured_by[LAB_LINE];
		long pids_max_events, mem_failcnt, oom_kills, cpu_throttled;
		/* gvisor: fork(), vfork() and clone() the Sentry refused with EAGAIN
		 * (its RLIMIT_NPROC), as runsc --strace logged them; 0 elsewhere */
		long sentry_forks_refused;
		bool cgroup_used;
		bool guest_measured; /* microvm: the figures are the guest cgroup's, sent by its init */
		/* output: everything the snippet wrote, and whether the cap cut it */
		uint64_t out_bytes; /* everything the snippet wrote */
		bool out_truncated;
	} res;
	/* secret theft: the planted secrets and where they came out */
	struct {
		int canaries_planted;
		int canaries_leaked;
		/* planted secrets the snippet wrote only past the output cap: the lab
		 * read them and dropped them, so they never came out */
		int secrets_past_cap;
		char leaked[LAB_LINE * 2];  /* the leaked secrets by the place each came from, "; " between places */
		char leak_places[LAB_LINE]; /* only the places: "bwrap's own environment via /proc/1/environ,
		                               ~/.aws/credentials" */
		/* processes of an audit's wrapper tree that the lab saw hold the
		 * environment's decoy keys, in their environment or command line:
		 * whose keys a thief reading /proc/N/environ got (bubblewrap#725) */
		struct {
			char comm[16];
			int pid_in_view; /* its PID as the snippet's /proc shows it, 0 when not in its view */
			bool in_cmdline; /* on its command line, not in its environment */
		} holder[8];
		int n_holders;
		int env_vars; /* variables handed to the snippet */
		bool creds_mounted;
	} secrets;
	/* exfiltration: the attacker's listener and DNS zone, and the probe from inside */
	struct {
		long attacker_conns;
		uint64_t attacker_bytes;
		bool attacker_got_canary;
		bool attacker_from_run;           /* what came carried this run's token, canary row or a secret, or came
		                                     from a socket a process of the run held */
		uint64_t attacker_untied_bytes;   /* sent on connections the lab could not tie to anyone */
		uint64_t attacker_stranger_bytes; /* sent by live sockets no process of this run held */
		int secrets_to_attacker;          /* planted secrets found in what the attacker received */
		int net_probe_errno; /* connect() from inside to the listener; -1 = not probed, 0 = connected */
		bool own_netns;
		/* an audit's: the attacker's DNS zone (resolver.h) */
		long dns_queries, dns_strays;
		uint64_t dns_bytes;
		bool dns_got_canary;
	} exfil;
	/* egress by allow-list (No-network's second setting, egress.c): the proxy and api.lab.test */
	struct {
		int net_mode;                 /* enum lab_net_mode the run used */
		int net_route_errno;          /* connect() from inside to an address off loopback; -1 = not probed */
		long proxy_allowed;           /* requests the proxy let through */
		long proxy_refused;           /* refused by the allow-list (403) */
		long proxy_bad;               /* malformed, oversized or too slow: 400, 431, 408 */
		char proxy_refusal[LAB_LINE]; /* the first refusal, as the proxy said it */
		char proxy_log[LAB_LINE * 4]; /* the proxy's log, one request a line */
		uint64_t api_bytes;           /* what api.lab.test received */
		long api_requests;
		bool api_got_canary; /* the customer data's canary row was in it */
		bool api_from_run;   /* this run's canary row or secrets were in it */
		int secrets_to_api;
		uint64_t api_payload; /* request bodies and query strings of it: data, not requests */
		long api_strays;      /* connections to the small internet the proxy did not open: shut, not counted */
		long proxy_to_attacker; /* requests the proxy let through to attacker.lab.test */
	} egress;
	/* host takeover: the host folder, the target, what the run planted */
	struct {
		bool host_target_written;
		uint64_t host_target_size;
		char host_target[PATH_MAX];
		bool host_visible; /* the host folder was in the sandbox's view */
		/* a setuid/setgid file or a device node the run left in the host
		 * folder ("etc/x: setuid root, mode 4755"), "" if none: a way back in
		 * for whoever runs it, whatever the snippet's threat */
		char host_planted[LAB_LINE];
		/* the range's host folder (Isolation off): what differs from what the
		 * lab planted, or was seen to change while the run lived ("created
		 * etc/cron.d/x (file, 37 bytes), changed etc/hostname"), "" if nothing:
		 * any change there is the host written */
		char host_changed[LAB_LINE];
		/* how the lab watched it while the run lived, and what that saw */
		char host_seen[LAB_LINE];
		/* the host target was seen written while the run lived, and was gone
		 * (removed, or moved away) when it ended */
		bool host_target_gone;
		/* an audit's: what appeared in the work folder that the host runs
		 * later (".git/hooks/pre-commit (77 bytes, executable), .envrc"), ""
		 * if nothing */
		char work_planted[LAB_LINE];
		/* an audit's: the host agent's socket in the decoy home (agent.h):
		 * connections it accepted, requests answered, key lists given */
		long agent_conns, agent_requests, agent_listed, agent_strays;
	} host;
	/* which kernel served the snippet's system calls (the isolation ladder) */
	struct {
		/* which kernel served the snippet's system calls (the isolation
		 * ladder), as the box observed it from outside */
		bool snippet_on_host;    /* the snippet's interpreter ran as a process of the host kernel */
		char kernel_release[64]; /* that kernel's release ("6.1.0-...", gVisor's "4.4.0") */
		char kernel_boot_id[40]; /* its boot id, "" if it has none */
		char host_release[64];   /* the host's own release and boot id, to compare */
		char host_boot_id[40];
		long host_scans; /* times the lab scanned the run's host processes (gvisor) */
		long host_procs; /* the most host processes the run had at once (gvisor) */
	} kernel;
	/* the tool door (tools.h): every call, its bytes, and the gate */
	struct {
		/* the tool door (tools.h): every call, its bytes, and the gate */
		bool tools_served;
		long tool_calls;
		uint64_t tool_bytes_in;  /* what the snippet sent the tools */
		uint64_t tool_bytes_out; /* what came back from them, into the sandbox */
		char tool_log[LAB_LINE * 4];
		int approve; /* enum lab_approve the gate used */
		long payments_asked, payments_made, payments_refused;
		long gate_waited_ms;    /* a human's time at the gate (the run's clocks stood still) */
		char payment_call[128]; /* the first gated call: "send_payment(to='attacker', amount=5000)" */
		char gate_said[LAB_LINE];
	} tools;
	/* the legitimate task: its known answer was in the output */
	bool expect_found;
	/* audit: the attack said, in a word only this run could form, that it
	 * made its move (its "lab-attempt:" line); without it no verdict */
	bool attempt_seen;
	/* what was really used */
	char mechanisms[LAB_LINE * 4];
	/* the calls that mattered (see struct lab_trace) */
	struct lab_trace trace;
};

/* The mechanisms the judge credits when it sees one fire. Which layer (or
 * the range) armed each on a run is the run spec's answer (spec.armed, set
 * by each layer's own spec hook): the judge never knows which layer owns
 * what, it asks. */
enum lab_mech {
	MECH_WALL_CLOCK,   /* the run's wall clock, short of the safety net */
	MECH_CPU_RLIMIT,   /* RLIMIT_CPU per process (SIGXCPU, then SIGKILL) */
	MECH_CAPS,         /* caps on memory, processes, CPU share and output (cgroup, rlimits, the lab's sums) */
	MECH_NET_CLOSED,   /* no network but the sandbox's own loopback */
	MECH_PROXY,        /* ... and the egress proxy, an allow-list, its one door */
	MECH_CLEAN_ENV,    /* the environment rebuilt from an allow-list, no credentials handed in */
	MECH_PRIVATE_ROOT, /* a root of the lab's own: the host's folders out of view */
	MECH_SECCOMP,      /* a deny list of system calls, no capabilities, no_new_privs */
	MECH_OWN_KERNEL,   /* a kernel of the box's own (gVisor's Sentry, a microVM's guest), not the host's */
	MECH_COUNT
};
#define MECH_UNARMED (-2) /* spec.armed[m]: nothing armed m on this run */

struct lab_result {
	char snippet[64];
	enum lab_threat threat;
	int expected_layer; /* the snippet's own layer, -1 for legit */
	unsigned layers;
	enum lab_verdict verdict;
	int caught_by;      /* enum lab_layer or -1 */
	unsigned escaped;   /* ESCAPED: every threat that got out, one bit each (1u << enum lab_threat),
	                       whatever the header declared; 0 otherwise */
	enum lab_rung rung; /* the Isolation layer's rung the run used */
	char consequence[256];
	char headline[LAB_LINE]; /* one sentence for the big panel */
	char evidence[LAB_EVIDENCE_MAX][LAB_LINE];
	int n_evidence;
	bool audit; /* run through a foreign sandbox's wrapper (`audit`): no layer of the lab's */
	/* the in-process rung (inprocess.h): run as a container run with no
	 * layer; the toggles the user set, and what the lab saw of the app's
	 * own decoys */
	struct {
		bool on;
		unsigned toggles;
		bool planned;           /* the app server ran the snippet */
		bool token_in_output;   /* the session token (a module global only) came out in the output */
		bool token_at_attacker; /* ... or reached the attacker (the first bytes it kept) */
	} inproc;
	/* the judge's view of the run's spec (verdict_decide fills it): who
	 * armed each mechanism (enum lab_layer, or MECH_UNARMED), and the box
	 * whose kernel served the snippet (RUNG_CONTAINER: the host's) */
	short armed[MECH_COUNT];
	enum lab_rung box;
	/* ...and what RLIMIT_CPU did to the snippet's own process, from its own
	 * CPU figure (enum lab_rlimit_cpu, evidence.h) */
	int rlimit_cpu;
	char *output; /* raw captured bytes (NOT sanitised), owned */
	size_t output_len;
	struct lab_evidence ev;
};

/* The setup r ran with, as its result records it: its layers and rung,
 * No-network's mode and the gate it used. */
static inline struct lab_setup lab_result_setup(const struct lab_result *r)
{
	return (struct lab_setup){
	    .layers = r->layers, .rung = r->rung, .net_mode = r->ev.egress.net_mode, .approve = r->ev.tools.approve};
}

/* Frees what lab_run (or result_read) allocated in r: the output. */
void lab_result_free(struct lab_result *r);

/* ---- runs (run.c) ---- */
struct lab_run_opts {
	int abort_fd; /* readable => abort the run; -1 = none */
	/* Called with each piece of output as it is captured (only what fits
	 * under the run's output cap, raw: the receiver sanitises it), so a
	 * screen can show it while the run goes on. NULL = nobody watches.
	 * It runs in the watch loop: it must not block. */
	void (*on_output)(void *ctx, const char *buf, size_t len);
	void *output_ctx;
	/* --approve ask (tools.h): on_gate is told the gated call; the answer
	 * ('y' approves, anything else refuses) is read from gate_fd; gate_fd
	 * -1: nobody can be asked, every payment is refused. NULL: the lab
	 * asks on /dev/tty itself. It must not block. */
	void (*on_gate)(void *ctx, const char *call);
	void *gate_ctx;
	int gate_fd;
};

/* Plants decoys, runs s as setup says (its layers, rung, No-network's
 * mode and the gate; exec and exec_rw are ignored), gathers evidence,
 * cleans up. Always fills res's evidence (ev.error when the sandbox could
 * not be built); the verdict is lab_judge's (judge.h), which the caller
 * calls next.
 *
 * Process contract: lab_run forks exactly one child (the run's init, PID 1
 * of the run's own PID namespace) and waits only for that pid; it never
 * signals any other process of the caller, nor changes the caller's signal
 * handlers or subreaper state. Every process of the run dies with the init,
 * so nothing outlives the call. CPU time and peak RSS come from the init's
 * rusage, i.e. from the run's own processes only. The caller provides: no
 * SIGCHLD handler that reaps with waitpid(-1) while a run is going (it would
 * steal the init's status), and descriptors it does not want a snippet to
 * inherit marked close-on-exec (main does this for everything above 2). */
/* Whether a rung's tools are here (runsc; QEMU, a guest kernel and the
 * guest's init), before any run is tried: true, or false with what is
 * missing and what to install in why. The container and in-process rungs
 * need nothing more than the lab itself. */
bool lab_rung_ready(const struct lab_config *cfg, enum lab_rung rung, char *why, size_t cap);

void lab_run(const struct lab_config *cfg, const struct lab_setup *setup, const struct snippet *s,
             const struct lab_run_opts *opts, struct lab_result *res);

/* `audit`: s run through a foreign sandbox's command prefix (box_wrapper.c)
 * instead of the lab's layers, with the decoys a real integration exposes
 * (audit.h says how the prefix's placeholders expand); same contract as
 * lab_run, but outside_range runs the wrapper without the range's PID and
 * mount namespaces (for wrappers that refuse to run inside one); opts as
 * lab_run's (may be NULL).
 * res->audit is set and res->layers is 0. */
void lab_audit_run(const struct lab_config *cfg, const struct snippet *s, char *const *wrapper, bool outside_range,
                   const struct lab_run_opts *opts, struct lab_result *res);

/* `exec`: any command, stdio passed through (a terminal among it as a pty
 * of the lab's, see termpty.c), same contract as lab_run; setup->exec_rw:
 * the current folder writable (--rw).
 * Returns the exit status to use (CMD's, 128+N for a signal, 125 when the
 * lab failed, 126/127 as a shell, 2 when the current folder is refused).
 * opts (may be NULL): its abort fd stops CMD the way it stops a run. */
int lab_exec(const struct lab_config *cfg, const struct lab_setup *setup, char *const argv[],
             const struct lab_run_opts *opts);

#endif
