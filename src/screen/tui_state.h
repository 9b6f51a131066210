/* tui_state.h — the screen's state (struct tui_state) and the types it
 * holds, the flags a key handler returns, and the small changes every part
 * of the screen makes to it (tui_state.c). Every tui_*.c includes it. */
#ifndef TUI_STATE_H
#define TUI_STATE_H

#include "job.h"
#include "lab.h"
#include "matrix.h"
#include "snippet.h"
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define TUI_COMBOS          LAB_COMBOS /* the matrix's columns */
#define TUI_MATRIX_JOBS_MAX 2          /* matrix cells running at once */
#define TUI_MIN_COLS        80
#define TUI_MIN_LINES       24
#define TUI_OUTPUT_TAIL     16384 /* bytes of a run's output kept (its end) */

/* What a key handler tells the loop. */
enum {
	TUI_HANDLED = 1,
	TUI_REDRAW = 2,
	TUI_QUIT = 4,
	TUI_CLEAR = 8, /* repaint every cell (Ctrl-L) */
};

enum tui_view { TUI_VIEW_MAIN, TUI_VIEW_MATRIX };

/* The last result of one snippet on the main screen. Raw output is never
 * kept: only its sanitised tail. */
struct tui_run {
	bool have;
	struct lab_result res; /* res.output is always NULL */
	char *out_text;        /* sanitize_output() of the tail, owned */
	size_t out_skipped;    /* bytes before the tail that are not shown */
	int guess;             /* predict mode: the verdict the student said, -1 none */
	bool scored, right;    /* the guess counted (the lab gave a yes or no), and was it */
};

/* Predict mode: one cell of a single run, and the guess locked to it
 * (tui_predict.c). */
struct tui_cell {
	char path[PATH_MAX];    /* the snippet's file */
	struct lab_setup setup; /* its layers, rung, No-network's mode (and the gate) */
	int guess;              /* enum lab_verdict, -1 none */
};

/* What has the keys' attention on the main screen: Tab cycles. */
enum tui_focus { TUI_FOCUS_LIST, TUI_FOCUS_CODE, TUI_FOCUS_RESULT, TUI_FOCUS_COUNT };

/* Where a pane's view is. The drawing clamps top and sets page and total. */
#define TUI_TOP_START (-1) /* code: open at the first danger mark, else the first line of code */
struct tui_view_pos {
	int top, page, total;
	bool follow; /* stick to the end (the live output) until scrolled */
};

/* a: the card of an audit preset (audit.h) beside the same card through
 * the lab's own layers as toggled (`exec --on ...`), snippet by snippet:
 * the same attacks, the same outside evidence, two sandboxes. The runs go
 * one at a time, each snippet's two in turn, through job_start_audit. */
enum { TUI_AUDIT_LAB, TUI_AUDIT_PRESET, TUI_AUDIT_COLS };
struct tui_audit {
	bool open;
	int preset;            /* audit_preset_names[preset] */
	int cur;               /* the row whose evidence is shown */
	unsigned layers;       /* the toggles the lab's column runs with */
	struct snippet *snips; /* the default card's (audit_default_names) */
	int n;
	struct lab_result *res[TUI_AUDIT_COLS]; /* n each, valid where have */
	bool *have[TUI_AUDIT_COLS];
	char **wrapper[TUI_AUDIT_COLS];
	bool outside[TUI_AUDIT_COLS];
	char why[LAB_LINE];  /* the preset cannot run here: why ("" if it can) */
	char note[LAB_LINE]; /* what the preset's card says of how it runs */
	struct job job;
	bool live;
	int step, steps; /* the run going (or next): snippet step / 2, column step % 2 */
	bool stopping;   /* aborted: no step after this one */
};

/* t: the tour (tui_tour.c). */
struct tui_tour {
	bool on;
	int step;            /* the step shown; the number of steps: done */
	int right, total;    /* predictions scored over the tour, kept with it */
	bool counted;        /* this step's run is in the score */
	char why[LAB_LINE];  /* the step cannot run here, and why ("" if it can) */
	char path[PATH_MAX]; /* where progress is kept ("" nowhere) */
};

