/* termpty.c — the caller's terminal during `exec`. The command never holds
 * it: when any of stdin, stdout, stderr is a terminal, each of those that
 * is gets the slave of a pty of the lab's instead (as script(1), ssh -t
 * and tmux do), made with the terminal's modes and window size. The lab
 * relays the bytes both ways and each resize of the window to the pty,
 * and puts stdin's terminal in raw mode for the run, so that what is
 * typed reaches the pty's own line discipline unchanged. Whatever the
 * command does to its terminal (stty, raw mode, TIOCSWINSZ, tostop,
 * TIOCSPGRP, TIOCEXCL, a line discipline, TCOOFF, a flush) happens to a
 * pty that goes away with the run.
 *
 * Why not pass the terminal through and put its state back afterwards,
 * which is less code:
 *  - it puts back only what the lab knows to save: modes and size, and
 *    then exclusive mode, the line discipline, flow control... every ioctl
 *    a terminal has is one more to think of; a pty is safe by
 *    construction, as nothing of the command's ever reaches the terminal;
 *  - the window size cannot be put back honestly: a resize by the user
 *    during the run and a TIOCSWINSZ by the command look the same (both
 *    end as SIGWINCH to the lab), so the old size would undo the user's;
 *  - the command's changes would show while it runs (a terminal stuck in
 *    -echo until it ends), and output it left stopped would stall the lab
 *    on its last words;
 *  - a command with a terminal of its own gets what any terminal gives:
 *    job control, Ctrl-C as SIGINT to it, SIGWINCH on a resize.
 * What the lab does change, it puts back however the run ends (the
 * command's exit, the wall clock, the safety net, a signal that aborts the
 * run all return through lab_exec, which calls term_close): stdin's modes
 * before raw mode. Only a SIGKILL of the lab itself leaves the terminal
 * raw (`stty sane` repairs it). The window size is never written to the
 * caller's terminal, and its foreground process group never changes: the
 * command's session is its own, with the pty as its terminal.
 *
 * The caller's fds are shared with the shell (one open file description),
 * so their O_NONBLOCK is not ours to set: a read takes only what FIONREAD
 * says is there and a write is small and follows POLLOUT, so the watch
 * loop never blocks on the terminal. The master is ours: non-blocking. */
#define _GNU_SOURCE
#include "termpty.h"

#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define OUT_CHUNK     512 /* the most written to the caller's terminal at once */
#define FLUSH_WAIT_MS 200 /* term_close's wait for the terminal to take the last output */

static volatile sig_atomic_t term_winched;

static void on_winch(int sig)
{
	(void)sig;
	term_winched = 1;
}

void term_init(struct term *t)
{
	memset(t, 0, sizeof *t);
	t->master = t->slave = t->in_fd = t->out_fd = -1;
	t->i_in = t->i_master = t->i_out = -1;
}

/* The caller's window size onto the pty; the kernel tells the command
 * (SIGWINCH to the pty's foreground group). */
