/* verdict.c — the judge. Pure: reads only the evidence the lab gathered
 * outside the sandbox (never what the snippet claims) and the caps from the
 * config, and says what happened and which layer's mechanism shows for it. */
#define _GNU_SOURCE
#include "verdict.h"
#include "evidence.h"
#include "range.h"
#include "spec.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const names[VERDICT_COUNT] = {"RAN OK", "FAILED", "CONTAINED", "ESCAPED", "ERROR", "BROKE"};

const char *verdict_name(enum lab_verdict v)
{
	return v < VERDICT_COUNT ? names[v] : "?";
}

/* The run's spec, as the judge reads it: who armed each mechanism it may
 * credit, and the box whose kernel served the snippet. Built again from
 * the run's setup (pure data, as the run built it). */
static void read_spec(const struct lab_config *cfg, const struct lab_setup *setup, short armed[MECH_COUNT],
                      enum lab_rung *box)
{
	struct run_spec spec;
	spec_build(&spec, cfg, setup);
	memcpy(armed, spec.armed, sizeof spec.armed);
	*box = spec.in_process ? RUNG_CONTAINER : spec.rung;
}

/* A mechanism armed on this run (by whichever layer the spec names). */
static bool armed(const struct lab_result *r, enum lab_mech m)
{
	return r->armed[m] != MECH_UNARMED;
}

/* The credit for a mechanism seen to fire: the layer that armed it. */
static void credit(struct lab_result *r, enum lab_mech m)
{
	r->caught_by = r->armed[m] >= 0 ? r->armed[m] : -1;
}

/* The box served the snippet on a kernel of its own (gVisor's, a guest's). */
static bool own_kernel(const struct lab_result *r)
{
	return r->box != RUNG_CONTAINER;
}

/* The host the snippet's work (or its leak) goes through is on the
 * proxy's allow-list. */
static bool uses_allowed(const struct snippet *s, const struct lab_config *cfg)
{
	for (int i = 0; i < cfg->n_net_allow; i++)
		if (!strcasecmp(cfg->net_allow[i], s->uses))
			return true;
	return false;
}

enum lab_verdict verdict_expected(const struct snippet *s, const struct lab_config *cfg, const struct lab_setup *setup)
{
	enum lab_rung rung = setup->rung, box;
	unsigned layers = setup->layers;
	short arm[MECH_COUNT];
	/* a snippet run, whatever else the setup says */
	read_spec(cfg, &(struct lab_setup){.layers = layers, .rung = rung, .net_mode = setup->net_mode}, arm, &box);
	/* an irreversible tool call: the gate decides, on every rung and
	 * every layer set (the tool door is an allowed channel: no layer
	 * sees a poisoned call from an honest one) */
	if (s->threat == THREAT_IRREVERSIBLE)
		return setup->approve == APPROVE_ALWAYS ? VERDICT_ESCAPED : VERDICT_CONTAINED;
	/* exec() inside the app server: no layer applies, every attack gets
	 * what it wants and the legit task has the network it needs */
	if (rung == RUNG_INPROCESS)
		return s->threat == THREAT_LEGIT || s->layer < 0 ? VERDICT_RAN_OK : VERDICT_ESCAPED;
	/* a snippet that names the one host it needs (lab:uses): No-network
	 * stops it outright with mode none (the price of no network, for a
	 * legitimate task), and lets it through when its allow-list has the
	 * host (a door for the task, and for a leak) */
	if (s->uses[0] && arm[MECH_NET_CLOSED] != MECH_UNARMED) {
		bool open = arm[MECH_PROXY] != MECH_UNARMED && uses_allowed(s, cfg);
		if (s->threat == THREAT_LEGIT)
			return open ? VERDICT_RAN_OK : VERDICT_FAILED;
		return open ? VERDICT_ESCAPED : VERDICT_CONTAINED;
	}
	if (s->threat == THREAT_LEGIT || s->layer < 0)
		return VERDICT_RAN_OK;
	/* the container rung's Isolation leaves the host kernel serving the
	 * snippet: a kernel exploit escapes it with every layer on (the lesson) */
	if (s->threat == THREAT_KERNEL)
		return box != RUNG_CONTAINER ? VERDICT_CONTAINED : VERDICT_ESCAPED;
	return layers & LAYER_BIT(s->layer) ? VERDICT_CONTAINED : VERDICT_ESCAPED;
}

static void add(struct lab_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct lab_result *r, const char *fmt, ...)
{
	if (r->n_evidence >= LAB_EVIDENCE_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->evidence[r->n_evidence++], LAB_LINE, fmt, ap);
	va_end(ap);
}

static void set_headline(struct lab_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_headline(struct lab_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->headline, sizeof r->headline, fmt, ap);
	va_end(ap);
}

/* The proxy's own log lines, as evidence (at most max of them; ALLOW
 * lines come first), and always its count of lines not kept. */
static void proxy_lines(struct lab_result *r, int max)
{
	int k = 0;
	for (const char *l = r->ev.egress.proxy_log; *l;) {
		size_t len = strcspn(l, "\n");
		if (!strncmp(l, "... ", 4) || k++ < max)
			add(r, "egress proxy log: %.*s", (int)len, l);
		l += len + (l[len] == '\n');
	}
}

static void how_it_ended(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->end.timed_out)
		add(r, "ended: killed by the Resource-limits wall clock after %ld ms", cfg->limits.timeout_ms);
	else if (ev->end.safety_net)
		add(r, "ended: killed by the lab's safety net after %ld ms", cfg->safety_timeout_ms);
	else if (ev->res.mem_cap_killed)
		add(r, "ended: killed by the lab's run-wide memory cap");
	else if (ev->end.exit_signal)
		add(r, "ended: killed by signal %d (%s)%s", ev->end.exit_signal, strsignal(ev->end.exit_signal),
		    ev->res.oom_kills > 0 ? " — the cgroup's OOM killer" : "");
	else
		add(r, "ended: exit status %d after %ld ms%s%s", ev->end.exit_code, ev->end.duration_ms,
		    ev->end.exception[0] ? ", last error: " : "", ev->end.exception);
}

static void tool_lines(struct lab_result *r, int max);

static void judge_legit(const struct snippet *s, struct lab_result *r, const struct lab_config *cfg)
{
	struct lab_evidence *ev = &r->ev;
	/* the known answer, looked for in what the lab captured */
	ev->expect_found = r->output != NULL;
	for (int i = 0; i < s->n_expect && ev->expect_found; i++)
		ev->expect_found = strstr(r->output, s->expect[i]) != NULL;
	if (ev->end.exit_code == 0 && !ev->end.exit_signal && ev->expect_found) {
		r->verdict = VERDICT_RAN_OK;
		set_headline(r, "The task worked: exit 0 and the totals match the known answer");
		add(r, "exit status 0 after %ld ms", ev->end.duration_ms);
		add(r, "all %d expected lines of the report are in the output", s->n_expect);
		/* the proxy's count, not the mode: api.lab.test serves only the
		 * connections the proxy opened in allow-list mode */
		if (ev->egress.api_requests)
			add(r, "api.lab.test served %ld request(s); the egress proxy let %ld through%s",
			    ev->egress.api_requests, ev->egress.proxy_allowed,
			    ev->egress.api_strays ? " (connections it did not open were shut, not served)" : "");
		/* a task that also reached for more: what the layers met */
		if (ev->trace.net_refused > 0)
			add(r, "No-network refused %ld of its calls (the trace): it also tried to reach the network",
			    ev->trace.net_refused);
		if (ev->trace.iso_refused > 0 || ev->trace.target_touches > 0)
			add(r, "Isolation met %ld of its calls (the trace): refused, or aimed at the host target",
			    ev->trace.iso_refused + ev->trace.target_touches);
		proxy_lines(r, 4);
		tool_lines(r, 3);
		return;
	}
	r->verdict = VERDICT_FAILED;
	set_headline(r, "The legitimate task broke under these layers");
	how_it_ended(r, cfg);
	if (!ev->expect_found)
		for (int i = 0; i < s->n_expect; i++)
			if (!r->output || !strstr(r->output, s->expect[i])) {
				add(r, "missing from the output: \"%s\"", s->expect[i]);
				break;
			}
	if (s->uses[0] && armed(r, MECH_NET_CLOSED) && !armed(r, MECH_PROXY))
		add(r, "the task needs %s, and No-network (mode none) leaves no way to it: the price of no network",
		    s->uses);
	proxy_lines(r, 4);
}

/* The tool door's record (tools.h): the lesson's figure, measured — the
 * bytes the tools sent into the sandbox against the bytes that came out
 * of it — and the calls, as the proxy's log is shown. */
static void tool_lines(struct lab_result *r, int max)
{
	const struct lab_evidence *ev = &r->ev;
	char x[32], y[32];
	if (!ev->tools.tools_served)
		return;
	fmt_thousands(x, sizeof x, ev->tools.tool_bytes_out);
	fmt_thousands(y, sizeof y, ev->res.out_bytes);
	if (ev->tools.tool_bytes_out > 0)
		add(r,
		    "%ld tool calls; %s bytes came back from the tools and stayed in the sandbox; %s bytes came out "
		    "(what a model would have read): %.1f%% less",
		    ev->tools.tool_calls, x, y,
		    ev->res.out_bytes >= ev->tools.tool_bytes_out
		        ? 0.0
		        : 100.0 * (double)(ev->tools.tool_bytes_out - ev->res.out_bytes) /
		              (double)ev->tools.tool_bytes_out);
	else
		add(r, "%ld tool calls; no byte came back from the tools", ev->tools.tool_calls);
	int k = 0;
	for (const char *l = ev->tools.tool_log; *l;) {
		size_t len = strcspn(l, "\n");
		if (!strncmp(l, "... ", 4) || !strncmp(l, "send_payment(", 13) || k++ < max)
			add(r, "tool log: %.*s", (int)len, l);
		l += len + (l[len] == '\n');
	}
}

/* An irreversible action (tools.h): the gate's decision is the evidence.
 * No layer takes part: the call came through the door the task uses. */
static void judge_irreversible(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->tools.payments_made > 0) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The payment went out: irreversible (%s)", ev->tools.payment_call);
		add(r, "the gate: %s", ev->tools.gate_said);
	} else if (ev->tools.payments_refused > 0) {
		r->verdict = VERDICT_CONTAINED;
		set_headline(r, "CONTAINED by the gate: %s refused, no payment made", ev->tools.payment_call);
		add(r, "the gate: %s", ev->tools.gate_said);
	} else {
		r->verdict = VERDICT_BROKE;
		set_headline(r, "It never called send_payment: the attack failed by itself, and the gate took no part");
	}
	if (ev->tools.gate_waited_ms > 0)
		add(r, "the gate waited %ld ms for the human's answer; the run's clocks stood still meanwhile",
		    ev->tools.gate_waited_ms);
	add(r,
	    "no layer takes part: the call came through the tool door, the channel the task is allowed to use, "
	    "whatever the layers (%s)",
	    lab_approve_key(ev->tools.approve));
}

