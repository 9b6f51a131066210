/* tui_edit.c — e: your own attack. The selected snippet is copied to the
 * user's folder (never over a file someone else could have put there),
 * the terminal is handed to $EDITOR and taken back, the list is read again
 * and the edited snippet runs (asked first in predict mode). */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui_edit.h"
#include "tui_jobs.h"
#include "tui_state.h"

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
	n = tui_snippets_load(st, err, sizeof err, note, sizeof note);
	if (n < 0 || matrix_init(&fresh, st->cfg, &st->setup, st->snips, n, old.mx.max_jobs) < 0) {
		if (n >= 0)
			tui_snippets_unload(st);
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
	tui_snippets_unload(&old);
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
