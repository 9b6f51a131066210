/* tui_pane.c — the two readable panes of the sandbox box. A pane's content
 * is built as a list of rows already wrapped to the pane's width (struct
 * tui_rows, tui_rows.c) and drawn from a scroll position, so nothing is
 * ever cut off: what does not fit is one scroll (or a zoom) away.
 *   code:   the snippet with real line numbers, opening at its first
 *           `# lab:danger` mark (else its first line of code), the marks
 *           shown as markers and reached with > and <, and in predict mode
 *           without the header lines that would give the answer away;
 *   result: the headline, every piece of evidence, the trace, the whole
 *           mechanisms line, and the whole captured output (sanitised) —
 *           or, while a run goes, the output streamed so far.
 * Reads the state; never starts or stops anything. */
#define _GNU_SOURCE      /* strcasestr, memmem */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tui_look.h"
#include "tui_pane.h"
#include "tui_rows.h"
#include "tui_state.h"
#include "tui_tour.h"
#include "verdict.h"

/* ------------------------------------------------------------ code */

/* Skips blanks; true when line (n bytes) starts with s. */
static bool starts(const char *line, size_t n, const char *s)
{
	size_t k = strlen(s);

	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	return n >= k && !strncmp(line, s, k);
}

static bool blank(const char *line, size_t n)
{
	return strspn(line, " \t\r") >= n;
}

/* In predict mode these lines would answer the question before the run:
 * the header's layer line, and any comment naming a layer. */
static bool gives_away(const char *line, size_t n)
{
	char buf[512];
	int l;

	if (!starts(line, n, "#"))
		return false;
	if (starts(line, n, "# lab:layer"))
		return true;
	snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
	for (l = 0; l < LAYER_COUNT; l++)
		if (strcasestr(buf, lab_layers[l].name))
			return true;
	return false;
}

static bool is_marked(const struct snippet *s, int lineno)
{
	for (int i = 0; i < s->n_danger; i++)
		if (s->danger[i] == lineno)
			return true;
	return false;
}

static bool has_quotes(const char *p, size_t n)
{
	return memmem(p, n, "\"\"\"", 3) || memmem(p, n, "'''", 3);
}

/* Which line (0-based) the pane opens at: the first line of code after the
 * header comments and the module docstring. */
static int first_code_line(const char *text)
{
	const char *p = text, *nl, *q;
	int i = 0;
	bool in_doc = false, past_header = false;
	size_t n, rest;

	for (; p && *p; p = nl ? nl + 1 : NULL, i++) {
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (in_doc) {
			in_doc = !has_quotes(p, n);
			continue;
		}
		q = p + strspn(p, " \t");
		if (blank(p, n) || (!past_header && *q == '#'))
			continue;
		rest = n - (size_t)(q - p);
		if (!past_header && rest >= 3 && (!strncmp(q, "\"\"\"", 3) || !strncmp(q, "'''", 3))) {
			past_header = true;
			/* one line: """text"""; else it ends on a later line */
			in_doc = !(rest >= 6 && has_quotes(q + 3, rest - 3));
			continue;
		}
		return i;
	}
	return 0;
}

/* The code as rows: "NNN   code"; a `# lab:danger` comment as ">>" and
 * its reason, the line it marks with ">>" too; hidden lines say they are
 * hidden. danger[] gets the row of each danger comment (or, without one,
 * of each marked line), up to max. Returns the row to open at: the first
 * danger (what a class came to see), else the first line of code. */
static int build_code(const struct tui_state *st, struct tui_rows *L, bool hide, int *danger, int max, int *n_danger)
{
	const struct snippet *s = &st->snips[st->sel];
	const char *text = st->code[st->sel], *p, *nl;
	int i, mark = 0, start = first_code_line(text);
	bool after_comment = false;
	char gut[16];
	attr_t warn = tui_attr(st, TUI_LOOK_WARN);

	*n_danger = 0;
	for (p = text, i = 0; p && *p; p = nl ? nl + 1 : NULL, i++) {
		nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, n);

		if (i == start)
			mark = L->n;
		if (!line)
			break;
		if (hide && gives_away(line, n)) {
			snprintf(gut, sizeof gut, "%3d   ", i + 1);
			tui_rows_add(L, gut, "      ", A_NORMAL, "(hidden in predict mode: it gives the answer)",
			             A_BOLD);
		} else if (starts(line, n, "# lab:danger")) {
			const char *why = strstr(line, "lab:danger") + 10;

			why += strspn(why, ": ");
			if (*n_danger < max)
				danger[(*n_danger)++] = L->n;
			after_comment = true;
			snprintf(gut, sizeof gut, "%3d>> ", i + 1);
			tui_rows_add(L, gut, "      ", warn, *why ? why : "the next line does the damage", warn);
		} else {
			bool d = is_marked(s, i + 1);

			if (d && !after_comment && *n_danger < max)
				danger[(*n_danger)++] = L->n;
			if (d)
				after_comment = false;
			snprintf(gut, sizeof gut, d ? "%3d>> " : "%3d   ", i + 1);
			tui_rows_add(L, gut, "      ", d ? warn : A_NORMAL, line, d ? A_BOLD : A_NORMAL);
		}
		free(line);
	}
	return *n_danger ? danger[0] : mark;
}