/* Errors no layer causes: the code itself is wrong (or is not Python).
 * A layer shows up as OSError and its kin, MemoryError, KeyError (a
 * variable that is not there) or a signal, never as these. */
static bool unrelated_error(const char *exc)
{
	static const char *const own[] = {"SyntaxError",       "IndentationError",    "TabError",
	                                  "NameError",         "TypeError",           "AttributeError",
	                                  "ImportError",       "ModuleNotFoundError", "ZeroDivisionError",
	                                  "IndexError",        "ValueError",          "AssertionError",
	                                  "UnboundLocalError", "RecursionError",      "NotImplementedError"};
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		if (!strcmp(exc, own[i]))
			return true;
	return false;
}

/* RLIMIT_CPU ended the snippet (SOFT: SIGXCPU, HARD: SIGKILL): the
 * signal, and its own process's CPU at that cap; anyone may send SIGXCPU
 * or SIGKILL, and the cap is per process, not the run's (evidence.h). */
static bool rlimit_cpu_killed(const struct lab_result *r, enum lab_rlimit_cpu how)
{
	return armed(r, MECH_CPU_RLIMIT) && r->rlimit_cpu == (int)how;
}

/* A layer's clock ended the run: its wall clock, or RLIMIT_CPU's SIGXCPU. */
static bool limit_ended(const struct lab_result *r)
{
	return (r->ev.end.timed_out && armed(r, MECH_WALL_CLOCK)) || rlimit_cpu_killed(r, RLIMIT_CPU_SOFT);
}

/* The attack did not get what it wanted, and its layer cannot take the
 * credit: it broke by itself, or the layer was off. */
static void broke(struct lab_result *r, const char *why)
{
	const struct lab_evidence *ev = &r->ev;
	r->verdict = VERDICT_BROKE;
	r->caught_by = -1;
	if (ev->end.exception[0] && unrelated_error(ev->end.exception)) {
		if (ev->end.exception_line > 0)
			set_headline(r, "The attack broke by itself: %s at line %d — no layer can take credit",
			             ev->end.exception, ev->end.exception_line);
		else
			set_headline(r, "The attack broke by itself: %s — no layer can take credit", ev->end.exception);
	} else if (limit_ended(r)) {
		/* not "by itself": a limit ended it before anything got out (a
		 * slow guest under TCG meets RLIMIT_CPU before it connects) */
		r->verdict = VERDICT_CONTAINED;
		credit(r, ev->end.timed_out ? MECH_WALL_CLOCK : MECH_CPU_RLIMIT);
		set_headline(r, "Resource-limits: killed by %s before the attack got anywhere (%s)",
		             ev->end.timed_out ? "the wall clock" : "RLIMIT_CPU (SIGXCPU)", why);
	} else {
		set_headline(r, "The attack failed by itself: %s", why);
	}
}

static bool broke_by_itself(const struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	return !ev->end.exit_signal && ev->end.exit_code != 0 && ev->end.exception[0] &&
	       unrelated_error(ev->end.exception);
}

/* ---- attempts: a layer takes credit only for an attempt it met ---- */

enum attempt {
	ATTEMPT_MET,    /* the lab saw the layer's mechanism meet this run's attempt */
	ATTEMPT_NONE,   /* the lab watched, and saw no attempt */
	ATTEMPT_UNSEEN, /* nothing of the lab's watched for one on this run */
};

/* No-network: a connect(), or a send with an address, the sandbox's own network refused
 * (the trace makes those calls itself, on the caller's socket), a socket
 * its filter refused, a request its egress proxy refused. The lab's own
 * probe is the door's proof, never the snippet's attempt. */
static enum attempt network_attempt(const struct lab_evidence *ev)
{
	if (ev->trace.net_refused > 0 || ev->egress.proxy_refused > 0 || ev->egress.proxy_bad > 0)
		return ATTEMPT_MET;
	return ev->trace.watch_net ? ATTEMPT_NONE : ATTEMPT_UNSEEN;
}

/* Isolation: a call its seccomp filter refused, or a write aimed at the
 * host target or a folder on its way, which the private root answered. */
static enum attempt isolation_attempt(const struct lab_evidence *ev)
{
	if (ev->trace.iso_refused > 0 || ev->trace.target_touches > 0)
		return ATTEMPT_MET;
	return ev->trace.watch_iso ? ATTEMPT_NONE : ATTEMPT_UNSEEN;
}

/* The trace's first line answered by who (part of its "by"), refused if
 * refused is set, quoted as the attempt's evidence: a call that aims
 * somewhere (connect, sendto, a path) before one that does not (socket(),
 * which glibc's own name lookup makes too). */
static void quote_attempt(struct lab_result *r, const char *who, bool refused, const char *what)
{
	const struct lab_trace *t = &r->ev.trace;
	const struct lab_trace_entry *best = NULL;
	for (int i = 0; i < t->n; i++) {
		const struct lab_trace_entry *e = &t->e[i];
		if (!strstr(e->by, who) ||
		    (refused && (strncmp(e->answer, "-1", 2) != 0 || strstr(e->answer, "connected"))))
			continue;
		if (!best || (!strncmp(best->call, "socket", 6) && strncmp(e->call, "socket", 6) != 0))
			best = e;
	}
	if (!best)
		return;
	char line[LAB_TRACE_LINE_MAX];
	lab_trace_line(best, line, sizeof line);
	add(r, "%s: %s", what, line);
}

/* Where the lab had no way to see an attempt, it keeps the layer's rule
 * and says so. */
static void attempt_unseen(struct lab_result *r)
{
	if (own_kernel(r))
		add(r,
		    "the attempt: not seen — on the %s rung %s answers the snippet's calls, where no listener of the "
		    "lab's is; the verdict rests on the layer's own proof",
		    lab_rung_key(r->box), r->box == RUNG_GVISOR ? "gVisor's Sentry" : "the guest kernel");
	else
		add(r,
		    "the attempt: not seen — no listener of the lab's watched the snippet's calls (the trace is off, "
		    "LAB_TRACE=0, or its listener was refused); the verdict rests on the layer's own proof");
}

/* A declared attack that made no attempt the lab could see where it
 * watched: it did not get what it wanted, and no layer stopped it; unless
 * a limit ended the run first (a slow snippet, or a loaded machine, meets
 * the wall clock before it gets to its move): then Resource-limits did. */
static void no_attempt(struct lab_result *r, const char *watched)
{
	const struct lab_evidence *ev = &r->ev;
	if (limit_ended(r)) {
		r->verdict = VERDICT_CONTAINED;
		credit(r, ev->end.timed_out ? MECH_WALL_CLOCK : MECH_CPU_RLIMIT);
		if (ev->end.timed_out)
			set_headline(r,
			             "Resource-limits: killed by the wall clock at %.1f s, before the attack made an "
			             "attempt the lab could see",
			             ev->end.duration_ms / 1000.0);
		else
			set_headline(
			    r, "Resource-limits: killed by RLIMIT_CPU (SIGXCPU), before the attack made an attempt "
			       "the lab could see");
		add(r, "the attempt: none seen: %s", watched);
		return;
	}
	r->verdict = VERDICT_BROKE;
	r->caught_by = -1;
	set_headline(r, "The attack made no attempt the lab could see — no layer takes credit");
	add(r, "the attempt: none seen: %s", watched);
}

/* ---- resource bombs: what the evidence says it took, and what fired ---- */

#define CPU_QUOTA_HOG_S 1.0 /* CPU seconds a run used before its throttling counts */

/* What the run took past the caps of layers.ini, as one line
 * ("65 processes (cap 32), 320 MiB of memory (cap 256 MiB)"); how many. */
static int caps_exceeded(const struct lab_result *r, const struct lab_config *cfg, bool wall, char *line, size_t cap)
{
	const struct lab_evidence *ev = &r->ev;
	const struct lab_limits *lim = &cfg->limits;
	bool on = armed(r, MECH_CAPS);
	char a[32], b[32];
	int n = 0;
	line[0] = '\0';
	if (ev->res.peak_procs > lim->pids)
		n++, str_append(line, cap, "%s%ld processes (cap %ld)", n > 1 ? ", " : "", ev->res.peak_procs,
		                lim->pids);
	if (ev->res.peak_mem > lim->memory) {
		fmt_bytes(a, sizeof a, ev->res.peak_mem);
		fmt_bytes(b, sizeof b, lim->memory);
		n++, str_append(line, cap, "%s%s of memory (cap %s)", n > 1 ? ", " : "", a, b);
	}
	/* the per-process CPU cap, the clock and the output cap kill or cut
	 * when the layer is on: past them only when it is off */
	/* gVisor: the CPU the lab has is runsc's on the host (the Sentry's
	 * and the stats poller's), not the snippet's: it judges nothing */
	bool gv_cpu = ev->res.guest_measured && r->box == RUNG_GVISOR;
	if (!armed(r, MECH_CPU_RLIMIT) && !gv_cpu && ev->res.cpu_s > (double)lim->cpu_time)
		n++, str_append(line, cap, "%s%.1f s of CPU (cap %ld s)", n > 1 ? ", " : "", ev->res.cpu_s,
		                lim->cpu_time);
	if (wall && !armed(r, MECH_WALL_CLOCK) && ev->end.duration_ms > lim->timeout_ms)
		n++, str_append(line, cap, "%s%.1f s of wall time (cap %.1f s)", n > 1 ? ", " : "",
		                ev->end.duration_ms / 1000.0, lim->timeout_ms / 1000.0);
	if (!on && ev->res.out_bytes > lim->output) {
		fmt_bytes(a, sizeof a, ev->res.out_bytes);
		fmt_bytes(b, sizeof b, lim->output);
		n++, str_append(line, cap, "%s%s of output (cap %s)", n > 1 ? ", " : "", a, b);
	}
	return n;
}

static int over_caps(struct lab_result *r, const struct lab_config *cfg)
{
	char line[LAB_LINE];
	int n = caps_exceeded(r, cfg, true, line, sizeof line);
	if (n) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The bomb took %s", line);
	}
	return n;
}

/* The mechanisms seen to fire, most decisive first, each with its own. */
struct fired {
	int n;
	enum lab_mech by[8];
	char line[8][LAB_LINE];
};

static void fire(struct fired *f, enum lab_mech by, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fire(struct fired *f, enum lab_mech by, const char *fmt, ...)
{
	if (f->n >= 8)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->line[f->n], LAB_LINE, fmt, ap);
	va_end(ap);
	f->by[f->n++] = by;
}

