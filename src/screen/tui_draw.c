/* tui_draw.c — everything the main screen paints: safe text (nothing a
 * snippet wrote can reach the terminal as a control sequence), colours and
 * their monochrome fallback, the layer toggles, the snippet list, and the
 * sandbox box around the code and the result, drawn closed when a layer
 * held and broken open when an attack escaped. Reads the state; never
 * starts or stops anything. */
#define TUI_INTERNAL
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui.h"

#define LIST_W   22   /* the snippet list; the box takes the rest */
#define TEXT_MAX 1024 /* wide characters per drawn string */

enum {
	PAIR_RAN_OK = 1,
	PAIR_CONTAINED,
	PAIR_ESCAPED,
	PAIR_FAILED,
	PAIR_ERROR,
	PAIR_TITLE,
	PAIR_SELECTED,
	PAIR_KEY,
	PAIR_WARN,
};

static wchar_t ellipsis = L'~';
static wchar_t block = 0; /* full block where it can be drawn */

void tui_colors_init(struct tui_state *st)
{
	const char *no_color = getenv("NO_COLOR");

	if (wcwidth(L'\u2026') == 1)
		ellipsis = L'\u2026';
	if (wcwidth(L'\u2588') == 1)
		block = L'\u2588';
	st->color = has_colors() && !(no_color && no_color[0]);
	if (!st->color)
		return;
	start_color();
	use_default_colors();
	init_pair(PAIR_RAN_OK, COLOR_CYAN, -1);
	init_pair(PAIR_CONTAINED, COLOR_GREEN, -1);
	init_pair(PAIR_ESCAPED, COLOR_RED, -1);
	init_pair(PAIR_FAILED, COLOR_YELLOW, -1);
	init_pair(PAIR_ERROR, COLOR_MAGENTA, -1);
	init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
	init_pair(PAIR_SELECTED, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_KEY, COLOR_YELLOW, -1);
	init_pair(PAIR_WARN, COLOR_YELLOW, -1);
}

attr_t tui_attr(const struct tui_state *st, enum tui_look look)
{
	bool c = st->color;

	switch (look) {
	case TUI_LOOK_NORMAL:
		return A_NORMAL;
	case TUI_LOOK_TITLE:
		return c ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE;
	case TUI_LOOK_SELECTED:
		return c ? COLOR_PAIR(PAIR_SELECTED) : A_REVERSE;
	case TUI_LOOK_DIM:
		return A_DIM;
	case TUI_LOOK_BOLD:
		return A_BOLD;
	case TUI_LOOK_ON:
		return c ? COLOR_PAIR(PAIR_CONTAINED) | A_BOLD : A_BOLD;
	case TUI_LOOK_OFF:
		return c ? COLOR_PAIR(PAIR_ESCAPED) | A_BOLD : A_NORMAL;
	case TUI_LOOK_KEY:
		return c ? COLOR_PAIR(PAIR_KEY) | A_BOLD : A_BOLD;
	case TUI_LOOK_HELD:
		return c ? COLOR_PAIR(PAIR_CONTAINED) | A_BOLD : A_BOLD;
	case TUI_LOOK_BREACH:
		return c ? COLOR_PAIR(PAIR_ESCAPED) | A_BOLD : A_BOLD;
	case TUI_LOOK_WARN:
		return c ? COLOR_PAIR(PAIR_WARN) | A_BOLD : A_BOLD;
	}
	return A_NORMAL;
}

attr_t tui_verdict_attr(const struct tui_state *st, enum lab_verdict v)
{
	static const short pair[VERDICT_COUNT] = {
	    [VERDICT_RAN_OK] = PAIR_RAN_OK,   [VERDICT_FAILED] = PAIR_FAILED, [VERDICT_CONTAINED] = PAIR_CONTAINED,
	    [VERDICT_ESCAPED] = PAIR_ESCAPED, [VERDICT_ERROR] = PAIR_ERROR,
	};

	if (!st->color || (int)v < 0 || v >= VERDICT_COUNT)
		return A_BOLD;
	return COLOR_PAIR(pair[v]) | A_BOLD;
}

/* ---------------------------------------------------------- safe text */

/* Decodes s into printable wide characters only: control characters (C0,
 * DEL, C1) and invalid sequences become '?', zero-width and unprintable
 * characters are dropped. So whatever s holds, drawing it cannot move the
 * cursor, change modes or reorder the line. */
