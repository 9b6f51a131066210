/* verdict.c — the judge. Pure: reads only the evidence the lab gathered
 * outside the sandbox (never what the snippet claims) and the caps from the
 * config, and says what happened and which layer's mechanism shows for it. */
#define _GNU_SOURCE
#include "lab.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[VERDICT_COUNT] = {"RAN OK", "FAILED", "CONTAINED", "ESCAPED", "ERROR"};

const char *verdict_name(enum lab_verdict v) { return v < VERDICT_COUNT ? names[v] : "?"; }

enum lab_verdict verdict_expected(const struct snippet *s, unsigned layers)
{
	if (s->threat == THREAT_LEGIT || s->layer < 0)
		return VERDICT_RAN_OK;
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

static void how_it_ended(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->timed_out)
		add(r, "ended: killed by the Resource-limits wall clock after %ld ms", cfg->limits.timeout_ms);
	else if (ev->safety_net)
		add(r, "ended: killed by the lab's safety net after %ld ms", cfg->safety_timeout_ms);
	else if (ev->exit_signal == SIGXCPU || (ev->exit_signal == SIGKILL && ev->cpu_s >= cfg->limits.cpu_time &&
						(r->layers & LAYER_BIT(LAYER_LIMITS))))
		add(r, "ended: killed by signal %d (%s) at the CPU-time limit of %ld s", ev->exit_signal,
		    strsignal(ev->exit_signal), cfg->limits.cpu_time);
	else if (ev->exit_signal)
		add(r, "ended: killed by signal %d (%s)%s", ev->exit_signal, strsignal(ev->exit_signal),
		    ev->oom_kills > 0 ? " — the cgroup's OOM killer" : "");
	else
		add(r, "ended: exit status %d after %ld ms", ev->exit_code, ev->duration_ms);
}

static void judge_legit(const struct snippet *s, struct lab_result *r, const struct lab_config *cfg)
{
	struct lab_evidence *ev = &r->ev;
	/* the known answer, looked for in what the lab captured */
	ev->expect_found = r->output != NULL;
	for (int i = 0; i < s->n_expect && ev->expect_found; i++)
		ev->expect_found = strstr(r->output, s->expect[i]) != NULL;
	if (ev->exit_code == 0 && !ev->exit_signal && ev->expect_found) {
		r->verdict = VERDICT_RAN_OK;
		set_headline(r,
			 "The task worked: exit 0 and the totals match the known answer");
		add(r, "exit status 0 after %ld ms", ev->duration_ms);
		add(r, "all %d expected lines of the report are in the output", s->n_expect);
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
}

static void judge_resource(struct lab_result *r, const struct lab_config *cfg)
{
	const struct lab_evidence *ev = &r->ev;
	const struct lab_limits *lim = &cfg->limits;
	char mem[32], cap[32];
	fmt_bytes(mem, sizeof mem, ev->peak_mem);
	fmt_bytes(cap, sizeof cap, lim->memory);
	bool over_procs = ev->peak_procs > lim->pids, over_mem = ev->peak_mem > lim->memory;
	if (over_procs || over_mem) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The bomb ran past every cap:%s%s",
			 over_procs ? " processes" : "", over_mem ? (over_procs ? " and memory" : " memory") : "");
	} else {
		r->verdict = VERDICT_CONTAINED;
		if (r->layers & LAYER_BIT(LAYER_LIMITS)) {
			r->caught_by = LAYER_LIMITS;
			set_headline(r, "The bomb hit the caps: at most %ld processes and %s",
				 lim->pids, cap);
		} else {
			set_headline(r,
				 "The bomb stayed under the caps by itself (no limit was applied)");
		}
	}
	add(r, "peak processes: %ld (cap %ld)%s", ev->peak_procs, lim->pids,
	    ev->cgroup_used ? " — cgroup pids.peak" : " — counted in /proc");
	add(r, "peak memory: %s (cap %s)%s", mem, cap,
	    ev->peak_mem_from_cgroup ? " — cgroup memory peak" : " — largest process, rusage");
	add(r, "CPU time: %.2f s over %ld ms wall", ev->cpu_s, ev->duration_ms);
	if (ev->cgroup_used)
		add(r, "cgroup events: %ld fork(s) refused at pids.max, memory cap hit %ld time(s), %ld OOM kill(s), "
		       "throttled %ld time(s)",
		    ev->pids_max_events > 0 ? ev->pids_max_events : 0, ev->mem_failcnt > 0 ? ev->mem_failcnt : 0,
		    ev->oom_kills > 0 ? ev->oom_kills : 0, ev->cpu_throttled > 0 ? ev->cpu_throttled : 0);
	else if (r->layers & LAYER_BIT(LAYER_LIMITS))
		add(r, "no cgroup: RLIMIT_NPROC %ld and RLIMIT_AS %s held the bomb", lim->pids, cap);
	how_it_ended(r, cfg);
}

