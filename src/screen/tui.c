/* tui.c — the lab screen's engine room: terminal set-up and teardown, the one
 * event loop (poll on the keyboard and every running job, repaint from the
 * state), and what the screen runs: one snippet's job, or the matrix through
 * the shared runner (matrix.c), whose workers the loop polls.
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
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "tui.h"

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

static void run_clear(struct tui_run *r)
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
		run_clear(&st->runs[i]);
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

static void finish_single(struct tui_state *st)
{
	int i = st->job.snippet_index;
	struct tui_run *r = &st->runs[i];

	run_clear(r);
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
	crash_pids_update(st);
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
	crash_pids_update(st);
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
					finish_single(st);
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

/* ------------------------------------------------------- the snippets */

/* The lab's snippets, then the user's own (marked yours), each with its
 * code made inert for drawing, a result slot and the matrix's guesses.
 * A user folder that is refused is reported in note; the lab's folder
 * failing is an error (-1, err). */
static int snippets_load(struct tui_state *st, char *err, size_t errlen, char *note, size_t notelen)
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

static void snippets_unload(struct tui_state *st)
{
	for (int k = 0; k < st->n_snips; k++) {
		if (st->runs)
			run_clear(&st->runs[k]);
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

/* After e: the list again, with the edited file as it is now. Results of
 * the other snippets stay; the matrix starts over (its rows changed).
 * Returns the edited file's index, or -1 (why in the footer). */
static int snippets_reload(struct tui_state *st, const char *edited)
{
	struct tui_state old = *st;
	struct matrix fresh;
	char err[512], note[512];
	int n, i, j, found = -1;

	st->snips = NULL;
	n = snippets_load(st, err, sizeof err, note, sizeof note);
	if (n < 0 || matrix_init(&fresh, st->cfg, &st->setup, st->snips, n, old.mx.max_jobs) < 0) {
		if (n >= 0)
			snippets_unload(st);
		*st = old;
		tui_message(st, "could not list the snippets again: %s", n < 0 ? err : "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(st->snips[i].path, edited))
			found = i;
		for (j = 0; j < old.n_snips && strcmp(st->snips[i].path, edited) != 0; j++) {
			if (strcmp(old.snips[j].path, st->snips[i].path) != 0 || !old.runs[j].have)
				continue;
			st->runs[i] = old.runs[j];
			memset(&old.runs[j], 0, sizeof old.runs[j]);
			break;
		}
	}
	matrix_free(&old.mx);
	st->mx = fresh;
	st->mx_started = false;
	st->mx_row = 0;
	snippets_unload(&old);
	if (note[0])
		tui_message(st, "%s", note);
	return found;
}

/* The selected snippet's bytes, as read, into name in the user's folder
 * (dfd), never over a file that is there: the user's earlier edits are
 * theirs. What is there must be a regular file (not a symlink planted
 * where the copy goes), the user's, and writable by nobody else, or the
 * editor would be opened on someone else's file. 1 = made, 0 = was there,
 * -1 with why. */
static int copy_snippet(const struct snippet *s, int dfd, const char *name, char *why, size_t why_len)
{
	struct stat st;
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	int rc = 1;

	if (fd < 0 && errno == EEXIST) {
		const char *bad = NULL;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			bad = strerror(errno);
		else if (!S_ISREG(st.st_mode))
			bad = S_ISLNK(st.st_mode) ? "a symlink is there" : "it is not a regular file";
		else if (st.st_uid != geteuid())
			bad = "another user owns it";
		else if (st.st_mode & (S_IWGRP | S_IWOTH))
			bad = "others may write to it";
		if (!bad)
			return 0;
		snprintf(why, why_len, "%s: %s", name, bad);
		return -1;
	}
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", name, strerror(errno));
		return -1;
	}
	if (write_all(fd, s->code, strlen(s->code)) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 1)
		rc = -errno;
	if (rc < 0) {
		snprintf(why, why_len, "%s: %s", name, strerror(-rc));
		unlinkat(dfd, name, 0);
		return -1;
	}
	return 1;
}

/* Where e puts the selected snippet: dest (the listed path, to find it
 * again) and edit (the same file through the resolved folder, for the
 * editor). The folder and the file are checked as snippet_user_dir_open
 * and copy_snippet say. 1 = copied, 0 = was there, -1 with why. */
static int place_for_edit(const struct tui_state *st, const struct snippet *s, char *dest, char *edit, size_t len,
                          char *why, size_t why_len)
{
	char canon[PATH_MAX], name[NAME_MAX + 1];
	const char *base = strrchr(s->path, '/');

	if (s->yours)
		str_copy(name, sizeof name, base ? base + 1 : s->path);
	else if (snprintf(name, sizeof name, "%s.py", s->name) >= (int)sizeof name)
		return snprintf(why, why_len, "%s.py: %s", s->name, strerror(ENAMETOOLONG)), -1;
	int dfd = snippet_user_dir_open(st->user_dir, canon, sizeof canon, why, why_len);
	if (dfd < 0)
		return -1;
	int rc = copy_snippet(s, dfd, name, why, why_len);
	close(dfd);
	if (rc >= 0 &&
	    (pathf(dest, len, "%s/%s", st->user_dir, name) < 0 || pathf(edit, len, "%s/%s", canon, name) < 0)) {
		snprintf(why, why_len, "%s: %s", name, strerror(ENAMETOOLONG));
		return -1;
	}
	return rc;
}

/* Hands the terminal to $EDITOR (vi without one) on path and takes it back.
 * Like system(): we ignore SIGINT/SIGQUIT while the editor has the
 * terminal (its Ctrl-C is its own), and the child gets default handlers.
 * Returns the editor's wait status, or -errno. */
static int run_editor(const char *path)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	const char *ed = getenv("EDITOR");
	int status = 0;
	pid_t pid;

	def_prog_mode();
	endwin();
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0)
		status = -errno;
	if (pid == 0) {
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		if (!ed || !*ed)
			setenv("EDITOR", "vi", 1);
		/* through sh: EDITOR may carry arguments ("code -w") */
		execl("/bin/sh", "sh", "-c", "exec $EDITOR \"$1\"", "sh", path, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	/* the terminal back, at whatever size it has now (a SIGWINCH while
	 * the editor had it reached nobody) */
	reset_prog_mode();
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col &&
	    (ws.ws_row != LINES || ws.ws_col != COLS))
		resizeterm(ws.ws_row, ws.ws_col);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	curs_set(0);
	clearok(curscr, TRUE);
	return status;
}

void tui_edit_selected(struct tui_state *st)
{
	const struct snippet *s = &st->snips[st->sel];
	char dest[PATH_MAX], edit[PATH_MAX], why[PATH_MAX + 64];
	int rc, status, i;

	if (tui_busy(st)) {
		tui_message(st, "a run is going: wait, or press a to abort it, then press e");
		return;
	}
	if (!st->user_dir[0]) {
		tui_message(st, "nowhere to keep your snippet: set HOME or XDG_DATA_HOME");
		return;
	}
	/* no editor on a file or folder someone else could have put there */
	if ((rc = place_for_edit(st, s, dest, edit, sizeof dest, why, sizeof why)) < 0) {
		tui_message(st, "not edited (%s); use a folder of your own: chmod go-w it, or set XDG_DATA_HOME", why);
		return;
	}
	status = run_editor(edit);
	i = snippets_reload(st, dest);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		tui_message(st, "the editor ($EDITOR, else vi) did not end well (%s %d); %s is kept as it is",
		            status < 0 ? "error" : "status", status < 0 ? -status : WEXITSTATUS(status), dest);
		if (i >= 0)
			st->sel = i;
		return;
	}
	if (i < 0) {
		struct snippet tmp;
		char err[512];

		if (snippet_load(&tmp, dest, err, sizeof err) < 0)
			tui_message(st, "your snippet is not listed: %s", err);
		else
			tui_message(st, "your snippet is not listed: %s may not be trusted", st->user_dir);
		snippet_free(&tmp);
		return;
	}
	st->sel = i;
	st->code_view = (struct tui_view_pos){.top = TUI_TOP_START};
	st->res_view = (struct tui_view_pos){0};
	tui_message(st, "%s: yours, in %s%s", st->snips[i].name, st->user_dir,
	            rc == 0 && !s->yours ? " (your earlier copy)" : "");
	if (st->predict)
		tui_predict_then_run(st);
	else
		tui_run_selected(st);
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
	st.predict = predict;
	st.code_view.top = TUI_TOP_START;
	err[0] = '\0';
	if (snippet_user_dir(st.user_dir, sizeof st.user_dir) < 0)
		st.user_dir[0] = '\0';
	n = snippets_load(&st, err, sizeof err, note, sizeof note);
	if (n < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		snippets_unload(&st);
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
		snippets_unload(&st);
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
	snippets_unload(&st);
	tui_guess_locks_free(&st);
	(void)k;
	return rc;
}
