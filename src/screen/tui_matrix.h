/* tui_matrix.h — the matrix screen (tui_matrix.c). */
#ifndef TUI_MATRIX_H
#define TUI_MATRIX_H

#include "tui_state.h"

unsigned tui_combo_mask(int col);
void tui_matrix_draw(struct tui_state *st, int top, int bottom);
bool tui_matrix_cell_at(const struct tui_state *st, int y, int x, int *row, int *col);
/* Runs whose verdict the student guessed: the matrix row's score. */
void tui_matrix_row_score(const struct tui_state *st, int row, int *right, int *done, int *guessed);

#endif
