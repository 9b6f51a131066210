/* cicase.c — a matrix or an audit card as CI test cases (cicase.h): which
 * cells passed, which differ and how, with the evidence a reader needs to
 * see why without running anything again. */
#define _GNU_SOURCE
#include "cicase.h"
#include "audit.h"
#include "matrix.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void suite_init(struct ci_suite *s, int n)
{
	memset(s, 0, sizeof *s);
	if (gethostname(s->hostname, sizeof s->hostname - 1) < 0)
		str_copy(s->hostname, sizeof s->hostname, "localhost");
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(s->timestamp, sizeof s->timestamp, "%Y-%m-%dT%H:%M:%S", &tm);
	s->cases = calloc((size_t)n + 1, sizeof *s->cases);
}

static void prop(struct ci_suite *s, const char *key, const char *value)
{
	if (s->n_props >= CI_PROPS_MAX)
		return;
	s->props[s->n_props].key = key;
	str_copy(s->props[s->n_props].value, sizeof s->props[s->n_props].value, value ? value : "");
	s->n_props++;
}

/* What a reader needs to see why: the headline, who caught it, what got
 * out, the evidence and the trace, as the lab gathered them. */
static char *result_details(const struct lab_result *r, bool with_trace)
{
	struct strbuf b = {0};
	sb_printf(&b, "verdict: %s", verdict_name(r->verdict));
	if (r->verdict == VERDICT_CONTAINED && r->caught_by >= 0)
		sb_printf(&b, " by %s", lab_layers[r->caught_by].name);
	sb_printf(&b, "\n%s\n", r->headline);
	if (r->verdict == VERDICT_ESCAPED && r->consequence[0])
		sb_printf(&b, "consequence: %s\n", r->consequence);
	for (int i = 0; i < r->n_evidence; i++)
		sb_printf(&b, "evidence: %s\n", r->evidence[i]);
	for (int i = 0; with_trace && i < r->ev.trace.n; i++) {
		char line[LAB_TRACE_LINE_MAX];
		lab_trace_line(&r->ev.trace.e[i], line, sizeof line);
		sb_printf(&b, "trace: %s\n", line);
	}
	if (r->ev.mechanisms[0])
		sb_printf(&b, "mechanisms: %s\n", r->ev.mechanisms);
	return b.s;
}

/* Sorts a judged case into its outcome and says it in one line. */
static void judge(struct ci_suite *s, struct ci_case *k, const struct lab_result *r, enum lab_verdict want,
                  const char *want_why)
{
	k->expected = verdict_name(want);
	k->got = verdict_name(r->verdict);
	k->seconds = (double)r->ev.end.duration_ms / 1000.0;
	k->details = result_details(r, true);
	if (r->verdict == want) {
		k->outcome = CI_PASS;
		snprintf(k->message, sizeof k->message, "%s", k->got);
	} else if (r->verdict == VERDICT_ERROR) {
		k->outcome = CI_ERROR;
		s->errors++;
		snprintf(k->message, sizeof k->message, "ERROR (expected %s): %s", k->expected, r->headline);
	} else {
		k->outcome = CI_FAIL;
		s->failures++;
		snprintf(k->message, sizeof k->message, "expected %s%s, got %s: %s", k->expected, want_why, k->got,
		         r->headline);
	}
}

static void skip(struct ci_suite *s, struct ci_case *k, const char *why)
{
	k->outcome = CI_SKIP;
	s->skipped++;
	snprintf(k->message, sizeof k->message, "%s", why);
}

int ci_suite_from_matrix(struct ci_suite *s, const struct matrix *m)
{
	suite_init(s, m->n_cells);
	if (!s->cases)
		return -ENOMEM;
	const char *rung = lab_rung_key(m->setup.rung);
	const char *mode = lab_net_mode_key(m->setup.net_mode);
	snprintf(s->name, sizeof s->name, "containment-lab matrix (%s rung, network mode %s, as %s)", rung, mode,
	         geteuid() == 0 ? "root" : "user");
	s->seconds = (double)matrix_elapsed_ms(m) / 1000.0;
	prop(s, "rung", rung);
	prop(s, "network_mode", mode);
	prop(s, "as", geteuid() == 0 ? "root" : "user");
	prop(s, "limits_mechanism", report_matrix_limits(m));
	prop(s, "version", LAB_VERSION);
	/* a snippet's cells together, in the grid's column order */
	for (int seq = 0; seq < m->n_cells; seq++) {
		int c = matrix_index(seq / LAB_COMBOS, layers_for_column(seq % LAB_COMBOS));
		const struct matrix_cell *cell = &m->cells[c];
		const struct snippet *sn = &m->snips[c / LAB_COMBOS];
		struct ci_case *k = &s->cases[s->n++];
		report_cell_name(m, c, k->name);
		snprintf(k->classname, sizeof k->classname, "containment-lab.matrix.%s", sn->name);
		if (cell->state != MATRIX_DONE) {
			k->expected = verdict_name(cell->expected);
			skip(s, k, "not run: the matrix was stopped before this cell");
			continue;
		}
		if (cell->res.ev.end.aborted) {
			k->expected = verdict_name(cell->expected);
			k->got = verdict_name(cell->res.verdict);
			skip(s, k, "aborted: the matrix was stopped while this cell ran");
			continue;
		}
		/* the header's layer, so a wrong header is seen for what it is */
		char why[96] = "";
		if (cell->expected == VERDICT_CONTAINED && sn->layer >= 0)
			snprintf(why, sizeof why, " by %s (the snippet's lab:layer)", lab_layers[sn->layer].name);
		judge(s, k, &cell->res, cell->expected, why);
	}
	return 0;
}

