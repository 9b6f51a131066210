/* tui_matrix.c — the matrix screen: every snippet (rows) under all 16 layer
 * combinations (columns), cells filling in as their runs finish, each
 * compared with the truth table (verdict_expected). Column 0 has every layer
 * on, column 15 none; the four header rows spell which layers a column has.
 * Reads the state; the runs themselves are scheduled by the matrix runner
 * (matrix.c), which the loop in tui.c polls. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdio.h>
#include <string.h>

#include "report.h"
#include "tui_look.h"
#include "tui_matrix.h"
#include "tui_pane.h"
#include "tui_state.h"
#include "verdict.h"

#define NAME_W 18 /* row labels; also the header rows' layer names */
#define CELL_W 3

struct geo {
	int prog_y; /* progress line */
	int head_y; /* LAYER_COUNT header rows */
	int grid_y; /* first snippet row */
	int rows;   /* snippet rows shown */
	int sep_y;  /* rule above the details */
	int det_y, det_rows;
	int legend_x;
};

/* Column c has layer l on unless bit (LAYER_COUNT-1-l) of c is set, so
 * Isolation changes slowest and column 0 is "everything on". */
unsigned tui_combo_mask(int col)
{
	return layers_for_column(col);
}

static void geometry(const struct tui_state *st, int top, int bottom, struct geo *g)
{
	int avail;

	g->prog_y = top;
	g->head_y = top + 1;
	g->grid_y = g->head_y + LAYER_COUNT;
	avail = bottom - g->grid_y + 1 - 7; /* keep a rule and 6 detail rows */
	g->rows = st->n_snips < avail ? st->n_snips : avail;
	if (g->rows < 1)
		g->rows = 1;
	g->sep_y = g->grid_y + g->rows;
	g->det_y = g->sep_y + 1;
	g->det_rows = bottom - g->det_y + 1;
	g->legend_x = NAME_W + TUI_COMBOS * CELL_W + 2;
}

bool tui_matrix_cell_at(const struct tui_state *st, int y, int x, int *row, int *col)
{
	struct geo g;
	int r, c;

	geometry(st, 2, LINES - 2, &g);
	if (y < g.grid_y || y >= g.grid_y + g.rows || x < NAME_W || x >= NAME_W + TUI_COMBOS * CELL_W)
		return false;
	r = st->mx_top + (y - g.grid_y);
	c = (x - NAME_W) / CELL_W;
	if (r >= st->n_snips)
		return false;
	*row = r;
	*col = c;
	return true;
}

/* The cell under the matrix screen's row and column. */
static const struct matrix_cell *cell_at(const struct tui_state *st, int row, int col)
{
	return matrix_cell(&st->mx, row, tui_combo_mask(col));
}

/* The matrix ran after the last guess: only such a run answers it (one
 * from before was on screen while the student guessed). */
static bool guesses_answered(const struct tui_state *st)
{
	return st->mx_started && st->mx.t0_ms >= st->mx_guess_ms;
}

/* Predict mode: a row with guesses the matrix has not answered yet shows
 * the guesses, not an older run's verdicts. */
static bool row_hidden(const struct tui_state *st, int row)
{
	if (!st->predict || guesses_answered(st))
		return false;
	for (int col = 0; col < TUI_COMBOS; col++)
		if (st->mx_guess[matrix_index(row, tui_combo_mask(col))] >= 0)
			return true;
	return false;
}

void tui_matrix_row_score(const struct tui_state *st, int row, int *right, int *done, int *guessed)
{
	*right = *done = *guessed = 0;
	for (int col = 0; col < TUI_COMBOS; col++) {
		unsigned mask = tui_combo_mask(col);
		int g = st->mx_guess[matrix_index(row, mask)];
		const struct matrix_cell *cell = matrix_cell(&st->mx, row, mask);

		if (g < 0)
			continue;
		(*guessed)++;
		if (cell->state != MATRIX_DONE || cell->res.ev.end.aborted || !guesses_answered(st))
			continue;
		(*done)++;
		*right += cell->res.verdict == (enum lab_verdict)g;
	}
}

/* Predict mode: the selected row still has cells to guess. */
static bool row_open(const struct tui_state *st)
{
	int right, done, guessed;

	tui_matrix_row_score(st, st->mx_row, &right, &done, &guessed);
	return guessed < TUI_COMBOS;
}