/* > and <: the code view moves to the next (previous) danger row after
 * (before) the top, round the end. */
static void code_jump(struct tui_state *st, const int *danger, int n)
{
	int d = st->code_jump, top = st->code_view.top, k;

	st->code_jump = 0;
	if (!n || !d)
		return;
	if (d > 0) {
		for (k = 0; k < n && danger[k] <= top; k++)
			;
		st->code_view.top = danger[k < n ? k : 0];
	} else {
		for (k = n - 1; k >= 0 && danger[k] >= top; k--)
			;
		st->code_view.top = danger[k >= 0 ? k : n - 1];
	}
	st->code_view.follow = false;
}

bool tui_predict_hides(const struct tui_state *st)
{
	const struct tui_run *r = &st->runs[st->sel];
	bool running = st->job_live && st->job.snippet_index == st->sel;

	if (!st->predict)
		return false;
	return st->asking || running || !r->have || r->res.layers != st->setup.layers;
}

/* A pane's header: its name (reverse when it has the focus) and where the
 * view is. */
static void pane_head(const struct tui_state *st, int y, int x, int w, const char *name, const struct tui_view_pos *v,
                      bool focused)
{
	char range[64];
	int rw;

	char pos[48];

	tui_view_label(v, pos, sizeof pos);
	snprintf(range, sizeof range, " %s ", pos);
	rw = (int)strlen(range);
	tui_put(y, x, w - rw - 2, name, focused ? tui_attr(st, TUI_LOOK_SELECTED) | A_BOLD : A_BOLD);
	tui_put(y, x + w - rw, rw, range, A_BOLD);
}

void tui_code_pane(struct tui_state *st, int y, int x, int w, int rows, bool focused)
{
	const struct snippet *s = &st->snips[st->sel];
	struct tui_rows L = {.width = w};
	char head[PATH_MAX + 200];
	int mark, danger[SNIPPET_MAX_DANGER * 2], n_danger;

	if (rows < 2)
		return;
	mark = build_code(st, &L, tui_predict_hides(st), danger, (int)(sizeof danger / sizeof *danger), &n_danger);
	if (st->code_view.top != TUI_TOP_START)
		code_jump(st, danger, n_danger);
	else
		st->code_jump = 0;
	tui_rows_draw_mark(&L, &st->code_view, y + 1, x, rows - 1, mark);
	snprintf(head, sizeof head, "%s%s.py%s  %s", focused ? "> " : "", s->name, s->yours ? " (yours)" : "",
	         s->title);
	pane_head(st, y, x, w, head, &st->code_view, focused);
	tui_rows_free(&L);
}

/* ---------------------------------------------------------- result */

/* One row as it is (not wrapped: the drawing cuts it). */
static struct tui_row *add_row(struct tui_rows *L, const char *text, attr_t attr)
{
	struct tui_row *r = tui_row_new(L);
	size_t len = strlen(text);

	if (!r)
		return NULL;
	r->attr = attr;
	r->w = malloc(sizeof *r->w * (len * 2 + 2));
	r->n = r->w ? tui_safe_wide(text, r->w, (int)(len * 2 + 1)) : 0;
	return r;
}

static void add_big(struct tui_rows *L, const char *word, attr_t vattr, const char *side[3], const attr_t sattr[3])
{
	for (int i = 0; i < 3; i++) {
		struct tui_row *r = add_row(L, side[i], sattr[i]);

		if (!r)
			return;
		r->big = i;
		r->word = word;
		r->gattr = vattr;
	}
}