/* RLIMIT_AS, RLIMIT_NPROC and RLIMIT_CPU (a process its parent reaps)
 * leave no count the lab can read after the run: where the trace had a
 * listener, Resource-limits' watch saw the calls where they met the run,
 * as the caller was stopped in them (limits_watch.c). A peak of address
 * space near the cap, or of processes at it, is no refusal (a mapping the
 * kernel granted left 6 MiB under the cap; 30 children under a cap of 32
 * were never refused), and gets no credit. */
static void watched_refusals(struct fired *f, const struct lab_evidence *ev, const struct lab_limits *lim)
{
	const struct lab_trace *t = &ev->trace;
	char a[32], b[32], c[32];
	if (t->nproc_refused > 0)
		fire(f, MECH_CAPS,
		     "fork refused (EAGAIN) %ld time(s) at %ld processes by RLIMIT_NPROC: the caller's user had %ld "
		     "task(s) in the run when it asked (seen at the call)",
		     t->nproc_refused, lim->pids, t->nproc_tasks);
	if (t->as_refused > 0) {
		fmt_bytes(a, sizeof a, (uint64_t)t->as_len);
		fmt_bytes(b, sizeof b, (uint64_t)t->as_vm);
		fmt_bytes(c, sizeof c, lim->memory);
		fire(f, MECH_CAPS,
		     "%s of %s refused (ENOMEM) by RLIMIT_AS %s: the process had %s of address space (seen at the "
		     "call; %ld refusal(s))",
		     t->as_mremap ? "mremap() growing a mapping by" : "mmap()", a, c, b, t->as_refused);
	}
}

/* Every limit seen to fire, most decisive first; *which: the first's mechanism. */
static int mechanisms_fired(struct lab_result *r, const struct lab_config *cfg, char *first, size_t cap,
                            enum lab_mech *which)
{
	const struct lab_evidence *ev = &r->ev;
	const struct lab_limits *lim = &cfg->limits;
	struct fired f = {0};
	char a[32], b[32];
	fmt_bytes(b, sizeof b, lim->memory);
	if (ev->end.timed_out)
		fire(&f, MECH_WALL_CLOCK, "killed by the wall clock at %.1f s", lim->timeout_ms / 1000.0);
	if (rlimit_cpu_killed(r, RLIMIT_CPU_SOFT))
		fire(&f, MECH_CPU_RLIMIT,
		     "killed by RLIMIT_CPU (SIGXCPU) at the %ld s CPU cap: the process had used %.1f s of its own "
		     "(the run %.1f s in all)",
		     lim->cpu_time, ev->res.cpu_main_ms / 1000.0, ev->res.cpu_s);
	else if (rlimit_cpu_killed(r, RLIMIT_CPU_HARD) && !ev->end.timed_out && !ev->end.safety_net)
		fire(&f, MECH_CPU_RLIMIT,
		     "killed by RLIMIT_CPU's hard limit after %.1f s of the process's own CPU (it ignored SIGXCPU)",
		     ev->res.cpu_main_ms / 1000.0);
	if (ev->trace.cpu_kills > 0)
		fire(&f, MECH_CPU_RLIMIT,
		     "a child process killed by RLIMIT_CPU (%s) at the %ld s CPU cap: it had used %.1f s of its own "
		     "(%ld process(es) in all, each read as a zombie before its parent reaped it)",
		     ev->trace.cpu_kill_sig == SIGKILL ? "its hard limit, SIGXCPU ignored" : "SIGXCPU", lim->cpu_time,
		     ev->trace.cpu_kill_ms / 1000.0, ev->trace.cpu_kills);
	if (ev->res.oom_kills > 0)
		fire(&f, MECH_CAPS, "OOM kill at %s: the cgroup's memory cap", b);
	if (ev->res.mem_cap_killed)
		fire(&f, MECH_CAPS, "killed by the lab's run-wide memory cap at %s", b);
	/* a refusal only with a count of refusals: pids.events' max. A peak at
	 * the cap is no such count (30 children under a cap of 32 were never
	 * refused), and RLIMIT_NPROC's EAGAIN leaves none the lab can read */
	if (ev->res.pids_max_events > 0)
		fire(&f, MECH_CAPS, "fork refused (EAGAIN) %ld time(s) at %ld processes by pids.max",
		     ev->res.pids_max_events, lim->pids);
	else if (ev->res.sentry_forks_refused > 0)
		fire(&f, MECH_CAPS,
		     "fork refused (EAGAIN) %ld time(s) at %ld processes by RLIMIT_NPROC in gVisor's Sentry (runsc "
		     "--strace)",
		     ev->res.sentry_forks_refused, lim->pids);
	watched_refusals(&f, ev, lim);
	if (ev->res.mem_failcnt > 0 && ev->res.oom_kills <= 0)
		fire(&f, MECH_CAPS, "memory cap of %s hit %ld time(s) (cgroup)", b, ev->res.mem_failcnt);
	if (ev->res.out_truncated && ev->res.out_bytes > lim->output) {
		fmt_bytes(a, sizeof a, lim->output);
		fmt_bytes(b, sizeof b, ev->res.out_bytes);
		fire(&f, MECH_CAPS, "output cap: %s kept of %s", a, b);
	}
	/* the CPU quota slows a run down, it ends nothing: it is the layer
	 * holding a hog back only when the run had a hog's CPU to hold (a
	 * second of it or more); under that, a throttle is the interpreter's
	 * start on a loaded machine meeting the quota (thirty forks at load 10
	 * were "throttled 2 times"), no attack met */
	if (ev->res.cpu_throttled > 0 && ev->res.cpu_s >= CPU_QUOTA_HOG_S)
		fire(&f, MECH_CAPS, "CPU quota of %.2g core(s) throttled it %ld time(s)", lim->cpu,
		     ev->res.cpu_throttled);
	for (int i = 0; i < f.n; i++)
		add(r, "%s", f.line[i]);
	if (f.n) {
		str_copy(first, cap, f.line[0]);
		*which = f.by[0];
	}
	return f.n;
}

static void resource_figures(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	const struct lab_limits *lim = &cfg->limits;
	char mem[32], cap[32];
	fmt_bytes(mem, sizeof mem, ev->res.peak_mem);
	fmt_bytes(cap, sizeof cap, lim->memory);
	bool gv = r->box == RUNG_GVISOR;
	if (ev->res.guest_measured && gv) {
		add(r,
		    "peak processes: %ld (cap %ld) — the Sentry's task count (threads included), sampled by "
		    "`runsc events --stats`",
		    ev->res.peak_procs, lim->pids);
	} else if (ev->res.guest_measured) {
		add(r, "peak processes: %ld (cap %ld) — the guest cgroup's pids.peak, sent by the microVM's init",
		    ev->res.peak_procs, lim->pids);
	} else if (own_kernel(r)) {
		add(r,
		    "processes and memory: the snippet's live inside %s, out of the host's sight; the figures below "
		    "are %s own",
		    gv ? "gVisor's Sentry" : "the microVM's guest kernel", gv ? "runsc's" : "QEMU's");
	} else

		add(r, "peak processes: %ld (cap %ld)%s", ev->res.peak_procs, lim->pids,
		    ev->res.cgroup_used
		        ? " — cgroup pids.peak (threads count, as pids.max counts them)"
		        : " — counted in /proc, threads included (pids.max and RLIMIT_NPROC count them)");
	/* the lab's own sum is of host processes: on an upper rung it is QEMU
	 * or runsc, said above */
	bool sampled = ev->res.peak_mem_sampled && !own_kernel(r);
	const char *source = ev->res.guest_measured && gv
	                         ? " — the Sentry's memory-file usage (the whole sandbox's: anonymous, page cache, "
	                           "tmpfs; not the Sentry's own Go heap), sampled by `runsc events --stats`"
	                     : ev->res.guest_measured       ? " — the guest cgroup's memory.peak"
	                     : ev->res.peak_mem_from_cgroup ? " — the cgroup's peak"
	                     : !ev->res.peak_mem_sampled    ? " — largest process, rusage"
	                     : !sampled ? " — the host processes' total (QEMU's or runsc's), sampled by the lab"
	                                : " — the run's total, sampled by the lab (no cgroup: pipe buffers "
	                                  "and shared memory held only by a mapping are out of its sight)";
	add(r, "peak memory: %s%s (cap %s)%s", sampled ? "at least " : "", mem, cap, source);
	add(r, "CPU time: %.2f s over %ld ms wall%s", ev->res.cpu_s, ev->end.duration_ms,
	    ev->res.guest_measured && gv ? " — runsc's processes on the host (the Sentry's own work and the stats "
	                                   "poller's included), not the snippet's: it judges nothing"
	                                 : "");
}

/* On the upper rungs the snippet's processes and memory live in another
 * kernel (gVisor's Sentry, the microVM's guest): what the host sees is
 * runsc's or QEMU's own, so no figure of it may judge the bomb. */
static bool resources_out_of_sight(struct lab_result *r)
{
	bool on = armed(r, MECH_CAPS);
	/* the microVM's init sends its guest cgroup's figures: judged as the
	 * container's are */
	if (!own_kernel(r) || r->ev.res.guest_measured)
		return false;
	if (r->ev.end.timed_out &&
	    armed(r, MECH_WALL_CLOCK)) { /* the one mechanism the lab sees from here: its own clock */
		r->verdict = VERDICT_CONTAINED;
		credit(r, MECH_WALL_CLOCK);
		set_headline(r, "Resource-limits: killed by the wall clock at %.1f s", r->ev.end.duration_ms / 1000.0);
		return true;
	}
	r->verdict = VERDICT_ERROR;
	if (r->box == RUNG_GVISOR)
		set_headline(r,
		             "gVisor keeps the snippet's processes and memory inside its Sentry: from outside "
		             "the lab sees neither what the bomb took nor a limit firing, so it gives no verdict%s",
		             on ? " (the Sentry enforces the OCI rlimits: see the snippet's own words)" : "");
	else
		set_headline(r,
		             "The microVM keeps the snippet's processes and memory inside its guest kernel: the host "
		             "sees only QEMU, so the lab gives no verdict%s",
		             on ? " (the guest's cgroup and rlimits hold it: see the snippet's own words)" : "");
	return true;
}

/* Without a cgroup the lab sums the run's memory itself, and some of it
 * it cannot see (box_sample_tree's shmem_unseen): with such objects about
 * and no run-wide memory limit seen to fire, a figure under the cap proves
 * nothing, so neither CONTAINED nor "stayed under every cap" may be said. */
