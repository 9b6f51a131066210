/* progress.h — the one line a long command (matrix, audit) keeps redrawn in
 * place on stderr while it works, and only when stderr is a terminal:
 * "matrix: 37/128 cells, 12 s, ~20 s left". It knows nothing of what it
 * counts; colour only repeats what the words say, and NO_COLOR (or
 * TERM=dumb) turns it off.
 *
 * Life cycle: progress_start -> progress_update* -> progress_end (erases
 * the line, so what follows on the terminal starts clean). */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct progress {
	FILE *f; /* NULL: off */
	const char *what, *unit;
	bool color, erase; /* SGR colours; erase with CSI K (not on TERM=dumb) */
	long t0_ms, drawn_ms;
	int done;   /* as last drawn, -1 before the first */
	bool shown; /* a line is on the terminal */
};

/* on: the caller's choice (not --quiet); the line is drawn only if f is
 * a terminal too. what: "matrix", unit: "cells". */
void progress_start(struct progress *p, FILE *f, bool on, const char *what, const char *unit);
/* Redraws when done changed or a second went by. differ: how many are not
 * as expected so far; now: what runs now ("" if nothing to say). */
void progress_update(struct progress *p, int done, int total, int differ, const char *now);
void progress_end(struct progress *p);

/* The line's text (pure): "matrix: 37/128 cells, 2 differ, 12 s, ~20 s
 * left (now)", ANSI colour on the count and the differences if color,
 * cut to width columns (0 = no cut). */
void progress_format(char *out, size_t len, const char *what, const char *unit, int done, int total, int differ,
                     long elapsed_ms, const char *now, bool color, int width);

#endif
