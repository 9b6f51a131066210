/* tui.c — the lab screen's engine room: terminal set-up and teardown, the one
 * event loop (poll on the keyboard and every running job, repaint from the
 * state), and the jobs the screen runs (one snippet, or the 80-cell matrix).
 *
 * Ordering constraints:
 *  - our SIGINT/SIGTERM/SIGHUP handlers go in before initscr(), so ncurses
 *    keeps them (it only installs its own where the disposition is default);
 *  - the terminal is restored on every way out: the loop's end, atexit() for
 *    an exit() from deep inside, and a fatal-signal handler that only uses
 *    async-signal-safe calls (tcsetattr, write, kill) before re-raising;
 *  - every job is aborted and freed before endwin(), so no sandbox outlives
 *    the screen. */
#define TUI_INTERNAL
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <term.h>

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "tui.h"

static volatile sig_atomic_t quit_signal;
static struct tui_state *live_state;     /* for atexit and the crash path */
static bool curses_on;
static struct termios saved_tty;
static bool saved_tty_ok;
/* Terminal strings fetched while it is safe, written from the crash path. */
static char crash_restore[256];
static size_t crash_restore_len;
static volatile pid_t crash_pids[1 + TUI_MATRIX_JOBS_MAX];
static pid_t tui_pid;   /* workers inherit the handler: only we own the tty */

static void on_quit_signal(int sig)
{
	quit_signal = sig;
}

static void crash_append(const char *s)
{
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (crash_restore_len + n >= sizeof crash_restore)
		return;
	memcpy(crash_restore + crash_restore_len, s, n);
	crash_restore_len += n;
}

/* Async-signal-safe: put the tty back the way we found it, tell the workers
 * to stop (they tear their sandboxes down), then die of the same signal. */
static void on_crash_signal(int sig)
{
	size_t i;

	if (getpid() != tui_pid) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	for (i = 0; i < sizeof crash_pids / sizeof crash_pids[0]; i++)
		if (crash_pids[i] > 0)
			kill(crash_pids[i], SIGTERM);
	if (crash_restore_len)
		(void)!write(STDOUT_FILENO, crash_restore, crash_restore_len);
	if (saved_tty_ok)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void crash_pids_update(const struct tui_state *st)
{
	int i;

	crash_pids[0] = st->job_live ? st->job.pid : 0;
	for (i = 0; i < TUI_MATRIX_JOBS_MAX; i++)
		crash_pids[1 + i] = st->mjob_cell[i] >= 0 ? st->mjobs[i].pid : 0;
}

static void install_signals(void)
{
	static const int quit_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit_signal;
	for (i = 0; i < sizeof quit_sigs / sizeof quit_sigs[0]; i++)
		sigaction(quit_sigs[i], &sa, NULL);
	/* Leave a sanitizer's handlers alone: its report matters more. */
	sa.sa_handler = on_crash_signal;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof crash_sigs / sizeof crash_sigs[0]; i++)
		if (sigaction(crash_sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(crash_sigs[i], &sa, NULL);
}

/* ---------------------------------------------------------------- jobs */

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
	return st->job_live || st->mx_running;
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
		nl = memchr(p, '\n', len < 1024 ? len : 1024);
		if (nl && (size_t)(nl + 1 - p) < len) {
			*skipped += (size_t)(nl + 1 - p);
			len -= (size_t)(nl + 1 - p);
			p = nl + 1;
		}
	}
	return sanitize_output(p, len, TUI_OUTPUT_TAIL * 4);
}

static void run_clear(struct tui_run *r)
{
	if (!r->have)
		return;
	free(r->out_text);
	result_free(&r->res);
	memset(r, 0, sizeof *r);
}

static void finish_single(struct tui_state *st)
{
	int i = st->job.snippet_index;
	struct tui_run *r = &st->runs[i];

	run_clear(r);
	r->out_text = output_tail(&st->job.res, &r->out_skipped);
	take_result(&r->res, &st->job);
	r->have = true;
	job_free(&st->job);
	st->job_live = false;
	crash_pids_update(st);
}

