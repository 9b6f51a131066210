/* tui_keys.c — the one key table. It drives dispatch, the footer and the
 * help overlay alike, so a key cannot exist without being documented.
 * Handlers change the state (or start/abort jobs through tui_jobs.c) and
 * return TUI_* flags; they never draw. The overlays that hold the keys
 * while open (the twin, the audit card, the tour's t/T) have their own
 * handlers in their files. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdio.h>
#include <string.h>

#include "report.h"
#include "tui_audit.h"
#include "tui_edit.h"
#include "tui_jobs.h"
#include "tui_keys.h"
#include "tui_layout.h"
#include "tui_look.h"
#include "tui_matrix.h"
#include "tui_rows.h"
#include "tui_state.h"
#include "tui_tour.h"
#include "tui_twin.h"

#define KEY_ESC    27
#define KEY_CTRL_L 12

struct tui_key {
	int codes[6];            /* 0-terminated */
	const char *label;       /* as the footer and help name the key(s) */
	const char *main_word;   /* footer word in the main view; NULL = help only */
	const char *matrix_word; /* footer word in the matrix view */
	const char *help;
	int (*fn)(struct tui_state *st, int ch);
};

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int select_snippet(struct tui_state *st, int i)
{
	i = clamp(i, 0, st->n_snips - 1);
	if (i != st->sel) {
		st->sel = i;
		st->code_view = (struct tui_view_pos){.top = TUI_TOP_START};
		st->res_view = (struct tui_view_pos){0};
	}
	return TUI_REDRAW;
}

/* The pane the scroll keys move: the focused one; with the list focused,
 * the code (the keys did that before there was a focus). */
static struct tui_view_pos *scrolled(struct tui_state *st)
{
	if (st->focus == TUI_FOCUS_RESULT || (st->zoom && st->focus != TUI_FOCUS_CODE))
		return &st->res_view;
	return &st->code_view;
}

/* Moves a view by d rows; the drawing clamps it. Scrolling up stops
 * following the live output; reaching the end follows it again. */
static void scroll_by(struct tui_view_pos *v, int d)
{
	v->top += d;
	if (v->top < 0)
		v->top = 0;
	v->follow = d > 0 && v->total > 0 && v->top >= v->total - v->page;
}

static int key_updown(struct tui_state *st, int ch)
{
	int d = (ch == KEY_UP || ch == 'k') ? -1 : 1;

	if (st->view == TUI_VIEW_MATRIX) {
		st->mx_row = clamp(st->mx_row + d, 0, st->n_snips - 1);
		return TUI_REDRAW;
	}
	if (st->focus == TUI_FOCUS_LIST && !st->zoom)
		return select_snippet(st, st->sel + d);
	scroll_by(scrolled(st), d);
	return TUI_REDRAW;
}

static int key_leftright(struct tui_state *st, int ch)
{
	int d = (ch == KEY_LEFT || ch == 'h') ? -1 : 1;

	if (st->view != TUI_VIEW_MATRIX)
		return TUI_HANDLED;
	st->mx_col = clamp(st->mx_col + d, 0, TUI_COMBOS - 1);
	return TUI_REDRAW;
}

static int key_home_end(struct tui_state *st, int ch)
{
	bool home = ch == KEY_HOME || ch == 'g';
	struct tui_view_pos *v;

	if (st->view == TUI_VIEW_MATRIX) {
		st->mx_col = home ? 0 : TUI_COMBOS - 1;
		return TUI_REDRAW;
	}
	v = scrolled(st);
	v->top = home ? 0 : 1 << 20; /* the drawing clamps it */
	v->follow = !home;
	return TUI_REDRAW;
}

static int key_tab(struct tui_state *st, int ch)
{
	int d = ch == KEY_BTAB ? TUI_FOCUS_COUNT - 1 : 1;

	if (st->view == TUI_VIEW_MATRIX)
		return TUI_HANDLED;
	st->focus = (enum tui_focus)((st->focus + d) % TUI_FOCUS_COUNT);
	/* zoomed, the list is not on screen: Tab swaps the two panes */
	if (st->zoom && st->focus == TUI_FOCUS_LIST)
		st->focus = (enum tui_focus)((st->focus + d) % TUI_FOCUS_COUNT);
	return TUI_REDRAW;
}

