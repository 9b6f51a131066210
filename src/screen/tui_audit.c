/* tui_audit.c — a: an audit preset's card beside the lab's own layers.
 *
 * The question a student or a buyer asks after the matrix: "and the
 * sandbox I already use?" Both columns are real audits (lab_audit_run):
 * the same attacks, decoys and outside evidence, once through the lab's
 * `exec --on <the toggles>` and once through the preset's command line.
 * The runs go one at a time, a snippet's two in turn, so the rows fill in
 * side by side. Handlers never draw; tui_audit_draw paints from the state. */
#define _GNU_SOURCE
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "audit.h"
#include "report.h"
#include "snippet.h"
#include "tui_audit.h"
#include "tui_look.h"
#include "tui_state.h"
#include "verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int preset_count(void)
{
	int n = 0;
	while (audit_preset_names[n])
		n++;
	return n;
}

static void clear_results(struct tui_audit *a)
{
	for (int c = 0; c < TUI_AUDIT_COLS; c++)
		for (int k = 0; k < a->n; k++)
			if (a->have[c] && a->have[c][k]) {
				lab_result_free(&a->res[c][k]);
				a->have[c][k] = false;
			}
}

/* The preset's wrapper (or why it cannot run) and the lab's for the
 * toggles; the previous results go. */
static void choose(struct tui_state *st, int preset)
{
	struct tui_audit *a = &st->audit;
	clear_results(a);
	for (int c = 0; c < TUI_AUDIT_COLS; c++) {
		audit_argv_free(a->wrapper[c]);
		a->wrapper[c] = NULL;
		a->outside[c] = false;
	}
	a->preset = preset;
	a->layers = st->setup.layers;
	a->why[0] = a->note[0] = '\0';
	char why[LAB_LINE];
	if (audit_lab_wrapper(st->cfg, a->layers, &a->wrapper[TUI_AUDIT_LAB], why, sizeof why))
		tui_message(st, "the lab's column cannot run: %s", why);
	if (audit_preset(audit_preset_names[preset], st->cfg, &st->setup, &a->wrapper[TUI_AUDIT_PRESET],
	                 &a->outside[TUI_AUDIT_PRESET], a->why, sizeof a->why, a->note, sizeof a->note) != 0 &&
	    !a->why[0])
		snprintf(a->why, sizeof a->why, "no such preset");
}

void tui_audit_open(struct tui_state *st)
{
	struct tui_audit *a = &st->audit;
	if (!a->snips) {
		int n = 0;
		while (audit_default_names[n])
			n++;
		size_t cap = n > 0 ? (size_t)n : 1; /* the card is never empty; calloc(0) is no card */
		a->snips = calloc(cap, sizeof *a->snips);
		for (int c = 0; c < TUI_AUDIT_COLS; c++) {
			a->res[c] = calloc(cap, sizeof *a->res[c]);
			a->have[c] = calloc(cap, sizeof *a->have[c]);
		}
		if (!a->snips || !a->res[0] || !a->res[1] || !a->have[0] || !a->have[1])
			abort();
		for (int k = 0; k < n; k++) {
			char err[512];
			if (snippet_resolve(st->cfg, audit_default_names[k], &a->snips[k], err, sizeof err) < 0) {
				tui_message(st, "audit: %s", err);
				a->n = k;
				tui_audit_free(st);
				return;
			}
		}
		a->n = n;
		/* the lesson-like preset first */
		a->preset = 0;
	}
	a->open = true;
	a->cur = 0;
	/* the last card stays while the toggles it ran with do */
	if (!a->live && (a->layers != st->setup.layers || !a->wrapper[TUI_AUDIT_LAB]))
		choose(st, a->preset);
}

static void start_step(struct tui_state *st)
{
	struct tui_audit *a = &st->audit;
	while (a->step < a->steps) {
		int k = a->step / 2, c = a->step % 2;
		if (a->wrapper[c]) {
			int rc = job_start_audit(&a->job, st->cfg, &a->snips[k], a->wrapper[c], a->outside[c]);
			if (rc == 0) {
				a->live = true;
				return;
			}
			tui_message(st, "audit: could not start %s: %s", a->snips[k].name, strerror(-rc));
		}
		a->step++;
	}
	a->live = false;
}

