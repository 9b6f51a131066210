/* inprocess.c — the rung below the container: the snippet exec()'d inside
 * an app server of the lab's (inprocess.h). The app server's source is
 * src/app_server.py, built into the binary below, so the lab never runs a
 * copy someone could have changed beside it. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "inprocess.h"
#include "layers/env.h"
#include "report.h"
#include "system.h"
#include "util.h"

/* src/app_server.py, NUL-terminated (the path is the build's: make runs
 * from the repository's top) */
__asm__(".section .rodata\n"
        ".global inprocess_app_source\n"
        "inprocess_app_source:\n"
        ".incbin \"src/app_server.py\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char inprocess_app_source[];

bool inprocess_config(const struct lab_config *cfg, struct lab_config *own)
{
	if (cfg->rung != RUNG_INPROCESS)
		return false;
	*own = *cfg;
	own->rung = RUNG_CONTAINER;
	return true;
}

/* A fresh token for this run only: "sess-" and 32 hex digits. */
static void new_token(char *out, size_t cap)
{
	unsigned char raw[16];

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		for (size_t i = 0; i < sizeof raw; i++)
			raw[i] = (unsigned char)(monotonic_ms() * 131 + (long)i * 7 + getpid());
	str_copy(out, cap, "sess-");
	for (size_t i = 0; i < sizeof raw; i++)
		str_append(out, cap, "%02x", raw[i]);
}

int inprocess_plan(struct run *r, struct lab_evidence *ev)
{
	char host_path[PATH_MAX + 32], kv[96];
	int e;

	if (pathf(host_path, sizeof host_path, "%s/app_server.py", r->d.work) < 0 ||
	    pathf(r->app_path, sizeof r->app_path, "%s/app_server.py", r->workdir) < 0) {
		snprintf(ev->error, sizeof ev->error, "the app server's path is too long under %.200s", r->d.work);
		return -1;
	}
	if ((e = write_file(host_path, inprocess_app_source, 0644)) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot write the app server %.200s: %s", host_path,
		         strerror(-e));
		return -1;
	}
	new_token(r->app_token, sizeof r->app_token);
	snprintf(kv, sizeof kv, "LAB_APP_SESSION=%s", r->app_token);
	lab_env_add(&r->envp, &r->n_env, strdup(kv));
	ev->env_vars = r->n_env;
	/* python3 -u app_server.py SNIPPET: plan_snippet made argv[2] the snippet */
	r->argv[3] = r->argv[2];
	r->argv[2] = r->app_path;
	r->argv[4] = NULL;
	return 0;
}

void inprocess_gather(const struct run *r, const struct strbuf *output, struct inprocess_seen *seen)
{
	size_t n = strlen(r->app_token);

	seen->planned = n > 0;
	if (!n)
		return;
	seen->token_in_output = output->s && memmem(output->s, output->len, r->app_token, n);
	seen->token_at_attacker = r->d.received && memmem(r->d.received, r->d.received_len, r->app_token, n);
}

/* One evidence line: first, before the verdict's own, or last. */
static void add_evidence(struct lab_result *res, const char *line, bool first)
{
	int n = res->n_evidence < LAB_EVIDENCE_MAX ? res->n_evidence : LAB_EVIDENCE_MAX - 1;

	if (first) {
		memmove(res->evidence[1], res->evidence[0], (size_t)n * LAB_LINE);
		str_copy(res->evidence[0], LAB_LINE, line);
		res->n_evidence = n + 1;
	} else if (res->n_evidence < LAB_EVIDENCE_MAX) {
		str_copy(res->evidence[res->n_evidence++], LAB_LINE, line);
	}
}

/* "in-process: ..." first in the mechanisms line: what did not apply, and
 * why, before what the range did. */
static void explain_mechanisms(struct lab_evidence *ev, const char *lbl)
{
	char was[sizeof ev->mechanisms];

	str_copy(was, sizeof was, ev->mechanisms);
	snprintf(ev->mechanisms, sizeof ev->mechanisms,
	         "in-process: no layer (toggles %s n/a): exec() runs the snippet in the app server's own process, "
	         "with no boundary for namespaces, seccomp, an env allow-list or limits to apply at",
	         lbl);
	if (was[0])
		str_append(ev->mechanisms, sizeof ev->mechanisms, "; %s", was);
}

void inprocess_explain(struct lab_result *res, unsigned toggles, const struct inprocess_seen *seen)
{
	char lbl[REPORT_LABEL_MAX], line[LAB_LINE];
	const char *where = seen->token_in_output && seen->token_at_attacker ? "in the output and at the attacker"
	                    : seen->token_in_output                          ? "in the output"
	                    : seen->token_at_attacker                        ? "at the attacker"
	                                                                     : NULL;

	res->layers = toggles;
	res->rung = RUNG_INPROCESS;
	report_layers_label(toggles, true, lbl);
	explain_mechanisms(&res->ev, lbl);
	if (!seen->planned || !res->ev.started)
		return;
	snprintf(line, sizeof line,
	         "in-process: the snippet ran by exec() inside the lab's app server, one Python process with the "
	         "app's keys, globals and API client; none of the toggles (%s) could apply",
	         lbl);
	add_evidence(res, line, true);
	if (where)
		snprintf(line, sizeof line,
		         "the app's session token, a module global only (the app popped it from its environment), came "
		         "out %s",
		         where);
	else
		snprintf(
		    line, sizeof line,
		    "the app's session token (a module global only) was not seen in the output or at the attacker: "
		    "this snippet did not reach for the app's globals, which exec() handed it");
	add_evidence(res, line, false);
	if (res->ev.exit_signal)
		snprintf(line, sizeof line, "the app server died with the snippet: killed by signal %d",
		         res->ev.exit_signal);
	else
		snprintf(line, sizeof line,
		         "the app server ended with the snippet (exit status %d): its sys.exit() or crash is the "
		         "server's",
		         res->ev.exit_code);
	add_evidence(res, line, false);
	if (where && res->verdict != VERDICT_ESCAPED) {
		res->verdict = VERDICT_ESCAPED;
		res->caught_by = -1;
		res->escaped |= 1u << THREAT_SECRETS;
		snprintf(res->headline, sizeof res->headline, "The app's session token came out %s", where);
		str_copy(res->consequence, sizeof res->consequence,
		         "The app's session-signing secret is the attacker's: every user's session can be forged.");
	}
}
