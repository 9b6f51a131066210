/* job.c — a run in a worker process, for callers that must not block.
 * The worker is single-threaded and runs lab_run() exactly as the CLI does;
 * the result crosses the pipe as "key<TAB>value" lines (\\, \n, \t escaped). */
#define _GNU_SOURCE
#include "job.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void put_str(struct strbuf *b, const char *key, const char *v, size_t n)
{
	sb_puts(b, key);
	sb_add(b, "\t", 1);
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		if (c == '\\')
			sb_add(b, "\\\\", 2);
		else if (c == '\n')
			sb_add(b, "\\n", 2);
		else if (c == '\t')
			sb_add(b, "\\t", 2);
		else if (c == '\0')
			sb_add(b, "\\0", 2);
		else
			sb_add(b, &c, 1);
	}
	sb_add(b, "\n", 1);
}

#define INT_FIELDS(X)                                                                             \
	X("threat", r->threat) X("expected_layer", r->expected_layer) X("layers", r->layers)     \
	X("verdict", r->verdict) X("caught_by", r->caught_by) X("started", ev->started)           \
	X("exit_code", ev->exit_code) X("exit_signal", ev->exit_signal) X("timed_out", ev->timed_out) \
	X("safety_net", ev->safety_net) X("aborted", ev->aborted) X("duration_ms", ev->duration_ms) \
	X("peak_procs", ev->peak_procs) X("peak_mem", ev->peak_mem)                               \
	X("peak_mem_from_cgroup", ev->peak_mem_from_cgroup) X("pids_max_events", ev->pids_max_events) \
	X("mem_failcnt", ev->mem_failcnt) X("oom_kills", ev->oom_kills)                           \
	X("cpu_throttled", ev->cpu_throttled) X("cgroup_used", ev->cgroup_used)                   \
	X("out_bytes", ev->out_bytes) X("out_truncated", ev->out_truncated)                       \
	X("canaries_planted", ev->canaries_planted) X("canaries_leaked", ev->canaries_leaked)     \
	X("env_vars", ev->env_vars) X("creds_mounted", ev->creds_mounted)                         \
	X("attacker_conns", ev->attacker_conns) X("attacker_bytes", ev->attacker_bytes)           \
	X("attacker_got_canary", ev->attacker_got_canary) X("net_probe_errno", ev->net_probe_errno) \
	X("own_netns", ev->own_netns) X("host_target_written", ev->host_target_written)           \
	X("host_target_size", ev->host_target_size) X("host_visible", ev->host_visible)           \
	X("expect_found", ev->expect_found)

#define STR_FIELDS(X)                                                                     \
	X("snippet", r->snippet) X("consequence", r->consequence) X("headline", r->headline) \
	X("error", ev->error) X("leaked", ev->leaked) X("host_target", ev->host_target)     \
	X("mechanisms", ev->mechanisms)

int result_write(int fd, const struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	struct strbuf b = {0};
#define W_INT(k, v) sb_printf(&b, "%s\t%lld\n", k, (long long)(v));
	INT_FIELDS(W_INT)
#define W_STR(k, v) put_str(&b, k, v, strlen(v));
	STR_FIELDS(W_STR)
	sb_printf(&b, "cpu_s\t%.6f\n", ev->cpu_s);
	for (int i = 0; i < r->n_evidence; i++)
		put_str(&b, "evidence", r->evidence[i], strlen(r->evidence[i]));
	put_str(&b, "output", r->output ? r->output : "", r->output_len);
	sb_puts(&b, "end\t\n");
	int rc = write_all(fd, b.s, b.len);
	sb_free(&b);
	return rc;
}

