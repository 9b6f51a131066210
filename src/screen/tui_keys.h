/* tui_keys.h — the one key table (tui_keys.c): dispatch, the footer and
 * the help overlay. */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include "tui_state.h"

/* A key to the handler the table (or the overlay open) gives it: TUI_* flags. */
int tui_key_dispatch(struct tui_state *st, int ch);
void tui_draw_footer(const struct tui_state *st, int y, int width);
void tui_draw_help(struct tui_state *st);

#endif
