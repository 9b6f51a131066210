/* judge.c — a run's result judged: the verdict and its sentences from the
 * evidence (verdict.c), the consequence in the run's own figures, and on
 * the in-process rung what no layer could do. */
#include "judge.h"
#include "consequence.h"
#include "text.h"
#include "util.h"
#include "verdict.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

static void judge_in_process(struct lab_result *res)
{
	char lbl[REPORT_LABEL_MAX], line[LAB_LINE];
	bool out = res->inproc.token_in_output, att = res->inproc.token_at_attacker;
	const char *where = out && att ? "in the output and at the attacker"
	                    : out      ? "in the output"
	                    : att      ? "at the attacker"
	                               : NULL;

	res->layers = res->inproc.toggles;
	res->rung = RUNG_INPROCESS;
	report_layers_label(res->inproc.toggles, true, lbl);
	if (!res->inproc.planned || !res->ev.started)
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
	if (res->ev.end.exit_signal)
		snprintf(line, sizeof line, "the app server died with the snippet: killed by signal %d",
		         res->ev.end.exit_signal);
	else
		snprintf(line, sizeof line,
		         "the app server ended with the snippet (exit status %d): its sys.exit() or crash is the "
		         "server's",
		         res->ev.end.exit_code);
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

void lab_judge(const struct snippet *s, const struct lab_config *cfg, struct lab_result *res)
{
	/* in-process: judged as the container run it was, with no layer (the
	 * result says so: lab_run set its layers and rung) */
	verdict_decide(s, cfg, res);
	/* the consequence in this run's figures and the lab's own uid */
	char tmpl[sizeof res->consequence];
	str_copy(tmpl, sizeof tmpl, res->consequence);
	consequence_fill(res->consequence, sizeof res->consequence, tmpl, &res->ev, (unsigned)geteuid());
	if (res->inproc.on)
		judge_in_process(res);
	/* each sentence one line, whatever name of the snippet's it quotes */
	text_one_line(res->headline, sizeof res->headline);
	text_one_line(res->consequence, sizeof res->consequence);
	for (int i = 0; i < res->n_evidence; i++)
		text_one_line(res->evidence[i], LAB_LINE);
}
