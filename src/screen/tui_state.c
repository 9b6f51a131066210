/* tui_state.c — the screen's state: loading the snippets into it and
 * freeing them, and the small changes every part of the screen makes to it
 * (a footer message, a result forgotten, the rung and No-network's mode).
 * Low in the screen's layers: it calls only the drawing primitives (to
 * count a snippet's lines), never a view, a key or a job. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "tui_look.h"
#include "tui_state.h"

void tui_message(struct tui_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof st->msg, fmt, ap);
	va_end(ap);
	st->msg_until = monotonic_ms() + 4000;
}

bool tui_busy(const struct tui_state *st)
{
	return st->job_live || matrix_running(&st->mx) || st->audit.live;
}

void tui_run_clear(struct tui_run *r)
{
	if (!r->have)
		return;
	free(r->out_text);
	lab_result_free(&r->res);
	memset(r, 0, sizeof *r);
}

void tui_run_forget(struct tui_state *st, int i)
{
	if (i >= 0 && i < st->n_snips && !(st->job_live && st->job.snippet_index == i))
		tui_run_clear(&st->runs[i]);
}

int tui_set_rung_mode(struct tui_state *st, enum lab_rung rung, enum lab_net_mode net_mode)
{
	struct matrix fresh;
	struct lab_setup next = st->setup;
	if (rung == st->setup.rung && net_mode == st->setup.net_mode)
		return 0;
	next.rung = rung;
	next.net_mode = net_mode;
	/* the truth table follows both (kernel-exploit, legit-api, exfil-allowed) */
	if (matrix_init(&fresh, st->cfg, &next, st->snips, st->n_snips, st->mx.max_jobs) < 0)
		return -1;
	st->setup = next;
	matrix_free(&st->mx);
	st->mx = fresh;
	st->mx_started = false;
	return 0;
}

void tui_cycle_rung(struct tui_state *st)
{
	if (tui_busy(st)) {
		tui_message(st, "a run is going: wait, or press a to abort it, then change the rung");
		return;
	}
	enum lab_rung was = st->setup.rung, next = lab_rung_next(was);
	if (tui_set_rung_mode(st, next, st->setup.net_mode) < 0) {
		tui_message(st, "out of memory: the rung stays %s", lab_rung_key(was));
		return;
	}
	tui_message(st, "Isolation's rung: %s (%s)", lab_rung_key(next),
	            next == RUNG_INPROCESS   ? "exec() inside the lab's app server: no layer can apply"
	            : next == RUNG_CONTAINER ? "namespaces + seccomp on the host kernel"
	            : next == RUNG_GVISOR    ? "gVisor's runsc: a user-space kernel answers"
	                                     : "a QEMU microvm: its own guest kernel");
}

void tui_cycle_net_mode(struct tui_state *st)
{
	if (tui_busy(st)) {
		tui_message(st, "a run is going: wait, or press a to abort it, then change No-network's mode");
		return;
	}
	enum lab_net_mode was = st->setup.net_mode;
	enum lab_net_mode next = was + 1 < NET_MODE_COUNT ? was + 1 : NET_MODE_NONE;
	if (tui_set_rung_mode(st, st->setup.rung, next) < 0) {
		tui_message(st, "out of memory: No-network's mode stays %s", lab_net_mode_key(was));
		return;
	}
	tui_message(st, "No-network's mode: %s (%s)", lab_net_mode_key(next),
	            next == NET_MODE_NONE ? "no interface at all"
	                                  : "only the lab's egress proxy, which lets out [network] allow");
}

/* The lab's snippets, then the user's own (marked yours), each with its
 * code made inert for drawing, a result slot and the matrix's guesses.
 * A user folder that is refused is reported in note; the lab's folder
 * failing is an error (-1, err). */
int tui_snippets_load(struct tui_state *st, char *err, size_t errlen, char *note, size_t notelen)
{
	struct snippet *lab, *mine = NULL, *all;
	int n, m = 0, k;

	note[0] = '\0';
	n = snippet_discover(st->cfg->snippets_dir, &lab, err, errlen);
	if (n < 0)
		return -1;
	if (st->user_dir[0]) {
		m = snippet_scan_user(st->user_dir, &mine, note, notelen);
		if (m < 0)
			m = 0;
	}
	all = realloc(lab, sizeof *all * (size_t)(n + m > 0 ? n + m : 1));
	if (!all) {
		snippets_free(lab, n);
		snippets_free(mine, m);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (m)
		memcpy(all + n, mine, sizeof *all * (size_t)m);
	free(mine);
	st->snips = all;
	st->n_snips = n + m;
	n += m;
	/* n >= 1: snippet_discover refuses a folder without one */
	st->runs = calloc((size_t)n + 1, sizeof *st->runs);
	st->code = calloc((size_t)n + 1, sizeof *st->code);
	st->code_lines = calloc((size_t)n + 1, sizeof *st->code_lines);
	st->mx_guess = malloc(((size_t)n + 1) * TUI_COMBOS * sizeof *st->mx_guess);
	if (!st->runs || !st->code || !st->code_lines || !st->mx_guess) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (k = 0; k < (n + 1) * TUI_COMBOS; k++)
		st->mx_guess[k] = -1;
	for (k = 0; k < n; k++) {
		/* A teacher's (or a student's) file is text from outside too. */
		const char *c = st->snips[k].code ? st->snips[k].code : "";

		st->runs[k].guess = -1;
		st->code[k] = sanitize_output(c, strlen(c), strlen(c) * 4 + 16);
		st->code_lines[k] = tui_count_lines(st->code[k]);
	}
	return n;
}

void tui_snippets_unload(struct tui_state *st)
{
	for (int k = 0; k < st->n_snips; k++) {
		if (st->runs)
			tui_run_clear(&st->runs[k]);
		if (st->code)
			free(st->code[k]);
	}
	free(st->code);
	free(st->code_lines);
	free(st->runs);
	free(st->mx_guess);
	snippets_free(st->snips, st->n_snips);
	st->code = NULL;
	st->code_lines = NULL;
	st->runs = NULL;
	st->mx_guess = NULL;
	st->snips = NULL;
	st->n_snips = 0;
}
