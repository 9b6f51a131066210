/* tui.h — the lab screen (ncurses): snippet list, code, four layer toggles,
 * a result panel with a big verdict and a sandbox that is drawn closed or
 * breached, the 16-column matrix, predict mode, an audit preset's card
 * and the guided tour.
 *
 * Only tui_main() is public. The part below TUI_INTERNAL is shared by the
 * tui_*.c files (one room each):
 *   tui.c        terminal set-up/teardown, the event loop, the jobs it runs
 *   tui_keys.c   the one key table: dispatch, footer and help overlay
 *   tui_draw.c   safe text, colours, the main screen and the sandbox box
 *   tui_pane.c   the sandbox box's two panes: rows wrapped, scrolled, zoomed
 *   tui_matrix.c the matrix screen
 *   tui_predict.c predict mode's guesses, locked to their cell
 *   tui_audit.c  a: an audit preset's card beside the lab's own layers
 *   tui_tour.c   t: the lesson in order, step by step, scored and resumable
 * Handlers never draw: they change the state and return TUI_* flags; the
 * loop in tui.c repaints everything from the state (htop style). Nothing
 * here forks: a single run goes through job.h, the matrix through the
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

#ifdef TUI_INTERNAL

#include "job.h"
#include "matrix.h"
#include "report.h"
#include <stdbool.h>
#include <wchar.h>

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

/* A pane's content, wrapped to its width and made safe to draw. */
struct tui_row {
	wchar_t *w; /* the text, owned */
	int n;
	attr_t attr;
	char gutter[16]; /* "123>> ", "- ", "| " */
	attr_t gattr;    /* the gutter's (a big row's: the word's) */
	int big;         /* -1, or which row (0-2) of the big word comes first */
	const char *word;
};
struct tui_rows {
	struct tui_row *v;
	int n, cap;
	int width;
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

	/* looks */
	bool color;
	char msg[200]; /* transient message in the footer */
	long msg_until;
	long now_ms;
};

/* tui.c: actions the key handlers use (they start/abort jobs, never draw) */
void tui_run_selected(struct tui_state *st);
void tui_matrix_start(struct tui_state *st);
void tui_abort(struct tui_state *st);
bool tui_busy(const struct tui_state *st);
/* r: the next rung of the isolation ladder (not while anything runs);
 * the matrix starts over for it. */
void tui_cycle_rung(struct tui_state *st);
/* n: No-network's setting, none <-> allowlist (the matrix starts over for it). */
void tui_cycle_net_mode(struct tui_state *st);
/* The last result of snippet i is gone from the screen (not while it runs). */
void tui_run_forget(struct tui_state *st, int i);
/* The rung and No-network's mode both set (the matrix starts over when
 * either changes): 0, or -1 (out of memory: neither changed). Not while
 * anything runs. */
