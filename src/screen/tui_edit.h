/* tui_edit.h — e: your own attack (tui_edit.c). */
#ifndef TUI_EDIT_H
#define TUI_EDIT_H

#include "tui_state.h"

/* Copies the selected snippet to the user's folder (unless it is theirs
 * already), hands the terminal to $EDITOR, takes it back, lists and runs it. */
void tui_edit_selected(struct tui_state *st);

#endif