static int key_zoom(struct tui_state *st, int ch)
{
	(void)ch;
	if (st->view == TUI_VIEW_MATRIX)
		return TUI_HANDLED;
	st->zoom = !st->zoom;
	if (st->zoom && st->focus == TUI_FOCUS_LIST)
		st->focus = TUI_FOCUS_RESULT;
	return TUI_REDRAW;
}

static int key_danger(struct tui_state *st, int ch)
{
	if (st->view == TUI_VIEW_MATRIX)
		return TUI_HANDLED;
	st->code_jump = ch == '<' ? -1 : 1;
	return TUI_REDRAW;
}

static int key_layer(struct tui_state *st, int ch)
{
	int l = ch - '1';

	if (l < 0 || l >= LAYER_COUNT)
		return TUI_HANDLED;
	st->setup.layers ^= LAYER_BIT(l);
	return TUI_REDRAW;
}

static int key_rung(struct tui_state *st, int ch)
{
	(void)ch;
	tui_cycle_rung(st);
	return TUI_REDRAW;
}

static int key_net_mode(struct tui_state *st, int ch)
{
	(void)ch;
	tui_cycle_net_mode(st);
	return TUI_REDRAW;
}

static int key_enter(struct tui_state *st, int ch)
{
	int right, done, guessed;

	(void)ch;
	if (st->view == TUI_VIEW_MATRIX) {
		tui_matrix_row_score(st, st->mx_row, &right, &done, &guessed);
		if (st->predict && guessed < TUI_COMBOS && !matrix_running(&st->mx)) {
			tui_message(
			    st, "predict the row first: c or e (o or f for legit) for each of the %d cells, %d to go",
			    TUI_COMBOS, TUI_COMBOS - guessed);
			return TUI_REDRAW;
		}
		tui_matrix_start(st);
	} else if (st->predict && !tui_busy(st)) {
		st->res_view = (struct tui_view_pos){0};
		tui_predict_then_run(st); /* asks, unless the cell's guess stands */
	} else {
		tui_run_selected(st);
	}
	return TUI_REDRAW;
}

/* p: predict mode on or off; the score stays for the session. */
static int key_predict(struct tui_state *st, int ch)
{
	(void)ch;
	st->predict = !st->predict;
	st->asking = false;
	tui_message(st, st->predict ? "predict mode: Enter asks contained or escaped? before each run (m: a whole row)"
	                            : "predict mode off: Enter runs at once");
	return TUI_REDRAW;
}

/* The guess a key stands for, for the snippet it is about. */
static int guess_of(const struct snippet *s, int ch)
{
	if (s->threat == THREAT_LEGIT)
		return ch == 'o' ? VERDICT_RAN_OK : ch == 'f' ? VERDICT_FAILED : -1;
	return ch == 'c' ? VERDICT_CONTAINED : ch == 'e' ? VERDICT_ESCAPED : -1;
}

/* c/e (o/f): the answer to the predict question; in the matrix, the guess
 * for the cell under the cursor, then the next cell. */
static int key_answer(struct tui_state *st, int ch)
{
	int g;

	if (st->view == TUI_VIEW_MATRIX) {
		if (!st->predict)
			return TUI_HANDLED;
		g = guess_of(&st->snips[st->mx_row], ch);
		if (g < 0) {
			tui_message(st, "%s: %s", st->snips[st->mx_row].name,
			            st->snips[st->mx_row].threat == THREAT_LEGIT ? "o ran ok or f failed"
			                                                         : "c contained or e escaped");
			return TUI_REDRAW;
		}
		if (matrix_running(&st->mx)) {
			tui_message(st, "the matrix is running: guess when it is done (a aborts it)");
			return TUI_REDRAW;
		}
		st->mx_guess[matrix_index(st->mx_row, tui_combo_mask(st->mx_col))] = (short)g;
		st->mx_guess_ms = monotonic_ms();
		st->mx_col = clamp(st->mx_col + 1, 0, TUI_COMBOS - 1);
		return TUI_REDRAW;
	}
	if (!st->asking) {
		if (ch != 'e')
			tui_message(st, "%s",
			            st->predict ? "press Enter first: the lab asks, then runs"
			                        : "p switches predict mode on: guess before each run");
		return TUI_REDRAW;
	}
	g = guess_of(&st->snips[st->sel], ch);
	if (g < 0) {
		tui_message(st, "%s",
		            st->snips[st->sel].threat == THREAT_LEGIT ? "the legit task: o ran ok, f failed"
		                                                      : "an attack: c contained, e escaped");
		return TUI_REDRAW;
	}
	tui_answer(st, (enum lab_verdict)g);
	return TUI_REDRAW;
}