/* What the student said before the run, and whether the lab agreed. */
static void add_guess(const struct tui_state *st, struct tui_rows *L, const struct tui_run *r)
{
	if (r->guess < 0)
		return;
	if (!r->scored)
		tui_rows_printf(L, A_BOLD, "you predicted %s: not scored (the lab says %s, not a yes or no)",
		                verdict_name((enum lab_verdict)r->guess), verdict_name(r->res.verdict));
	else
		tui_rows_printf(L, r->right ? tui_verdict_attr(st, VERDICT_CONTAINED) : tui_attr(st, TUI_LOOK_WARN),
		                "you predicted %s: %s  (score %d/%d)", verdict_name((enum lab_verdict)r->guess),
		                r->right ? "RIGHT" : "WRONG", st->score_right, st->score_total);
}

/* The calls the kernel or the lab refused, one row each, e.g.
 * "unshare(CLONE_NEWUSER) = -1 EPERM  seccomp (Isolation)". The trace is
 * recorded by the run (its own work, not the screen's); until a result
 * carries one this adds nothing, and an empty trace draws nothing. */
/* The egress proxy's log (allowlist mode) and the trace: what the lab saw
 * answered outside the sandbox, every line of it, after the evidence. */
static void add_trace(struct tui_rows *L, const struct lab_result *res)
{
	const struct lab_trace *t = &res->ev.trace;
	char line[LAB_TRACE_LINE_MAX];

	if (res->ev.egress.proxy_log[0]) {
		char *log = sanitize_output(res->ev.egress.proxy_log, strlen(res->ev.egress.proxy_log), 0);

		tui_rows_printf(L, A_BOLD, "egress proxy log (the lab's):");
		for (char *ln = log, *next; ln && *ln; ln = next) {
			next = strchr(ln, '\n');
			if (next)
				*next++ = '\0';
			tui_rows_add(L, "> ", "  ", A_BOLD, ln, A_NORMAL);
		}
		free(log);
	}
	if (!t->n && !t->dropped && !t->note[0])
		return;
	tui_rows_printf(L, A_BOLD, "trace (calls that mattered, and what answered them):");
	for (int i = 0; i < t->n && i < LAB_TRACE_MAX; i++) {
		char *clean;

		lab_trace_line(&t->e[i], line, sizeof line);
		clean = sanitize_output(line, strlen(line), 0);
		tui_rows_add(L, "  ", "    ", A_NORMAL, clean ? clean : line, A_NORMAL);
		free(clean);
	}
	if (t->dropped)
		tui_rows_printf(L, A_NORMAL, "  ... %ld more call(s) counted, not listed", t->dropped);
	if (t->note[0])
		tui_rows_add(L, "  ", "    ", A_NORMAL, t->note, A_NORMAL);
}

static void add_output(struct tui_rows *L, const char *text, const char *what)
{
	int n = tui_count_lines(text);

	tui_rows_blank(L);
	tui_rows_printf(L, A_BOLD, "%s", what);
	if (!n) {
		tui_rows_add(L, "| ", "  ", A_NORMAL, "(nothing)", A_NORMAL);
		return;
	}
	tui_rows_add(L, "| ", "  ", A_NORMAL, text, A_NORMAL);
}

/* The verdict in block letters, whatever it is: CONTAINED is read from the
 * back of a room as well as ESCAPED. Beside it the run's snippet, layers
 * and rung where they fit; else the word alone, and they follow below. */
static void build_verdict(const struct tui_state *st, const struct tui_run *r, struct tui_rows *L)
{
	const struct lab_result *res = &r->res;
	const char *word = verdict_name(res->verdict);
	attr_t vattr = tui_verdict_attr(st, res->verdict);
	char lbl[REPORT_LABEL_MAX], d[32], l1[96], l2[128];
	int room = L->width - tui_big_width(word) - 2;

	report_layers_label(res->layers, true, lbl);
	tui_format_duration(res->ev.end.duration_ms, d, sizeof d);
	snprintf(l1, sizeof l1, "%s, layers %s%s", res->snippet, res->rung == RUNG_INPROCESS ? "n/a, toggles " : "",
	         lbl);
	snprintf(l2, sizeof l2, "rung: %s, %s%s", lab_rung_key(res->rung), d, res->ev.end.aborted ? " (aborted)" : "");
	if (room >= 24) {
		const char *side[3] = {word, l1, l2};
		const attr_t sattr[3] = {vattr, A_NORMAL, A_NORMAL};

		add_big(L, word, vattr, side, sattr);
	} else if (room >= tui_text_width(word)) {
		const char *side[3] = {word, "", ""};
		const attr_t sattr[3] = {vattr, A_NORMAL, A_NORMAL};

		add_big(L, word, vattr, side, sattr);
		tui_rows_printf(L, A_NORMAL, "%s, %s", l1, l2);
	} else {
		tui_rows_printf(L, vattr | A_REVERSE, " %s ", word);
		tui_rows_printf(L, A_NORMAL, "%s, %s", l1, l2);
	}
}

