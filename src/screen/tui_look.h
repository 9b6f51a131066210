/* tui_look.h — the drawing primitives (tui_look.c), the bottom of the
 * screen's layers: they call nothing of the screen's. Include <curses.h>
 * first (attr_t). */
#ifndef TUI_LOOK_H
#define TUI_LOOK_H

#include "lab.h"
#include <stddef.h>
#include <wchar.h>

struct tui_state;

enum tui_look {
	TUI_LOOK_NORMAL,
	TUI_LOOK_TITLE,    /* title and header bars */
	TUI_LOOK_SELECTED, /* the selected snippet, the matrix cursor */
	TUI_LOOK_DIM,      /* secondary text */
	TUI_LOOK_BOLD,
	TUI_LOOK_ON, /* a layer that is on */
	TUI_LOOK_OFF,
	TUI_LOOK_KEY,    /* a key name in the footer and help */
	TUI_LOOK_HELD,   /* the closed sandbox */
	TUI_LOOK_BREACH, /* the breached sandbox */
	TUI_LOOK_WARN,
};
/* Sets st->color (NO_COLOR, a terminal without colours: monochrome). */
void tui_colors_init(struct tui_state *st);
attr_t tui_attr(const struct tui_state *st, enum tui_look look);
attr_t tui_verdict_attr(const struct tui_state *st, enum lab_verdict v);
/* Draws s at y,x in at most w columns, never emitting a control character
 * or an invalid sequence. Returns the columns used. */
int tui_put(int y, int x, int w, const char *s, attr_t attr);
/* Word-wraps s into at most rows lines of w columns; returns lines used. */
int tui_wrap(int y, int x, int w, int rows, const char *s, attr_t attr);
int tui_text_width(const char *s);
void tui_fill(int y, int x, int w, attr_t attr);
void tui_frame(int y, int x, int h, int w, attr_t attr); /* a plain box outline */
int tui_count_lines(const char *text);                   /* a last line without \n counts */
/* Decodes s into at most max safe wide characters (see tui_look.c). */
int tui_safe_wide(const char *s, wchar_t *out, int max);
void tui_draw_big_row(int y, int x, const char *word, int row, attr_t attr);
int tui_big_width(const char *word);
void tui_format_duration(long ms, char *buf, size_t len);
char tui_spinner(const struct tui_state *st);

#endif