/* e: your own attack (or, while the lab asks, "escaped"). */
static int key_edit(struct tui_state *st, int ch)
{
	if (st->asking || (st->view == TUI_VIEW_MATRIX && st->predict))
		return key_answer(st, ch);
	if (st->view == TUI_VIEW_MATRIX)
		return TUI_HANDLED;
	tui_edit_selected(st);
	return TUI_REDRAW | TUI_CLEAR;
}

static int key_matrix(struct tui_state *st, int ch)
{
	(void)ch;
	if (st->view == TUI_VIEW_MATRIX) {
		st->view = TUI_VIEW_MAIN;
		select_snippet(st, st->mx_row);
		return TUI_REDRAW;
	}
	st->view = TUI_VIEW_MATRIX;
	st->mx_row = st->sel;
	/* in predict mode the student predicts the row before it runs */
	if (!st->mx_started && !st->predict)
		tui_matrix_start(st);
	return TUI_REDRAW;
}

/* a: abort what runs; when nothing does, the audit card (tui_audit.c) */
static int key_abort(struct tui_state *st, int ch)
{
	(void)ch;
	if (tui_busy(st))
		tui_abort(st);
	else
		tui_audit_open(st);
	return TUI_REDRAW;
}

static int key_page(struct tui_state *st, int ch)
{
	struct tui_view_pos *v = scrolled(st);
	int page = v->page > 1 ? v->page - 1 : 1;

	if (st->view == TUI_VIEW_MATRIX)
		return TUI_HANDLED;
	scroll_by(v, ch == KEY_PPAGE || ch == '[' ? -page : page);
	return TUI_REDRAW;
}

static int key_mouse(struct tui_state *st, int ch)
{
	MEVENT ev;
	int l, i, row, col;

	(void)ch;
	if (getmouse(&ev) != OK)
		return TUI_HANDLED;
	if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
		return TUI_HANDLED;
	l = tui_toggle_at(ev.y, ev.x);
	if (l >= 0)
		return key_layer(st, '1' + l);
	if (st->view == TUI_VIEW_MATRIX) {
		if (tui_matrix_cell_at(st, ev.y, ev.x, &row, &col)) {
			st->mx_row = row;
			st->mx_col = col;
		}
		return TUI_REDRAW;
	}
	i = tui_snippet_at(st, ev.y, ev.x);
	if (i >= 0)
		return select_snippet(st, i);
	return TUI_HANDLED;
}

static int key_help(struct tui_state *st, int ch)
{
	(void)ch;
	st->help = !st->help;
	st->help_view = (struct tui_view_pos){0};
	return TUI_REDRAW;
}

static int key_escape(struct tui_state *st, int ch)
{
	(void)ch;
	if (st->help)
		st->help = false;
	else if (st->asking)
		st->asking = false;
	else if (st->zoom)
		st->zoom = false;
	else if (st->view == TUI_VIEW_MATRIX)
		return key_matrix(st, 'm');
	return TUI_REDRAW;
}

static int key_twin(struct tui_state *st, int ch)
{
	(void)ch;
	st->twin = !st->twin;
	st->twin_top = 0;
	st->twin_bwrap = false; /* d opens the docker one; b swaps */
	return TUI_REDRAW;
}

static int key_repaint(struct tui_state *st, int ch)
{
	(void)st;
	(void)ch;
	return TUI_REDRAW | TUI_CLEAR;
}

/* t: the tour from where the student left it; in it, the next step. T
 * leaves it (the place is kept). The tour is on the main screen. */
static int key_tour(struct tui_state *st, int ch)
{
	if (ch == 'T' && !st->tour.on)
		return TUI_REDRAW;
	st->view = TUI_VIEW_MAIN;
	st->help = false;
	return tui_tour_key(st, ch);
}

/* y/n while the run's gate waits (--approve ask): the human's answer; n
 * is not No-network's mode then, and y approves only this one call. */