static void copy_size(const struct term *t)
{
	struct winsize ws;
	if (ioctl(t->out_fd, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(t->master, TIOCSWINSZ, &ws);
}

/* The pty, its slave with the caller's modes. 0, or -errno with *what
 * naming the step. */
static int open_pty(struct term *t, const struct termios *modes, const char **what)
{
	*what = "/dev/ptmx";
	t->master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0 || grantpt(t->master) < 0 || unlockpt(t->master) < 0)
		return -errno;
	int e = ptsname_r(t->master, t->slave_name, sizeof t->slave_name);
	if (e)
		return -e;
	*what = t->slave_name;
	t->slave = open(t->slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->slave < 0 || tcsetattr(t->slave, TCSANOW, modes) < 0)
		return -errno;
	*what = "the pty's master";
	int fl = fcntl(t->master, F_GETFL);
	if (fl < 0 || fcntl(t->master, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Raw: every byte typed goes to the pty as it is (Ctrl-C too: the pty
 * makes it the command's SIGINT), and the pty's output, already \r\n,
 * reaches the screen untouched. */
static int go_raw(struct term *t)
{
	struct termios raw = t->saved;
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	while (tcsetattr(t->in_fd, TCSADRAIN, &raw) < 0)
		if (errno != EINTR)
			return -errno;
	t->raw = true;
	return 0;
}

int term_open(struct term *t, char *err, size_t cap)
{
	int first = -1;
	for (int fd = 0; fd < 3; fd++) {
		t->is_tty[fd] = isatty(fd);
		if (t->is_tty[fd] && first < 0)
			first = fd;
	}
	if (first < 0)
		return 0;
	t->in_fd = t->is_tty[0] ? 0 : -1;
	t->out_fd = t->is_tty[1] ? 1 : t->is_tty[2] ? 2 : 0;
	const char *what = "the terminal's modes";
	struct termios modes;
	int e = tcgetattr(first, &modes) < 0 ? -errno : open_pty(t, &modes, &what);
	if (e == 0 && t->in_fd >= 0) {
		what = "raw mode for the terminal";
		t->saved = modes;
		e = go_raw(t);
	}
	if (e < 0) {
		snprintf(err, cap,
		         "cannot give the command a terminal of the lab's (%s: %s): exec never hands it yours; run the "
		         "lab in the foreground, or with stdin, stdout and stderr away from the terminal "
		         "(</dev/null >out.txt 2>&1)",
		         what, strerror(-e));
		term_close(t);
		return -1;
	}
	struct sigaction sa = {.sa_handler = on_winch, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	term_winched = 0;
	sigaction(SIGWINCH, &sa, &t->old_winch);
	t->active = true;
	copy_size(t); /* after the handler: a resize from now on is not missed */
	return 0;
}

int term_child_stdio(const struct term *t)
{
	if (!t->active)
		return 0;
	for (int fd = 0; fd < 3; fd++)
		if (t->is_tty[fd] && dup2(t->slave, fd) < 0)
			return -errno;
	close(t->slave); /* the init keeps no copy: the command's side ends with the command */
	return 0;
}

int term_child_ctty(const struct term *t)
{
	for (int fd = 0; t->active && fd < 3; fd++)
		if (t->is_tty[fd])
			return ioctl(fd, TIOCSCTTY, 0) < 0 ? -errno : 0;
	return 0;
}

void term_started(struct term *t)
{
	if (t->slave >= 0)
		close(t->slave);
	t->slave = -1;
}

int term_poll(struct term *t, bool command_running, struct pollfd *pfd, int max)
{
	int n = 0;
	t->i_in = t->i_master = t->i_out = -1;
	if (!t->active || max < 3)
		return 0;
	if (term_winched) {
		term_winched = 0;
		copy_size(t);
	}
	if (command_running && !t->in_done && t->in_fd >= 0 && t->n_to_master < TERM_BUF)
		t->i_in = n, pfd[n++] = (struct pollfd){t->in_fd, POLLIN, 0};
	short ev = 0;
	if (!t->master_done && t->n_to_out < TERM_BUF)
		ev |= POLLIN;
	if (!t->master_done && t->n_to_master)
		ev |= POLLOUT;
	if (ev)
		t->i_master = n, pfd[n++] = (struct pollfd){t->master, ev, 0};
	if (t->n_to_out)
		t->i_out = n, pfd[n++] = (struct pollfd){t->out_fd, POLLOUT, 0};
	return n;
}

static void consume(char *buf, size_t *len, size_t n)
{
	memmove(buf, buf + n, *len - n);
	*len -= n;
}

/* What is typed, as far as it is there: never a read that could wait
 * (another process of the shell's group may have taken it first). */
static void read_typed(struct term *t, short revents)
{
	int avail = 0;
	if (ioctl(t->in_fd, FIONREAD, &avail) < 0 || avail <= 0) {
		if (revents & (POLLHUP | POLLERR | POLLNVAL))
			t->in_done = true; /* hung up */
		return;
	}
	size_t room = TERM_BUF - t->n_to_master, want = (size_t)avail < room ? (size_t)avail : room;
	ssize_t n = read(t->in_fd, t->to_master + t->n_to_master, want);
	if (n > 0)
		t->n_to_master += (size_t)n;
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		t->in_done = true;
}

static void send_typed(struct term *t)
{
	if (!t->n_to_master || t->master_done)
		return;
	ssize_t n = write(t->master, t->to_master, t->n_to_master);
	if (n > 0)
		consume(t->to_master, &t->n_to_master, (size_t)n);
	else if (n < 0 && errno != EINTR && errno != EAGAIN)
		t->n_to_master = 0; /* the command's side is gone: what was typed for it goes too */
}

/* EIO once every slave fd is closed and all it wrote was read. */
static void from_master(struct term *t)
{
	if (t->master_done || t->n_to_out == TERM_BUF)
		return;
	ssize_t n = read(t->master, t->to_out + t->n_to_out, TERM_BUF - t->n_to_out);
	if (n > 0)
		t->n_to_out += (size_t)n;
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		t->master_done = true;
}

static void write_out(struct term *t)
{
	size_t len = t->n_to_out < OUT_CHUNK ? t->n_to_out : OUT_CHUNK;
	ssize_t n = write(t->out_fd, t->to_out, len);
	if (n > 0)
		consume(t->to_out, &t->n_to_out, (size_t)n);
	else if (n < 0 && errno != EINTR && errno != EAGAIN)
		t->n_to_out = 0; /* the terminal is gone: nobody to show it to */
}

void term_ready(struct term *t, const struct pollfd *pfd)
{
	if (t->i_in >= 0 && pfd[t->i_in].revents)
		read_typed(t, pfd[t->i_in].revents);
	if (t->i_master >= 0 && pfd[t->i_master].revents)
		from_master(t);
	send_typed(t);
	if (t->i_out >= 0 && pfd[t->i_out].revents)
		write_out(t);
}

bool term_drained(const struct term *t)
{
	return !t->active || (t->master_done && !t->n_to_out);
}

/* The command's last output, still in the pty or in our buffer: every
 * process of the run is gone by now, so the master holds all there is.
 * A terminal that takes nothing (stopped by ^S) is not waited on long. */
static void flush_out(struct term *t)
{
	long end = monotonic_ms() + FLUSH_WAIT_MS;
	for (long now = monotonic_ms(); now < end; now = monotonic_ms()) {
		from_master(t);
		if (!t->n_to_out)
			return;
		struct pollfd p = {t->out_fd, POLLOUT, 0};
		if (poll(&p, 1, (int)(end - now)) > 0)
			write_out(t);
	}
}

/* TCSADRAIN: after what the lab wrote, before what is typed next. A
 * terminal that hung up has nothing to put back. */
static void put_back(struct term *t)
{
	int rc;
	while ((rc = tcsetattr(t->in_fd, TCSADRAIN, &t->saved)) < 0 && errno == EINTR)
		;
	if (rc < 0 && errno != EIO && errno != ENOTTY)
		fprintf(stderr, "containment-lab: cannot put the terminal's modes back (%s): run `stty sane`\n",
		        strerror(errno));
	t->raw = false;
}

void term_close(struct term *t)
{
	if (t->active) {
		flush_out(t);
		sigaction(SIGWINCH, &t->old_winch, NULL);
	}
	if (t->raw)
		put_back(t);
	if (t->master >= 0)
		close(t->master);
	term_started(t);
	t->master = -1;
	t->active = false;
}
