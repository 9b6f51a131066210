/* tui_look.c — the screen's drawing primitives, the bottom of its layers:
 * safe text (nothing a snippet wrote can reach the terminal as a control
 * sequence), word wrap, colours and their monochrome fallback, frames, the
 * block font of the big verdict. Calls nothing else of the screen's; every
 * other tui_*.c draws through it. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "report.h"
#include "tui_look.h"
#include "tui_state.h"

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

/* ------------------------------------------- frames, counts, the spinner */

static const char spinner[] = "|/-\\";

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