int tui_safe_wide(const char *s, wchar_t *out, int max)
{
	mbstate_t mb;
	wchar_t wc;
	size_t n;
	int k = 0, w;
	char *ascii = NULL;

	/* Not a UTF-8 terminal: the lab's dashes and arrows as ASCII, not as
	 * a '?' per byte (report_to_ascii). */
	if (s && !report_utf8())
		s = ascii = report_to_ascii(s);
	memset(&mb, 0, sizeof mb);
	while (s && *s && k < max) {
		n = mbrtowc(&wc, s, strnlen(s, MB_CUR_MAX), &mb);
		if (n == (size_t)-1 || n == (size_t)-2) {
			memset(&mb, 0, sizeof mb);
			wc = L'?';
			n = 1;
		} else if (n == 0) {
			break;
		}
		s += n;
		if ((wc < 0x20 || wc == 0x7f) && k + 1 < max) {
			/* Shown the way sanitize_output() shows them: ESC as ^[ */
			out[k++] = L'^';
			wc = wc == 0x7f ? L'?' : (wchar_t)(wc + '@');
		} else if (wc < 0x20 || wc == 0x7f || (wc >= 0x80 && wc < 0xa0)) {
			wc = L'?';
		} else {
			w = wcwidth(wc);
			if (w == 0)
				continue;
			if (w < 0)
				wc = L'?';
		}
		out[k++] = wc;
	}
	free(ascii);
	return k;
}

static int wc_width(wchar_t wc)
{
	int w = wcwidth(wc);

	return w < 1 ? 1 : w;
}

static void put_wide(int y, int x, const wchar_t *w, int n, attr_t attr)
{
	if (n <= 0)
		return;
	attron(attr);
	mvaddnwstr(y, x, w, n);
	attroff(attr);
}

int tui_put(int y, int x, int w, const char *s, attr_t attr)
{
	wchar_t buf[TEXT_MAX];
	int n, k, used = 0, cw;

	if (w <= 0 || !s || y < 0 || x < 0)
		return 0;
	n = tui_safe_wide(s, buf, TEXT_MAX);
	for (k = 0; k < n; k++) {
		cw = wc_width(buf[k]);
		if (used + cw > w)
			break;
		used += cw;
	}
	if (k < n && k > 0 && w > 1) {
		/* Show that something was cut. */
		while (k > 0 && used + 1 > w) {
			k--;
			used -= wc_width(buf[k]);
		}
		buf[k++] = ellipsis;
		used++;
	}
	put_wide(y, x, buf, k, attr);
	return used;
}

int tui_text_width(const char *s)
{
	wchar_t buf[TEXT_MAX];
	int n, k, used = 0;

	n = tui_safe_wide(s, buf, TEXT_MAX);
	for (k = 0; k < n; k++)
		used += wc_width(buf[k]);
	return used;
}

/* Greedy word wrap; y < 0 only counts. The last allowed line ends with an
 * ellipsis when text is left over. */
static int wrap(int y, int x, int w, int rows, const char *s, attr_t attr)
{
	wchar_t buf[TEXT_MAX];
	int n, start = 0, line = 0, k, used, brk, end;

	if (w <= 0 || rows <= 0 || !s)
		return 0;
	n = tui_safe_wide(s, buf, TEXT_MAX);
	while (start < n && line < rows) {
		used = 0;
		brk = -1;
		for (k = start; k < n; k++) {
			if (used + wc_width(buf[k]) > w)
				break;
			if (buf[k] == L' ')
				brk = k;
			used += wc_width(buf[k]);
		}
		end = k;
		if (k < n && brk > start)
			end = brk;
		if (line == rows - 1 && end < n) {
			/* Last line and more to say: cut with an ellipsis. */
			end = k;
			while (end > start && used + 1 > w)
				used -= wc_width(buf[--end]);
			if (y >= 0) {
				put_wide(y + line, x, buf + start, end - start, attr);
				put_wide(y + line, x + used, &ellipsis, 1, attr);
			}
			return line + 1;
		}
		if (y >= 0)
			put_wide(y + line, x, buf + start, end - start, attr);
		line++;
		start = end;
		while (start < n && buf[start] == L' ')
			start++;
	}
	return line;
}

int tui_wrap(int y, int x, int w, int rows, const char *s, attr_t attr)
{
	return wrap(y, x, w, rows, s, attr);
}

void tui_fill(int y, int x, int w, attr_t attr)
{
	if (w <= 0)
		return;
	attron(attr);
	mvhline(y, x, ' ', w);
	attroff(attr);
}

/* ------------------------------------------------------- layer toggles */

static int toggle_width(int l)
{
	return 4 + (int)strlen(lab_layers[l].name) + 4; /* "[1] Name OFF" */
}