/* Where "every layer on" is visibly not "every attack contained" (or the
 * legit task fails with its layers on), the one line that says why and
 * what to try; NULL where the toggles explain the verdict themselves. */
const char *tui_why_line(const struct snippet *s, const struct lab_setup *setup, char *buf, size_t len)
{
	bool net = setup->layers & LAYER_BIT(LAYER_NETWORK), iso = setup->layers & LAYER_BIT(LAYER_ISOLATION);
	enum lab_rung rung = setup->rung;
	enum lab_net_mode net_mode = setup->net_mode;

	if (rung == RUNG_INPROCESS && s->threat != THREAT_LEGIT)
		snprintf(buf, len,
		         "why: in-process, exec() runs the snippet inside the app's own process: no layer has a "
		         "boundary to apply at (the toggles are n/a). Climb the ladder with r");
	else if (s->threat == THREAT_KERNEL && iso && rung == RUNG_CONTAINER)
		snprintf(
		    buf, len,
		    "why: the container rung shares the host kernel; namespaces and filters still let it serve the "
		    "calls. Climb the ladder with r (gvisor, microvm)");
	else if (s->threat == THREAT_LEGIT && s->uses[0] && net && net_mode == NET_MODE_NONE)
		snprintf(buf, len,
		         "why: the price of No-network: this task needs one API (%s). Try n: the allow-list lets just "
		         "that host out",
		         s->uses);
	else if (s->threat != THREAT_LEGIT && s->uses[0] && net && net_mode == NET_MODE_ALLOWLIST)
		snprintf(buf, len,
		         "why: the allow-list opens one door (%s) and does not read what goes through it. n goes back "
		         "to none",
		         s->uses);
	else
		return NULL;
	return buf;
}

static void build_result(const struct tui_state *st, const struct tui_run *r, struct tui_rows *L)
{
	const struct lab_result *res = &r->res;
	attr_t vattr = tui_verdict_attr(st, res->verdict);
	char buf[LAB_LINE * 5], lbl[REPORT_LABEL_MAX], what[160], why[LAB_LINE];
	int i;

	build_verdict(st, r, L);
	add_guess(st, L, r);
	tui_tour_rows(st, L, true);
	buf[0] = '\0';
	if (res->verdict == VERDICT_CONTAINED && res->caught_by >= 0 && res->caught_by < LAYER_COUNT)
		snprintf(buf, sizeof buf, "caught by %s (it stops %s)", lab_layers[res->caught_by].name,
		         lab_layers[res->caught_by].stops);
	else if (res->verdict == VERDICT_ESCAPED)
		snprintf(buf, sizeof buf, "CONSEQUENCE: %s", res->consequence);
	else if (res->verdict == VERDICT_ERROR && res->ev.error[0])
		snprintf(buf, sizeof buf, "ERROR: %s", res->ev.error);
	else if (res->verdict == VERDICT_FAILED)
		snprintf(buf, sizeof buf, "a layer broke legitimate work");
	/* first: at 80x24 the consequence would push it below the pane */
	struct lab_setup ran = lab_result_setup(res);
	if ((res->verdict == VERDICT_ESCAPED || res->verdict == VERDICT_FAILED) &&
	    tui_why_line(&st->snips[st->sel], &ran, why, sizeof why))
		tui_rows_add(L, "", "  ", A_NORMAL, why, tui_attr(st, TUI_LOOK_WARN));
	if (buf[0])
		tui_rows_add(L, "", "  ", A_NORMAL, buf, vattr);
	if (res->headline[0] && !(res->verdict == VERDICT_ERROR && strstr(res->ev.error, res->headline)))
		tui_rows_add(L, "", "  ", A_NORMAL, res->headline, A_BOLD);
	if (res->layers != st->setup.layers) {
		report_layers_label(res->layers, true, lbl);
		tui_rows_printf(L, tui_attr(st, TUI_LOOK_WARN), "ran with %s; toggles changed since: Enter reruns",
		                lbl);
	}
	if (res->n_evidence) {
		tui_rows_printf(L, A_BOLD, "evidence (the lab's, gathered outside the sandbox):");
		for (i = 0; i < res->n_evidence; i++)
			tui_rows_add(L, "- ", "  ", A_BOLD, res->evidence[i], A_NORMAL);
	}
	add_trace(L, res);
	snprintf(buf, sizeof buf, "mechanisms: %s", res->ev.mechanisms[0] ? res->ev.mechanisms : "none");
	tui_rows_add(L, "", "  ", A_NORMAL, buf, A_NORMAL);
	snprintf(what, sizeof what, "output (sanitised): %d line%s of %llu bytes%s%s", tui_count_lines(r->out_text),
	         tui_count_lines(r->out_text) == 1 ? "" : "s",
	         (unsigned long long)(res->ev.res.out_bytes ? res->ev.res.out_bytes
	                                                    : r->out_skipped + strlen(r->out_text ? r->out_text : "")),
	         res->ev.res.out_truncated ? ", capped" : "", r->out_skipped ? ", only its end kept" : "");
	add_output(L, r->out_text, what);
}