struct tui_state {
	const struct lab_config *cfg; /* layers.ini: the screen never changes it */
	/* the choices: the toggles (setup.layers), r's rung, n's mode, the
	 * gate of --approve; every run, the matrix and predict take them */
	struct lab_setup setup;
	struct snippet *snips;
	int n_snips;
	char **code; /* sanitize_output() of each snippet's code */
	int *code_lines;

	/* main screen */
	int sel;      /* selected snippet */
	int list_top; /* first snippet shown in the list */
	enum tui_focus focus;
	bool zoom; /* z: the focused pane (list: the result) fills the box */
	struct tui_view_pos code_view, res_view;
	int code_jump; /* > (+1) or < (-1): the drawing moves the code to the next/previous danger */
	/* p: predict, then run (the lesson's "Predict:" as a scored quiz) */
	bool predict;
	bool asking; /* Enter was pressed: waiting for c/e (o/f for legit) */
	int score_right, score_total;
	short *mx_guess;  /* matrix: per cell (matrix_index), verdict or -1 */
	long mx_guess_ms; /* the last guess: only a matrix run started after it scores */
	/* e: the user's own snippets' folder ("" if there is none) */
	char user_dir[PATH_MAX];
	enum tui_view view;
	bool help;
	struct tui_view_pos help_view; /* the help scrolls: it is longer than 24 rows */
	/* d: the docker (b: bwrap) twin of the toggles, over the screen */
	bool twin;
	bool twin_bwrap;
	int twin_top; /* first line shown (the drawing clamps it) */
	int twin_page;

	/* the single run */
	struct job job;
	bool job_live;
	int job_guess;            /* predict mode: what the student said for this run, -1 none */
	struct tui_cell job_cell; /* the cell the single run is for */
	struct tui_cell *locks;   /* guesses waiting for their cell's verdict */
	int n_locks;
	struct tui_run *runs; /* one per snippet */

	struct tui_audit audit; /* a */
	struct tui_tour tour;   /* t */

	/* the matrix: the runner the `matrix` command uses too (matrix.h) */
	struct matrix mx;
	bool mx_started;            /* m has run it at least once */
	int mx_row, mx_col, mx_top; /* cursor: snippet, column (layers_for_column) */

	/* set by the top (tui.c): called whenever a job starts, ends or is
	 * stopped, so it can keep the workers' pids (tui_jobs.c calls it) */
	void (*jobs_changed)(const struct tui_state *st);

	/* looks */
	bool color;
	char msg[200]; /* transient message in the footer */
	long msg_until;
	long now_ms;
};

/* A footer message, for a few seconds. */
void tui_message(struct tui_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A single run, the matrix or the audit card's step is going. */
bool tui_busy(const struct tui_state *st);
void tui_run_clear(struct tui_run *r);
/* The last result of snippet i is gone from the screen (not while it runs). */
void tui_run_forget(struct tui_state *st, int i);
/* The rung and No-network's mode both set (the matrix starts over when
 * either changes): 0, or -1 (out of memory: neither changed). Not while
 * anything runs. */
int tui_set_rung_mode(struct tui_state *st, enum lab_rung rung, enum lab_net_mode net_mode);
/* r: the next rung of the isolation ladder (not while anything runs);
 * the matrix starts over for it. */
void tui_cycle_rung(struct tui_state *st);
/* n: No-network's setting, none <-> allowlist (the matrix starts over for it). */
void tui_cycle_net_mode(struct tui_state *st);
/* The lab's snippets, then the user's own, into st (code, result slots,
 * the matrix's guesses): their number, or -1 with err; note says why a
 * user folder was refused. */
int tui_snippets_load(struct tui_state *st, char *err, size_t errlen, char *note, size_t notelen);
void tui_snippets_unload(struct tui_state *st);

#endif
