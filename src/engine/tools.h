/* tools.h — tools called as code through one door the lab owns (SPEC
 * section 11, the lesson's "calling tools as code"), and the gate for the
 * one irreversible tool ("when to use code execution").
 *
 * A snippet whose header says `# lab:tools: yes` finds labtools.py (the
 * client, src/engine/labtools.py, built in) beside it in the work folder, and
 * the door: one end of a unix socket pair the lab opens before the box
 * starts, held by the snippet as fd TOOLS_SANDBOX_FD (the child puts it
 * there after Clean-env closed the rest, box_container.c). A connected
 * pair needs no socket(), connect() or path, so No-network's filter and
 * namespace leave it open and no host socket comes into view. That is the
 * point: tools are the channel the task is allowed to use, like the
 * allow-list's proxy, and no layer can tell a poisoned call from an
 * honest one. The lab serves three tools in its own
 * event loop (run.c), one line a call:
 *   search(query)          the best matches in snippets/data/corpus.tsv
 *   read(doc_id)           one document
 *   send_payment(to, amt)  irreversible: gated
 * and logs every call (tool, arguments, bytes in and out): evidence.
 *
 * The gate is outside the code and is not one of the four layers: the
 * approve mode (--approve, struct lab_setup) decides each send_payment:
 * never (refused), always (paid), ask (a human: the screen's prompt via
 * lab_run_opts' on_gate, else /dev/tty). While a human decides the run's
 * clocks stand still (tools_take_paused) for at most TOOLS_GATE_WAIT_MS
 * in all, over every question of the run; no answer then is a refusal,
 * and on_gate is told the question is off (a NULL call).
 *
 * Life cycle (run.c): tools_init -> tools_open (after the decoys: the
 * work folder exists) -> (tools_poll, poll, tools_ready)* -> tools_finish
 * (evidence) -> tools_close. */
#ifndef LAB_TOOLS_H
#define LAB_TOOLS_H

#include "lab.h"

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#define TOOLS_CONNS        4
#define TOOLS_LINE_MAX     4096
#define TOOLS_HITS_MAX     12
#define TOOLS_GATE_WAIT_MS 120000
#define TOOLS_POLL_MAX     (2 + TOOLS_CONNS)
#define TOOLS_SANDBOX_FD   9 /* the door, as the snippet holds it (labtools.py) */
/* the gvisor rung's door: a host socket runsc's gofer connects to for the
 * sandbox (--host-uds=open), bound there at this path (labtools.py) */
#define TOOLS_SANDBOX_SOCK "/run/lab-tools.sock"

struct tools_doc {
	const char *id, *title, *text;
};

struct tools_conn {
	int fd;
	char in[TOOLS_LINE_MAX];
	size_t len;
};

struct tools_door {
	int listen_fd; /* the gvisor rung's door (a socket at sock_path); -1: the door is a pair */
	char sock_path[108];
	int child_fd; /* the sandbox's end, until the clone took it */
	bool served;
	char *corpus; /* the file, cut into docs in place */
	struct tools_doc *docs;
	int n_docs;
	struct tools_conn conn[TOOLS_CONNS];
	int approve; /* enum lab_approve */
	/* ask: who asks the human (opts->on_gate, its answers on gate_fd),
	 * else the lab itself on /dev/tty (tty_fd) */
	void (*on_gate)(void *ctx, const char *call);
	void *gate_ctx;
	int answer_fd; /* where the answer comes from: gate_fd or tty_fd */
	int tty_fd;
	bool pending; /* a send_payment waits for the human */
	int pending_conn;
	char pending_call[128], pending_to[64];
	long pending_amount, pending_since, pending_mark, waited_ms, unreported_ms;
	long asked_ms;     /* the questions' time so far: the cap is the run's */
	bool paid_named;   /* payment_call and gate_said name a paid call */
	size_t pending_in; /* the waiting call's bytes, for its log line */
	/* the record */
	long calls, strays;
	uint64_t bytes_in, bytes_out;
	long payments_asked, payments_made, payments_refused;
	char payment_call[128]; /* the first gated call, exactly as asked */
	char gate_said[LAB_LINE];
	char log_pay[LAB_LINE * 2], log_other[LAB_LINE * 3];
	long log_dropped;
};

void tools_init(struct tools_door *t);
/* The door for a run whose work folder (on the host) is work, its gate in
 * approve mode: the corpus read from cfg's snippets folder, labtools.py
 * written there, and the door
 * opened: a socket pair (sock NULL), or, for a box that passes no
 * descriptor in (gvisor), a socket listening at sock (in the 0700 run
 * folder; only the lab's own uid or root may connect: runsc's gofer).
 * opts: who asks in ask mode (may be NULL). 0, or -1 with err naming what
 * failed. */
int tools_open(struct tools_door *t, const struct lab_config *cfg, enum lab_approve approve, const char *work,
               const char *sock, const struct lab_run_opts *opts, char *err, size_t cap);
int tools_poll(const struct tools_door *t, struct pollfd *pfd, int max);
void tools_ready(struct tools_door *t, const struct pollfd *pfd, int n, long now_ms);
/* ms the run waited for the human since the last call: the watch moves
 * its clocks by as much (a run paused at the gate is not running). */
long tools_take_paused(struct tools_door *t, long now_ms);
/* Lab, after the clone: the sandbox's end is the sandbox's. */
void tools_after_clone(struct tools_door *t);
/* The run is over: a call still waiting is refused, and the record goes
 * into ev. */
void tools_finish(struct tools_door *t, struct lab_evidence *ev);
void tools_close(struct tools_door *t);

#endif
