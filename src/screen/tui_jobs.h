/* tui_jobs.h — what the screen runs (tui_jobs.c): the key handlers start
 * and abort jobs through these, never draw; the loop in tui.c polls them. */
#ifndef TUI_JOBS_H
#define TUI_JOBS_H

#include "tui_state.h"

void tui_run_selected(struct tui_state *st);
/* Predict mode: the answer to the question; starts the run. */
void tui_answer(struct tui_state *st, enum lab_verdict guess);
/* Enter in predict mode: ask, or rerun with the locked guess (says so). */
void tui_predict_then_run(struct tui_state *st);
/* The single run's job ended (the loop pumped it to its end): its result
 * kept, its guess scored, the tour told. */
void tui_run_finished(struct tui_state *st);
void tui_matrix_start(struct tui_state *st);
void tui_abort(struct tui_state *st);

#endif