void tui_run_selected(struct tui_state *st)
{
	int rc;

	if (st->job_live) {
		tui_message(st, "%s is still running: wait, or press a to abort it",
			    st->snips[st->job.snippet_index].name);
		return;
	}
	if (st->mx_running) {
		tui_message(st, "the matrix is running: wait, or press a to abort it");
		return;
	}
	rc = job_start(&st->job, st->cfg, &st->snips[st->sel], st->layers);
	if (rc < 0) {
		tui_message(st, "could not start %s: %s", st->snips[st->sel].name,
			    strerror(-rc));
		return;
	}
	st->job.snippet_index = st->sel;
	st->job_live = true;
	crash_pids_update(st);
}

static void matrix_clear(struct tui_state *st)
{
	int i;

	for (i = 0; i < st->n_snips * TUI_COMBOS; i++) {
		if (st->cells[i].state == TUI_CELL_DONE)
			result_free(&st->cells[i].res);
		memset(&st->cells[i], 0, sizeof st->cells[i]);
	}
}

/* Cells are started column by column (all layers on first), so the
 * teaching column fills in before the rest. */
static int matrix_cell_of(const struct tui_state *st, int seq)
{
	int col = seq / st->n_snips, row = seq % st->n_snips;

	return row * TUI_COMBOS + col;
}

static void matrix_count_done(struct tui_state *st)
{
	st->mx_done++;
	if (st->mx_done >= st->mx_total) {
		st->mx_running = false;
		st->mx_t1 = monotonic_ms();
	}
}

static void matrix_fill(struct tui_state *st)
{
	int k, rc, cell, row, col;
	struct tui_cell *c;

	for (k = 0; k < st->mx_slots && st->mx_next < st->mx_total; k++) {
		if (st->mjob_cell[k] >= 0)
			continue;
		cell = matrix_cell_of(st, st->mx_next++);
		row = cell / TUI_COMBOS;
		col = cell % TUI_COMBOS;
		c = &st->cells[cell];
		rc = job_start(&st->mjobs[k], st->cfg, &st->snips[row], tui_combo_mask(col));
		if (rc < 0) {
			c->state = TUI_CELL_DONE;
			c->res.verdict = VERDICT_ERROR;
			c->res.caught_by = -1;
			c->res.layers = tui_combo_mask(col);
			snprintf(c->res.headline, sizeof c->res.headline,
				 "the lab could not start this cell: %s", strerror(-rc));
			c->mismatch = true;
			matrix_count_done(st);
			k--;    /* try this slot again with the next cell */
			continue;
		}
		st->mjobs[k].snippet_index = row;
		st->mjob_cell[k] = cell;
		c->state = TUI_CELL_RUNNING;
		c->started_ms = st->mjobs[k].started_ms;
	}
	crash_pids_update(st);
}

static void finish_matrix_job(struct tui_state *st, int k)
{
	int cell = st->mjob_cell[k];
	struct tui_cell *c = &st->cells[cell];

	take_result(&c->res, &st->mjobs[k]);
	c->state = TUI_CELL_DONE;
	c->mismatch = c->res.verdict != c->expected && !c->res.ev.aborted;
	job_free(&st->mjobs[k]);
	st->mjob_cell[k] = -1;
	matrix_count_done(st);
	matrix_fill(st);
}

void tui_matrix_start(struct tui_state *st)
{
	int i;

	if (st->job_live) {
		tui_message(st, "%s is still running: wait, or press a to abort it",
			    st->snips[st->job.snippet_index].name);
		return;
	}
	if (st->mx_running) {
		tui_message(st, "the matrix is already running (a aborts it)");
		return;
	}
	matrix_clear(st);
	for (i = 0; i < st->n_snips * TUI_COMBOS; i++)
		st->cells[i].expected = verdict_expected(&st->snips[i / TUI_COMBOS],
							 tui_combo_mask(i % TUI_COMBOS));
	st->mx_started = true;
	st->mx_running = true;
	st->mx_aborted = false;
	st->mx_next = 0;
	st->mx_done = 0;
	st->mx_total = st->n_snips * TUI_COMBOS;
	st->mx_t0 = monotonic_ms();
	st->mx_t1 = 0;
	matrix_fill(st);
}