static int gate_key(struct tui_state *st, int ch)
{
	char call[sizeof st->job.gate_call];
	bool yes = ch == 'y' || ch == 'Y';

	str_copy(call, sizeof call, st->job.gate_call);
	st->res_view.follow = true; /* the output again, as it comes */
	if (job_gate_answer(&st->job, yes) < 0)
		tui_message(st, "the run did not take the answer (it ended): its gate refused %s", call);
	else
		tui_message(st, "you %s %s: the run goes on", yes ? "approved" : "refused", call);
	return TUI_REDRAW;
}

static int key_quit(struct tui_state *st, int ch)
{
	(void)st;
	(void)ch;
	return TUI_QUIT;
}

static const struct tui_key keys[] = {
    {{KEY_UP, 'k', KEY_DOWN, 'j', 0},
     "Up/Down j/k",
     "select",
     "move",
     "choose a snippet (matrix: move the cursor)",
     key_updown},
    {{KEY_LEFT, 'h', KEY_RIGHT, 'l', 0},
     "Left/Right h/l",
     NULL,
     NULL,
     "matrix: move the cursor across the layer sets",
     key_leftright},
    {{'1', '2', '3', '4', 0}, "1-4", NULL, NULL, "toggle Isolation/No-network/Clean-env/Resource-limits", key_layer},
    {{'r', 0},
     "r",
     NULL,
     "rung",
     "Isolation's rung: container -> gvisor -> microvm (the matrix starts over for it)",
     key_rung},
    {{'n', 0}, "n", "net", NULL, "No-network's mode: none <-> allowlist (only the lab's egress proxy)", key_net_mode},
    {{'\r', '\n', KEY_ENTER, 0},
     "Enter",
     "run",
     "rerun",
     "run the snippet for real (matrix: run all cells again)",
     key_enter},
    {{'m', 0}, "m", "matrix", "back", "matrix: all snippets x 16 layer sets; m again: back", key_matrix},
    {{'d', 0}, "d", NULL, NULL, "the docker twin of the toggles, flag by flag (b: bwrap; Esc/q/d closes)", key_twin},
    {{'a', 0},
     "a",
     "audit",
     "abort",
     "a sandbox you may use (bwrap, firejail, srt, runsc) beside the lab's layers, attack by attack; while "
     "running: abort the run(s), the sandbox is killed and cleaned up",
     key_abort},
    {{'\t', KEY_BTAB, 0}, "Tab", "pane", NULL, "focus: list -> code -> result; j/k then scroll it", key_tab},
    {{KEY_PPAGE, '[', KEY_NPAGE, ']', 0},
     "PgUp/PgDn [ ]",
     NULL,
     NULL,
     "page the focused pane (the list focused: the code)",
     key_page},
    {{KEY_HOME, 'g', KEY_END, 'G', 0},
     "Home/End g/G",
     NULL,
     NULL,
     "top/end of the focused pane (matrix: first/last column)",
     key_home_end},
    {{'>', '<', 0},
     "> <",
     NULL,
     NULL,
     "code: the next/previous danger line (>> marks; the code opens at the first)",
     key_danger},
    {{'z', 0}, "z", "zoom", NULL, "zoom the focused pane to the whole screen and back", key_zoom},
    {{'p', 0}, "p", "predict", "predict", "predict mode: guess, then run; scored (matrix: a row)", key_predict},
    {{'c', 'o', 'f', 0}, "c/e o/f", NULL, NULL, "predict: contained/escaped (legit: ran ok/failed)", key_answer},
    {{'e', 0}, "e", "edit", NULL, "your own attack: copy, $EDITOR, list as yours, run", key_edit},
    {{'t', 'T', 0},
     "t T",
     "tour",
     NULL,
     "the guided tour: the lesson step by step, predicted, run, scored and kept; t: the next step, T: leave it",
     key_tour},
    {{KEY_MOUSE, 0}, "click", NULL, NULL, "click a toggle to switch it, a snippet/cell to pick it", key_mouse},
    {{'?', KEY_F(1), 0}, "?", NULL, "help", "show or hide this help", key_help},
    {{KEY_ESC, 0}, "Esc", NULL, NULL, "close help, cancel a question, unzoom, leave matrix", key_escape},
    {{KEY_CTRL_L, 0}, "Ctrl-L", NULL, NULL, "repaint the whole screen", key_repaint},
    {{'q', 'Q', 0}, "q", "quit", "quit", "quit (aborts and cleans up anything still running)", key_quit},
};

