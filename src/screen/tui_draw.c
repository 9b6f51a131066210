/* tui_draw.c — the frame's composition: the title bar, the layer toggles,
 * the snippet list and the sandbox box around the code and the result
 * (drawn closed when a layer held and broken open when an attack escaped),
 * or the matrix; then the footer and the overlays (twin, audit card,
 * help) over it. The views draw their own parts; this file only places
 * them, in this order. Reads the state; never starts or stops anything. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdio.h>
#include <string.h>

#include "report.h"
#include "tui_audit.h"
#include "tui_draw.h"
#include "tui_keys.h"
#include "tui_layout.h"
#include "tui_look.h"
#include "tui_matrix.h"
#include "tui_pane.h"
#include "tui_twin.h"

/* ------------------------------------------------------- layer toggles */

static void draw_toggles(const struct tui_state *st)
{
	char buf[64];
	int l, x, on;

	for (l = 0; l < LAYER_COUNT; l++) {
		on = (st->setup.layers & LAYER_BIT(l)) != 0;
		x = tui_toggle_x(l);
		snprintf(buf, sizeof buf, "[%d]", l + 1);
		x += tui_put(1, x, 4, buf, tui_attr(st, TUI_LOOK_KEY)) + 1;
		x += tui_put(1, x, 20, lab_layers[l].name, A_BOLD) + 1;
		/* in-process: the toggle is kept, but nothing it names can apply */
		if (st->setup.rung == RUNG_INPROCESS)
			tui_put(1, x, 3, "n/a", tui_attr(st, TUI_LOOK_DIM));
		else
			tui_put(1, x, 3, on ? "ON" : "OFF", tui_attr(st, on ? TUI_LOOK_ON : TUI_LOOK_OFF));
	}
	/* the rung, beside the toggles: it is Isolation's strength */
	x = tui_toggle_x(LAYER_COUNT);
	x += tui_put(1, x, 4, "[r]", tui_attr(st, TUI_LOOK_KEY)) + 1;
	snprintf(buf, sizeof buf, "rung: %s  [n] net: %s", lab_rung_key(st->setup.rung),
	         lab_net_mode_key(st->setup.net_mode));
	tui_put(1, x, COLS - x - 1 > 0 ? COLS - x - 1 : 0, buf, A_BOLD);
}

/* --------------------------------------------------------- title bar */

static void draw_title(const struct tui_state *st)
{
	char right[96] = "";
	int w = COLS, rw;

	tui_fill(0, 0, w, tui_attr(st, TUI_LOOK_TITLE));
	if (st->job_live)
		snprintf(right, sizeof right, " %c running %s %.1fs ", tui_spinner(st),
		         st->snips[st->job.snippet_index].name, (double)(st->now_ms - st->job.started_ms) / 1000.0);
	else if (matrix_running(&st->mx))
		snprintf(right, sizeof right, " %c matrix %d/%d ", tui_spinner(st), st->mx.finished, st->mx.n_cells);
	else
		snprintf(right, sizeof right, " ? help ");
	rw = tui_text_width(right);
	if (rw > w / 2)
		rw = 0;
	tui_put(0, 1, w - rw - 2, "containment-lab " LAB_VERSION " - AI-written code runs in a layered sandbox",
	        tui_attr(st, TUI_LOOK_TITLE));
	if (rw)
		tui_put(0, w - rw, rw, right, tui_attr(st, TUI_LOOK_TITLE));
}

/* -------------------------------------------------------- snippet list */

static void draw_list(struct tui_state *st)
{
	int cap = tui_list_capacity(st), i, y, legend_y, l;
	attr_t attr;
	char buf[64], letter[2] = "";
	const struct tui_run *r;

	if (st->sel < st->list_top)
		st->list_top = st->sel;
	if (st->sel >= st->list_top + cap)
		st->list_top = st->sel - cap + 1;
	tui_put(2, 1, TUI_LIST_W - 2, st->focus == TUI_FOCUS_LIST ? "> SNIPPETS" : "SNIPPETS",
	        st->focus == TUI_FOCUS_LIST ? tui_attr(st, TUI_LOOK_SELECTED) | A_BOLD : A_BOLD | A_UNDERLINE);
	for (i = st->list_top, y = 3; i < st->n_snips && i < st->list_top + cap; i++, y += 2) {
		attr = i == st->sel ? tui_attr(st, TUI_LOOK_SELECTED) : A_NORMAL;
		if (i == st->sel) {
			tui_fill(y, 0, TUI_LIST_W - 1, attr);
			tui_fill(y + 1, 0, TUI_LIST_W - 1, attr);
		}
		tui_put(y, 1, TUI_LIST_W - 5, st->snips[i].name, attr | A_BOLD);
		snprintf(buf, sizeof buf, "%s%s", st->snips[i].yours ? "yours: " : "",
		         threat_name(st->snips[i].threat));
		tui_put(y + 1, 2, TUI_LIST_W - 4, buf, i == st->sel ? attr : st->snips[i].yours ? A_BOLD : A_DIM);
		r = &st->runs[i];
		if (st->job_live && st->job.snippet_index == i) {
			letter[0] = tui_spinner(st);
			letter[1] = '\0';
			tui_put(y, TUI_LIST_W - 3, 1, letter, attr | A_BOLD);
		} else if (r->have) {
			letter[0] = report_verdict_letter(r->res.verdict);
			letter[1] = '\0';
			tui_put(y, TUI_LIST_W - 3, 1, letter,
			        i == st->sel ? attr | A_BOLD : tui_verdict_attr(st, r->res.verdict));
		}
	}
	if (st->list_top > 0)
		tui_put(2, TUI_LIST_W - 3, 1, "^", A_BOLD);
	if (st->list_top + cap < st->n_snips)
		tui_put(3 + 2 * cap, TUI_LIST_W - 3, 1, "v", A_BOLD);

	legend_y = LINES - 2 - LAYER_COUNT;
	if (legend_y - 1 < 3 + 2 * cap)
		return;
	tui_put(legend_y - 1, 1, TUI_LIST_W - 2, "LAYER  STOPS", A_BOLD | A_UNDERLINE);
	for (l = 0; l < LAYER_COUNT; l++) {
		buf[0] = report_layer_letter(l);
		buf[1] = '\0';
		tui_put(legend_y + l, 1, 1, buf,
		        tui_attr(st, (st->setup.layers & LAYER_BIT(l)) ? TUI_LOOK_ON : TUI_LOOK_OFF));
		tui_put(legend_y + l, 3, TUI_LIST_W - 4, lab_layers[l].stops, A_DIM);
	}
}