static void run_card(struct tui_state *st)
{
	struct tui_audit *a = &st->audit;
	if (tui_busy(st)) {
		tui_message(st, "a run is going: wait, or press a to abort it");
		return;
	}
	choose(st, a->preset);
	a->step = 0;
	a->steps = 2 * a->n;
	a->stopping = false;
	start_step(st);
}

void tui_audit_ready(struct tui_state *st)
{
	struct tui_audit *a = &st->audit;
	int k = a->step / 2, c = a->step % 2;
	if (!a->live || job_pump(&a->job, &a->snips[k], st->cfg) == 0)
		return;
	/* the card shows verdicts and evidence, not output: job_free frees it */
	a->res[c][k] = a->job.res;
	a->res[c][k].output = NULL;
	a->res[c][k].output_len = 0;
	a->have[c][k] = true;
	job_free(&a->job);
	a->live = false;
	a->step = a->stopping ? a->steps : a->step + 1;
	start_step(st);
}

int tui_audit_fd(const struct tui_state *st)
{
	return st->audit.live ? st->audit.job.fd : -1;
}

void tui_audit_abort(struct tui_state *st)
{
	struct tui_audit *a = &st->audit;
	if (!a->live)
		return;
	a->stopping = true;
	job_abort(&a->job);
}

void tui_audit_free(struct tui_state *st)
{
	struct tui_audit *a = &st->audit;
	if (a->live) {
		job_stop(&a->job);
		job_free(&a->job);
		a->live = false;
	}
	clear_results(a);
	for (int c = 0; c < TUI_AUDIT_COLS; c++) {
		audit_argv_free(a->wrapper[c]);
		free(a->res[c]);
		free(a->have[c]);
	}
	for (int k = 0; k < a->n; k++)
		snippet_free(&a->snips[k]);
	free(a->snips);
	*a = (struct tui_audit){0};
}

int tui_audit_key(struct tui_state *st, int ch)
{
	struct tui_audit *a = &st->audit;
	int n = preset_count();
	switch (ch) {
	case 'a':
	case 'q':
	case 'Q':
	case 27: /* Esc */
		if (a->live) {
			tui_audit_abort(st);
			tui_message(st, "aborting the card: the sandbox is being killed and cleaned up");
		} else {
			a->open = false;
		}
		break;
	case KEY_LEFT:
	case 'h':
	case KEY_RIGHT:
	case 'l':
		if (a->live) {
			tui_message(st, "the card is running: wait, or press a to abort it");
			break;
		}
		if (n <= 0)
			break;
		choose(st, (a->preset + (ch == KEY_LEFT || ch == 'h' ? n - 1 : 1)) % n);
		break;
	case KEY_UP:
	case 'k':
		a->cur = a->cur > 0 ? a->cur - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		a->cur = a->cur + 1 < a->n ? a->cur + 1 : a->cur;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		if (!a->live)
			run_card(st);
		break;
	default:
		break;
	}
	return TUI_HANDLED | TUI_REDRAW;
}

/* "I N E L" as the main screen writes a layer set, a dash for one off. */
static void layers_label(unsigned layers, char *out, size_t cap)
{
	out[0] = '\0';
	for (int l = 0; l < LAYER_COUNT; l++)
		str_append(out, cap, "%s%c", l ? " " : "", layers & LAYER_BIT(l) ? report_layer_letter(l) : '-');
}

static void cell(struct tui_state *st, int y, int x, int w, int c, int k)
{
	struct tui_audit *a = &st->audit;
	char buf[64];
	if (a->have[c][k]) {
		tui_put(y, x, w, verdict_name(a->res[c][k].verdict),
		        tui_verdict_attr(st, a->res[c][k].verdict) | A_BOLD);
		return;
	}
	bool running = a->live && a->step == 2 * k + c;
	if (running)
		snprintf(buf, sizeof buf, "%c running", tui_spinner(st));
	else if (c == TUI_AUDIT_PRESET && a->why[0])
		str_copy(buf, sizeof buf, "skipped");
	else
		str_copy(buf, sizeof buf, a->live && a->step < 2 * k + c ? "waiting" : "-");
	tui_put(y, x, w, buf, tui_attr(st, TUI_LOOK_DIM));
}