static bool memory_out_of_sight(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	if (!ev->res.peak_mem_sampled || ev->res.mem_unseen <= 0 || ev->res.mem_cap_killed || ev->res.oom_kills > 0)
		return false;
	char mem[32], cap[32];
	fmt_bytes(mem, sizeof mem, ev->res.peak_mem);
	fmt_bytes(cap, sizeof cap, cfg->limits.memory);
	r->verdict = VERDICT_ERROR;
	r->caught_by = -1;
	set_headline(
	    r,
	    "The lab cannot see all of this run's memory: %d shared memory object(s) (shared anonymous memory, "
	    "or a memfd no descriptor holds) keep pages no /proc file shows, and without a cgroup nothing "
	    "charges them; %s is a lower bound, so it cannot say the run stayed under the %s cap",
	    ev->res.mem_unseen, mem, cap);
	return true;
}

/* gVisor's Sentry enforces the rlimits inside itself and keeps no count of
 * what they refused that the lab can read (its stats have tasks and
 * memory, not refusals), and no init of the lab's sees the snippet's own
 * CPU: with nothing past a cap, the lab can say neither that a limit
 * stopped the bomb nor that none had to. */
static void sentry_unseen(struct lab_result *r, const struct lab_config *cfg)
{
	char mem[32], cap[32];
	fmt_bytes(mem, sizeof mem, r->ev.res.peak_mem);
	fmt_bytes(cap, sizeof cap, cfg->limits.memory);
	r->verdict = VERDICT_ERROR;
	r->caught_by = -1;
	set_headline(r,
	             "gVisor's Sentry enforces the limits inside itself and counts no refusal the lab can read: it "
	             "counted %ld tasks (cap %ld) and %s of memory (cap %s), so the lab cannot say whether a limit "
	             "stopped the bomb or it stopped by itself",
	             r->ev.res.peak_procs, cfg->limits.pids, mem, cap);
}

/* What "seen" covers, for a bomb no limit was seen to stop: a refusal of
 * RLIMIT_AS or RLIMIT_NPROC, and a kill by RLIMIT_CPU of a process its
 * parent reaps, are in no count the lab can read afterwards; they are
 * seen only where its watch stopped the call, and a child the kernel
 * reaps itself (its parent ignores SIGCHLD) is in no wait at all. */
static void unseen_lines(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->trace.watch_limits)
		add(r, "watched as they were made: every fork, every wait and every mapping of 1 MiB or more; a "
		       "smaller mapping, brk() and a stack's growth are not watched");
	else
		add(r, "no call of the run's was watched (no listener: LAB_TRACE=0, or a rung without the host's "
		       "kernel): RLIMIT_AS and RLIMIT_NPROC refuse, and RLIMIT_CPU kills a child, without a count the "
		       "lab can read");
	double others = ev->res.cpu_s - (ev->res.cpu_main_seen ? ev->res.cpu_main_ms / 1000.0 : 0);
	if (ev->res.cpu_main_seen && others >= (double)cfg->limits.cpu_time)
		add(r,
		    "the run's other processes used %.1f s of CPU in all (RLIMIT_CPU: %ld s each): the lab read %ld of "
		    "their ends; one the kernel reaped itself (its parent ignores SIGCHLD) is seen by no wait",
		    others, cfg->limits.cpu_time, ev->trace.ends_seen);
}

static void judge_resource(struct lab_result *r, const struct lab_config *cfg)
{
	char first[LAB_LINE] = "";
	enum lab_mech which = MECH_CAPS;
	bool on = armed(r, MECH_CAPS);
	if (!resources_out_of_sight(r) && !over_caps(r, cfg) && !memory_out_of_sight(r, cfg)) {
		if (on && mechanisms_fired(r, cfg, first, sizeof first, &which)) {
			r->verdict = VERDICT_CONTAINED;
			credit(r, which);
			set_headline(r, "Resource-limits: %s", first);
		} else if (broke_by_itself(r)) {
			broke(r, "");
		} else if (on && r->box == RUNG_GVISOR && r->ev.res.guest_measured) {
			sentry_unseen(r, cfg);
		} else {
			broke(r, on ? "it stayed under every cap and no limit was seen to fire"
			            : "it stayed under every cap of layers.ini with no limit applied");
			if (on)
				unseen_lines(r, cfg);
		}
	}
	resource_figures(r, cfg);
	how_it_ended(r, cfg);
}

/* ---- the other three threats: escape evidence, else the layer's proof ---- */

/* An allow-list cannot tell data from a request, and neither can the lab:
 * headers, a URL path or a short body can carry the data encoded (XOR, hex,
 * split...). So any request the proxy let through from this run with bytes
 * up takes CONTAINED away: the lab has no evidence that the mechanism
 * stopped the attack, only that the canary it can read was not in it. */
static bool allowed_bytes_up(const struct lab_evidence *ev)
{
	return ev->egress.net_mode == NET_MODE_ALLOWLIST && ev->egress.proxy_allowed > 0 && ev->egress.api_bytes > 0;
}

static void allowed_unread_lines(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char payload[32];
	fmt_thousands(payload, sizeof payload, ev->egress.api_payload);
	add(r, "the egress proxy let %ld request(s) through to an allowed host", ev->egress.proxy_allowed);
	add(r,
	    "api.lab.test: %ld request(s), %s bytes of bodies and query strings; headers and URL paths carry "
	    "data too",
	    ev->egress.api_requests, payload);
	if (ev->egress.proxy_refused)
		add(r, "the proxy did refuse %s", ev->egress.proxy_refusal);
	proxy_lines(r, 4);
}

static bool escaped_unread(struct lab_result *r, const char *what)
{
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	if (!allowed_bytes_up(ev))
		return false;
	fmt_thousands(bytes, sizeof bytes, ev->egress.api_bytes);
	r->verdict = VERDICT_ESCAPED;
	set_headline(r,
	             "The proxy let %ld request(s), %s bytes, through to api.lab.test; the lab found no %s it can "
	             "read in them, but an allow-list cannot tell data from a request",
	             ev->egress.proxy_allowed, bytes, what);
	allowed_unread_lines(r);
	return true;
}

/* One evidence line per place a secret came from (ev->secrets.leaked's groups). */
static void leak_lines(struct lab_result *r)
{
	for (const char *g = r->ev.secrets.leaked; *g;) {
		size_t len = strcspn(g, ";");
		add(r, "  %.*s", (int)len, g);
		g += len;
		g += strspn(g, "; ");
	}
}

/* Secrets in reach that the snippet wrote only past the output cap: the
 * lab read and dropped them, so none came out. The cap that dropped them
 * is Resource-limits' when it is armed and the tighter one, else the
 * range's safety net, which takes no layer's credit. */
static bool dropped_by_output_cap(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->secrets.secrets_past_cap <= 0)
		return false;
	bool layer = armed(r, MECH_CAPS) && cfg->limits.output <= cfg->safety_output;
	char kept[32], all[32];
	fmt_bytes(kept, sizeof kept, layer ? cfg->limits.output : cfg->safety_output);
	fmt_bytes(all, sizeof all, ev->res.out_bytes);
	if (layer) {
		r->verdict = VERDICT_CONTAINED;
		credit(r, MECH_CAPS);
		set_headline(r,
		             "The output cap dropped %d planted secret(s) the snippet wrote past its %s: none came out",
		             ev->secrets.secrets_past_cap, kept);
	} else {
		broke(r, "no planted secret came out: the range's output cap dropped what the snippet wrote past it");
	}
	add(r,
	    "the attempt: %d planted secret(s) in the output past the cap (%s kept of %s written), read by the lab "
	    "and dropped, never shown nor passed on",
	    ev->secrets.secrets_past_cap, kept, all);
	add(r, "0 of %d canary secrets in what came out", ev->secrets.canaries_planted);
	return true;
}

static void judge_secrets(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	fmt_thousands(bytes, sizeof bytes, ev->res.out_bytes);
	if (ev->secrets.canaries_leaked > 0) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "%d of %d planted secrets came out of the sandbox, from %s",
		             ev->secrets.canaries_leaked, ev->secrets.canaries_planted, ev->secrets.leak_places);
		add(r, "leaked canaries found in what came out (the output%s%s), by the place each was read:",
		    ev->exfil.secrets_to_attacker ? ", the attacker's listener" : "",
		    ev->egress.secrets_to_api ? ", api.lab.test: sent out through the network" : "");
		leak_lines(r);
		if (ev->egress.secrets_to_api)
			add(r, "%d planted secret(s) reached api.lab.test%s", ev->egress.secrets_to_api,
			    ev->egress.net_mode == NET_MODE_ALLOWLIST && ev->egress.proxy_allowed
			        ? ": an allowed host, through the egress proxy"
			        : "");
		add(r, "the sandbox got %d environment variables, the decoy keys among them", ev->secrets.env_vars);
		if (ev->secrets.creds_mounted)
			add(r, "the decoy ~/.aws/credentials was mounted into the sandbox");
		return;
	}
	bool in_reach = !armed(r, MECH_CLEAN_ENV) || ev->secrets.creds_mounted;
	/* secrets in reach and requests let out with bytes: they may have left
	 * encoded, so neither BROKE nor CONTAINED is true */
	if (in_reach && escaped_unread(r, "planted secret")) {
		add(r, "the sandbox got %d environment variables, the decoy keys among them", ev->secrets.env_vars);
		return;
	}
	if (in_reach && !broke_by_itself(r) && dropped_by_output_cap(r, cfg))
		return;
	if (broke_by_itself(r) || in_reach)
		broke(r, "no planted secret came out, though Clean-env was off and they were there to take");
	else {
		r->verdict = VERDICT_CONTAINED;
		credit(r, MECH_CLEAN_ENV);
		set_headline(r, "No secret was there to steal: the environment was rebuilt from the allow-list");
		add(r, "the attempt: the lab cannot see one for secrets — reading os.environ is no system call, and a "
		       "look for a credentials file that is not there leaves nothing it watches; the credit rests on "
		       "what was handed in");
	}
	add(r, "0 of %d canary secrets in the %s bytes of output", ev->secrets.canaries_planted, bytes);
	add(r, "the sandbox got %d environment variables%s", ev->secrets.env_vars,
	    ev->secrets.creds_mounted ? ", the decoy keys among them" : " (allow-list + HOME + task inputs)");
	add(r,
	    ev->secrets.creds_mounted ? "the decoy credentials file was mounted" : "no credentials file was mounted");
}

/* The microVM's guest kernel served the snippet. */
static bool vm(const struct lab_result *r)
{
	return r->box == RUNG_MICROVM;
}

/* Behind the allow-list: the data left through a host it lets out. */
static bool escaped_through_allowed(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	if (!ev->egress.api_from_run)
		return false;
	fmt_thousands(bytes, sizeof bytes, ev->egress.api_bytes);
	r->verdict = VERDICT_ESCAPED;
	set_headline(r, "The data left through an allowed host: api.lab.test received %s bytes%s", bytes,
	             ev->egress.api_got_canary ? ", the canary row of the customer data among them" : "");
	add(r, "an allow-list narrows the door; data can still leave through an allowed host");
	add(r,
	    "api.lab.test (what it received, outside the sandbox): %ld request(s), %s bytes, canary row %s, %d "
	    "planted secret(s)",
	    ev->egress.api_requests, bytes, ev->egress.api_got_canary ? "present" : "absent",
	    ev->egress.secrets_to_api);
	if (ev->egress.proxy_refused)
		add(r, "the proxy did refuse %s", ev->egress.proxy_refusal);
	proxy_lines(r, 4);
	return true;
}

