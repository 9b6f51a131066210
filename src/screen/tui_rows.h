/* tui_rows.h — a pane's content as rows wrapped to its width, and drawn
 * from a view (tui_rows.c). Include <curses.h> first (attr_t). */
#ifndef TUI_ROWS_H
#define TUI_ROWS_H

#include "tui_state.h"
#include <wchar.h>

/* A pane's content, wrapped to its width and made safe to draw. */
struct tui_row {
	wchar_t *w; /* the text, owned */
	int n;
	attr_t attr;
	char gutter[16]; /* "123>> ", "- ", "| " */
	attr_t gattr;    /* the gutter's (a big row's: the word's) */
	int big;         /* -1, or which row (0-2) of the big word comes first */
	const char *word;
};
struct tui_rows {
	struct tui_row *v;
	int n, cap;
	int width;
};

void tui_rows_add(struct tui_rows *L, const char *gutter, const char *hang, attr_t gattr, const char *s, attr_t attr);
void tui_rows_printf(struct tui_rows *L, attr_t attr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tui_rows_blank(struct tui_rows *L);
void tui_rows_free(struct tui_rows *L);
/* A new empty row at the end (NULL: out of memory). */
struct tui_row *tui_row_new(struct tui_rows *L);
void tui_view_label(const struct tui_view_pos *v, char *buf, size_t len); /* "12-30/84" */
/* Draws rows rows of L from v's top (clamped) at y,x; mark: where the
 * start sentinel (TUI_TOP_START) opens. */
void tui_rows_draw_mark(const struct tui_rows *L, struct tui_view_pos *v, int y, int x, int rows, int mark);
void tui_rows_draw(const struct tui_rows *L, struct tui_view_pos *v, int y, int x, int rows);

#endif
