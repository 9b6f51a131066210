/* matrix.h — the one matrix runner: every snippet under every layer
 * combination, used by `containment-lab matrix` and by the screen's `m`.
 *
 * It owns the cells, the order they start in, the worker jobs (job.h) and
 * the truth-table bookkeeping. It never polls or blocks: the caller polls
 * the descriptors matrix_fds() hands out, together with its own (the
 * keyboard, say), and passes each readable one to matrix_on_ready().
 * It knows no curses and prints nothing.
 *
 * Life cycle: matrix_init -> matrix_start -> (matrix_fds, poll,
 * matrix_on_ready)* until !matrix_running -> read the cells -> matrix_start
 * again, or matrix_free. matrix_abort() skips what has not started and asks
 * the running workers to stop; their results still come back (aborted). */
#ifndef MATRIX_H
#define MATRIX_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

#include "job.h"
#include "lab.h"

#define LAB_COMBOS (1 << LAYER_COUNT) /* layer combinations: the matrix's columns */

enum matrix_cell_state {
	MATRIX_PENDING,
	MATRIX_RUNNING,
	MATRIX_DONE,
	MATRIX_SKIPPED, /* aborted before it started */
};

struct matrix_cell {
	enum matrix_cell_state state;
	enum lab_verdict expected; /* the truth table's answer */
	long started_ms;           /* monotonic, while RUNNING */
	struct lab_result res;     /* valid when DONE; res.output is always NULL */
};

struct matrix {
	const struct lab_config *cfg;
	struct lab_setup setup; /* its rung, No-network's mode and the gate; each cell has its own layers */
	const struct snippet *snips;
	int n_snips;
	int n_cells;               /* n_snips * LAB_COMBOS */
	struct matrix_cell *cells; /* index: matrix_index(snippet, layers) */
	int max_jobs;
	struct job *jobs; /* max_jobs slots */
	int *job_cell;    /* per slot: the cell it runs, -1 = free */
	int next;         /* next position in the start order */
	int finished;     /* cells DONE or SKIPPED */
	bool started, aborted;
	long t0_ms, t1_ms; /* t1 is 0 while running */
};

struct matrix_counts {
	int ran;         /* DONE */
	int as_expected; /* DONE with the truth table's verdict */
	int differ;      /* DONE, not as expected, not aborted */
	int errors;      /* DONE with VERDICT_ERROR */
};

/* The cell of snippet si under these layers. */
static inline int matrix_index(int si, unsigned layers)
{
	return si * LAB_COMBOS + (int)layers;
}

/* 0, or -ENOMEM. Nothing runs yet; every cell is PENDING with its expected
 * verdict. Every cell runs as setup says but for its layers (setup's are
 * not used). snips must outlive the matrix. max_jobs is clamped to 1.. */
int matrix_init(struct matrix *m, const struct lab_config *cfg, const struct lab_setup *setup,
                const struct snippet *snips, int n_snips, int max_jobs);
/* The setup of the matrix's cells under these layers. */
struct lab_setup matrix_setup(const struct matrix *m, unsigned layers);
/* Halts (aborts and reaps) any running job and frees everything. */
void matrix_free(struct matrix *m);

/* Clears the previous results and starts the first jobs. Cells start
 * column by column in the screen's order (all layers on first, see
 * layers_for_column), so the teaching column fills in first. A cell whose
 * worker cannot be started is DONE as an ERROR that says why.
 * -EBUSY while a run is still going. */
int matrix_start(struct matrix *m);
bool matrix_running(const struct matrix *m);
/* Fills up to max pollfds (POLLIN) for the running jobs; returns how many. */
int matrix_fds(const struct matrix *m, struct pollfd *pfd, int max);
/* fd was readable (or hung up): reads it. 1 = a cell finished (and the next
 * one started), 0 = not yet, -1 = fd is not one of ours. */
int matrix_on_ready(struct matrix *m, int fd);
/* Pending cells become SKIPPED; running workers are asked to stop. */
void matrix_abort(struct matrix *m);
/* Aborts and reaps every running job now (no result comes back): for the
 * way out. Running and pending cells become SKIPPED. All workers are told
 * at once, so it takes at most one grace period (job_free), however many
 * are stuck. */
void matrix_halt(struct matrix *m);
/* The running workers' pids (for a crash handler); returns how many. */
int matrix_pids(const struct matrix *m, pid_t *out, int max);

const struct matrix_cell *matrix_cell(const struct matrix *m, int si, unsigned layers);
/* DONE with the expected verdict. */
bool matrix_cell_expected(const struct matrix_cell *c);
/* DONE with another verdict, and not because it was aborted. */
bool matrix_cell_differs(const struct matrix_cell *c);
struct matrix_counts matrix_count(const struct matrix *m);
/* From matrix_start to the last result (or to now while running). */
long matrix_elapsed_ms(const struct matrix *m);

/* One rung of `matrix --rung all`, the ladder from the bottom: the matrix
 * that ran on it, or why it could not run here (a missing tool: skipped,
 * never passed). */
struct matrix_rung {
	enum lab_rung rung;
	const struct matrix *m; /* NULL: skipped */
	bool stopped;           /* skipped because the matrix was stopped (Ctrl-C), not for a missing tool */
	char skipped[LAB_LINE];
};

#endif