int ci_suite_from_audit(struct ci_suite *s, const struct audit_card *c)
{
	suite_init(s, c->n);
	if (!s->cases)
		return -ENOMEM;
	snprintf(s->name, sizeof s->name, "containment-lab audit %s", c->name);
	struct strbuf w = {0};
	for (int i = 0; c->wrapper && c->wrapper[i]; i++)
		sb_printf(&w, "%s%s", i ? " " : "", c->wrapper[i]);
	prop(s, "wrapper", w.s);
	sb_free(&w);
	if (c->note && c->note[0])
		prop(s, "note", c->note);
	prop(s, "version", LAB_VERSION);
	for (int i = 0; i < c->n; i++) {
		const struct lab_result *r = &c->res[i];
		struct ci_case *k = &s->cases[s->n++];
		snprintf(k->name, sizeof k->name, "audit %s: %s", c->name, r->snippet);
		snprintf(k->classname, sizeof k->classname, "containment-lab.audit.%s", c->name);
		/* the card's own rule: legit must run OK, an attack get nothing out */
		judge(s, k, r, r->threat == THREAT_LEGIT ? VERDICT_RAN_OK : VERDICT_CONTAINED, "");
		s->seconds += k->seconds;
	}
	return 0;
}

int ci_suite_skipped(struct ci_suite *s, const char *audit_name, const char *why)
{
	suite_init(s, 1);
	if (!s->cases)
		return -ENOMEM;
	snprintf(s->name, sizeof s->name, "containment-lab audit %s", audit_name);
	prop(s, "version", LAB_VERSION);
	struct ci_case *k = &s->cases[s->n++];
	snprintf(k->name, sizeof k->name, "audit %s", audit_name);
	snprintf(k->classname, sizeof k->classname, "containment-lab.audit.%s", audit_name);
	skip(s, k, why);
	return 0;
}

int ci_suite_rung_skipped(struct ci_suite *s, enum lab_rung rung, const char *why, bool stopped)
{
	suite_init(s, 1);
	if (!s->cases)
		return -ENOMEM;
	const char *key = lab_rung_key(rung);
	snprintf(s->name, sizeof s->name, "containment-lab matrix (%s rung, as %s)", key,
	         geteuid() == 0 ? "root" : "user");
	prop(s, "rung", key);
	prop(s, "version", LAB_VERSION);
	struct ci_case *k = &s->cases[s->n++];
	snprintf(k->name, sizeof k->name, "matrix on the %s rung", key);
	str_copy(k->classname, sizeof k->classname, "containment-lab.matrix");
	if (!stopped) {
		skip(s, k, why);
		return 0;
	}
	/* a rung the user stopped proved nothing: an error, never a skip CI
	 * would pass */
	k->outcome = CI_ERROR;
	k->expected = "the rung's cells";
	s->errors++;
	snprintf(k->message, sizeof k->message, "%s", why);
	return 0;
}

int ci_suite_merge(struct ci_suite *dst, struct ci_suite *parts, int n, const char *name)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += parts[i].n;
	suite_init(dst, total);
	if (!dst->cases)
		return -ENOMEM;
	str_copy(dst->name, sizeof dst->name, name);
	prop(dst, "version", LAB_VERSION);
	for (int i = 0; i < n; i++) {
		memcpy(&dst->cases[dst->n], parts[i].cases, sizeof *parts[i].cases * (size_t)parts[i].n);
		dst->n += parts[i].n;
		dst->failures += parts[i].failures;
		dst->errors += parts[i].errors;
		dst->skipped += parts[i].skipped;
		dst->seconds += parts[i].seconds;
		parts[i].n = 0; /* the details are dst's now */
		ci_suite_free(&parts[i]);
	}
	return 0;
}

void ci_suite_free(struct ci_suite *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->cases[i].details);
	free(s->cases);
	memset(s, 0, sizeof *s);
}
