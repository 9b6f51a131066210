/* tui_layout.h — where the main screen's parts are (tui_layout.c): the
 * drawing places them there, a click is mapped back the same way. */
#ifndef TUI_LAYOUT_H
#define TUI_LAYOUT_H

#include "tui_state.h"

#define TUI_LIST_W 22 /* the snippet list; the box takes the rest */

int tui_toggle_x(int l);         /* the column of layer l's toggle (LAYER_COUNT: the rung's) */
int tui_toggle_at(int y, int x); /* layer under a click, or -1 */
/* Snippets the list shows at once (a legend of the layers goes below it). */
int tui_list_capacity(const struct tui_state *st);
int tui_snippet_at(const struct tui_state *st, int y, int x); /* or -1 */

#endif
