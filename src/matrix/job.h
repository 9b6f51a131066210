/* job.h — one cell run in a worker process, so callers (the TUI, `matrix`)
 * never block: the worker runs lab_run() and sends the result back over a
 * pipe. Poll job->fd for POLLIN and call job_pump() until it returns 1.
 * job_abort() asks the worker to stop; its sandbox is killed and cleaned up
 * exactly like a finished run, and the result comes back as aborted. */
#ifndef JOB_H
#define JOB_H

#include "lab.h"
#include "system.h" /* monotonic_ms: the clock of started_ms and abort_ms */
#include "util.h"   /* struct strbuf */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct job {
	pid_t pid;
	int fd;            /* read end; -1 once finished */
	struct strbuf out; /* what the worker sent so far */
	int snippet_index; /* caller's bookkeeping */
	unsigned layers;
	struct lab_result res; /* valid after job_pump() returned 1 */
	long started_ms;       /* monotonic, for elapsed time displays */
	long abort_ms;         /* when job_abort sent SIGTERM; 0 = not asked */
	int status;            /* the worker's wait status once reaped */
	/* What the snippet printed so far, while it runs (raw: sanitise it
	 * before showing it). Only the last JOB_LIVE_MAX bytes are kept; the
	 * result's output, once it comes, is the one to trust. */
	struct strbuf live;
	uint64_t live_cut;     /* bytes dropped from the front of live */
	uint64_t live_skipped; /* bytes the worker did not send (reader behind) */
	bool result_begun;     /* the result's lines have started: no more live ones */
	/* --approve ask on the screen (job_start_gated): the run's gate asked
	 * about gate_call and waits for job_gate_answer */
	bool gate_waiting;
	char gate_call[160];
	long gate_since_ms;  /* monotonic: when the gate began to wait */
	long gate_waited_ms; /* the answered waits so far (the run's clocks stood still) */
};

#define JOB_LIVE_MAX 65536

/* The stream: zero or more "chunk<TAB>bytes" lines (the snippet's output
 * as it comes, escaped like result_write's strings) and "skipped<TAB>N"
 * lines, then the result (result_write). job_pump moves the chunks into
 * live as they arrive; result_read only ever sees the result.
 *
 * The worker runs s as setup says (lab_run): the setup is copied, and the
 * fork hands the worker its own copy, so nothing of it crosses the pipe;
 * what the run used comes back in the result (layers, rung, ev.egress.net_mode,
 * ev.tools.approve). 0 on success, -errno on failure (nothing to clean then). */
int job_start(struct job *j, const struct lab_config *cfg, const struct lab_setup *setup, const struct snippet *s);
/* The same, for a run a human watches with --approve ask: the gate's
 * question comes back as a "gate<TAB>call" line (gate_waiting set, the
 * call in gate_call), and job_gate_answer sends the human's answer back
 * over the same socket pair. A job_start'ed run with --approve ask has
 * nobody to ask: its gate refuses every payment, and says why. */
int job_start_gated(struct job *j, const struct lab_config *cfg, const struct lab_setup *setup,
                    const struct snippet *s);
/* The human's answer to the waiting call: 0, or -errno (the worker gone:
 * its gate then refuses, as for no answer). */
int job_gate_answer(struct job *j, bool yes);
/* The same for `audit`'s run of s through wrapper (lab_audit_run); the
 * result's layers are 0. wrapper must outlive the job. */
int job_start_audit(struct job *j, const struct lab_config *cfg, const struct snippet *s, char *const *wrapper,
                    bool outside_range);
/* Reads what is there. 1 = done (j->res filled, worker reaped), 0 = more to
 * come, -1 = the worker died without a result (j->res is an ERROR). */
int job_pump(struct job *j, const struct snippet *s, const struct lab_config *cfg);
/* Asks the worker to stop (SIGTERM, once); never blocks. */
void job_abort(struct job *j);
/* Gives up on a running job without waiting: asks the worker to stop and
 * closes the read end, so a worker blocked writing its result gets EPIPE.
 * job_free() still reaps it. Stop every job first, then free them: the
 * grace below then runs for all of them at once, not one after another. */
void job_stop(struct job *j);
/* Frees buffers and the result; aborts and reaps a still-running worker.
 * Never blocks for long: a worker that has not stopped 1.5 s after the
 * abort is SIGKILLed (its sandbox dies with it) and reaped.
 * Leaves the job idle (fd -1), ready for job_start. */
void job_free(struct job *j);

/* In a freshly forked worker: closes every descriptor but stdio and keep
 * (close_range, else what /proc/self/fd lists, else one by one up to the
 * limit). Returns which of the three did it (1, 2, 3). */
int job_close_inherited(int keep);

/* Serialisation used over the pipe (also handy for tests). result_read
 * checks every field: a range, a mandatory field, the final "end"; a
 * stream that fails returns -1 with the reason in why ("caught_by 7 out
 * of range (-1 to 3)") and r holds no verdict to trust. */
int result_write(int fd, const struct lab_result *r);
int result_read(const char *buf, size_t len, struct lab_result *r, char *why, size_t whylen);

#endif