/* Predict mode: the row's guesses and, once its cells ran, the score. */
static void draw_row_score(const struct tui_state *st, const struct geo *g, int x)
{
	char buf[160];
	int right, done, guessed;

	tui_matrix_row_score(st, st->mx_row, &right, &done, &guessed);
	if (guessed < TUI_COMBOS && !matrix_running(&st->mx))
		snprintf(buf, sizeof buf, "PREDICT %s: c/e (legit o/f) per cell, %d to go, then Enter",
		         st->snips[st->mx_row].name, TUI_COMBOS - guessed);
	else if (done)
		snprintf(buf, sizeof buf, "your row %s: %d/%d right", st->snips[st->mx_row].name, right, done);
	else
		snprintf(buf, sizeof buf, "row %s predicted: Enter runs it", st->snips[st->mx_row].name);
	tui_put(g->prog_y, x, COLS - x - 1, buf, A_BOLD);
}

static void draw_progress(const struct tui_state *st, const struct geo *g)
{
	char buf[200];
	const struct matrix *m = &st->mx;
	struct matrix_counts n = matrix_count(m);
	int differ = n.differ, ran = n.ran, x, total = m->n_cells;
	long ms = matrix_elapsed_ms(m);
	attr_t attr = A_BOLD;

	x = tui_put(g->prog_y, 1, 30, "MATRIX", A_BOLD | A_UNDERLINE) + 3;
	if (st->predict && !matrix_running(m) && (!st->mx_started || row_open(st))) {
		draw_row_score(st, g, x);
		return;
	}
	if (!st->mx_started) {
		snprintf(buf, sizeof buf, "press Enter to run all %d cells", total);
	} else if (matrix_running(m)) {
		snprintf(buf, sizeof buf, "%d/%d  %c running %d at once  %.1f s%s", m->finished, total,
		         "|/-\\"[(st->now_ms / 100) % 4], m -> max_jobs, (double)ms / 1000.0,
		         m -> aborted ? "  aborting" : "");
	} else if (m->aborted) {
		snprintf(buf, sizeof buf, "aborted after %d of %d cells, %d differ", ran, total, differ);
		attr = tui_attr(st, TUI_LOOK_WARN);
	} else if (differ == 0) {
		snprintf(buf, sizeof buf, "%d/%d as expected  (%.1f s)", ran, total, (double)ms / 1000.0);
		attr = tui_verdict_attr(st, VERDICT_CONTAINED);
	} else {
		snprintf(buf, sizeof buf, "%d of %d differ from the truth table  (%.1f s)", differ, total,
		         (double)ms / 1000.0);
		attr = tui_verdict_attr(st, VERDICT_ESCAPED);
	}
	x += tui_put(g->prog_y, x, COLS - x - 1, buf, attr) + 3;
	if (st->predict && x < COLS - 10)
		draw_row_score(st, g, x);
}

static void draw_header(const struct tui_state *st, const struct geo *g)
{
	char c[2] = "";
	int l, col, on;
	attr_t attr;

	for (l = 0; l < LAYER_COUNT; l++) {
		int y = g->head_y + l, nw = (int)strlen(lab_layers[l].name);

		if (nw > NAME_W - 2)
			nw = NAME_W - 2;
		tui_put(y, NAME_W - 1 - nw, nw, lab_layers[l].name, A_DIM);
		for (col = 0; col < TUI_COMBOS; col++) {
			on = (tui_combo_mask(col) & LAYER_BIT(l)) != 0;
			c[0] = on ? report_layer_letter(l) : '-';
			c[1] = '\0';
			attr = on ? tui_attr(st, TUI_LOOK_ON) : A_DIM;
			if (col == st->mx_col)
				attr = tui_attr(st, TUI_LOOK_SELECTED) | A_BOLD;
			tui_put(y, NAME_W + col * CELL_W + 1, 1, c, attr);
		}
	}
}

static char guess_key(int verdict)
{
	return verdict == VERDICT_CONTAINED ? 'c'
	       : verdict == VERDICT_ESCAPED ? 'e'
	       : verdict == VERDICT_RAN_OK  ? 'o'
	                                    : 'f';
}

