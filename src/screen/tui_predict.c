/* tui_predict.c — predict mode's guesses for single runs, locked to their
 * cell. A guess belongs to one cell (the snippet and the setup it runs
 * with: the layers, Isolation's rung, No-network's setting, the gate)
 * until the lab gives that cell a verdict.
 * Without the lock, a student could answer, watch the run's output stream
 * in, abort it (not scored: ERROR), and answer again with what the output
 * showed: a right answer bought by aborting. With it, a rerun of the cell
 * reuses the guess without asking, and a run of that cell with predict
 * mode off scores it too. Bookkeeping only: nothing here draws, runs or
 * calls another part of the screen; Enter's ask-or-rerun
 * (tui_predict_then_run) is in tui_jobs.c, beside the run it starts. */
#define _GNU_SOURCE
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "tui_predict.h"
#include "tui_state.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void tui_cell_selected(const struct tui_state *st, struct tui_cell *c)
{
	memset(c, 0, sizeof *c);
	str_copy(c->path, sizeof c->path, st->snips[st->sel].path);
	c->setup = st->setup;
	c->guess = -1;
}

static bool same_cell(const struct tui_cell *a, const struct tui_cell *b)
{
	return a->setup.layers == b->setup.layers && a->setup.rung == b->setup.rung &&
	       a->setup.net_mode == b->setup.net_mode && a->setup.approve == b->setup.approve &&
	       !strcmp(a->path, b->path);
}

static int lock_find(const struct tui_state *st, const struct tui_cell *c)
{
	for (int i = 0; i < st->n_locks; i++)
		if (same_cell(&st->locks[i], c))
			return i;
	return -1;
}

int tui_guess_locked(const struct tui_state *st, const struct tui_cell *c)
{
	int i = lock_find(st, c);
	return i < 0 ? -1 : st->locks[i].guess;
}

int tui_guess_lock(struct tui_state *st, const struct tui_cell *c, int guess)
{
	int i = lock_find(st, c);
	if (i >= 0)
		return st->locks[i].guess; /* the first answer stands */
	struct tui_cell *more = realloc(st->locks, sizeof *more * (size_t)(st->n_locks + 1));
	if (!more)
		return guess; /* out of memory: this guess is not locked */
	st->locks = more;
	st->locks[st->n_locks] = *c;
	st->locks[st->n_locks].guess = guess;
	st->n_locks++;
	return guess;
}

int tui_guess_settle(struct tui_state *st, const struct tui_cell *c, bool verdict)
{
	int i = lock_find(st, c);
	if (i < 0)
		return -1;
	int g = st->locks[i].guess;
	if (verdict)
		st->locks[i] = st->locks[--st->n_locks];
	return g;
}

void tui_guess_locks_free(struct tui_state *st)
{
	free(st->locks);
	st->locks = NULL;
	st->n_locks = 0;
}