/* The card of one column as audit.h's struct, for its missing line. */
static void missing_line(const struct tui_audit *a, int c, struct strbuf *b)
{
	struct audit_card *card = calloc(1, sizeof *card);
	if (!card)
		abort();
	for (int k = 0; k < a->n; k++)
		if (a->have[c][k])
			card->res[card->n++] = a->res[c][k]; /* borrowed: not freed here */
	if (card->n < a->n)
		sb_printf(b, a->live ? "%d of %d runs so far" : "%d of %d runs (Enter runs the card)", card->n, a->n);
	else
		audit_card_missing(card, b, "; ");
	free(card);
}

void tui_audit_draw(struct tui_state *st)
{
	struct tui_audit *a = &st->audit;
	int y = 1, x = 0, w = COLS, h = LINES - 2;
	if (w < 60 || h < a->n + 8)
		return;
	for (int row = 0; row < h; row++)
		tui_fill(y + row, x, w, A_NORMAL);
	tui_frame(y, x, h, w, A_BOLD);
	char title[200], lay[32];
	layers_label(a->layers, lay, sizeof lay);
	char who_[TUI_AUDIT_COLS][64];
	snprintf(who_[TUI_AUDIT_LAB], sizeof who_[0], "layers %s", lay);
	snprintf(who_[TUI_AUDIT_PRESET], sizeof who_[0], "preset %s", audit_preset_names[a->preset]);
	snprintf(title, sizeof title, " AUDIT %s beside the lab (%s)  Esc %s  </> preset  Enter run  j/k row ",
	         audit_preset_names[a->preset], lay, a->live ? "aborts" : "closes");
	tui_put(y, x + 2, w - 4, title, A_BOLD);
	int name_w = 16, col_w = 17, cx = x + 2 + name_w, px = cx + col_w;
	tui_put(y + 1, x + 2, name_w, "attack", tui_attr(st, TUI_LOOK_DIM));
	tui_put(y + 1, cx, col_w, who_[TUI_AUDIT_LAB], tui_attr(st, TUI_LOOK_DIM));
	tui_put(y + 1, px, w - px - 2, who_[TUI_AUDIT_PRESET], tui_attr(st, TUI_LOOK_DIM));
	for (int k = 0; k < a->n; k++) {
		int ry = y + 2 + k;
		attr_t at = k == a->cur ? tui_attr(st, TUI_LOOK_SELECTED) : A_NORMAL;
		if (k == a->cur)
			tui_fill(ry, x + 1, w - 2, at);
		tui_put(ry, x + 2, name_w - 1, a->snips[k].name, at);
		cell(st, ry, cx, col_w - 1, TUI_AUDIT_LAB, k);
		cell(st, ry, px, w - px - 2, TUI_AUDIT_PRESET, k);
	}
	/* below: the selected row's two headlines, then each card's missing line */
	int ty = y + 3 + a->n, bottom = y + h - 1, k = a->cur;
	char line[2 * LAB_LINE];
	for (int c = 0; c < TUI_AUDIT_COLS && ty < bottom; c++) {
		const char *who = who_[c];
		if (a->have[c][k])
			snprintf(line, sizeof line, "%s: %s", who, a->res[c][k].headline);
		else if (c == TUI_AUDIT_PRESET && a->why[0])
			snprintf(line, sizeof line, "%s: skipped: %s", who, a->why);
		else
			snprintf(line, sizeof line, "%s: not run yet (Enter runs the card)", who);
		ty += tui_wrap(ty, x + 2, w - 4, bottom - ty > 3 ? 3 : bottom - ty, line, A_NORMAL);
	}
	for (int c = 0; c < TUI_AUDIT_COLS && ty < bottom; c++) {
		struct strbuf b = {0};
		sb_printf(&b, "%s missing: ", who_[c]);
		if (c == TUI_AUDIT_PRESET && a->why[0])
			sb_puts(&b, "not run here");
		else
			missing_line(a, c, &b);
		ty += tui_wrap(ty, x + 2, w - 4, bottom - ty > 3 ? 3 : bottom - ty, b.s, tui_attr(st, TUI_LOOK_BOLD));
		sb_free(&b);
	}
	if (a->note[0] && ty < bottom)
		tui_wrap(ty, x + 2, w - 4, bottom - ty, a->note, tui_attr(st, TUI_LOOK_DIM));
}