/* ------------------------------------------------------ sandbox box */

enum box_look { BOX_PLAIN, BOX_HELD, BOX_BREACHED };

static void draw_box(const struct tui_state *st, int y, int x, int h, int w, enum box_look look, const char *title)
{
	attr_t attr = look == BOX_HELD       ? tui_attr(st, TUI_LOOK_HELD)
	              : look == BOX_BREACHED ? tui_attr(st, TUI_LOOK_BREACH)
	                                     : A_NORMAL;
	int tw;

	tui_frame(y, x, h, w, attr);
	if (title && *title) {
		tw = tui_text_width(title);
		if (tw > w - 6)
			tw = w - 6;
		tui_put(y, x + 2, tw, title, look == BOX_PLAIN ? A_BOLD : attr | A_REVERSE);
	}
}

/* Knocks holes in the walls of a breached box: gaps with cracks around
 * them, drawn last so nothing paints over them. Plain ASCII on purpose. */
static void draw_cracks(const struct tui_state *st, int y, int x, int h, int w, int title_end)
{
	attr_t attr = tui_attr(st, TUI_LOOK_BREACH);
	int a, b;

	attron(attr);
	a = x + w * 3 / 5;
	if (a < title_end + 2)
		a = title_end + 2;
	if (a + 8 > x + w - 2)
		a = x + w - 10;
	mvaddstr(y, a, "\\/  \\/\\");
	a = x + w / 5;
	mvaddstr(y + h - 1, a, "/\\/  /\\");
	b = y + h / 3;
	mvaddstr(b - 1, x + w - 1, "/");
	mvaddstr(b, x + w - 1, " ");
	mvaddstr(b + 1, x + w - 1, "X");
	mvaddstr(b + 2, x + w - 1, " ");
	mvaddstr(b + 3, x + w - 1, "\\");
	b = y + h * 2 / 3;
	mvaddstr(b - 1, x, "\\");
	mvaddstr(b, x, " ");
	mvaddstr(b + 1, x, " ");
	mvaddstr(b + 2, x, "/");
	mvaddstr(y + h - 1, x + w - 1, "X");
	attroff(attr);
}

/* The box's title names the layers of what the box shows: the run in
 * progress, the last run, or else the toggles. When that is not what the
 * toggles now say, it says whose layers they are ("last run: I N - L"), so
 * the title never silently contradicts the toggles above it. */
static enum box_look box_title(const struct tui_state *st, const struct tui_run *r, bool running, char *title,
                               size_t len)
{
	enum box_look look = BOX_PLAIN;
	unsigned mask = st->setup.layers;
	const char *whose = "layers", *state = "";
	char lbl[REPORT_LABEL_MAX];

	if (running) {
		mask = st->job.layers;
		whose = mask != st->setup.layers ? "running:" : whose;
	} else if (r->have) {
		struct lab_setup ran = lab_result_setup(&r->res);
		mask = ran.layers;
		whose = mask != st->setup.layers || ran.rung != st->setup.rung || ran.net_mode != st->setup.net_mode
		            ? "last run:"
		            : whose;
		if (r->res.verdict == VERDICT_ESCAPED) {
			look = BOX_BREACHED;
			state = " BREACHED";
		} else if (r->res.verdict == VERDICT_CONTAINED) {
			look = BOX_HELD;
			state = " CLOSED";
		}
	}
	report_layers_label(mask, true, lbl);
	/* what is not the default, in the box's own title: at 80 columns the
	 * [r] rung / [n] net labels beside the toggles are cut off */
	struct lab_setup shown = r->have && !running ? lab_result_setup(&r->res) : st->setup;
	enum lab_rung rung = shown.rung;
	enum lab_net_mode net = shown.net_mode;
	char extra[48] = "";
	if (rung != RUNG_CONTAINER || net != NET_MODE_NONE)
		snprintf(extra, sizeof extra, " [%s%s%s]", rung != RUNG_CONTAINER ? lab_rung_key(rung) : "",
		         rung != RUNG_CONTAINER && net != NET_MODE_NONE ? ", " : "",
		         net != NET_MODE_NONE ? "net: allowlist" : "");
	/* in-process there is no box around the snippet: the title says so */
	if (rung == RUNG_INPROCESS)
		snprintf(title, len, " NO SANDBOX  exec() in the app: %s n/a ", whose);
	else
		snprintf(title, len, " SANDBOX%s  %s %s%s ", state, whose, lbl, extra);
	return look;
}

