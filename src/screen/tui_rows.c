/* tui_rows.c — a pane's content as a list of rows already wrapped to the
 * pane's width and made safe to draw, and its view: drawn from a scroll
 * position (clamped here), so nothing is ever cut off: what does not fit
 * is one scroll away. The panes, the tour's rows and the help build with it. */
#define _GNU_SOURCE      /* strndup */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui_look.h"
#include "tui_rows.h"

void tui_rows_free(struct tui_rows *L)
{
	for (int i = 0; i < L->n; i++)
		free(L->v[i].w);
	free(L->v);
	memset(L, 0, sizeof *L);
}

struct tui_row *tui_row_new(struct tui_rows *L)
{
	if (L->n == L->cap) {
		int cap = L->cap ? L->cap * 2 : 64;
		struct tui_row *v = realloc(L->v, sizeof *v * (size_t)cap);

		if (!v)
			return NULL;
		L->v = v;
		L->cap = cap;
	}
	memset(&L->v[L->n], 0, sizeof L->v[L->n]);
	L->v[L->n].big = -1;
	return &L->v[L->n++];
}

static int wc_w(wchar_t c)
{
	int w = wcwidth(c);

	return w < 1 ? 1 : w;
}

/* One paragraph (no newline) wrapped at spaces into rows of width columns
 * after the gutter; continuation rows get hang as their gutter. */
static void add_para(struct tui_rows *L, const char *gutter, const char *hang, attr_t gattr, const char *s, size_t len,
                     attr_t attr)
{
	int room, n, start = 0, k, used, brk, end;
	char *copy = strndup(s, len);
	wchar_t *buf;
	struct tui_row *r;

	buf = copy ? malloc(sizeof *buf * (len * 2 + 2)) : NULL;
	if (!buf) {
		free(copy);
		return;
	}
	n = tui_safe_wide(copy, buf, (int)(len * 2 + 1));
	free(copy);
	do {
		/* the room after this row's gutter: the first's, then the hang's */
		room = L->width - (int)strlen(start ? hang : gutter);
		if (room < 8)
			room = 8;
		used = 0;
		brk = -1;
		for (k = start; k < n; k++) {
			if (used + wc_w(buf[k]) > room)
				break;
			if (buf[k] == L' ')
				brk = k;
			used += wc_w(buf[k]);
		}
		end = k < n && brk > start ? brk : k;
		if (end == start && start < n)
			end = start + 1; /* a character wider than the room */
		r = tui_row_new(L);
		if (!r)
			break;
		snprintf(r->gutter, sizeof r->gutter, "%s", start ? hang : gutter);
		r->gattr = gattr;
		r->attr = attr;
		r->n = end - start;
		r->w = malloc(sizeof *r->w * (size_t)(r->n + 1));
		if (r->w)
			wmemcpy(r->w, buf + start, (size_t)r->n);
		else
			r->n = 0;
		start = end;
		while (start < n && buf[start] == L' ' && end == brk)
			start++;
	} while (start < n);
	free(buf);
}

void tui_rows_add(struct tui_rows *L, const char *gutter, const char *hang, attr_t gattr, const char *s, attr_t attr)
{
	const char *nl;

	if (!s)
		return;
	do {
		nl = strchr(s, '\n');
		add_para(L, gutter, hang, gattr, s, nl ? (size_t)(nl - s) : strlen(s), attr);
		s = nl ? nl + 1 : NULL;
	} while (s && *s);
}

void tui_rows_blank(struct tui_rows *L)
{
	tui_row_new(L);
}

void tui_rows_printf(struct tui_rows *L, attr_t attr, const char *fmt, ...)
{
	char buf[LAB_LINE * 5];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	tui_rows_add(L, "", "  ", A_NORMAL, buf, attr);
}

/* n wide characters (already safe) at y,x, cut to w columns. */
static void put_row_text(int y, int x, int w, const wchar_t *t, int n, attr_t attr)
{
	int k, used = 0;

	for (k = 0; k < n && used + wc_w(t[k]) <= w; k++)
		used += wc_w(t[k]);
	if (k <= 0)
		return;
	attron(attr);
	mvaddnwstr(y, x, t, k);
	attroff(attr);
}

/* Clamps the view to the content; a follower sticks to the end; the
 * start sentinel opens at mark. */
static void view_clamp(struct tui_view_pos *v, int total, int rows, int mark)
{
	v->page = rows;
	v->total = total;
	if (v->top == TUI_TOP_START)
		v->top = mark;
	if (v->follow)
		v->top = total - rows;
	if (v->top > total - rows)
		v->top = total - rows;
	if (v->top < 0)
		v->top = 0;
}

void tui_rows_draw_mark(const struct tui_rows *L, struct tui_view_pos *v, int y, int x, int rows, int mark)
{
	int i, gw;

	view_clamp(v, L->n, rows, mark);
	for (i = 0; i < rows && v->top + i < L->n; i++) {
		const struct tui_row *r = &L->v[v->top + i];

		gw = 0;
		if (r->big >= 0) {
			tui_draw_big_row(y + i, x, r->word, r->big, r->gattr);
			gw = tui_big_width(r->word) + 2;
		} else if (r->gutter[0]) {
			gw = (int)strlen(r->gutter);
			tui_put(y + i, x, gw, r->gutter, r->gattr);
		}
		put_row_text(y + i, x + gw, L->width - gw, r->w, r->n, r->attr);
	}
}

void tui_rows_draw(const struct tui_rows *L, struct tui_view_pos *v, int y, int x, int rows)
{
	tui_rows_draw_mark(L, v, y, x, rows, 0);
}

void tui_view_label(const struct tui_view_pos *v, char *buf, size_t len)
{
	int last = v->top + v->page < v->total ? v->top + v->page : v->total;

	snprintf(buf, len, "%d-%d/%d", v->total ? v->top + 1 : 0, last, v->total);
}