/* While the run goes: what it is, the clock, and the output so far. */
static void build_live(const struct tui_state *st, struct tui_rows *L)
{
	const struct job *j = &st->job;
	char lbl[REPORT_LABEL_MAX], d[32], what[200], bar[256];
	char *text;
	int n, w = L->width < (int)sizeof bar - 1 ? L->width : (int)sizeof bar - 1;

	/* --approve ask: the run waits for the human, its clocks stopped;
	 * the question first, where the pane opens */
	if (j->gate_waiting) {
		attr_t key = tui_attr(st, TUI_LOOK_KEY);
		tui_rows_printf(L, tui_attr(st, TUI_LOOK_WARN) | A_BOLD, "THE GATE: approve %s?", j->gate_call);
		tui_rows_add(L, "", "  ", A_NORMAL,
		             "The snippet asked the tool door for an irreversible call. No layer can tell a poisoned "
		             "call from an honest one: you are the gate. The run waits (its clocks stand still; 120 s "
		             "in all for the run's questions, then it is refused).",
		             A_NORMAL);
		tui_rows_add(L, "  y  ", "     ", key, "approve: the payment goes out", A_NORMAL);
		tui_rows_add(L, "  n  ", "     ", key, "refuse: no payment is made", A_NORMAL);
		tui_rows_blank(L);
	}
	report_layers_label(j->layers, true, lbl);
	tui_format_duration(st->now_ms - j->started_ms, d, sizeof d);
	tui_rows_printf(L, A_BOLD, "%c RUNNING %s   %s", tui_spinner(st), st->snips[j->snippet_index].name, d);
	tui_rows_printf(L, A_NORMAL, "in the sandbox, layers %s", lbl);
	/* a bar that fills over the wall-clock limit: a long run shows life;
	 * it stands still while the gate waits, as the run's clocks do */
	long ran =
	    st->now_ms - j->started_ms - j->gate_waited_ms - (j->gate_waiting ? st->now_ms - j->gate_since_ms : 0);
	n = st->cfg->limits.timeout_ms > 0 ? (int)(ran * (w - 2) / st->cfg->limits.timeout_ms) : 0;
	n = n < 0 ? 0 : n > w - 2 ? w - 2 : n;
	memset(bar, ' ', (size_t)w);
	memset(bar + 1, '#', (size_t)n);
	bar[0] = '[';
	bar[w - 1] = ']';
	bar[w] = '\0';
	add_row(L, bar, A_BOLD);
	tui_rows_printf(L, A_NORMAL, "the lab gathers its evidence outside; a aborts");
	/* this run's guess (the result slot still holds the last run's) */
	if (st->job_guess >= 0)
		tui_rows_printf(L, A_BOLD, "you predicted %s: the lab will tell",
		                verdict_name((enum lab_verdict)st->job_guess));
	text = sanitize_output(j->live.s, j->live.len, (size_t)JOB_LIVE_MAX * 4);
	snprintf(what, sizeof what, "output so far (live, sanitised): %llu bytes%s",
	         (unsigned long long)j->live_cut + j->live.len,
	         j->live_skipped ? ", some not shown live (the result will have them)" : "");
	add_output(L, text, what);
	free(text);
}