static void judge_secrets(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	fmt_thousands(bytes, sizeof bytes, ev->out_bytes);
	if (ev->canaries_leaked > 0) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "%d of %d planted secrets came out of the sandbox",
			 ev->canaries_leaked, ev->canaries_planted);
		add(r, "leaked canaries found in the output: %s", ev->leaked);
		add(r, "the sandbox got %d environment variables, the decoy keys among them", ev->env_vars);
		if (ev->creds_mounted)
			add(r, "the decoy ~/.aws/credentials was mounted into the sandbox");
		return;
	}
	r->verdict = VERDICT_CONTAINED;
	if (!ev->creds_mounted && (r->layers & LAYER_BIT(LAYER_ENV))) {
		r->caught_by = LAYER_ENV;
		set_headline(r,
			 "No secret was there to steal: the environment was rebuilt from the allow-list");
	} else {
		set_headline(r, "No planted secret came out (the snippet did not find them)");
	}
	add(r, "0 of %d canary secrets in the %s bytes of output", ev->canaries_planted, bytes);
	add(r, "the sandbox got %d environment variables (allow-list + HOME + task inputs)", ev->env_vars);
	add(r, ev->creds_mounted ? "the decoy credentials file was mounted" : "no credentials file was mounted");
}

static void judge_exfil(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	char bytes[32];
	fmt_thousands(bytes, sizeof bytes, ev->attacker_bytes);
	if (ev->attacker_bytes > 0) {
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The attacker received %s bytes%s", bytes,
			 ev->attacker_got_canary ? ", including the canary row of the customer data" : "");
		add(r, "attacker listener on 127.0.0.1: %ld connection(s), %s bytes, canary row %s", ev->attacker_conns,
		    bytes, ev->attacker_got_canary ? "present" : "absent");
		add(r, "the sandbox shared the host's network namespace");
		return;
	}
	r->verdict = VERDICT_CONTAINED;
	if (ev->own_netns && ev->net_probe_errno == ENETUNREACH) {
		r->caught_by = LAYER_NETWORK;
		set_headline(r,
			 "connect() failed: Network is unreachable — the sandbox has its own network namespace with no "
			 "interface");
		add(r, "probe from inside the sandbox: connect(127.0.0.1) -> %s (errno %d)", strerror(ENETUNREACH),
		    ENETUNREACH);
	} else if (ev->own_netns) {
		r->caught_by = LAYER_NETWORK;
		set_headline(r, "Nothing reached the attacker from the sandbox's own network namespace");
		add(r, "probe from inside the sandbox: connect(127.0.0.1) -> %s",
		    ev->net_probe_errno > 0 ? strerror(ev->net_probe_errno) : "connected");
	} else {
		set_headline(r, "Nothing reached the attacker (the upload failed by itself)");
	}
	add(r, "the attacker's listener received 0 bytes (%ld connections)", ev->attacker_conns);
}

static void judge_takeover(struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	if (ev->host_target_written) {
		char sz[32];
		fmt_bytes(sz, sizeof sz, ev->host_target_size);
		r->verdict = VERDICT_ESCAPED;
		set_headline(r, "The snippet planted a file on the host: %s", ev->host_target);
		add(r, "host target created: %s (%s)", ev->host_target, sz);
		add(r, "the sandbox saw the host's filesystem with the lab's own privileges");
		return;
	}
	r->verdict = VERDICT_CONTAINED;
	if (!ev->host_visible) {
		r->caught_by = LAYER_ISOLATION;
		set_headline(r,
			 "The host was out of reach: a private root with no capabilities and a seccomp filter");
		add(r, "host target not created: %s", ev->host_target);
		add(r, "the host folder was not in the sandbox's view (mount namespace + pivot_root)");
		add(r, "sandbox root was an unprivileged uid outside, with every capability dropped");
	} else {
		set_headline(r, "The host target was not created (the snippet failed by itself)");
		add(r, "host target not created: %s", ev->host_target);
	}
}

void verdict_decide(const struct snippet *s, const struct lab_config *cfg, struct lab_result *r)
{
	r->caught_by = -1;
	r->n_evidence = 0;
	r->headline[0] = '\0';
	const struct lab_evidence *ev = &r->ev;
	if (ev->aborted) {
		r->verdict = VERDICT_ERROR;
		set_headline(r, "Aborted: the run was stopped and cleaned up");
		return;
	}
	if (!ev->started) {
		r->verdict = VERDICT_ERROR;
		set_headline(r, "%s", ev->error[0] ? ev->error : "the sandbox could not be built");
		return;
	}
	switch (s->threat) {
	case THREAT_LEGIT: judge_legit(s, r, cfg); break;
	case THREAT_RESOURCE: judge_resource(r, cfg); break;
	case THREAT_SECRETS: judge_secrets(r); break;
	case THREAT_EXFIL: judge_exfil(r); break;
	case THREAT_TAKEOVER: judge_takeover(r); break;
	default: r->verdict = VERDICT_ERROR; break;
	}
	if (s->threat != THREAT_RESOURCE && s->threat != THREAT_LEGIT)
		how_it_ended(r, cfg);
}

void result_free(struct lab_result *r)
{
	free(r->output);
	r->output = NULL;
	r->output_len = 0;
}
