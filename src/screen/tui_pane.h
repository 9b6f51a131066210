/* tui_pane.h — the sandbox box's two panes, the code and the result, each
 * a scrollable list of rows (tui_pane.c). */
#ifndef TUI_PANE_H
#define TUI_PANE_H

#include "tui_rows.h"
#include "tui_state.h"

/* The rows of the result pane as it stands; returns the pane's name. */
const char *tui_result_rows(const struct tui_state *st, struct tui_rows *L);
/* y is the pane's header row; the content takes the rows below it. */
void tui_code_pane(struct tui_state *st, int y, int x, int w, int rows, bool focused);
void tui_result_pane(struct tui_state *st, int y, int x, int w, int rows, bool focused);
/* Predict mode is on and the selected snippet's answer is not on screen:
 * the code pane hides the lines that would give it away. */
bool tui_predict_hides(const struct tui_state *st);
/* Why this cell is not held with its layers on (the container rung's
 * shared kernel, No-network's price, the allow-list's door): a line into
 * buf, or NULL when the toggles explain it. */
const char *tui_why_line(const struct snippet *s, const struct lab_setup *setup, char *buf, size_t len);

#endif