static void draw_grid(struct tui_state *st, const struct geo *g)
{
	const struct matrix_cell *cell;
	char c[4];
	int r, row, col, y, x;
	attr_t attr;

	if (st->mx_row < st->mx_top)
		st->mx_top = st->mx_row;
	if (st->mx_row >= st->mx_top + g->rows)
		st->mx_top = st->mx_row - g->rows + 1;
	for (r = 0; r < g->rows; r++) {
		row = st->mx_top + r;
		if (row >= st->n_snips)
			break;
		y = g->grid_y + r;
		tui_put(y, 1, NAME_W - 2, st->snips[row].name,
		        row == st->mx_row ? tui_attr(st, TUI_LOOK_SELECTED) | A_BOLD : A_BOLD);
		for (col = 0; col < TUI_COMBOS; col++) {
			cell = cell_at(st, row, col);
			x = NAME_W + col * CELL_W;
			c[0] = ' ';
			c[2] = ' ';
			c[3] = '\0';
			attr = A_DIM;
			int guess = st->mx_guess[matrix_index(row, tui_combo_mask(col))];
			switch (row_hidden(st, row) && cell->state == MATRIX_DONE ? MATRIX_PENDING : cell->state) {
			case MATRIX_PENDING:
				/* a guess shows as its key, lower case: no verdict mark */
				c[1] = guess < 0 ? '?' : guess_key(guess);
				attr = guess < 0 ? A_DIM : A_BOLD;
				break;
			case MATRIX_SKIPPED:
				c[1] = ' ';
				break;
			case MATRIX_RUNNING:
				c[1] = "|/-\\"[(st->now_ms / 100) % 4];
				attr = A_BOLD;
				break;
			case MATRIX_DONE:
				c[1] = report_verdict_letter(cell->res.verdict);
				attr = tui_verdict_attr(st, cell->res.verdict);
				if (matrix_cell_differs(cell))
					c[0] = '*';
				if (guess >= 0 && cell->res.verdict != (enum lab_verdict)guess &&
				    !cell->res.ev.end.aborted)
					c[2] = '~'; /* the student's guess was wrong */
				break;
			}
			if (row == st->mx_row && col == st->mx_col)
				attr = (attr & ~A_DIM) | A_REVERSE;
			tui_put(y, x, CELL_W, c, attr);
		}
	}
	if (st->mx_top > 0)
		tui_put(g->grid_y, 0, 1, "^", A_BOLD);
	if (st->mx_top + g->rows < st->n_snips)
		tui_put(g->grid_y + g->rows - 1, 0, 1, "v", A_BOLD);
}

static void draw_legend(const struct tui_state *st, const struct geo *g)
{
	const enum lab_verdict *order = report_verdict_order;
	char buf[32];
	int i, y = g->head_y, w = COLS - g->legend_x;

	if (w < 8)
		return;
	for (i = 0; i < VERDICT_COUNT; i++, y++) {
		snprintf(buf, sizeof buf, "%c", report_verdict_letter(order[i]));
		tui_put(y, g->legend_x, 1, buf, tui_verdict_attr(st, order[i]));
		tui_put(y, g->legend_x + 2, w - 2, verdict_name(order[i]), A_NORMAL);
	}
	if (y < g->grid_y + g->rows)
		tui_put(y++, g->legend_x, w, "* differs", A_NORMAL);
	if (y < g->grid_y + g->rows)
		tui_put(y++, g->legend_x, w, "? pending", A_NORMAL);
	if (st->predict && y < g->grid_y + g->rows)
		tui_put(y++, g->legend_x, w, "~ you said no", A_NORMAL);
}

static void off_names(unsigned mask, char *buf, size_t len)
{
	int l, n = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (l = 0; l < LAYER_COUNT; l++) {
		if (mask & LAYER_BIT(l))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", n++ ? ", " : "",
		                         lab_layers[l].name);
		if (used >= len)
			return;
	}
	if (n == 0)
		snprintf(buf, len, "all layers on");
	else if (n == LAYER_COUNT)
		snprintf(buf, len, "all layers off");
	else if (used + 5 < len)
		memcpy(buf + used, " off", 5);
}

