/* matrix.c — the matrix runner: cells (snippet x layer combination), the
 * one order they start in, up to max_jobs workers at once, and the truth
 * table's bookkeeping. The caller polls; see matrix.h. */
#include "matrix.h"
#include "system.h"
#include "verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int matrix_init(struct matrix *m, const struct lab_config *cfg, const struct lab_setup *setup,
                const struct snippet *snips, int n_snips, int max_jobs)
{
	memset(m, 0, sizeof *m);
	m->cfg = cfg;
	m->setup = *setup;
	m->snips = snips;
	m->n_snips = n_snips > 0 ? n_snips : 0;
	m->n_cells = m->n_snips * LAB_COMBOS;
	m->max_jobs = max_jobs < 1 ? 1 : max_jobs;
	m->cells = calloc((size_t)m->n_cells + 1, sizeof *m->cells);
	m->jobs = calloc((size_t)m->max_jobs, sizeof *m->jobs);
	m->job_cell = calloc((size_t)m->max_jobs, sizeof *m->job_cell);
	if (!m->cells || !m->jobs || !m->job_cell) {
		free(m->cells);
		free(m->jobs);
		free(m->job_cell);
		memset(m, 0, sizeof *m);
		return -ENOMEM;
	}
	for (int k = 0; k < m->max_jobs; k++) {
		m->jobs[k].fd = -1;
		m->job_cell[k] = -1;
	}
	for (int c = 0; c < m->n_cells; c++) {
		struct lab_setup cell = matrix_setup(m, (unsigned)(c % LAB_COMBOS));
		m->cells[c].expected = verdict_expected(&snips[c / LAB_COMBOS], cfg, &cell);
	}
	return 0;
}

struct lab_setup matrix_setup(const struct matrix *m, unsigned layers)
{
	struct lab_setup cell = m->setup;
	cell.layers = layers;
	return cell;
}

static void clear_cells(struct matrix *m)
{
	for (int c = 0; c < m->n_cells; c++) {
		enum lab_verdict expected = m->cells[c].expected;
		lab_result_free(&m->cells[c].res);
		memset(&m->cells[c], 0, sizeof m->cells[c]);
		m->cells[c].expected = expected;
	}
}

void matrix_free(struct matrix *m)
{
	if (!m->cells)
		return;
	matrix_halt(m);
	clear_cells(m);
	free(m->cells);
	free(m->jobs);
	free(m->job_cell);
	memset(m, 0, sizeof *m);
}

/* The start order: column by column (layers_for_column: all layers on
 * first), every snippet of a column before the next column. */
static int cell_at(const struct matrix *m, int seq)
{
	int col = seq / m->n_snips, si = seq % m->n_snips;

	return matrix_index(si, layers_for_column(col));
}

static void count_finished(struct matrix *m)
{
	if (++m->finished >= m->n_cells && !m->t1_ms)
		m->t1_ms = monotonic_ms();
}

/* The worker could not even be forked: the cell is an ERROR that says why. */
static void cell_failed(struct matrix *m, int cell, int err)
{
	struct matrix_cell *c = &m->cells[cell];

	c->state = MATRIX_DONE;
	memset(&c->res, 0, sizeof c->res);
	snprintf(c->res.snippet, sizeof c->res.snippet, "%s", m->snips[cell / LAB_COMBOS].name);
	c->res.verdict = VERDICT_ERROR;
	c->res.caught_by = -1;
	c->res.expected_layer = m->snips[cell / LAB_COMBOS].layer;
	c->res.layers = (unsigned)(cell % LAB_COMBOS);
	snprintf(c->res.headline, sizeof c->res.headline, "the lab could not start this cell: %s", strerror(err));
	count_finished(m);
}

/* Starts cells in order until every slot is busy or none is left. */
static void fill(struct matrix *m)
{
	for (int k = 0; k < m->max_jobs && m->next < m->n_cells; k++) {
		if (m->job_cell[k] >= 0)
			continue;
		int cell = cell_at(m, m->next++), si = cell / LAB_COMBOS;
		struct lab_setup setup = matrix_setup(m, (unsigned)(cell % LAB_COMBOS));
		int rc = job_start(&m->jobs[k], m->cfg, &setup, &m->snips[si]);
		if (rc < 0) {
			cell_failed(m, cell, -rc);
			k--; /* this slot is still free: try the next cell */
			continue;
		}
		m->jobs[k].snippet_index = si;
		m->job_cell[k] = cell;
		m->cells[cell].state = MATRIX_RUNNING;
		m->cells[cell].started_ms = m->jobs[k].started_ms;
	}
}