/* No-network's proof that the door was shut, in its own words. */
static bool network_proof(struct lab_result *r, bool gv)
{
	const struct lab_evidence *ev = &r->ev;
	if (!armed(r, MECH_NET_CLOSED) || !ev->exfil.own_netns)
		return false;
	if (armed(r, MECH_PROXY)) /* lo is up: 127.0.0.1 is the sandbox's own */
		return ev->egress.net_route_errno == ENETUNREACH && ev->exfil.net_probe_errno > 0;
	return ev->exfil.net_probe_errno == ENETUNREACH || (gv && ev->exfil.net_probe_errno > 0);
}

static void exfil_contained_headline(struct lab_result *r, bool gv)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->egress.net_mode == NET_MODE_ALLOWLIST && ev->egress.proxy_refused)
		set_headline(r, "The egress proxy refused %s", ev->egress.proxy_refusal);
	else if (ev->egress.net_mode == NET_MODE_ALLOWLIST && ev->egress.proxy_allowed == 0)
		set_headline(r,
		             "No way out but the egress proxy: off loopback connect() -> Network is unreachable, and "
		             "nothing of this run went through it");
	else if (ev->egress.net_mode == NET_MODE_ALLOWLIST)
		set_headline(r,
		             "No way out but the egress proxy: off loopback connect() -> Network is unreachable; the "
		             "proxy let %ld request(s) through, and api.lab.test received no byte of them",
		             ev->egress.proxy_allowed);
	else if (ev->exfil.net_probe_errno == ENETUNREACH && vm(r))
		set_headline(r, "connect() failed: Network is unreachable — the microVM has no network card");
	else if (ev->exfil.net_probe_errno == ENETUNREACH)
		set_headline(r, "connect() failed: Network is unreachable — the sandbox has its own network "
		                "namespace with no interface");
	else if (gv)
		set_headline(r,
		             "connect() failed: %s — gVisor's own network stack (--network=none) has only its "
		             "own loopback, not the host's",
		             strerror(ev->exfil.net_probe_errno));
}

/* With the network open, bytes at the attacker the lab could tie neither to
 * this run nor to anyone else (no mark it can read, and the sending socket
 * was closed before the lab could ask whose it was): not "nothing reached
 * the attacker". The door was open and something came through it. */
static bool escaped_untied(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	if (ev->exfil.attacker_untied_bytes == 0 || armed(r, MECH_NET_CLOSED))
		return false;
	fmt_thousands(bytes, sizeof bytes, ev->exfil.attacker_untied_bytes);
	r->verdict = VERDICT_ESCAPED;
	set_headline(r,
	             "The network was open and the attacker received %s bytes the lab could not tie to this run "
	             "or to another",
	             bytes);
	add(r, "no mark of this run the lab can read (token, canary row, secret) was in them, and the sending "
	       "socket was closed before the lab could see whose it was");
	add(r, "attacker listener on 127.0.0.1: %ld connection(s), %s bytes from such sockets",
	    ev->exfil.attacker_conns, bytes);
	add(r, "the sandbox shared the host's network namespace: nothing kept it from the listener");
	return true;
}

static void judge_exfil(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	fmt_thousands(bytes, sizeof bytes, ev->exfil.attacker_bytes);
	if (ev->exfil.attacker_bytes > 0 && ev->exfil.attacker_from_run) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The attacker received %s bytes%s", bytes,
		             ev->exfil.attacker_got_canary ? ", including the canary row of the customer data" : "");
		add(r, "attacker listener on 127.0.0.1: %ld connection(s), %s bytes, canary row %s",
		    ev->exfil.attacker_conns, bytes, ev->exfil.attacker_got_canary ? "present" : "absent");
		/* from what the proxy logged, not from the mode it ran in */
		if (ev->egress.proxy_to_attacker)
			add(r,
			    "the egress proxy let it out: %ld request(s) to attacker.lab.test, which is on the "
			    "allow-list",
			    ev->egress.proxy_to_attacker);
		else
			add(r, "%s",
			    armed(r, MECH_PROXY)
			        ? "the egress proxy logged no request to attacker.lab.test: this did not go through it"
			    : vm(r) ? "the microVM had a user-mode network card; its gateway is QEMU's loopback, where "
			              "the attacker was"
			            : "No-network was off: the sandbox had a network, and the attacker was on it");
		proxy_lines(r, 3);
		return;
	}
	if (escaped_through_allowed(r) || escaped_unread(r, "canary") || escaped_untied(r))
		return;
	/* gVisor's own netstack has a loopback of its own: 127.0.0.1 there
	 * refuses (ECONNREFUSED) rather than being unreachable */
	bool gv = r->box == RUNG_GVISOR;
	enum attempt att = network_attempt(ev);
	if (broke_by_itself(r) || !network_proof(r, gv)) {
		broke(r, ev->exfil.own_netns ? "nothing reached the attacker, but no probe showed the door shut"
		                             : "nothing reached the attacker, though the network was open");
	} else if (att == ATTEMPT_NONE) {
		no_attempt(r,
		           "the trace watched every connect(), and every sendto(), sendmsg() and sendmmsg() with an "
		           "address, of the run (those it could not make itself are listed as not observed): none it "
		           "made was refused, no socket was refused, and the egress proxy refused no request");
	} else {
		r->verdict = VERDICT_CONTAINED;
		credit(r, armed(r, MECH_PROXY) && ev->egress.proxy_refused ? MECH_PROXY : MECH_NET_CLOSED);
		exfil_contained_headline(r, gv);
		if (att == ATTEMPT_UNSEEN)
			attempt_unseen(r);
		else
			quote_attempt(r, "(No-network)", true, "its attempt, refused");
	}
	if (ev->exfil.net_probe_errno >= 0)
		add(r, "probe from inside %s: connect(%s) -> %s (errno %d)",
		    gv      ? "a probe sandbox beside it (same runsc, same network)"
		    : vm(r) ? "the guest, by our init"
		            : "the sandbox",
		    vm(r) ? "the attacker's address"
		    : ev->egress.net_mode == NET_MODE_ALLOWLIST
		        ? "127.0.0.1, the attacker's port: the sandbox's own loopback"
		        : "127.0.0.1",
		    ev->exfil.net_probe_errno ? strerror(ev->exfil.net_probe_errno) : "connected",
		    ev->exfil.net_probe_errno);
	if (ev->egress.net_mode == NET_MODE_ALLOWLIST && ev->egress.net_route_errno >= 0)
		add(r, "probe from inside %s: connect(192.0.2.1:80, off loopback) -> %s (errno %d)",
		    gv ? "the probe sandbox" : "the sandbox",
		    ev->egress.net_route_errno ? strerror(ev->egress.net_route_errno) : "connected",
		    ev->egress.net_route_errno);
	if (ev->exfil.attacker_bytes > 0)
		add(r,
		    "the attacker's listener got %s bytes that carry none of this run's marks (its token, canary "
		    "row or secrets)%s: another run's, not counted",
		    bytes, ev->exfil.attacker_stranger_bytes ? ", from sockets no process of this run held" : "");
	else
		add(r, "the attacker's listener received 0 bytes (%ld connections)", ev->exfil.attacker_conns);
	proxy_lines(r, 3);
}

/* The run died on an error naming a path that is neither the host target
 * nor a folder on its way (a typo'd target, say), and the lab saw no
 * write aimed at the target: it failed by itself, wherever it ran. */
static bool missed_target(const struct lab_evidence *ev)
{
	return ev->end.exit_code != 0 && !ev->end.exit_signal && ev->end.exception_path[0] &&
	       ev->trace.target_touches == 0 && !path_is_or_holds(ev->end.exception_path, ev->host.host_target);
}

/* What the host folder's watch and the look after it found (the range's
 * host folder, Isolation off): every change names itself. */
static void host_folder_lines(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->host.host_changed[0])
		add(r, "host folder changed: %s", ev->host.host_changed);
	if (ev->host.host_seen[0])
		add(r, "while it ran: %s", ev->host.host_seen);
}

static void judge_takeover(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->host.host_target_written) {
		char sz[32];
		fmt_bytes(sz, sizeof sz, ev->host.host_target_size);
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The snippet planted a file on the host: %s", ev->host.host_target);
		if (ev->host.host_target_gone)
			add(r, "host target written while it ran, then removed or moved away before it ended: %s",
			    ev->host.host_target);
		else
			add(r, "host target created: %s (%s)", ev->host.host_target, sz);
		host_folder_lines(r);
		add(r, "the sandbox saw the host's filesystem with the lab's own privileges");
		return;
	}
	if (ev->host.host_planted[0]) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The snippet left a way back in on the host: %s", ev->host.host_planted);
		add(r, "left in the host folder: %s — whoever runs it gets its owner's rights", ev->host.host_planted);
		host_folder_lines(r);
		return;
	}
	/* any file, folder or link made, changed or removed there: the host
	 * written, whatever name the snippet chose */
	if (ev->host.host_changed[0]) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The snippet changed the host's files: %s", ev->host.host_changed);
		host_folder_lines(r);
		add(r,
		    "host target not created: %s; the sandbox saw the host's filesystem with the lab's own "
		    "privileges",
		    ev->host.host_target);
		return;
	}
	if (missed_target(ev)) {
		broke(r, "its last error names a path that is not the host target nor a folder on its way");
		add(r, "last error: %s on %s; the host target is %s", ev->end.exception, ev->end.exception_path,
		    ev->host.host_target);
		return;
	}
	if (broke_by_itself(r) || !armed(r, MECH_PRIVATE_ROOT) || ev->host.host_visible) {
		broke(r, "the host target was not created, though the host was in its view");
		add(r, "host target not created: %s", ev->host.host_target);
		if (ev->host.host_seen[0])
			add(r, "the host folder as the lab planted it; while it ran: %s", ev->host.host_seen);
		return;
	}
	enum attempt att = isolation_attempt(ev);
	if (att == ATTEMPT_NONE) {
		no_attempt(r,
		           "the trace watched the seccomp filter's refusals and every write aimed at the host target: "
		           "there were none");
		add(r, "host target not created: %s", ev->host.host_target);
		return;
	}
	r->verdict = VERDICT_CONTAINED;
	credit(r, MECH_PRIVATE_ROOT);
	add(r, "host target not created: %s", ev->host.host_target);
	if (att == ATTEMPT_UNSEEN) {
		attempt_unseen(r);
	} else {
		quote_attempt(r, "in the private root", false, "its write, answered by the private root");
		quote_attempt(r, "seccomp (Isolation)", true, "refused by the seccomp filter");
	}
	if (r->box == RUNG_GVISOR) {
		set_headline(r, "The host was out of reach: gVisor's Sentry served the snippet from the bundle's "
		                "read-only root");
		add(r, "the host folder was not among the OCI bundle's mounts: gVisor's own file system saw only "
		       "/usr, /work and a private /tmp");
		add(r, "root inside was gVisor's root, a process of its Sentry, not of the host kernel");
		return;
	}
	if (vm(r)) {
		set_headline(r, "The host was out of reach: the snippet ran in a microVM on its own kernel");
		add(r, "the guest saw only the host's /usr and its work folder, shared read-only over 9p");
		add(r, "root inside was the guest's (the snippet itself ran as uid 65534 there); QEMU ran as an "
		       "unprivileged uid on the host");
		return;
	}
	set_headline(r, "The host was out of reach: a private root with no capabilities and a seccomp filter");
	add(r, "the host folder was not in the sandbox's view (mount namespace + pivot_root)");
	add(r, "sandbox root was an unprivileged uid outside, with every capability dropped");
}