static int toggle_x(int l)
{
	int x = 1, i;

	for (i = 0; i < l; i++)
		x += toggle_width(i) + 1;
	return x;
}

int tui_toggle_at(int y, int x)
{
	int l, x0;

	if (y != 1)
		return -1;
	for (l = 0; l < LAYER_COUNT; l++) {
		x0 = toggle_x(l);
		if (x >= x0 && x < x0 + toggle_width(l))
			return l;
	}
	return -1;
}

static void draw_toggles(const struct tui_state *st)
{
	char buf[64];
	int l, x, on;

	for (l = 0; l < LAYER_COUNT; l++) {
		on = (st->setup.layers & LAYER_BIT(l)) != 0;
		x = toggle_x(l);
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
	x = toggle_x(LAYER_COUNT);
	x += tui_put(1, x, 4, "[r]", tui_attr(st, TUI_LOOK_KEY)) + 1;
	snprintf(buf, sizeof buf, "rung: %s  [n] net: %s", lab_rung_key(st->setup.rung),
	         lab_net_mode_key(st->setup.net_mode));
	tui_put(1, x, COLS - x - 1 > 0 ? COLS - x - 1 : 0, buf, A_BOLD);
}

/* --------------------------------------------------------- title bar */

static const char spinner[] = "|/-\\";

static void draw_title(const struct tui_state *st)
{
	char right[96] = "";
	int w = COLS, rw;

	tui_fill(0, 0, w, tui_attr(st, TUI_LOOK_TITLE));
	if (st->job_live)
		snprintf(right, sizeof right, " %c running %s %.1fs ", spinner[(st->now_ms / 100) % 4],
		         st->snips[st->job.snippet_index].name, (double)(st->now_ms - st->job.started_ms) / 1000.0);
	else if (matrix_running(&st->mx))
		snprintf(right, sizeof right, " %c matrix %d/%d ", spinner[(st->now_ms / 100) % 4], st->mx.finished,
		         st->mx.n_cells);
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

static int list_rows(void)
{
	return LINES - 3; /* rows 2 .. LINES-2 */
}

/* Rows the list itself may use (a legend of the layers goes below it). */
static int list_capacity(const struct tui_state *st)
{
	int rows = list_rows() - 1, legend = LAYER_COUNT + 2;

	if (rows - legend >= 2 * st->n_snips || rows - legend >= 8)
		rows -= legend;
	return rows / 2;
}

int tui_snippet_at(const struct tui_state *st, int y, int x)
{
	int i;

	if (x < 0 || x >= LIST_W - 1 || y < 3)
		return -1;
	i = st->list_top + (y - 3) / 2;
	if ((y - 3) / 2 >= list_capacity(st) || i >= st->n_snips)
		return -1;
	return i;
}

static void draw_list(struct tui_state *st)
{
	int cap = list_capacity(st), i, y, legend_y, l;
	attr_t attr;
	char buf[64], letter[2] = "";
	const struct tui_run *r;

	if (st->sel < st->list_top)
		st->list_top = st->sel;
	if (st->sel >= st->list_top + cap)
		st->list_top = st->sel - cap + 1;
	tui_put(2, 1, LIST_W - 2, st->focus == TUI_FOCUS_LIST ? "> SNIPPETS" : "SNIPPETS",
	        st->focus == TUI_FOCUS_LIST ? tui_attr(st, TUI_LOOK_SELECTED) | A_BOLD : A_BOLD | A_UNDERLINE);
	for (i = st->list_top, y = 3; i < st->n_snips && i < st->list_top + cap; i++, y += 2) {
		attr = i == st->sel ? tui_attr(st, TUI_LOOK_SELECTED) : A_NORMAL;
		if (i == st->sel) {
			tui_fill(y, 0, LIST_W - 1, attr);
			tui_fill(y + 1, 0, LIST_W - 1, attr);
		}
		tui_put(y, 1, LIST_W - 5, st->snips[i].name, attr | A_BOLD);
		snprintf(buf, sizeof buf, "%s%s", st->snips[i].yours ? "yours: " : "",
		         threat_name(st->snips[i].threat));
		tui_put(y + 1, 2, LIST_W - 4, buf, i == st->sel ? attr : st->snips[i].yours ? A_BOLD : A_DIM);
		r = &st->runs[i];
		if (st->job_live && st->job.snippet_index == i) {
			letter[0] = spinner[(st->now_ms / 100) % 4];
			letter[1] = '\0';
			tui_put(y, LIST_W - 3, 1, letter, attr | A_BOLD);
		} else if (r->have) {
			letter[0] = report_verdict_letter(r->res.verdict);
			letter[1] = '\0';
			tui_put(y, LIST_W - 3, 1, letter,
			        i == st->sel ? attr | A_BOLD : tui_verdict_attr(st, r->res.verdict));
		}
	}
	if (st->list_top > 0)
		tui_put(2, LIST_W - 3, 1, "^", A_BOLD);
	if (st->list_top + cap < st->n_snips)
		tui_put(3 + 2 * cap, LIST_W - 3, 1, "v", A_BOLD);

	legend_y = LINES - 2 - LAYER_COUNT;
	if (legend_y - 1 < 3 + 2 * cap)
		return;
	tui_put(legend_y - 1, 1, LIST_W - 2, "LAYER  STOPS", A_BOLD | A_UNDERLINE);
	for (l = 0; l < LAYER_COUNT; l++) {
		buf[0] = report_layer_letter(l);
		buf[1] = '\0';
		tui_put(legend_y + l, 1, 1, buf,
		        tui_attr(st, (st->setup.layers & LAYER_BIT(l)) ? TUI_LOOK_ON : TUI_LOOK_OFF));
		tui_put(legend_y + l, 3, LIST_W - 4, lab_layers[l].stops, A_DIM);
	}
}

/* --------------------------------------------------------- big verdict */

struct glyph {
	char c;
	const char *row[3];
};

/* A 3-row block font, just the letters the verdicts need (RAN OK, FAILED,
 * CONTAINED, ESCAPED, ERROR, BROKE). */
static const struct glyph font[] = {
    {'A', {".#.", "###", "#.#"}},    {'B', {"##.", "###", "##."}}, {'C', {"###", "#..", "###"}},
    {'D', {"##.", "#.#", "##."}},    {'E', {"###", "##.", "###"}}, {'F', {"###", "##.", "#.."}},
    {'I', {"###", ".#.", "###"}},    {'K', {"#.#", "##.", "#.#"}}, {'L', {"#..", "#..", "###"}},
    {'N', {"##.#", "#.##", "#..#"}}, {'O', {"###", "#.#", "###"}}, {'P', {"###", "###", "#.."}},
    {'R', {"###", "##.", "#.#"}},    {'S', {".##", ".#.", "##."}}, {'T', {"###", ".#.", ".#."}},
    {' ', {"..", "..", ".."}},
};

static const struct glyph *glyph_of(char c)
{
	size_t i;

	for (i = 0; i < sizeof font / sizeof font[0]; i++)
		if (font[i].c == c)
			return &font[i];
	return NULL;
}

int tui_big_width(const char *word)
{
	const struct glyph *g;
	int w = 0;

	for (; *word; word++)
		if ((g = glyph_of(*word)))
			w += (int)strlen(g->row[0]) + 1;
	return w > 0 ? w - 1 : 0;
}

/* Row r (0-2) of word in the block font at y,x. */
void tui_draw_big_row(int y, int x, const char *word, int r, attr_t attr)
{
	const struct glyph *g;
	const char *p;
	int cx;

	for (; *word; word++) {
		if (!(g = glyph_of(*word)))
			continue;
		for (p = g->row[r], cx = x; *p; p++, cx++) {
			if (*p != '#')
				continue;
			if (block) {
				put_wide(y, cx, &block, 1, attr);
			} else {
				attron(A_REVERSE | attr);
				mvaddch(y, cx, ' ');
				attroff(A_REVERSE | attr);
			}
		}
		x += (int)strlen(g->row[0]) + 1;
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

int tui_count_lines(const char *text)
{
	int n = 0;
	const char *p;

	if (!text || !*text)
		return 0;
	for (p = text; *p; p++)
		if (*p == '\n')
			n++;
	if (p[-1] != '\n')
		n++;
	return n;
}

void tui_frame(int y, int x, int h, int w, attr_t attr)
{
	attron(attr);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
	mvaddch(y, x, ACS_ULCORNER);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	attroff(attr);
}

void tui_format_duration(long ms, char *buf, size_t len)
{
	if (ms < 10000)
		snprintf(buf, len, "%.2f s", (double)ms / 1000.0);
	else
		snprintf(buf, len, "%.1f s", (double)ms / 1000.0);
}

char tui_spinner(const struct tui_state *st)
{
	return spinner[(st->now_ms / 100) % 4];
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
	int bx = LIST_W, by = 2, bw = COLS - LIST_W, bh = LINES - 3;
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