void tui_abort(struct tui_state *st)
{
	int k, seq, cell;
	bool any = false;

	if (st->job_live) {
		job_abort(&st->job);
		any = true;
	}
	if (st->mx_running) {
		/* Cells never started are skipped; running ones come back aborted. */
		for (seq = st->mx_next; seq < st->mx_total; seq++) {
			cell = matrix_cell_of(st, seq);
			st->cells[cell].state = TUI_CELL_SKIPPED;
			st->mx_done++;
		}
		st->mx_next = st->mx_total;
		st->mx_aborted = true;
		for (k = 0; k < st->mx_slots; k++)
			if (st->mjob_cell[k] >= 0)
				job_abort(&st->mjobs[k]);
		if (st->mx_done >= st->mx_total) {
			st->mx_running = false;
			st->mx_t1 = monotonic_ms();
		}
		any = true;
	}
	if (any)
		tui_message(st, "aborting: the sandbox is being killed and cleaned up");
	else
		tui_message(st, "nothing is running");
}

/* Aborts and reaps everything: no sandbox may outlive the screen. */
static void jobs_teardown(struct tui_state *st)
{
	int k;

	if (st->job_live) {
		job_abort(&st->job);
		job_free(&st->job);
		st->job_live = false;
	}
	for (k = 0; k < TUI_MATRIX_JOBS_MAX; k++) {
		if (st->mjob_cell[k] >= 0) {
			job_abort(&st->mjobs[k]);
			job_free(&st->mjobs[k]);
			st->mjob_cell[k] = -1;
		}
	}
	st->mx_running = false;
	crash_pids_update(st);
}

/* --------------------------------------------------------- the terminal */

static void curses_stop(void)
{
	if (!curses_on)
		return;
	mousemask(0, NULL);
	curs_set(1);
	endwin();
	curses_on = false;
}

static void at_exit(void)
{
	if (getpid() != tui_pid)
		return;         /* a worker that called exit(): not our terminal */
	if (live_state)
		jobs_teardown(live_state);
	curses_stop();
}

static void curses_start(struct tui_state *st)
{
	initscr();
	curses_on = true;
	cbreak();       /* not raw(): Ctrl-C must still raise SIGINT */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(30);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	tui_colors_init(st);

	crash_restore_len = 0;
	crash_append(tigetstr("sgr0"));
	crash_append(tigetstr("cnorm"));
	crash_append(tigetstr("rmcup"));
	if (has_mouse())
		crash_append("\033[?1000l\033[?1002l\033[?1006l");
}

static void pump(struct tui_state *st, struct job *j, bool *done)
{
	int r = job_pump(j, &st->snips[j->snippet_index], st->cfg);

	*done = r != 0;
}

static int event_loop(struct tui_state *st)
{
	struct pollfd pfd[2 + TUI_MATRIX_JOBS_MAX];
	int owner[2 + TUI_MATRIX_JOBS_MAX];   /* -1 stdin, -2 single, k matrix */
	bool dirty = true, done;
	int n, i, r, ch, flags, timeout;

	while (!quit_signal) {
		st->now_ms = monotonic_ms();
		if (st->msg[0] && st->now_ms >= st->msg_until) {
			st->msg[0] = '\0';
			dirty = true;
		}
		if (dirty) {
			tui_draw(st);
			dirty = false;
		}

		n = 0;
		pfd[n].fd = STDIN_FILENO;
		pfd[n].events = POLLIN;
		owner[n++] = -1;
		if (st->job_live && st->job.fd >= 0) {
			pfd[n].fd = st->job.fd;
			pfd[n].events = POLLIN;
			owner[n++] = -2;
		}
		for (i = 0; i < TUI_MATRIX_JOBS_MAX; i++) {
			if (st->mjob_cell[i] < 0 || st->mjobs[i].fd < 0)
				continue;
			pfd[n].fd = st->mjobs[i].fd;
			pfd[n].events = POLLIN;
			owner[n++] = i;
		}
		timeout = tui_busy(st) ? 100 : st->msg[0] ? 250 : 1000;
		r = poll(pfd, (nfds_t)n, timeout);
		if (r < 0 && errno != EINTR) {
			jobs_teardown(st);
			curses_stop();
			fprintf(stderr, "containment-lab: poll: %s\n", strerror(errno));
			return 1;
		}
		st->now_ms = monotonic_ms();
		/* The terminal went away: nobody to show anything to. */
		if (r > 0 && (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) &&
		    !(pfd[0].revents & POLLIN))
			return 1;

		for (i = 1; r > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (owner[i] == -2) {
				pump(st, &st->job, &done);
				if (done)
					finish_single(st);
			} else {
				pump(st, &st->mjobs[owner[i]], &done);
				if (done)
					finish_matrix_job(st, owner[i]);
			}
			dirty = true;
		}

		/* Always drain: a SIGWINCH interrupts poll and surfaces here as
		 * KEY_RESIZE. */
		while ((ch = getch()) != ERR) {
			if (ch == KEY_RESIZE) {
				dirty = true;
				continue;
			}
			flags = tui_key_dispatch(st, ch);
			if (flags & TUI_QUIT)
				return 0;
			if (flags & (TUI_REDRAW | TUI_HANDLED))
				dirty = true;
		}
		if (tui_busy(st))
			dirty = true;   /* elapsed time, spinner */
	}
	return 0;
}

