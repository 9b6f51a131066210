/* tui_jobs.c — what the screen runs: the selected snippet's single run
 * (asked first in predict mode, its guess locked to its cell), the matrix
 * through the shared runner (matrix.c), and aborting them. Started here,
 * polled by the loop in tui.c, finished here. Handlers call these; nothing
 * here draws. Every change to what runs is told to the top through
 * st->jobs_changed (tui.c keeps the workers' pids for its crash path), so
 * this file needs nothing above it. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <string.h>

#include "text.h"
#include "tui_audit.h"
#include "tui_jobs.h"
#include "tui_predict.h"
#include "tui_state.h"
#include "tui_tour.h"
#include "verdict.h"

static void jobs_changed(const struct tui_state *st)
{
	if (st->jobs_changed)
		st->jobs_changed(st);
}

/* Moves a finished job's result into dst without its raw output. */
static void take_result(struct lab_result *dst, struct job *j)
{
	*dst = j->res;
	dst->output = NULL;
	dst->output_len = 0;
}

/* Keeps only the end of what the snippet printed, starting on a line
 * boundary, made inert by sanitize_output(). */
static char *output_tail(const struct lab_result *r, size_t *skipped)
{
	const char *p = r->output;
	size_t len = r->output_len;
	const char *nl;

	*skipped = 0;
	if (!p || !len)
		return NULL;
	if (len > TUI_OUTPUT_TAIL) {
		*skipped = len - TUI_OUTPUT_TAIL;
		p += *skipped;
		len = TUI_OUTPUT_TAIL;
		nl = memchr(p, '\n', 1024); /* len is TUI_OUTPUT_TAIL here, well over 1024 */
		if (nl && (size_t)(nl + 1 - p) < len) {
			*skipped += (size_t)(nl + 1 - p);
			len -= (size_t)(nl + 1 - p);
			p = nl + 1;
		}
	}
	return sanitize_output(p, len, (size_t)TUI_OUTPUT_TAIL * 4);
}

/* Only a yes-or-no answer of the lab scores a guess: an ERROR, an attack
 * that broke by itself or an aborted run says nothing about it. */
static bool yes_or_no(const struct lab_result *res)
{
	enum lab_verdict v = res->verdict;
	return !res->ev.end.aborted &&
	       (v == VERDICT_CONTAINED || v == VERDICT_ESCAPED || v == VERDICT_RAN_OK || v == VERDICT_FAILED);
}

static void score_guess(struct tui_state *st, struct tui_run *r)
{
	enum lab_verdict v = r->res.verdict;

	r->scored = r->guess >= 0 && yes_or_no(&r->res);
	if (!r->scored)
		return;
	r->right = r->guess == (int)v;
	st->score_total++;
	st->score_right += r->right;
}

void tui_run_finished(struct tui_state *st)
{
	int i = st->job.snippet_index;
	struct tui_run *r = &st->runs[i];

	tui_run_clear(r);
	r->out_text = output_tail(&st->job.res, &r->out_skipped);
	take_result(&r->res, &st->job);
	r->have = true;
	/* the cell's locked guess, also when predict mode went off since:
	 * the guess was made, and this verdict answers it */
	int locked = tui_guess_settle(st, &st->job_cell, yes_or_no(&r->res));
	r->guess = st->job_guess >= 0 ? st->job_guess : locked;
	st->job_guess = -1;
	score_guess(st, r);
	tui_tour_settled(st, &st->job_cell, r);
	/* the verdict first: the pane opens at its top */
	if (i == st->sel)
		st->res_view = (struct tui_view_pos){0};
	job_free(&st->job);
	st->job_live = false;
	jobs_changed(st);
}

void tui_run_selected(struct tui_state *st)
{
	int rc;

	if (st->job_live) {
		tui_message(st, "%s is still running: wait, or press a to abort it",
		            st->snips[st->job.snippet_index].name);
		return;
	}
	if (matrix_running(&st->mx)) {
		tui_message(st, "the matrix is running: wait, or press a to abort it");
		return;
	}
	/* the screen asks the human when the gate does (--approve ask) */
	rc = job_start_gated(&st->job, st->cfg, &st->setup, &st->snips[st->sel]);
	if (rc < 0) {
		tui_message(st, "could not start %s: %s", st->snips[st->sel].name, strerror(-rc));
		st->job_guess = -1;
		return;
	}
	st->job.snippet_index = st->sel;
	tui_cell_selected(st, &st->job_cell);
	st->job_live = true;
	/* the output streams in: the result pane follows its end */
	st->res_view = (struct tui_view_pos){.follow = true};
	jobs_changed(st);
}

void tui_answer(struct tui_state *st, enum lab_verdict guess)
{
	struct tui_cell c;

	st->asking = false;
	tui_cell_selected(st, &c);
	/* a cell's first answer stands until the lab gives it a verdict */
	st->job_guess = tui_guess_lock(st, &c, (int)guess);
	if (st->job_guess != (int)guess)
		tui_message(st, "your guess stays: %s (this cell has had no verdict since you said it)",
		            verdict_name((enum lab_verdict)st->job_guess));
	tui_run_selected(st);
}

void tui_predict_then_run(struct tui_state *st)
{
	struct tui_cell c;
	tui_cell_selected(st, &c);
	int g = tui_guess_locked(st, &c);
	if (g < 0) {
		st->asking = true; /* the run starts with the answer */
		return;
	}
	tui_message(st, "your guess stays: %s (this cell has had no verdict since you said it)",
	            verdict_name((enum lab_verdict)g));
	st->job_guess = g;
	tui_run_selected(st);
}

/* The matrix runs through the same runner as `containment-lab matrix`;
 * the event loop polls its workers with the keyboard. */
void tui_matrix_start(struct tui_state *st)
{
	if (st->job_live) {
		tui_message(st, "%s is still running: wait, or press a to abort it",
		            st->snips[st->job.snippet_index].name);
		return;
	}
	if (matrix_start(&st->mx) < 0) {
		tui_message(st, "the matrix is already running (a aborts it)");
		return;
	}
	st->mx_started = true;
	jobs_changed(st);
}

void tui_abort(struct tui_state *st)
{
	bool any = false;

	if (st->job_live) {
		job_abort(&st->job);
		any = true;
	}
	if (matrix_running(&st->mx)) {
		/* Cells never started are skipped; running ones come back aborted. */
		matrix_abort(&st->mx);
		any = true;
	}
	if (st->audit.live) {
		tui_audit_abort(st);
		any = true;
	}
	if (any)
		tui_message(st, "aborting: the sandbox is being killed and cleaned up");
	else
		tui_message(st, "nothing is running");
}
