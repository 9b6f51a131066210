/* tui_tour.h — t: the lesson in order, step by step, scored and
 * resumable (tui_tour.c). */
#ifndef TUI_TOUR_H
#define TUI_TOUR_H

#include "tui_rows.h"
#include "tui_state.h"

/* t starts or resumes the tour, then moves it on; T leaves */
void tui_tour_start(struct tui_state *st);
int tui_tour_key(struct tui_state *st, int ch);
/* c is the cell of the tour's current step. */
bool tui_tour_cell(const struct tui_state *st, const struct tui_cell *c);
/* A single run of c ended with r: the step's first scored run counts. */
void tui_tour_settled(struct tui_state *st, const struct tui_cell *c, const struct tui_run *r);
/* The tour's rows at the top of the result pane (after: the step's run
 * has its result on screen). */
void tui_tour_rows(const struct tui_state *st, struct tui_rows *L, bool after);
int tui_tour_steps(void);

#endif