/* Predict mode, before the run: the question, and the keys that answer. */
static void build_ask(const struct tui_state *st, struct tui_rows *L)
{
	const struct snippet *s = &st->snips[st->sel];
	char lbl[REPORT_LABEL_MAX];
	attr_t key = tui_attr(st, TUI_LOOK_KEY);

	tui_tour_rows(st, L, false);
	report_layers_label(st->setup.layers, true, lbl);
	tui_rows_printf(L, A_BOLD, "PREDICT: %s (%s) with layers %s on the %s rung%s", s->name, threat_name(s->threat),
	                lbl, lab_rung_key(st->setup.rung),
	                st->setup.net_mode == NET_MODE_ALLOWLIST ? ", net: allowlist" : "");
	if (s->threat == THREAT_LEGIT) {
		tui_rows_printf(L, A_BOLD, "Does the task still work: ran ok or failed?");
		tui_rows_add(L, "  o  ", "     ", key, "RAN OK: the layers let the real work through", A_NORMAL);
		tui_rows_add(L, "  f  ", "     ", key, "FAILED: a layer breaks the legitimate task", A_NORMAL);
	} else {
		tui_rows_printf(L, A_BOLD, "Is the attack contained or does it escape?");
		tui_rows_add(L, "  c  ", "     ", key, "CONTAINED: a layer that is on stops it", A_NORMAL);
		tui_rows_add(L, "  e  ", "     ", key, "ESCAPED: it gets what it wants", A_NORMAL);
	}
	tui_rows_add(L, "  Esc  ", "       ", key, "not now", A_NORMAL);
	tui_rows_printf(L, A_NORMAL, "Then the lab runs it for real and judges from its own evidence.  score %d/%d",
	                st->score_right, st->score_total);
}

static void build_idle(const struct tui_state *st, struct tui_rows *L)
{
	const struct snippet *s = &st->snips[st->sel];
	char lbl[REPORT_LABEL_MAX], where[96];

	tui_tour_rows(st, L, false);
	if (st->tour.on)
		return;
	report_layers_label(st->setup.layers, true, lbl);
	snprintf(where, sizeof where, "layers %s on the %s rung", lbl, lab_rung_key(st->setup.rung));
	if (st->predict)
		tui_rows_printf(L, A_NORMAL, "Predict mode: press Enter, answer, and the lab runs %s with %s.", s->name,
		                where);
	else if (s->threat == THREAT_LEGIT)
		tui_rows_printf(L, A_NORMAL,
		                "The legit task. Predict: does it still work with %s? Press Enter to run it for real.",
		                where);
	else
		tui_rows_printf(L, A_NORMAL,
		                "An attack: %s. Predict: contained or escaped with %s? Press Enter to run it for real.",
		                threat_name(s->threat), where);
}

/* The result pane's rows for the selected snippet; returns its name. */
const char *tui_result_rows(const struct tui_state *st, struct tui_rows *L)
{
	const struct tui_run *r = &st->runs[st->sel];

	if (st->asking) {
		build_ask(st, L);
		return "PREDICT";
	}
	if (st->job_live && st->job.snippet_index == st->sel) {
		build_live(st, L);
		return "RESULT (running)";
	}
	if (r->have) {
		build_result(st, r, L);
		return "RESULT";
	}
	build_idle(st, L);
	return "RESULT";
}

void tui_result_pane(struct tui_state *st, int y, int x, int w, int rows, bool focused)
{
	struct tui_rows L = {.width = w};
	const char *name = tui_result_rows(st, &L);

	/* the gate's question stays in sight, above the output: the pane
	 * does not follow the snippet's output while it waits (its output
	 * can print a look-alike question) */
	if (st->job_live && st->job.gate_waiting)
		st->res_view = (struct tui_view_pos){.top = 0, .follow = false};
	char head[64];

	if (rows >= 2) {
		tui_rows_draw_mark(&L, &st->res_view, y + 1, x, rows - 1, 0);
		snprintf(head, sizeof head, "%s%s ", focused ? " > " : " ", name);
		pane_head(st, y, x, w, head, &st->res_view, focused);
	}
	tui_rows_free(&L);
}
