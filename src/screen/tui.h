/* tui.h — the lab screen (ncurses): snippet list, code, four layer toggles,
 * a result panel with a big verdict and a sandbox that is drawn closed or
 * breached, the 16-column matrix, predict mode, an audit preset's card
 * and the guided tour.
 *
 * Only tui_main() is public. Inside, the screen's files are layers, each
 * with its own header; a file calls only files of the rows below its own
 * (tests/layout_test.sh checks that no two call each other, even through
 * others), lowest first:
 *   tui_look.c    the drawing primitives: safe text, wrap, colours, frames,
 *                 the big verdict's font
 *   tui_layout.c  where the main screen's parts are (toggles, list rows)
 *   tui_rows.c    a pane's content: rows wrapped, drawn from a scroll position
 *   tui_state.c   the state (tui_state.h) loaded and freed, and its small
 *                 changes: a message, a result forgotten, rung and mode
 *   tui_predict.c predict mode's guesses, locked to their cell
 *   tui_tour.c    t: the lesson in order, step by step, scored and resumable
 *   tui_audit.c   a: an audit preset's card beside the lab's own layers
 *   tui_jobs.c    what the screen runs: the single run, the matrix, abort
 *   tui_edit.c    e: the user's own snippet, through $EDITOR
 *   tui_pane.c    the views: the sandbox box's two panes (the tour's rows
 *   tui_matrix.c    at the top of the result), the matrix screen, the
 *   tui_twin.c      docker/bwrap twin's overlay
 *   tui_keys.c    the one key table: dispatch, footer and help overlay
 *   tui_draw.c    the frame's composition: the views and overlays in order
 *   tui.c         terminal set-up/teardown and the event loop, on top
 * Where a lower file's action must reach a higher one, the higher one acts
 * on what the lower returns, or the top passes a callback down (the jobs
 * tell tui.c of a pid through st->jobs_changed). Handlers never draw: they
 * change the state and return TUI_* flags; the loop in tui.c repaints
 * everything from the state (htop style). Nothing here forks but the
 * editor (e): a single run goes through job.h, the matrix through the
 * runner in matrix.h (the one `containment-lab matrix` uses). */
#ifndef TUI_H
#define TUI_H

#include "lab.h"
#include <stdbool.h>

/* Runs the lab screen until the user quits, starting from setup (the
 * toggles, the rung, the mode, the gate); predict: start in predict mode
 * (p); tour: start in the tour (t), where the student left it. Returns the
 * process exit status (0, 1 on a set-up failure, 2 when stdin/stdout is
 * not a terminal). */
int tui_main(const struct lab_config *cfg, const struct lab_setup *setup, bool predict, bool tour);

#endif
