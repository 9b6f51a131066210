/* tui_twin.h — d: the docker (b: bwrap) twin of the toggles, an overlay
 * (tui_twin.c). */
#ifndef TUI_TWIN_H
#define TUI_TWIN_H

#include "tui_state.h"

void tui_draw_twin(struct tui_state *st);
/* The overlay holds the keys while it is open. */
int tui_twin_key(struct tui_state *st, int ch);

#endif
