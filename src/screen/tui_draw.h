/* tui_draw.h — the frame's composition (tui_draw.c). */
#ifndef TUI_DRAW_H
#define TUI_DRAW_H

#include "tui_state.h"

/* The whole screen from the state: the loop calls it after every change. */
void tui_draw(struct tui_state *st);

#endif
