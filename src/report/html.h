/* html.h — `matrix --html FILE`: the matrix as one self-contained HTML page
 * (no script, no fetch: a Content-Security-Policy forbids any), for a
 * projector or a CI artifact: the grid in colour with each cell's mark, a
 * legend, what ran it on which machine, and every cell's verdict and
 * evidence one click (an anchor) away. */
#ifndef HTML_H
#define HTML_H

#include <stdio.h>

struct matrix;
struct matrix_rung;

/* 0, or -errno when f could not be written. The matrix must have run. */
int html_matrix_write(const struct matrix *m, FILE *f);
/* `matrix --rung all`: one page, a grid per rung (or why it was skipped),
 * then every cell's evidence, rung by rung. */
int html_ladder_write(const struct matrix_rung *r, int n, FILE *f);

#endif