/* The help overlay holds the keys while it is open: it scrolls (it is
 * longer than 24 rows), q quits, any other key closes it. */
static int help_key(struct tui_state *st, int ch)
{
	struct tui_view_pos *v = &st->help_view;
	int page = v->page > 1 ? v->page - 1 : 1;

	switch (ch) {
	case 'q':
	case 'Q':
		return TUI_QUIT;
	case KEY_UP:
	case 'k':
		v->top = v->top > 0 ? v->top - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		v->top++; /* the drawing clamps it */
		break;
	case KEY_PPAGE:
	case '[':
		v->top = v->top > page ? v->top - page : 0;
		break;
	case KEY_NPAGE:
	case ']':
	case ' ':
		v->top += page;
		break;
	case KEY_HOME:
	case 'g':
		v->top = 0;
		break;
	case KEY_END:
	case 'G':
		v->top = 1 << 20;
		break;
	case KEY_MOUSE: {
		MEVENT ev;

		getmouse(&ev); /* a click closes it */
		st->help = false;
		break;
	}
	default:
		st->help = false;
	}
	return TUI_REDRAW;
}

int tui_key_dispatch(struct tui_state *st, int ch)
{
	size_t i;
	int k, flags;

	if (st->help)
		return help_key(st, ch);
	if (st->twin)
		return tui_twin_key(st, ch);
	if (st->audit.open)
		return tui_audit_key(st, ch);
	if (st->job_live && st->job.gate_waiting)
		switch (ch) {
		case 'y':
		case 'Y':
		case 'n':
		case 'N':
			return gate_key(st, ch);
		}
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		for (k = 0; keys[i].codes[k]; k++) {
			if (keys[i].codes[k] != ch)
				continue;
			flags = keys[i].fn(st, ch);
			if (flags & TUI_CLEAR)
				clearok(curscr, TRUE);
			return flags;
		}
	}
	return 0;
}

void tui_draw_footer(const struct tui_state *st, int y, int width)
{
	const char *word, *label;
	size_t i;
	int x = 0, need;
	attr_t kattr = tui_attr(st, TUI_LOOK_KEY);
	char buf[64];

	/* the gate waits for the human: its answers before any message */
	if (st->job_live && st->job.gate_waiting) {
		x = 1;
		/* the exact call, where no output of the snippet's can be */
		x += tui_put(y, x, width - x, "y", kattr) + 1;
		x += tui_put(y, x, width - x, "approve", A_BOLD) + 1;
		x += tui_put(y, x, width - 22 - x, st->job.gate_call, A_BOLD) + 2;
		x += tui_put(y, x, width - x, "n", kattr) + 1;
		x += tui_put(y, x, width - x, "refuse", A_NORMAL) + 2;
		x += tui_put(y, x, width - x, "a", kattr) + 1;
		x += tui_put(y, x, width - x, "abort", A_NORMAL) + 2;
		x += tui_put(y, x, width - x, "q", kattr) + 1;
		tui_put(y, x, width - x, "quit", A_NORMAL);
		return;
	}
	if (st->msg[0]) {
		tui_fill(y, 0, width, tui_attr(st, TUI_LOOK_TITLE));
		tui_put(y, 1, width - 2, st->msg, tui_attr(st, TUI_LOOK_TITLE));
		return;
	}
	/* predict mode: the session's score stays in the corner */
	if (st->predict) {
		snprintf(buf, sizeof buf, " PREDICT score %d/%d ", st->score_right, st->score_total);
		width -= tui_text_width(buf);
		tui_put(y, width, tui_text_width(buf), buf, tui_attr(st, TUI_LOOK_TITLE));
	}
	if (st->asking && st->view == TUI_VIEW_MAIN) {
		bool legit = st->snips[st->sel].threat == THREAT_LEGIT;

		x = 1;
		x += tui_put(y, x, width - x, legit ? "o" : "c", kattr) + 1;
		x += tui_put(y, x, width - x, legit ? "ran ok" : "contained", A_NORMAL) + 2;
		x += tui_put(y, x, width - x, legit ? "f" : "e", kattr) + 1;
		x += tui_put(y, x, width - x, legit ? "failed" : "escaped", A_NORMAL) + 2;
		x += tui_put(y, x, width - x, "Esc", kattr) + 1;
		x += tui_put(y, x, width - x, "not now", A_NORMAL) + 2;
		x += tui_put(y, x, width - x, "q", kattr) + 1;
		tui_put(y, x, width - x, "quit", A_NORMAL);
		return;
	}
	/* q quit is always there: the other keys get the room left of it */
	const struct tui_key *quit = NULL;
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (keys[i].fn == key_quit)
			quit = &keys[i];
	int room = width - (quit ? (int)strlen(quit->label) + (int)strlen(quit->main_word) + 3 : 0);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		word = st->view == TUI_VIEW_MATRIX ? keys[i].matrix_word : keys[i].main_word;
		if (!word || &keys[i] == quit)
			continue;
		/* The footer uses the short spelling of the key. */
		label = keys[i].label;
		if (keys[i].fn == key_updown)
			label = st->view == TUI_VIEW_MATRIX ? "arrows" : "j/k";
		if (keys[i].fn == key_updown && st->view == TUI_VIEW_MAIN)
			word = st->focus == TUI_FOCUS_LIST && !st->zoom ? "select" : "scroll";
		else if (keys[i].fn == key_page)
			label = "[ ]";
		snprintf(buf, sizeof buf, "%s %s", label, word);
		need = (int)strlen(buf) + 2;
		if (x + need > room)
			break;
		x += 1;
		x += tui_put(y, x, width - x, label, kattr);
		x += tui_put(y, x, width - x, " ", A_NORMAL);
		x += tui_put(y, x, width - x, word, A_NORMAL) + 1;
	}
	if (quit) {
		x += 1;
		x += tui_put(y, x, width - x, quit->label, kattr);
		x += tui_put(y, x, width - x, " ", A_NORMAL);
		tui_put(y, x, width - x, quit->main_word, A_NORMAL);
	}
}

