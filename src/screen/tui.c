/* tui.c — the lab screen's engine room, the top of its layers: terminal
 * set-up and teardown, and the one event loop (poll on the keyboard and
 * every running job: the single run, the matrix runner's workers, the
 * audit card's step; repaint from the state). What the screen runs is
 * started in tui_jobs.c; the loop pumps it and hands its end back there.
 *
 * Ordering constraints:
 *  - our SIGINT/SIGTERM/SIGHUP handlers go in before initscr(), so ncurses
 *    keeps them (it only installs its own where the disposition is default);
 *  - the terminal is restored on every way out: the loop's end, atexit() for
 *    an exit() from deep inside, and a fatal-signal handler that only uses
 *    async-signal-safe calls (tcsetattr, write, kill) before re-raising;
 *  - every job is aborted and freed before endwin(), so no sandbox outlives
 *    the screen. */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <term.h>

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "tui.h"
#include "tui_audit.h"
#include "tui_draw.h"
#include "tui_jobs.h"
#include "tui_keys.h"
#include "tui_look.h"
#include "tui_predict.h"
#include "tui_state.h"
#include "tui_tour.h"

static volatile sig_atomic_t quit_signal;
static struct tui_state *live_state; /* for atexit and the crash path */
static bool curses_on;
static struct termios saved_tty;
static bool saved_tty_ok;
/* Terminal strings fetched while it is safe, written from the crash path. */
static char crash_restore[256];
static size_t crash_restore_len;
static volatile pid_t crash_pids[2 + TUI_MATRIX_JOBS_MAX]; /* the single run, the matrix's, the audit's */
static pid_t tui_pid;                                      /* workers inherit the handler: only we own the tty */

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

	pid_t mx[TUI_MATRIX_JOBS_MAX];
	int n = matrix_pids(&st->mx, mx, TUI_MATRIX_JOBS_MAX);

	crash_pids[0] = st->job_live ? st->job.pid : 0;
	for (i = 0; i < TUI_MATRIX_JOBS_MAX; i++)
		crash_pids[1 + i] = i < n ? mx[i] : 0;
	crash_pids[1 + TUI_MATRIX_JOBS_MAX] = st->audit.live ? st->audit.job.pid : 0;
}

static void install_signals(void)
{
	static const int quit_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	static const int crash_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
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

/* Aborts and reaps everything: no sandbox may outlive the screen. Every
 * worker is stopped before any is waited for (matrix_halt does the same
 * for its own), so quitting takes one grace period, not one per stuck
 * worker. */
static void jobs_teardown(struct tui_state *st)
{
	if (st->job_live)
		job_stop(&st->job);
	if (st->audit.live)
		job_stop(&st->audit.job);
	matrix_halt(&st->mx);
	tui_audit_free(st);
	if (st->job_live) {
		job_free(&st->job);
		st->job_live = false;
	}
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
		return; /* a worker that called exit(): not our terminal */
	if (live_state)
		jobs_teardown(live_state);
	curses_stop();
}

static void curses_start(struct tui_state *st)
{
	initscr();
	curses_on = true;
	cbreak(); /* not raw(): Ctrl-C must still raise SIGINT */
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
	struct pollfd pfd[3 + TUI_MATRIX_JOBS_MAX];
	int owner[3 + TUI_MATRIX_JOBS_MAX]; /* -1 stdin, -2 single, -3 matrix, -4 audit */
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
		for (i = matrix_fds(&st->mx, pfd + n, TUI_MATRIX_JOBS_MAX); i > 0; i--)
			owner[n++] = -3;
		if (tui_audit_fd(st) >= 0) {
			pfd[n].fd = tui_audit_fd(st);
			pfd[n].events = POLLIN;
			owner[n++] = -4;
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
		if (r > 0 && (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) && !(pfd[0].revents & POLLIN))
			return 1;

		for (i = 1; r > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (owner[i] == -2) {
				pump(st, &st->job, &done);
				if (done)
					tui_run_finished(st);
			} else if (owner[i] == -4) {
				tui_audit_ready(st);
				crash_pids_update(st);
			} else if (matrix_on_ready(&st->mx, pfd[i].fd) == 1) {
				crash_pids_update(st);
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
			dirty = true; /* elapsed time, spinner */
	}
	return 0;
}

int tui_main(const struct lab_config *cfg, const struct lab_setup *setup, bool predict, bool tour)
{
	static struct tui_state st;
	char err[512], note[512];
	long ncpu;
	int n, k, rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "containment-lab: the lab screen needs a terminal; use "
		                "'containment-lab run NAME' or 'containment-lab matrix' instead\n");
		return 2;
	}
	setlocale(LC_ALL, "");

	memset(&st, 0, sizeof st);
	st.cfg = cfg;
	st.setup = *setup; /* the toggles, r and n change it */
	st.job.fd = -1;
	st.job_guess = -1;
	st.jobs_changed = crash_pids_update; /* the jobs (tui_jobs.c) say when the pids change */
	st.predict = predict;
	st.code_view.top = TUI_TOP_START;
	err[0] = '\0';
	if (snippet_user_dir(st.user_dir, sizeof st.user_dir) < 0)
		st.user_dir[0] = '\0';
	n = tui_snippets_load(&st, err, sizeof err, note, sizeof note);
	if (n < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		tui_snippets_unload(&st);
		return 1;
	}
	if (note[0])
		tui_message(&st, "%s", note);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (matrix_init(&st.mx, cfg, &st.setup, st.snips, n,
	                ncpu < 1                     ? 1
	                : ncpu > TUI_MATRIX_JOBS_MAX ? TUI_MATRIX_JOBS_MAX
	                                             : (int)ncpu) < 0) {
		fprintf(stderr, "containment-lab: out of memory\n");
		tui_snippets_unload(&st);
		return 1;
	}

	if (tcgetattr(STDIN_FILENO, &saved_tty) == 0)
		saved_tty_ok = true;
	tui_pid = getpid();
	install_signals();
	live_state = &st;
	atexit(at_exit);
	curses_start(&st);
	if (tour)
		tui_tour_start(&st);

	rc = event_loop(&st);

	jobs_teardown(&st);
	curses_stop();
	live_state = NULL;
	if (quit_signal == SIGINT || quit_signal == SIGTERM || quit_signal == SIGHUP)
		rc = 128 + quit_signal;

	matrix_free(&st.mx);
	tui_snippets_unload(&st);
	tui_guess_locks_free(&st);
	(void)k;
	return rc;
}