int tui_main(const struct lab_config *cfg)
{
	static struct tui_state st;
	char err[512];
	long ncpu;
	int n, l, k, rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "containment-lab: the lab screen needs a terminal; use "
			"'containment-lab run NAME' or 'containment-lab matrix' instead\n");
		return 2;
	}
	setlocale(LC_ALL, "");

	memset(&st, 0, sizeof st);
	st.cfg = cfg;
	st.job.fd = -1;
	for (k = 0; k < TUI_MATRIX_JOBS_MAX; k++) {
		st.mjob_cell[k] = -1;
		st.mjobs[k].fd = -1;
	}
	err[0] = '\0';
	n = snippet_discover(cfg->snippets_dir, &st.snips, err, sizeof err);
	if (n < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		return 1;
	}
	if (n == 0) {
		fprintf(stderr, "containment-lab: no snippets (*.py) in %s: set "
			"[paths] snippets in layers.ini or pass --config FILE\n",
			cfg->snippets_dir);
		free(st.snips);
		return 1;
	}
	st.n_snips = n;
	st.runs = calloc((size_t)n, sizeof *st.runs);
	st.cells = calloc((size_t)n * TUI_COMBOS, sizeof *st.cells);
	if (!st.runs || !st.cells) {
		fprintf(stderr, "containment-lab: out of memory\n");
		free(st.runs);
		free(st.cells);
		snippets_free(st.snips, n);
		return 1;
	}
	/* A teacher's snippet file is text from outside too: drawn sanitised. */
	st.code = calloc((size_t)n, sizeof *st.code);
	st.code_lines = calloc((size_t)n, sizeof *st.code_lines);
	for (k = 0; st.code && st.code_lines && k < n; k++) {
		const char *c = st.snips[k].code ? st.snips[k].code : "";

		st.code[k] = sanitize_output(c, strlen(c), strlen(c) * 4 + 16);
		st.code_lines[k] = tui_count_lines(st.code[k]);
	}
	if (!st.code || !st.code_lines) {
		fprintf(stderr, "containment-lab: out of memory\n");
		return 1;
	}
	for (l = 0; l < LAYER_COUNT; l++)
		if (cfg->layer_default[l])
			st.layers |= LAYER_BIT(l);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	st.mx_slots = ncpu < 1 ? 1 : ncpu > TUI_MATRIX_JOBS_MAX ? TUI_MATRIX_JOBS_MAX : (int)ncpu;

	if (tcgetattr(STDIN_FILENO, &saved_tty) == 0)
		saved_tty_ok = true;
	tui_pid = getpid();
	install_signals();
	live_state = &st;
	atexit(at_exit);
	curses_start(&st);

	rc = event_loop(&st);

	jobs_teardown(&st);
	curses_stop();
	live_state = NULL;
	if (quit_signal == SIGINT || quit_signal == SIGTERM || quit_signal == SIGHUP)
		rc = 128 + quit_signal;

	for (k = 0; k < n; k++)
		run_clear(&st.runs[k]);
	matrix_clear(&st);
	for (k = 0; st.code && k < n; k++)
		free(st.code[k]);
	free(st.code);
	free(st.code_lines);
	free(st.runs);
	free(st.cells);
	snippets_free(st.snips, n);
	return rc;
}
