/* tui_predict.h — predict mode's guesses, locked to their cell
 * (tui_predict.c): a guess stays locked to its cell until the lab gives
 * that cell a verdict (aborting a run buys no second guess). */
#ifndef TUI_PREDICT_H
#define TUI_PREDICT_H

#include "tui_state.h"

void tui_cell_selected(const struct tui_state *st, struct tui_cell *c);
int tui_guess_locked(const struct tui_state *st, const struct tui_cell *c); /* or -1 */
/* Locks guess to c unless c has one: returns the guess that stands. */
int tui_guess_lock(struct tui_state *st, const struct tui_cell *c, int guess);
/* A run of c ended: returns c's locked guess (or -1), and unlocks it
 * when verdict (the lab said yes or no). */
int tui_guess_settle(struct tui_state *st, const struct tui_cell *c, bool verdict);
void tui_guess_locks_free(struct tui_state *st);

#endif