static void draw_detail(const struct tui_state *st, const struct geo *g)
{
	const struct matrix_cell *cell = cell_at(st, st->mx_row, st->mx_col);
	const struct lab_result *res = &cell->res;
	const struct snippet *s = &st->snips[st->mx_row];
	unsigned mask = tui_combo_mask(st->mx_col);
	struct lab_setup cell_setup = matrix_setup(&st->mx, mask), ran = lab_result_setup(res);
	int y = g->det_y, end = g->det_y + g->det_rows, w = COLS - 2, x = 1, n, i;
	char buf[LAB_LINE * 2], lbl[LAYER_COUNT * 2], off[128], why[LAB_LINE];

	attron(A_DIM);
	mvhline(g->sep_y, 0, ACS_HLINE, COLS);
	attroff(A_DIM);
	if (g->det_rows < 2)
		return;
	report_layers_label(mask, true, lbl);
	off_names(mask, off, sizeof off);
	snprintf(buf, sizeof buf, "%s (%s) with layers %s: %s", s->name, threat_name(s->threat), lbl, off);
	tui_put(y++, x, w, buf, A_BOLD);

	if (row_hidden(st, st->mx_row) && cell->state == MATRIX_DONE) {
		tui_put(y, x, w, "predicted, not run since: Enter runs the matrix and scores the row", A_BOLD);
		return;
	}
	/* before a verdict, the truth table's own reason (not in predict mode:
	 * it would give the answer) */
	if (cell->state != MATRIX_DONE && !st->predict && y + 1 < end &&
	    (cell->expected == VERDICT_ESCAPED || cell->expected == VERDICT_FAILED) &&
	    tui_why_line(s, &cell_setup, buf, sizeof buf))
		tui_wrap(y + 1, x, w, 2, buf, tui_attr(st, TUI_LOOK_WARN));
	switch (cell->state) {
	case MATRIX_PENDING:
		/* in predict mode the truth table is what the student predicts */
		snprintf(buf, sizeof buf, "not run yet; expected %s",
		         st->predict ? "(your guess)" : verdict_name(cell->expected));
		tui_put(y, x, w, buf, A_DIM);
		return;
	case MATRIX_SKIPPED:
		tui_put(y, x, w, "skipped: the matrix was aborted (Enter runs it again)", A_DIM);
		return;
	case MATRIX_RUNNING:
		snprintf(buf, sizeof buf, "running... %.1f s; expected %s",
		         (double)(st->now_ms - cell->started_ms) / 1000.0,
		         st->predict ? "(your guess)" : verdict_name(cell->expected));
		tui_put(y, x, w, buf, A_BOLD);
		return;
	case MATRIX_DONE:
		break;
	}
	n = tui_put(y, x, w, verdict_name(res->verdict), tui_verdict_attr(st, res->verdict));
	snprintf(buf, sizeof buf, "   expected %s: %s   %.2f s", verdict_name(cell->expected),
	         matrix_cell_differs(cell) ? "DIFFERS" : "as expected", (double)res->ev.end.duration_ms / 1000.0);
	tui_put(y++, x + n, w - n, buf, matrix_cell_differs(cell) ? tui_attr(st, TUI_LOOK_WARN) : A_NORMAL);

	buf[0] = '\0';
	if (res->verdict == VERDICT_CONTAINED && res->caught_by >= 0 && res->caught_by < LAYER_COUNT)
		snprintf(buf, sizeof buf, "caught by %s", lab_layers[res->caught_by].name);
	else if (res->verdict == VERDICT_ESCAPED)
		snprintf(buf, sizeof buf, "CONSEQUENCE: %s", res->consequence);
	else if (res->verdict == VERDICT_ERROR && res->ev.error[0])
		snprintf(buf, sizeof buf, "ERROR: %s", res->ev.error);
	ran.layers = mask;
	if ((res->verdict == VERDICT_ESCAPED || res->verdict == VERDICT_FAILED) && y < end &&
	    tui_why_line(s, &ran, why, sizeof why))
		y += tui_wrap(y, x, w, 2, why, tui_attr(st, TUI_LOOK_WARN));
	if (buf[0] && y < end)
		y += tui_wrap(y, x, w, 2, buf, tui_verdict_attr(st, res->verdict));
	if (res->headline[0] && y < end)
		y += tui_wrap(y, x, w, 2, res->headline, A_BOLD);
	for (i = 0; i < res->n_evidence && y < end; i++, y++) {
		tui_put(y, x, 2, "-", A_DIM);
		tui_put(y, x + 2, w - 2, res->evidence[i], A_NORMAL);
	}
}

void tui_matrix_draw(struct tui_state *st, int top, int bottom)
{
	struct geo g;

	geometry(st, top, bottom, &g);
	st->mx_row = st->mx_row < 0 ? 0 : st->mx_row >= st->n_snips ? st->n_snips - 1 : st->mx_row;
	draw_progress(st, &g);
	draw_header(st, &g);
	draw_grid(st, &g);
	draw_legend(st, &g);
	draw_detail(st, &g);
}