/* ---- the kernel's own attack surface: which kernel answered ---- */

static void kernel_served_by_host(struct lab_result *r, const char *why)
{
	const struct lab_evidence *ev = &r->ev;
	r->verdict = VERDICT_ESCAPED;
	set_headline(r, "Your kernel executed its system calls — one kernel bug away from a host takeover%s", why);
	add(r, "the snippet ran as a host process on kernel %s, boot id %s", ev->kernel.kernel_release,
	    ev->kernel.kernel_boot_id[0] ? ev->kernel.kernel_boot_id : "?");
	add(r, "%s",
	    armed(r, MECH_SECCOMP)
	        ? "every call it made reached the host's kernel: the seccomp filter turned the riskiest away "
	          "there, in the same kernel one bug would undo"
	        : "every call it made, io_uring, bpf, userfaultfd and keyctl among them, was served by the "
	          "host's own kernel");
}

static void judge_kernel(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	if (!own_kernel(r) || ev->kernel.snippet_on_host) {
		kernel_served_by_host(r, !armed(r, MECH_SECCOMP) ? " (Isolation off)"
		                         : !own_kernel(r)        ? " (namespaces and seccomp share the host kernel)"
		                                                 : "");
		return;
	}
	if (r->box == RUNG_GVISOR && ev->kernel.host_scans > 0 && ev->kernel.kernel_release[0] &&
	    strcmp(ev->kernel.kernel_release, ev->kernel.host_release) != 0) {
		r->verdict = VERDICT_CONTAINED;
		credit(r, MECH_OWN_KERNEL);
		set_headline(r, "gVisor's Sentry answered its system calls (kernel %s), not the host's %s",
		             ev->kernel.kernel_release, ev->kernel.host_release);
		add(r,
		    "the lab scanned the run's host processes %ld times: at most %ld, all runsc's; the "
		    "interpreter was never one of them",
		    ev->kernel.host_scans, ev->kernel.host_procs);
		add(r, "a probe sandbox beside it (same runsc, same platform) answered uname -r: %s; boot id: %s",
		    ev->kernel.kernel_release,
		    ev->kernel.kernel_boot_id[0] ? ev->kernel.kernel_boot_id : "none (gVisor has none)");
		add(r, "the host: kernel %s, boot id %s", ev->kernel.host_release, ev->kernel.host_boot_id);
		return;
	}
	if (r->box == RUNG_MICROVM && ev->kernel.kernel_boot_id[0] &&
	    strcmp(ev->kernel.kernel_boot_id, ev->kernel.host_boot_id) != 0) {
		r->verdict = VERDICT_CONTAINED;
		credit(r, MECH_OWN_KERNEL);
		set_headline(r, "Its own guest kernel answered its system calls (kernel %s), not the host's",
		             ev->kernel.kernel_release[0] ? ev->kernel.kernel_release : "?");
		add(r, "guest kernel: release %s, boot id %s (reported by the lab's init in the guest)",
		    ev->kernel.kernel_release[0] ? ev->kernel.kernel_release : "?", ev->kernel.kernel_boot_id);
		add(r, "the host: kernel %s, boot id %s", ev->kernel.host_release, ev->kernel.host_boot_id);
		return;
	}
	r->verdict = VERDICT_ERROR;
	set_headline(r, "No evidence of which kernel answered on the %s rung: the lab cannot give a verdict",
	             lab_rung_key(r->box));
	add(r, "release seen: \"%s\", boot id seen: \"%s\", host process scans: %ld", ev->kernel.kernel_release,
	    ev->kernel.kernel_boot_id, ev->kernel.host_scans);
}

/* ---- audit: a foreign sandbox (box_wrapper.c) ----
 * The lab cannot see the wrapper's mechanism, only what came out. An attack
 * is ESCAPED on the same evidence as in the lab's own runs; otherwise it is
 * CONTAINED "by the wrapper", worded as what the evidence shows (nothing
 * came out), never as a layer of the lab's; BROKE when it broke by itself. */

static void audit_contained(struct lab_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void audit_contained(struct lab_result *r, const char *fmt, ...)
{
	char what[LAB_LINE];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (broke_by_itself(r)) {
		broke(r, what);
		return;
	}
	r->verdict = VERDICT_CONTAINED;
	r->caught_by = -1;
	set_headline(r, "by the wrapper: %s", what);
}

/* An audit's wall time: from the moment the snippet's interpreter was
 * started (its start time in /proc, which no wrapper's clock can precede:
 * the wrapper's start-up, its namespaces, a loaded machine's wait before
 * it are not the snippet's), else from the wrapper's start. */
static long audit_wall_ms(const struct lab_evidence *ev)
{
	return ev->end.snippet_start_ms > 0 && ev->end.snippet_start_ms < ev->end.duration_ms
	           ? ev->end.duration_ms - ev->end.snippet_start_ms
	           : ev->end.duration_ms;
}

/* An audit's CPU against the cap, which layers.ini gives per process
 * (RLIMIT_CPU): the snippet's busiest process. A tree's total is not it:
 * 32 processes may each take what the cap allows, and the wrapper's own
 * start-up (namespaces, a sanitizer's) is not the snippet's. Only when no
 * process of the snippet's was seen (a wrapper hiding them) is it the
 * tree's, which can only overstate. */
static double audit_cpu_s(const struct lab_evidence *ev)
{
	return ev->res.cpu_proc_seen ? ev->res.cpu_proc_max_ms / 1000.0 : ev->res.cpu_s;
}

/* The wrapper ended the code itself: it died of a signal, or said so as a
 * shell does (128+N), and neither the lab's clock nor its safety net did. */
static bool killed_by_wrapper(const struct lab_evidence *ev)
{
	return !ev->end.timed_out && !ev->end.safety_net &&
	       (ev->end.exit_signal > 0 || (ev->end.exit_code > 128 && ev->end.exit_code <= 128 + 64));
}

/* The caps of layers.ini against an audit's figures. Every cap crossed
 * makes the bomb ESCAPED, unless each was crossed by less than the
 * tolerance and the wrapper's kill is in evidence: then its own limit
 * held, a little late ("stopped at 5.2 s: the wrapper's timeout"). */
static bool audit_over_caps(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	const struct lab_limits *lim = &cfg->limits;
	enum { COUNT, BYTES, SECONDS };
	const struct {
		double figure, cap;
		int kind;
		const char *what, *whose;
	} caps[] = {
	    {(double)ev->res.peak_procs, (double)lim->pids, COUNT, " processes", "its process limit"},
	    {(double)ev->res.peak_mem, (double)lim->memory, BYTES, " of memory", "its memory limit"},
	    {audit_cpu_s(ev), (double)lim->cpu_time, SECONDS,
	     ev->res.cpu_proc_seen ? " of CPU in one process" : " of CPU", "its CPU limit"},
	    {audit_wall_ms(ev) / 1000.0, lim->timeout_ms / 1000.0, SECONDS, " of wall time", "the wrapper's timeout"},
	    {(double)ev->res.out_bytes, (double)lim->output, BYTES, " of output", "its output cap"},
	};
	char line[LAB_LINE] = "", within[LAB_LINE] = "";
	int crossed = 0, beyond = 0;
	double tol = 1.0 + (double)cfg->audit_tolerance_pct / 100.0;
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		if (caps[i].figure <= caps[i].cap)
			continue;
		char f[32], c[32];
		if (caps[i].kind == BYTES) {
			fmt_bytes(f, sizeof f, (uint64_t)caps[i].figure);
			fmt_bytes(c, sizeof c, (uint64_t)caps[i].cap);
		} else {
			bool n = caps[i].kind == COUNT;
			snprintf(f, sizeof f, n ? "%.0f" : "%.1f s", caps[i].figure);
			snprintf(c, sizeof c, n ? "%.0f" : "%.1f s", caps[i].cap);
		}
		str_append(line, sizeof line, "%s%s%s (cap %s)", crossed++ ? ", " : "", f, caps[i].what, c);
		str_append(within, sizeof within, "%sstopped at %s: %s", within[0] ? "; " : "", f, caps[i].whose);
		beyond += caps[i].figure > caps[i].cap * tol;
	}
	if (!crossed)
		return false;
	if (!beyond && killed_by_wrapper(ev)) {
		audit_contained(r, "%s (%s, within the %ld%% tolerance; the wrapper's kill: %s %d)", within, line,
		                cfg->audit_tolerance_pct, ev->end.exit_signal ? "signal" : "exit status",
		                ev->end.exit_signal ? ev->end.exit_signal : ev->end.exit_code);
		return true;
	}
	r->verdict = VERDICT_ESCAPED;
	set_headline(r, "The bomb took %s", line);
	return true;
}