int matrix_start(struct matrix *m)
{
	if (matrix_running(m))
		return -EBUSY;
	clear_cells(m);
	m->started = true;
	m->aborted = false;
	m->next = 0;
	m->finished = 0;
	m->t0_ms = monotonic_ms();
	m->t1_ms = 0;
	if (m->n_cells == 0)
		m->t1_ms = m->t0_ms;
	fill(m);
	return 0;
}

bool matrix_running(const struct matrix *m)
{
	return m->started && m->finished < m->n_cells;
}

int matrix_fds(const struct matrix *m, struct pollfd *pfd, int max)
{
	int n = 0;

	for (int k = 0; k < m->max_jobs && n < max; k++)
		if (m->job_cell[k] >= 0 && m->jobs[k].fd >= 0)
			pfd[n++] = (struct pollfd){.fd = m->jobs[k].fd, .events = POLLIN};
	return n;
}

int matrix_on_ready(struct matrix *m, int fd)
{
	int k = 0;

	while (k < m->max_jobs && !(m->job_cell[k] >= 0 && m->jobs[k].fd == fd))
		k++;
	if (fd < 0 || k == m->max_jobs)
		return -1;
	struct job *j = &m->jobs[k];
	if (job_pump(j, &m->snips[j->snippet_index], m->cfg) == 0)
		return 0;
	struct matrix_cell *c = &m->cells[m->job_cell[k]];
	/* The result moves into the cell; the raw output stays with the job,
	 * which frees it: no matrix face shows a cell's output. */
	c->res = j->res;
	c->res.output = NULL;
	c->res.output_len = 0;
	c->state = MATRIX_DONE;
	job_free(j);
	m->job_cell[k] = -1;
	count_finished(m);
	fill(m);
	return 1;
}

static void skip_pending(struct matrix *m)
{
	for (int c = 0; c < m->n_cells; c++)
		if (m->cells[c].state == MATRIX_PENDING) {
			m->cells[c].state = MATRIX_SKIPPED;
			count_finished(m);
		}
	m->next = m->n_cells;
}

/* No more cells start; false when nothing was running. */
static bool stop_starting(struct matrix *m)
{
	if (!matrix_running(m))
		return false;
	m->aborted = true;
	skip_pending(m);
	return true;
}

void matrix_abort(struct matrix *m)
{
	if (!stop_starting(m))
		return;
	for (int k = 0; k < m->max_jobs; k++)
		if (m->job_cell[k] >= 0)
			job_abort(&m->jobs[k]);
}

void matrix_halt(struct matrix *m)
{
	if (!stop_starting(m))
		return;
	/* Every worker is told first, then each is reaped: their grace
	 * periods run side by side, so a halt takes one, not one per worker. */
	for (int k = 0; k < m->max_jobs; k++)
		if (m->job_cell[k] >= 0)
			job_stop(&m->jobs[k]);
	for (int k = 0; k < m->max_jobs; k++) {
		if (m->job_cell[k] < 0)
			continue;
		job_free(&m->jobs[k]); /* reaps */
		m->cells[m->job_cell[k]].state = MATRIX_SKIPPED;
		m->job_cell[k] = -1;
		count_finished(m);
	}
}

int matrix_pids(const struct matrix *m, pid_t *out, int max)
{
	int n = 0;

	for (int k = 0; k < m->max_jobs && n < max; k++)
		if (m->job_cell[k] >= 0)
			out[n++] = m->jobs[k].pid;
	return n;
}

const struct matrix_cell *matrix_cell(const struct matrix *m, int si, unsigned layers)
{
	return &m->cells[matrix_index(si, layers)];
}

bool matrix_cell_expected(const struct matrix_cell *c)
{
	return c->state == MATRIX_DONE && c->res.verdict == c->expected;
}

bool matrix_cell_differs(const struct matrix_cell *c)
{
	return c->state == MATRIX_DONE && c->res.verdict != c->expected && !c->res.ev.end.aborted;
}

struct matrix_counts matrix_count(const struct matrix *m)
{
	struct matrix_counts n = {0};

	for (int c = 0; c < m->n_cells; c++) {
		const struct matrix_cell *cell = &m->cells[c];
		if (cell->state != MATRIX_DONE)
			continue;
		n.ran++;
		n.as_expected += matrix_cell_expected(cell);
		n.differ += matrix_cell_differs(cell);
		n.errors += cell->res.verdict == VERDICT_ERROR;
	}
	return n;
}

long matrix_elapsed_ms(const struct matrix *m)
{
	if (!m->started)
		return 0;
	return (m->t1_ms ? m->t1_ms : monotonic_ms()) - m->t0_ms;
}
