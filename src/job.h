/* job.h — one cell run in a worker process, so callers (the TUI, `matrix`)
 * never block: the worker runs lab_run() and sends the result back over a
 * pipe. Poll job->fd for POLLIN and call job_pump() until it returns 1.
 * job_abort() asks the worker to stop; its sandbox is killed and cleaned up
 * exactly like a finished run, and the result comes back as aborted. */
#ifndef JOB_H
#define JOB_H

#include <sys/types.h>
#include "lab.h"

struct job {
	pid_t pid;
	int fd;                 /* read end; -1 once finished */
	char *buf;
	size_t len, cap;
	int snippet_index;      /* caller's bookkeeping */
	unsigned layers;
	struct lab_result res;  /* valid after job_pump() returned 1 */
	long started_ms;        /* monotonic, for elapsed time displays */
};

/* 0 on success, -errno on failure (nothing to clean then). */
int job_start(struct job *j, const struct lab_config *cfg, const struct snippet *s,
	      unsigned layers);
/* Reads what is there. 1 = done (j->res filled, worker reaped), 0 = more to
 * come, -1 = the worker died without a result (j->res is an ERROR). */
int job_pump(struct job *j, const struct snippet *s, const struct lab_config *cfg);
void job_abort(struct job *j);
/* Frees buffers and the result; aborts and reaps a still-running worker.
 * Leaves the job idle (fd -1), ready for job_start. */
void job_free(struct job *j);
long monotonic_ms(void);

/* Serialisation used over the pipe (also handy for tests). */
int result_write(int fd, const struct lab_result *r);
int result_read(const char *buf, size_t len, struct lab_result *r);

#endif