/* An audit of a bomb: the caps of layers.ini against what the wrapper let it take */
static void audit_resource(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	char a[32], b[32];
	if (!audit_over_caps(r, cfg)) {
		fmt_bytes(a, sizeof a, ev->res.peak_mem);
		audit_contained(r,
		                "the bomb stayed under every cap of layers.ini (%ld processes, %s, %.1f s CPU%s, "
		                "%.1f s wall)",
		                ev->res.peak_procs, a, audit_cpu_s(ev), ev->res.cpu_proc_seen ? " in one process" : "",
		                audit_wall_ms(ev) / 1000.0);
	}
	add(r,
	    "peak processes: %ld tasks of the snippet at once (cap %ld); the wrapper's whole tree peaked at "
	    "%ld",
	    ev->res.peak_procs, cfg->limits.pids, ev->kernel.host_procs);
	fmt_bytes(a, sizeof a, ev->res.peak_mem);
	fmt_bytes(b, sizeof b, cfg->limits.memory);
	add(r, "peak memory: %s (cap %s)%s", a, b,
	    ev->res.peak_mem_from_cgroup ? ", as the measuring cgroup was charged"
	                                 : ", the tree's total less the wrapper's own processes, sampled");
	add(r, "measured by %s", ev->res.measured_by);
	if (ev->res.cpu_proc_seen)
		add(r,
		    "CPU time: %.2f s in the snippet's busiest process (cap %ld s per process); %.2f s in the "
		    "wrapper's whole tree, its own start-up included",
		    audit_cpu_s(ev), cfg->limits.cpu_time, ev->res.cpu_s);
	else
		add(r,
		    "CPU time: %.2f s in the wrapper's whole tree (cap %ld s per process; no process of the "
		    "snippet's was seen, so the tree's total is judged)",
		    ev->res.cpu_s, cfg->limits.cpu_time);
	add(r, "wall: %.1f s from the interpreter's start, %.1f s from the wrapper's (cap %.1f s)",
	    audit_wall_ms(ev) / 1000.0, ev->end.duration_ms / 1000.0, cfg->limits.timeout_ms / 1000.0);
	add(r,
	    "tolerance: a cap crossed by less than %ld%% while the wrapper's kill is in evidence is its limit "
	    "holding (layers.ini [audit] tolerance)",
	    cfg->audit_tolerance_pct);
}

/* An audit of secret theft: a planted secret in the output or at the attacker */
static void audit_secrets(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char a[32];
	fmt_thousands(a, sizeof a, ev->res.out_bytes);
	if (ev->secrets.canaries_leaked > 0) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "%d of %d planted secrets came out through the wrapper, from %s",
		             ev->secrets.canaries_leaked, ev->secrets.canaries_planted, ev->secrets.leak_places);
		leak_lines(r);
	} else {
		audit_contained(r, "none of the %d planted secrets came out (%s bytes of output, %s)",
		                ev->secrets.canaries_planted, a,
		                ev->exfil.attacker_bytes ? "none at the attacker" : "nothing at the attacker");
	}
	add(r,
	    "handed to the wrapper: %d environment variables with the decoy keys, HOME = the decoy home "
	    "with .aws/credentials, .ssh/id_ed25519, .git-credentials and projects/billing-api/.env",
	    ev->secrets.env_vars);
}

/* An audit of exfiltration: anything of this run at the attacker, api.lab.test or the DNS zone */
static void audit_exfil(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char a[32], b[32];
	fmt_thousands(a, sizeof a, ev->exfil.attacker_bytes);
	if (ev->exfil.attacker_bytes > 0 && ev->exfil.attacker_from_run) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "the attacker on the host's 127.0.0.1 received %s bytes%s", a,
		             ev->exfil.attacker_got_canary ? ", the canary row of the customer data among them" : "");
	} else if (ev->egress.api_from_run) {
		/* LAB_API is handed to the wrapper too: a host the task may use */
		fmt_thousands(b, sizeof b, ev->egress.api_bytes);
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "api.lab.test on the host's 127.0.0.1 received %s bytes%s", b,
		             ev->egress.api_got_canary ? ", the canary row of the customer data among them" : "");
	} else if (ev->exfil.dns_bytes > 0) {
		/* the zone is this run's own: only a name under it counts */
		fmt_thousands(b, sizeof b, ev->exfil.dns_bytes);
		r->verdict = VERDICT_ESCAPED;
		set_headline(r,
		             "the attacker's DNS zone on the host's 127.0.0.1 got %ld queries whose names carried "
		             "%s bytes%s",
		             ev->exfil.dns_queries, b,
		             ev->exfil.dns_got_canary ? ", the canary row of the customer data among them" : "");
	} else {
		audit_contained(r,
		                "nothing of this run reached the attacker, api.lab.test or the attacker's DNS zone "
		                "on the host's 127.0.0.1 (%ld connections, %ld queries)",
		                ev->exfil.attacker_conns, ev->exfil.dns_queries);
	}
	add(r, "attacker listener: %ld connection(s), %s bytes, canary row %s", ev->exfil.attacker_conns, a,
	    ev->exfil.attacker_got_canary ? "present" : "absent");
	fmt_thousands(b, sizeof b, ev->exfil.dns_bytes);
	add(r,
	    "the attacker's DNS zone (LAB_DNS, UDP on 127.0.0.1): %ld queries under this run's zone carrying "
	    "%s "
	    "bytes, canary row %s; %ld other datagrams not counted",
	    ev->exfil.dns_queries, b, ev->exfil.dns_got_canary ? "present" : "absent", ev->exfil.dns_strays);
}

/* An audit of host takeover: what the lab watches on the host the wrapper shares */
static void audit_takeover(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char a[32];
	if (ev->host.host_target_written) {
		fmt_bytes(a, sizeof a, ev->host.host_target_size);
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "it wrote the host target %s (%s)", ev->host.host_target, a);
	} else if (ev->host.work_planted[0]) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r,
		             "it left %s in the work folder on the host: git, direnv or the editor runs it "
		             "there later, as you",
		             ev->host.work_planted);
	} else if (ev->end.outlived > 0) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "%d process%s of the snippet's (%s) still ran when the wrapper's command had exited",
		             ev->end.outlived, ev->end.outlived == 1 ? "" : "es", ev->end.outlived_what);
	} else if (ev->host.agent_conns > 0) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r,
		             "it reached your ssh-agent's socket (~/.ssh/agent.sock)%s: whoever reaches it signs "
		             "logins and git pushes with your keys, no key file needed",
		             ev->host.agent_listed ? " and asked it for your keys" : "");
	} else {
		audit_contained(r, "nothing reached the host: the start-up file ~/.bashrc.d/persist was not "
		                   "created, no hook, .git/config change or .envrc in the work folder, no process "
		                   "outlived the wrapper, the ssh-agent's socket was not reached");
	}
	add(r,
	    "other writes are not seen: the lab watches ~/.bashrc.d/persist in the decoy home, the work "
	    "folder's "
	    ".git/hooks, .git/config, .envrc and .vscode/tasks.json, the snippet's processes once the "
	    "wrapper's "
	    "command exits, and its ssh-agent; the start-up file: %s",
	    ev->host.host_target);
	add(r,
	    "the ssh-agent stand-in at ~/.ssh/agent.sock (SSH_AUTH_SOCK): %ld connection(s) of the snippet's, "
	    "%ld "
	    "request(s) answered, the decoy key listed %ld time(s); %ld of other processes (the wrapper's, a "
	    "stranger's) not counted",
	    ev->host.agent_conns, ev->host.agent_requests, ev->host.agent_listed, ev->host.agent_strays);
	if (ev->end.outlived > 0)
		add(r, "outlived the wrapper: %d process%s (%s), ended by the lab's range after", ev->end.outlived,
		    ev->end.outlived == 1 ? "" : "es", ev->end.outlived_what);
}

static void judge_audit(const struct snippet *s, struct lab_result *r, const struct lab_config *cfg)
{
	switch (s->threat) {
	case THREAT_LEGIT:
		judge_legit(s, r, cfg);
		return;
	case THREAT_RESOURCE:
		audit_resource(r, cfg);
		break;
	case THREAT_SECRETS:
		audit_secrets(r);
		break;
	case THREAT_EXFIL:
		audit_exfil(r);
		break;
	case THREAT_TAKEOVER:
		audit_takeover(r);
		break;
	default:
		r->verdict = VERDICT_ERROR;
		set_headline(r,
		             "the lab cannot judge a %s through a foreign sandbox: it cannot see which kernel or "
		             "mechanism served it",
		             threat_name(s->threat));
		return;
	}
	how_it_ended(r, cfg);
}

/* An audited attack that never said it made its move, and got nothing
 * out: the wrapper may have run no code at all (a missing dependency,
 * /bin/false), or cleared the inputs it needed. Nothing was held back, so
 * the card gets no verdict for it. */
static void audit_not_run(struct lab_result *r)
{
	r->verdict = VERDICT_ERROR;
	set_headline(r, "NOT RUN: the attack never made its move, so the wrapper held nothing back");
	add(r, "no \"lab-attempt\" line with this run's word came out: the wrapper ran no code, or the attack "
	       "stopped before it tried");
	add(r, "ended: exit status %d after %ld ms", r->ev.end.exit_code, r->ev.end.duration_ms);
}

/* ---- every threat, every run ----
 * The header only says which layer a CONTAINED is expected from. Whatever
 * it declares, the lab has all the evidence of every threat: a canary out,
 * this run's data at the attacker or at api.lab.test, the host target
 * written or a setuid file left in the host folder, a cap of layers.ini
 * passed. Any of them is an escape, named with the layer that stops it. */

static bool secrets_out(const struct lab_result *r, const struct lab_config *cfg, char *what, size_t cap)
{
	(void)cfg;
	const struct lab_evidence *ev = &r->ev;
	if (ev->secrets.canaries_leaked <= 0)
		return false;
	snprintf(what, cap, "%d of %d planted secrets came out (from %s)", ev->secrets.canaries_leaked,
	         ev->secrets.canaries_planted, ev->secrets.leak_places);
	return true;
}

static bool exfil_out(const struct lab_result *r, const struct lab_config *cfg, char *what, size_t cap)
{
	(void)cfg;
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	if (ev->exfil.attacker_bytes > 0 && ev->exfil.attacker_from_run) {
		fmt_thousands(bytes, sizeof bytes, ev->exfil.attacker_bytes);
		snprintf(what, cap, "the attacker's listener received %s bytes from this run%s", bytes,
		         ev->exfil.attacker_got_canary ? ", the customer data's canary row among them" : "");
		return true;
	}
	if (ev->egress.api_from_run) {
		fmt_thousands(bytes, sizeof bytes, ev->egress.api_bytes);
		snprintf(what, cap, "api.lab.test received %s bytes carrying this run's %s", bytes,
		         ev->egress.api_got_canary ? "customer data (its canary row)" : "secrets");
		return true;
	}
	return false;
}

