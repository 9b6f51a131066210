/* termpty.h — the caller's terminal during `exec`: the command gets a pty of
 * the lab's, never the terminal itself (termpty.c says why). Internal to the
 * engine.
 *
 * Life cycle:
 *   term_init (run_init: nothing open) -> term_open (lab, before the box
 *   starts: the pty, stdin's terminal raw) -> in the child,
 *   term_child_stdio (the pty's slave in place of each terminal fd) and
 *   term_child_ctty (after setsid: the pty is the session's terminal) ->
 *   term_started (lab: its own copy of the slave goes) -> term_poll /
 *   term_ready in the watch loop (bytes both ways, the window size) ->
 *   term_close (lab, however the run ended: the terminal's modes back). */
#ifndef LAB_TERM_H
#define LAB_TERM_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

#define TERM_BUF 4096

struct term {
	bool active;    /* some of stdin, stdout, stderr is a terminal */
	bool is_tty[3]; /* which: each of those gets the slave */
	int master, slave;
	char slave_name[64]; /* /dev/pts/N, for a message */
	int in_fd;           /* the caller's terminal typed into: 0, or -1 when stdin is none */
	int out_fd;          /* the caller's terminal the command's output goes to */
	bool raw;            /* in_fd was put in raw mode: saved goes back */
	struct termios saved;
	struct sigaction old_winch;
	bool in_done, master_done; /* stdin's terminal hung up; the command's side closed and read */
	int i_in, i_master, i_out; /* their places in the last term_poll, or -1 */
	char to_master[TERM_BUF], to_out[TERM_BUF];
	size_t n_to_master, n_to_out;
};

void term_init(struct term *t);
/* When any of 0, 1, 2 is a terminal: opens the pty (the terminal's modes
 * and size), puts stdin's terminal in raw mode. 0, or -1 with err filled
 * (then nothing is left changed or open). */
int term_open(struct term *t, char *err, size_t cap);
/* Child, in exec mode: the slave on each fd that was a terminal. 0 or -errno. */
int term_child_stdio(const struct term *t);
/* Child, a session leader: the pty becomes its controlling terminal, so
 * Ctrl-C and a resize reach the command as on any terminal. 0 or -errno. */
int term_child_ctty(const struct term *t);
/* Lab, once the child holds the slave: drops the lab's copy, so the
 * master reads EIO when the command's side is gone. */
void term_started(struct term *t);
/* The watch loop: the fds to poll (at most 3) into pfd; command_running
 * false once the command is gone (what is typed then is the shell's). */
int term_poll(struct term *t, bool command_running, struct pollfd *pfd, int max);
void term_ready(struct term *t, const struct pollfd *pfd);
/* Nothing more to relay: the command's side is closed and all it wrote is out. */
bool term_drained(const struct term *t);
/* Puts stdin's terminal back as it was and closes the pty. Safe to call
 * twice, and when term_open did nothing. */
void term_close(struct term *t);

#endif