int tui_set_rung_mode(struct tui_state *st, enum lab_rung rung, enum lab_net_mode net_mode);
void tui_message(struct tui_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Predict mode: the answer to the question; starts the run. */
void tui_answer(struct tui_state *st, enum lab_verdict guess);
/* e: copy the selected snippet to the user's folder (unless it is theirs
 * already), hand the terminal to $EDITOR, take it back, list and run it. */
void tui_edit_selected(struct tui_state *st);
/* Runs whose verdict the student guessed: the matrix row's score. */
void tui_matrix_row_score(const struct tui_state *st, int row, int *right, int *done, int *guessed);

/* tui_predict.c: a guess stays locked to its cell until the lab gives
 * that cell a verdict (aborting a run buys no second guess). */
void tui_cell_selected(const struct tui_state *st, struct tui_cell *c);
int tui_guess_locked(const struct tui_state *st, const struct tui_cell *c); /* or -1 */
/* Locks guess to c unless c has one: returns the guess that stands. */
int tui_guess_lock(struct tui_state *st, const struct tui_cell *c, int guess);
/* A run of c ended: returns c's locked guess (or -1), and unlocks it
 * when verdict (the lab said yes or no). */
int tui_guess_settle(struct tui_state *st, const struct tui_cell *c, bool verdict);
void tui_guess_locks_free(struct tui_state *st);
/* Enter in predict mode: ask, or rerun with the locked guess (says so). */
void tui_predict_then_run(struct tui_state *st);

/* tui_audit.c: a opens it (idle), and it holds the keys while open */
void tui_audit_open(struct tui_state *st);
int tui_audit_key(struct tui_state *st, int ch);
void tui_audit_draw(struct tui_state *st);
/* The running step's descriptor (-1 none), and its data arrived. */
int tui_audit_fd(const struct tui_state *st);
void tui_audit_ready(struct tui_state *st);
void tui_audit_abort(struct tui_state *st);
/* Stops and reaps the running step, frees everything (the screen ends). */
void tui_audit_free(struct tui_state *st);

/* tui_tour.c: t starts or resumes the tour, then moves it on; T leaves */
void tui_tour_start(struct tui_state *st);
int tui_tour_key(struct tui_state *st, int ch);
/* c is the cell of the tour's current step. */
bool tui_tour_cell(const struct tui_state *st, const struct tui_cell *c);
/* A single run of c ended with r: the step's first scored run counts. */
void tui_tour_settled(struct tui_state *st, const struct tui_cell *c, const struct tui_run *r);
/* The tour's rows at the top of the result pane (after: the step's run
 * has its result on screen). */
void tui_tour_rows(const struct tui_state *st, struct tui_rows *L, bool after);
int tui_tour_steps(void);

/* tui_keys.c */
int tui_key_dispatch(struct tui_state *st, int ch);
void tui_draw_footer(const struct tui_state *st, int y, int width);
void tui_draw_help(struct tui_state *st);
void tui_draw_twin(struct tui_state *st);

/* tui_draw.c */
enum tui_look {
	TUI_LOOK_NORMAL,
	TUI_LOOK_TITLE,    /* title and header bars */
	TUI_LOOK_SELECTED, /* the selected snippet, the matrix cursor */
	TUI_LOOK_DIM,      /* secondary text */
	TUI_LOOK_BOLD,
	TUI_LOOK_ON, /* a layer that is on */
	TUI_LOOK_OFF,
	TUI_LOOK_KEY,    /* a key name in the footer and help */
	TUI_LOOK_HELD,   /* the closed sandbox */
	TUI_LOOK_BREACH, /* the breached sandbox */
	TUI_LOOK_WARN,
};
void tui_colors_init(struct tui_state *st);
attr_t tui_attr(const struct tui_state *st, enum tui_look look);
void tui_draw(struct tui_state *st);
/* Draws s at y,x in at most w columns, never emitting a control character
 * or an invalid sequence. Returns the columns used. */
int tui_put(int y, int x, int w, const char *s, attr_t attr);
/* Word-wraps s into at most rows lines of w columns; returns lines used. */
int tui_wrap(int y, int x, int w, int rows, const char *s, attr_t attr);
int tui_text_width(const char *s);
void tui_fill(int y, int x, int w, attr_t attr);
void tui_frame(int y, int x, int h, int w, attr_t attr); /* a plain box outline */
int tui_count_lines(const char *text);                   /* a last line without \n counts */
attr_t tui_verdict_attr(const struct tui_state *st, enum lab_verdict v);
int tui_toggle_at(int y, int x); /* layer under a click, or -1 */
/* Decodes s into at most max safe wide characters (see tui_draw.c). */
int tui_safe_wide(const char *s, wchar_t *out, int max);
void tui_draw_big_row(int y, int x, const char *word, int row, attr_t attr);
int tui_big_width(const char *word);
void tui_format_duration(long ms, char *buf, size_t len);
char tui_spinner(const struct tui_state *st);

/* tui_pane.c: the code and result panes, each a scrollable list of rows */
void tui_rows_add(struct tui_rows *L, const char *gutter, const char *hang, attr_t gattr, const char *s, attr_t attr);
void tui_rows_printf(struct tui_rows *L, attr_t attr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tui_rows_blank(struct tui_rows *L);
void tui_rows_free(struct tui_rows *L);
void tui_view_label(const struct tui_view_pos *v, char *buf, size_t len); /* "12-30/84" */
/* Draws rows rows of L from v's top (clamped) at y,x. */
void tui_rows_draw(const struct tui_rows *L, struct tui_view_pos *v, int y, int x, int rows);
/* The rows of the result pane as it stands; returns the pane's name. */
const char *tui_result_rows(const struct tui_state *st, struct tui_rows *L);
/* y is the pane's header row; the content takes the rows below it. */
void tui_code_pane(struct tui_state *st, int y, int x, int w, int rows, bool focused);
void tui_result_pane(struct tui_state *st, int y, int x, int w, int rows, bool focused);
/* Predict mode is on and the selected snippet's answer is not on screen:
 * the code pane hides the lines that would give it away. */
bool tui_predict_hides(const struct tui_state *st);
/* Why this cell is not held with its layers on (the container rung's
 * shared kernel, No-network's price, the allow-list's door): a line into
 * buf, or NULL when the toggles explain it. */
const char *tui_why_line(const struct snippet *s, const struct lab_setup *setup, char *buf, size_t len);
int tui_snippet_at(const struct tui_state *st, int y, int x); /* or -1 */

/* tui_matrix.c */
unsigned tui_combo_mask(int col);
void tui_matrix_draw(struct tui_state *st, int top, int bottom);
bool tui_matrix_cell_at(const struct tui_state *st, int y, int x, int *row, int *col);

#endif /* TUI_INTERNAL */

#endif