static size_t unescape(char *s)
{
	char *w = s;
	for (char *p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*w++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == '0' ? '\0' : *p;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

int result_read(const char *buf, size_t len, struct lab_result *r)
{
	struct lab_evidence *ev = &r->ev;
	memset(r, 0, sizeof *r);
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	bool ended = false;
	for (char *line = copy, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		char *key = line, *val = tab + 1;
		size_t vlen = unescape(val);
		long long n = strtoll(val, NULL, 10);
		(void)n;
#define R_INT(k, v) if (!strcmp(key, k)) { v = (__typeof__(v))n; continue; }
		INT_FIELDS(R_INT)
#define R_STR(k, v) if (!strcmp(key, k)) { str_copy(v, sizeof v, val); continue; }
		STR_FIELDS(R_STR)
		if (!strcmp(key, "cpu_s"))
			ev->cpu_s = strtod(val, NULL);
		else if (!strcmp(key, "evidence") && r->n_evidence < LAB_EVIDENCE_MAX)
			str_copy(r->evidence[r->n_evidence++], LAB_LINE, val);
		else if (!strcmp(key, "output")) {
			free(r->output);
			r->output = malloc(vlen + 1);
			if (r->output) {
				memcpy(r->output, val, vlen);
				r->output[vlen] = '\0';
				r->output_len = vlen;
			}
		} else if (!strcmp(key, "end"))
			ended = true;
	}
	free(copy);
	if (!r->output)
		r->output = strdup("");
	return ended ? 0 : -1;
}

/* ---- the worker ---- */

static int abort_pipe[2] = {-1, -1};

static void on_stop(int sig)
{
	(void)sig;
	int e = errno;
	(void)!write(abort_pipe[1], "x", 1);
	errno = e;
}


int job_start(struct job *j, const struct lab_config *cfg, const struct snippet *s, unsigned layers)
{
	memset(j, 0, sizeof *j);
	j->fd = -1;
	j->layers = layers;
	j->started_ms = monotonic_ms();
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		close(p[0]);
		/* the caller's terminal and handlers are not ours: an abort or the
		 * caller's death makes us stop and clean up like a finished run */
		if (pipe2(abort_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
			_exit(125);
		struct sigaction sa = {.sa_handler = on_stop};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGWINCH, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent) /* died before PDEATHSIG was armed (it may be PID 1 itself) */
			_exit(125);
		/* Part of the safety net: whatever the layers, a run started from
		 * the lab screen or the matrix has no controlling terminal, so a
		 * snippet cannot open /dev/tty to draw on the screen or push keys
		 * into it. (Isolation still applies its own setsid inside.) */
		setsid();
		struct lab_run_opts opts = {.abort_fd = abort_pipe[0]};
		struct lab_result res;
		lab_run(cfg, s, layers, &opts, &res);
		result_write(p[1], &res);
		result_free(&res);
		_exit(0);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	j->pid = pid;
	j->fd = p[0];
	return 0;
}

static void job_reap(struct job *j)
{
	if (j->pid > 0) {
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
		j->pid = 0;
	}
}

int job_pump(struct job *j, const struct snippet *s, const struct lab_config *cfg)
{
	if (j->fd < 0)
		return 1;
	for (;;) {
		char tmp[65536];
		ssize_t r = read(j->fd, tmp, sizeof tmp);
		if (r > 0) {
			if (j->len + (size_t)r + 1 > j->cap) {
				size_t cap = j->cap ? j->cap : 65536;
				while (cap < j->len + (size_t)r + 1)
					cap *= 2;
				char *g = realloc(j->buf, cap);
				if (!g)
					abort();
				j->buf = g;
				j->cap = cap;
			}
			memcpy(j->buf + j->len, tmp, (size_t)r);
			j->len += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		break; /* EOF */
	}
	close(j->fd);
	j->fd = -1;
	job_reap(j);
	if (result_read(j->buf ? j->buf : "", j->len, &j->res) == 0)
		return 1;
	/* the worker died without a result: say so, never guess */
	result_free(&j->res);
	memset(&j->res, 0, sizeof j->res);
	str_copy(j->res.snippet, sizeof j->res.snippet, s->name);
	j->res.threat = s->threat;
	j->res.expected_layer = s->layer;
	j->res.layers = j->layers;
	j->res.verdict = VERDICT_ERROR;
	j->res.caught_by = -1;
	j->res.output = strdup("");
	snprintf(j->res.headline, sizeof j->res.headline, "the lab's worker process died before reporting a result");
	(void)cfg;
	return -1;
}

void job_abort(struct job *j)
{
	if (j->pid > 0)
		kill(j->pid, SIGTERM);
}

void job_free(struct job *j)
{
	if (j->fd >= 0) {
		job_abort(j);
		close(j->fd);
		j->fd = -1;
	}
	job_reap(j);
	free(j->buf);
	result_free(&j->res);
	*j = (struct job){.fd = -1}; /* idle and reusable */
}