/* The help: every key of the table, the cells' legend and the layers,
 * wrapped to the overlay's width and scrolled (at 80x24 it is longer than
 * the screen); its bottom edge always says how to scroll, close and quit. */
void tui_draw_help(struct tui_state *st)
{
	char legend[REPORT_LEGEND_MAX + 16], gut[16], buf[160], pos[48], title[96];
	size_t i, nkeys = sizeof keys / sizeof keys[0];
	int w = COLS - 4 > 76 ? 76 : COLS - 4, h, x, y, row, l;
	struct tui_rows L = {.width = w - 4};
	attr_t kattr = tui_attr(st, TUI_LOOK_KEY);
	const char *bottom = " j/k [ ] scroll  Esc closes  q quit ";

	if (w < 40)
		return;
	for (i = 0; i < nkeys; i++) {
		snprintf(gut, sizeof gut, "%-14s ", keys[i].label);
		tui_rows_add(&L, gut, "               ", kattr, keys[i].help, A_NORMAL);
	}
	tui_rows_blank(&L);
	memcpy(legend, "Cells: ", 8);
	report_verdict_legend(legend + 7, sizeof legend - 7);
	tui_rows_add(&L, "", "       ", A_NORMAL, legend, A_NORMAL);
	tui_rows_add(&L, "", "       ", A_NORMAL, "       * differs from the truth table   ? not run yet", A_NORMAL);
	tui_rows_blank(&L);
	for (l = 0; l < LAYER_COUNT; l++) {
		snprintf(buf, sizeof buf, "[%d] %-16s stops %s", l + 1, lab_layers[l].name, lab_layers[l].stops);
		tui_rows_add(&L, "", "    ", A_NORMAL, buf, A_NORMAL);
	}
	h = L.n + 2;
	if (h > LINES - 2)
		h = LINES - 2;
	x = (COLS - w) / 2;
	y = (LINES - h) / 2;
	for (row = 0; row < h; row++)
		tui_fill(y + row, x, w, A_NORMAL);
	tui_frame(y, x, h, w, A_BOLD);
	tui_rows_draw(&L, &st->help_view, y + 1, x + 2, h - 2);
	tui_view_label(&st->help_view, pos, sizeof pos);
	snprintf(title, sizeof title, " HELP: keys %s ", pos);
	tui_put(y, x + 2, w - 4, title, A_BOLD);
	tui_put(y + h - 1, x + w - 2 - tui_text_width(bottom), tui_text_width(bottom), bottom, A_BOLD);
	tui_rows_free(&L);
}