/* The rule between the code and the result, in the box's look. */
static void draw_rule(const struct tui_state *st, int y, int bx, int bw, enum box_look look)
{
	attron(look == BOX_HELD       ? tui_attr(st, TUI_LOOK_HELD)
	       : look == BOX_BREACHED ? tui_attr(st, TUI_LOOK_BREACH)
	                              : A_NORMAL);
	mvaddch(y, bx, look == BOX_BREACHED ? ' ' : ACS_LTEE);
	mvhline(y, bx + 1, ACS_HLINE, bw - 2);
	mvaddch(y, bx + bw - 1, ACS_RTEE);
	attrset(A_NORMAL);
}

/* Code on top, result below. Before any run the code has the room; after,
 * the pane with the focus gets three fifths. z gives the whole box to one
 * pane: the focused one (the result when the list has the focus). */
static void draw_panes(struct tui_state *st, int top, int inner, int bx, int bw, enum box_look look)
{
	int ix = bx + 2, iw = bw - 4, code_rows;
	const struct tui_run *r = &st->runs[st->sel];
	bool busy = (st->job_live && st->job.snippet_index == st->sel) || r->have || st->asking;
	bool code_f = st->focus == TUI_FOCUS_CODE, res_f = st->focus == TUI_FOCUS_RESULT;

	if (st->zoom) {
		if (code_f)
			tui_code_pane(st, top, ix, iw, inner, true);
		else
			tui_result_pane(st, top, ix, iw, inner, res_f);
		return;
	}
	if (!busy)
		code_rows = inner - 5;
	else
		code_rows = code_f ? inner * 3 / 5 : inner * 2 / 5;
	if (code_rows < 4)
		code_rows = 4;
	tui_code_pane(st, top, ix, iw, code_rows, code_f);
	draw_rule(st, top + code_rows, bx, bw, look);
	tui_result_pane(st, top + code_rows, ix, iw, inner - code_rows, res_f);
}

static void draw_sandbox(struct tui_state *st)
{
	int bx = TUI_LIST_W, by = 2, bw = COLS - TUI_LIST_W, bh = LINES - 3;
	const struct tui_run *r = &st->runs[st->sel];
	bool running = st->job_live && st->job.snippet_index == st->sel;
	char title[160];
	enum box_look look = box_title(st, r, running, title, sizeof title);

	if (st->zoom) {
		/* the whole width: the list steps aside */
		bx = 0;
		bw = COLS;
	}
	draw_box(st, by, bx, bh, bw, look, title);
	draw_panes(st, by + 1, bh - 2, bx, bw, look);
	if (look == BOX_BREACHED) {
		draw_cracks(st, by, bx, bh, bw, bx + 2 + tui_text_width(title));
		tui_put(by + bh - 1, bx + bw - 22, 19, " SANDBOX BREACHED ", tui_attr(st, TUI_LOOK_BREACH) | A_REVERSE);
	} else if (look == BOX_HELD) {
		tui_put(by + bh - 1, bx + bw - 20, 17, " SANDBOX CLOSED ", tui_attr(st, TUI_LOOK_HELD) | A_REVERSE);
	}
}

/* ------------------------------------------------------------ screen */

static void draw_too_small(void)
{
	char buf[96];

	snprintf(buf, sizeof buf, "(now %dx%d)", COLS, LINES);
	tui_put(LINES / 2 - 1, 0, COLS, "terminal too small: need at least 80x24", A_BOLD);
	tui_put(LINES / 2, 0, COLS, buf, A_NORMAL);
	tui_put(LINES / 2 + 1, 0, COLS, "q quits", A_DIM);
}

void tui_draw(struct tui_state *st)
{
	erase();
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES) {
		draw_too_small();
		refresh();
		return;
	}
	draw_title(st);
	draw_toggles(st);
	if (st->view == TUI_VIEW_MATRIX) {
		tui_matrix_draw(st, 2, LINES - 2);
	} else {
		if (!st->zoom)
			draw_list(st);
		draw_sandbox(st);
	}
	tui_draw_footer(st, LINES - 1, COLS);
	if (st->twin)
		tui_draw_twin(st);
	if (st->audit.open)
		tui_audit_draw(st);
	if (st->help)
		tui_draw_help(st);
	refresh();
}