static bool takeover_out(const struct lab_result *r, const struct lab_config *cfg, char *what, size_t cap)
{
	(void)cfg;
	const struct lab_evidence *ev = &r->ev;
	char sz[32];
	if (ev->host.host_target_written) {
		fmt_bytes(sz, sizeof sz, ev->host.host_target_size);
		snprintf(what, cap, "the host target was written: %s (%s)", ev->host.host_target, sz);
		return true;
	}
	if (ev->host.host_planted[0]) {
		snprintf(what, cap, "a way back in was left in the host folder: %s", ev->host.host_planted);
		return true;
	}
	if (ev->host.host_changed[0]) {
		snprintf(what, cap, "the host folder was changed: %s", ev->host.host_changed);
		return true;
	}
	/* an audit's: the work folder, a survivor, the user's agent (whatever
	 * the snippet's header says: a "legit" task that plants a hook got out) */
	if (ev->host.work_planted[0]) {
		snprintf(what, cap, "it left %s in the work folder on the host", ev->host.work_planted);
		return true;
	}
	if (ev->end.outlived > 0) {
		snprintf(what, cap, "%d process%s of the snippet's (%s) outlived the wrapper's command",
		         ev->end.outlived, ev->end.outlived == 1 ? "" : "es", ev->end.outlived_what);
		return true;
	}
	if (ev->host.agent_conns > 0) {
		snprintf(what, cap, "it reached your ssh-agent's socket (~/.ssh/agent.sock)%s",
		         ev->host.agent_requests ? " and asked it for your keys" : "");
		return true;
	}
	return false;
}

static bool resource_out(const struct lab_result *r, const struct lab_config *cfg, char *what, size_t cap)
{
	/* an upper rung's figures are runsc's or QEMU's, an audit's the
	 * wrapper's whole tree: no figure of theirs judges another threat */
	bool upper = own_kernel(r);
	char line[LAB_LINE];
	/* not the wall clock: another threat's snippet that was merely slow
	 * (a loaded machine stretches every run) took nothing of anyone's */
	if (upper || r->audit || !caps_exceeded(r, cfg, false, line, sizeof line))
		return false;
	snprintf(what, cap, "the run took %s", line);
	return true;
}

static bool payment_out(const struct lab_result *r, const struct lab_config *cfg, char *what, size_t cap)
{
	(void)cfg;
	if (r->ev.tools.payments_made <= 0)
		return false;
	snprintf(what, cap, "%ld payment%s went out through the tool door (%s)", r->ev.tools.payments_made,
	         r->ev.tools.payments_made == 1 ? "" : "s", r->ev.tools.gate_said);
	return true;
}

static const struct {
	enum lab_threat threat;
	bool (*out)(const struct lab_result *r, const struct lab_config *cfg, char *what, size_t cap);
	const char *consequence; /* when the header's own threat did not escape */
} escapes[] = {
    {THREAT_SECRETS, secrets_out,
     "The planted API keys and credentials left the sandbox: real ones would now be the attacker's."},
    {THREAT_EXFIL, exfil_out,
     "This run's data reached a server outside the sandbox: with real customer data, a breach to disclose."},
    {THREAT_TAKEOVER, takeover_out,
     "The host's folder was changed from inside the sandbox: on a real machine, the attacker's way back in."},
    {THREAT_RESOURCE, resource_out,
     "Nothing held the run to the caps of layers.ini: an unbounded one would take the machine from everyone."},
    {THREAT_IRREVERSIBLE, payment_out,
     "A payment went out through the lab's tools: it cannot be taken back, and no layer could have seen it."},
};

/* The layer that stops a threat, and what it was doing: "No-network was
 * off". */
static void stopper(const struct lab_result *r, enum lab_threat t, char *out, size_t cap)
{
	for (int i = 0; i < LAYER_COUNT; i++) {
		if (lab_layers[i].threat != t)
			continue;
		bool on = r->layers & LAYER_BIT(i);
		if (r->audit)
			snprintf(out, cap, "the wrapper did not stop it");
		else if (!on)
			snprintf(out, cap, "%s would have stopped it: it was off", lab_layers[i].name);
		else if (r->armed[MECH_PROXY] == i)
			snprintf(out, cap, "%s was on, with its allow-list: only mode none shuts every door",
			         lab_layers[i].name);
		else
			snprintf(out, cap, "%s was on, and it got out anyway", lab_layers[i].name);
		return;
	}
	if (t == THREAT_IRREVERSIBLE)
		snprintf(out, cap, "no layer stops it; the gate did not (--approve %s)",
		         lab_approve_key(r->ev.tools.approve));
	else
		snprintf(out, cap, "no layer of the lab's stops it");
}

/* Inserts lines before the evidence already there (the escapes first). */
static void prepend(struct lab_result *r, char lines[][LAB_LINE], int n)
{
	int keep = r->n_evidence + n > LAB_EVIDENCE_MAX ? LAB_EVIDENCE_MAX - n : r->n_evidence;
	memmove(r->evidence[n], r->evidence[0], (size_t)keep * LAB_LINE);
	for (int i = 0; i < n; i++)
		memcpy(r->evidence[i], lines[i], LAB_LINE);
	r->n_evidence = keep + n;
}

static void judge_every_threat(const struct snippet *s, struct lab_result *r, const struct lab_config *cfg)
{
	char lines[sizeof escapes / sizeof *escapes][LAB_LINE], out_names[LAB_LINE] = "", what[LAB_LINE], by[160];
	const char *named[sizeof escapes / sizeof *escapes];
	int n = 0, first = -1;
	unsigned others = 0;
	if (r->verdict == VERDICT_ESCAPED)
		r->escaped |= 1u << s->threat;
	for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++) {
		if (escapes[i].threat == s->threat || !escapes[i].out(r, cfg, what, sizeof what))
			continue;
		stopper(r, escapes[i].threat, by, sizeof by);
		lines[n][0] = '\0';
		str_append(lines[n++], LAB_LINE, "also out, %s: %s — %s", threat_name(escapes[i].threat), what, by);
		named[n - 1] = threat_name(escapes[i].threat);
		others |= 1u << escapes[i].threat;
		if (first < 0)
			first = (int)i;
	}
	if (!others)
		return;
	for (int i = 0; i < n; i++) /* "a, b and c" */
		str_append(out_names, sizeof out_names, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", named[i]);
	if (r->verdict == VERDICT_ESCAPED) {
		str_append(r->headline, sizeof r->headline, "; and %s got out too", out_names);
	} else {
		r->headline[0] = '\0';
		if (s->threat == THREAT_LEGIT)
			str_append(r->headline, sizeof r->headline, "A legitimate-looking task that leaked: %s got out",
			           out_names);
		else
			str_append(r->headline, sizeof r->headline,
			           "It got out as %s, not as the %s its header declares", out_names,
			           threat_name(s->threat));
		str_copy(r->consequence, sizeof r->consequence, escapes[first].consequence);
		r->verdict = VERDICT_ESCAPED;
		r->caught_by = -1;
	}
	r->escaped |= others;
	prepend(r, lines, n);
}

/* Killed by a signal the lab did not send (run.c names it): no layer
 * stopped anything, and the snippet did not fail by itself either, so
 * there is no verdict on it, only the lab's word on what happened: ERROR.
 * What got out before is still out (an escape is evidence, whoever ended
 * the run after): then the judges go on, and the kill is one more line. */
/* Evidence that something got out, whatever the header declared and
 * however the run ended: what any threat's escape shows (escapes[]), a
 * kernel exploit's calls served by the host's kernel, bytes at the
 * attacker through an open network that the lab could not tie to anyone.
 * A kill the lab cannot attribute never hides these (the red team's
 * kernel exploit that SIGKILLed itself was ERROR, not ESCAPED). */
static bool escape_evidence(const struct snippet *s, const struct lab_config *cfg, const struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char what[LAB_LINE];
	for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++)
		if (escapes[i].threat != THREAT_RESOURCE && escapes[i].out(r, cfg, what, sizeof what))
			return true;
	if (!ev->started || r->audit)
		return false;
	if (s->threat == THREAT_KERNEL && (!own_kernel(r) || ev->kernel.snippet_on_host))
		return true;
	return s->threat != THREAT_LEGIT && ev->exfil.attacker_untied_bytes > 0 && !armed(r, MECH_NET_CLOSED);
}

static bool foreign_kill(const struct snippet *s, const struct lab_config *cfg, struct lab_result *r, bool got_out)
{
	const struct lab_evidence *ev = &r->ev;
	char line[LAB_LINE];
	if (!ev->end.foreign_signal)
		return false;
	if (got_out || (s->threat == THREAT_RESOURCE && caps_exceeded(r, cfg, true, line, sizeof line))) {
		add(r, "killed by a signal the lab did not send: %s", ev->end.foreign);
		return false;
	}
	r->verdict = VERDICT_ERROR;
	set_headline(r, "Killed by a signal the lab did not send: %s", ev->end.foreign);
	add(r, "no verdict: a run ended from outside says nothing of the layers (nothing got out before it)");
	how_it_ended(r, cfg);
	return true;
}

void verdict_decide(const struct snippet *s, const struct lab_config *cfg, struct lab_result *r)
{
	r->caught_by = -1;
	r->n_evidence = 0;
	r->headline[0] = '\0';
	r->escaped = 0;
	struct lab_setup ran = lab_result_setup(r);
	read_spec(cfg, &ran, r->armed, &r->box);
	r->rlimit_cpu = (int)evidence_rlimit_cpu(&r->ev, cfg->limits.cpu_time);
	const struct lab_evidence *ev = &r->ev;
	if (ev->end.aborted) {
		r->verdict = VERDICT_ERROR;
		set_headline(r, "Aborted: the run was stopped and cleaned up");
		return;
	}
	/* What came out is evidence whatever the box said after: an error
	 * reported late (a forged one, say) never hides an escape. */
	bool got_out = escape_evidence(s, cfg, r);
	if (!ev->started && got_out) {
		r->ev.started = true;
		add(r, "the box also reported: %s", ev->error[0] ? ev->error : "an error");
	} else if (!ev->started) {
		r->verdict = VERDICT_ERROR;
		set_headline(r, "%s", ev->error[0] ? ev->error : "the sandbox could not be built");
		return;
	}
	if (foreign_kill(s, cfg, r, got_out))
		return;
	if (r->audit && s->threat != THREAT_LEGIT && !got_out && !ev->attempt_seen) {
		audit_not_run(r);
		return;
	}
	if (r->audit) {
		judge_audit(s, r, cfg);
		judge_every_threat(s, r, cfg);
		return;
	}
	switch (s->threat) {
	case THREAT_LEGIT:
		judge_legit(s, r, cfg);
		break;
	case THREAT_RESOURCE:
		judge_resource(r, cfg);
		break;
	case THREAT_SECRETS:
		judge_secrets(r, cfg);
		break;
	case THREAT_EXFIL:
		judge_exfil(r);
		break;
	case THREAT_TAKEOVER:
		judge_takeover(r);
		break;
	case THREAT_KERNEL:
		judge_kernel(r);
		break;
	case THREAT_IRREVERSIBLE:
		judge_irreversible(r);
		break;
	default:
		r->verdict = VERDICT_ERROR;
		break;
	}
	if (s->threat != THREAT_RESOURCE && s->threat != THREAT_LEGIT)
		how_it_ended(r, cfg);
	if (s->threat != THREAT_LEGIT)
		tool_lines(r, 3);
	judge_every_threat(s, r, cfg);
}
