/* job.c — a run in a worker process, for callers that must not block.
 * The worker, a fork of the caller, runs lab_run() (or lab_audit_run()
 * through a wrapper) and then lab_judge(), exactly as the CLI does (the
 * trace may give a run a thread of the worker's for a caller's connect(),
 * trace.c); the result crosses the pipe as "key<TAB>value" lines (\\, \n, \t escaped). */
#define _GNU_SOURCE
#include "job.h"
#include "judge.h"
#include "lab_fields.h"
#include "system.h"
#include "util.h"
#include "verdict.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

#define ONE(...) +1 /* NOLINT(bugprone-macro-parentheses): it counts, 0 +1 +1 ... */
enum { N_INT = 0 LAB_INT_FIELDS(ONE), N_STR = 0 LAB_STR_FIELDS(ONE) };

int result_write(int fd, const struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	struct strbuf b = {0};
#define W_INT(k, v, ...) sb_printf(&b, "%s\t%lld\n", k, (long long)(v));
	LAB_INT_FIELDS(W_INT)
#define W_STR(k, v) put_str(&b, k, v, strlen(v));
	LAB_STR_FIELDS(W_STR)
	sb_printf(&b, "cpu_s\t%.6f\n", ev->res.cpu_s);
	for (int i = 0; i < r->n_evidence; i++)
		put_str(&b, "evidence", r->evidence[i], strlen(r->evidence[i]));
	for (int i = 0; i < ev->trace.n && i < LAB_TRACE_MAX; i++) {
		const struct lab_trace_entry *e = &ev->trace.e[i];
		char v[32 + sizeof e->call + sizeof e->answer + sizeof e->by];
		int n = snprintf(v, sizeof v, "%ld\t%s\t%s\t%s", e->count, e->call, e->answer, e->by);
		put_str(&b, "trace", v, (size_t)n);
	}
	for (int i = 0; i < ev->secrets.n_holders && i < (int)(sizeof ev->secrets.holder / sizeof *ev->secrets.holder);
	     i++) {
		char v[64];
		int n = snprintf(v, sizeof v, "%d\t%d\t%s", ev->secrets.holder[i].pid_in_view,
		                 ev->secrets.holder[i].in_cmdline, ev->secrets.holder[i].comm);
		put_str(&b, "holder", v, (size_t)n);
	}
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

/* A whole decimal number and nothing else, within [lo, hi]. */
static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
	if (!*s || *s == ' ' || *s == '+')
		return false;
	errno = 0;
	char *end;
	long long n = strtoll(s, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return false;
	*out = n;
	return true;
}

#define BAD(...)                                                                                                       \
	do {                                                                                                           \
		snprintf(why, whylen, __VA_ARGS__);                                                                    \
		goto malformed;                                                                                        \
	} while (0)

/* One part of a trace entry: printable ASCII (trace_add made it so; the
 * screen draws it as it comes), shorter than its field. */
static bool trace_part(const char *p, size_t n, char *dst, size_t cap)
{
	if (n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return false;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return true;
}

/* "trace": "count<TAB>call<TAB>answer<TAB>by", at most LAB_TRACE_MAX of them. */
static int read_trace(struct lab_trace *t, const char *val, size_t vlen, char *why, size_t whylen)
{
	if (t->n >= LAB_TRACE_MAX)
		BAD("more than %d trace entries", LAB_TRACE_MAX);
	if (strlen(val) != vlen)
		BAD("a trace entry holding a NUL");
	struct lab_trace_entry *e = &t->e[t->n];
	const char *tab1 = strchr(val, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
	const char *tab3 = tab2 ? strchr(tab2 + 1, '\t') : NULL;
	char count[24];
	long long c;
	if (!tab3 || strchr(tab3 + 1, '\t'))
		BAD("a trace entry without its four parts");
	if (!trace_part(val, (size_t)(tab1 - val), count, sizeof count) || !parse_int(count, 1, LONG_MAX, &c))
		BAD("a trace entry's count %.*s out of range (1 to %ld)", (int)(tab1 - val < 20 ? tab1 - val : 20), val,
		    LONG_MAX);
	if (!trace_part(tab1 + 1, (size_t)(tab2 - tab1 - 1), e->call, sizeof e->call) || !e->call[0] ||
	    !trace_part(tab2 + 1, (size_t)(tab3 - tab2 - 1), e->answer, sizeof e->answer) ||
	    !trace_part(tab3 + 1, strlen(tab3 + 1), e->by, sizeof e->by))
		BAD("a trace entry too long, empty or not printable ASCII");
	e->count = (long)c;
	t->n++;
	return 0;
malformed:
	return -1;
}

/* A holder of the decoy keys (ev->secrets.holder[i]): "PID IN_CMDLINE COMM". */
static int read_holder(struct lab_evidence *ev, int i, const char *val, size_t vlen, char *why, size_t whylen)
{
	if (i >= (int)(sizeof ev->secrets.holder / sizeof *ev->secrets.holder))
		BAD("more than %zu holders", sizeof ev->secrets.holder / sizeof *ev->secrets.holder);
	/* PID and the flag as whole numbers, then COMM verbatim after the
	 * second tab: a comm is the snippet's to choose, blanks first too
	 * (sscanf's "\t" would take any run of white space) */
	const char *t1 = strchr(val, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
	char pid_s[16], flag_s[4];
	long long pid, cmdline;
	if (strlen(val) != vlen || !t2 || (size_t)(t1 - val) >= sizeof pid_s || (size_t)(t2 - t1 - 1) >= sizeof flag_s)
		BAD("a holder line that is not 'PID 0|1 COMM': '%.40s'", val);
	snprintf(pid_s, sizeof pid_s, "%.*s", (int)(t1 - val), val);
	snprintf(flag_s, sizeof flag_s, "%.*s", (int)(t2 - t1 - 1), t1 + 1);
	if (!parse_int(pid_s, 0, INT_MAX, &pid) || !parse_int(flag_s, 0, 1, &cmdline) ||
	    strlen(t2 + 1) >= sizeof ev->secrets.holder[i].comm)
		BAD("a holder line that is not 'PID 0|1 COMM': '%.40s'", val);
	ev->secrets.holder[i].pid_in_view = (int)pid;
	ev->secrets.holder[i].in_cmdline = cmdline;
	str_copy(ev->secrets.holder[i].comm, sizeof ev->secrets.holder[i].comm, t2 + 1);
	return 0;
malformed:
	return -1;
}

/* The fields outside the two tables: cpu_s, the evidence lines, the trace,
 * the holders, the output and the final "end". 0, or -1 with why filled. */
static int read_other_field(struct lab_result *r, const char *key, const char *val, size_t vlen, bool *seen_cpu,
                            int *holders, bool *ended, char *why, size_t whylen)
{
	struct lab_evidence *ev = &r->ev;
	if (!strcmp(key, "cpu_s")) {
		char *end;
		errno = 0;
		double d = strtod(val, &end);
		if (*seen_cpu)
			BAD("cpu_s sent twice");
		if (!*val || *end || errno || !(d >= 0 && d < 1e9))
			BAD("cpu_s %.40s out of range (0 to 1e9)", val);
		ev->res.cpu_s = d;
		*seen_cpu = true;
	} else if (!strcmp(key, "evidence")) {
		if (r->n_evidence >= LAB_EVIDENCE_MAX)
			BAD("more than %d evidence lines", LAB_EVIDENCE_MAX);
		if (vlen >= LAB_LINE || strlen(val) != vlen)
			BAD("an evidence line longer than %d bytes or holding a NUL", LAB_LINE - 1);
		memcpy(r->evidence[r->n_evidence++], val, vlen + 1);
	} else if (!strcmp(key, "trace")) {
		if (read_trace(&ev->trace, val, vlen, why, whylen) < 0)
			goto malformed;
	} else if (!strcmp(key, "holder")) {
		if (read_holder(ev, *holders, val, vlen, why, whylen) < 0)
			goto malformed;
		++*holders;
	} else if (!strcmp(key, "output")) {
		if (r->output)
			BAD("output sent twice");
		r->output = malloc(vlen + 1);
		if (!r->output)
			BAD("out of memory");
		memcpy(r->output, val, vlen);
		r->output[vlen] = '\0';
		r->output_len = vlen;
	} else if (!strcmp(key, "end")) {
		*ended = true;
	} else {
		BAD("unknown field '%.40s'", key);
	}
	return 0;
malformed:
	return -1;
}

/* After "end": every field came once, and the verdict hangs together. */
static bool result_complete(const struct lab_result *r, const bool seen_int[N_INT], const bool seen_str[N_STR],
                            bool seen_cpu, int holders, char *why, size_t whylen)
{
	const struct lab_evidence *ev = &r->ev;
	int fi = 0;
#define R_NEED_INT(k, ...)                                                                                             \
	if (!seen_int[fi++])                                                                                           \
		BAD("missing field '%s'", k);
	LAB_INT_FIELDS(R_NEED_INT)
	fi = 0;
#define R_NEED_STR(k, ...)                                                                                             \
	if (!seen_str[fi++])                                                                                           \
		BAD("missing field '%s'", k);
	LAB_STR_FIELDS(R_NEED_STR)
	if (!seen_cpu)
		BAD("missing field 'cpu_s'");
	if (holders != ev->secrets.n_holders)
		BAD("%d holder lines for n_holders %d", holders, ev->secrets.n_holders);
	if (!r->output)
		BAD("missing field 'output'");
	/* what the verdict says must hang together: only a CONTAINED cell
	 * names a layer that caught it (an attack that broke by itself is
	 * CONTAINED with none) */
	if (r->caught_by >= 0 && r->verdict != VERDICT_CONTAINED)
		BAD("verdict %s with caught_by %d", verdict_name(r->verdict), r->caught_by);
	/* an escape names what got out; nothing else names any */
	if ((r->escaped != 0) != (r->verdict == VERDICT_ESCAPED))
		BAD("verdict %s with escaped %#x", verdict_name(r->verdict), r->escaped);
	if (ev->secrets.canaries_leaked > ev->secrets.canaries_planted)
		BAD("canaries_leaked %d more than the %d planted", ev->secrets.canaries_leaked,
		    ev->secrets.canaries_planted);
	return true;
malformed:
	return false;
}

int result_read(const char *buf, size_t len, struct lab_result *r, char *why, size_t whylen)
{
	struct lab_evidence *ev = &r->ev;
	memset(r, 0, sizeof *r);
	if (whylen)
		why[0] = '\0';
	char *copy = malloc(len + 1);
	if (!copy) {
		snprintf(why, whylen, "out of memory reading the worker's result");
		return -1;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	bool seen_int[N_INT] = {0}, seen_str[N_STR] = {0}, seen_cpu = false, ended = false;
	int holders = 0;
	if (len == 0)
		BAD("nothing");
	if (memchr(buf, '\0', len))
		BAD("a NUL byte in the stream");
	for (char *line = copy, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			BAD("the last line is not terminated");
		if (ended)
			BAD("data after 'end'");
		char *tab = strchr(line, '\t');
		if (!tab)
			BAD("a line without a field name: '%.40s'", line);
		*tab = '\0';
		const char *key = line;
		char *val = tab + 1;
		size_t vlen = unescape(val);
		long long n;
		int fi = 0;
#define R_INT(k, v, ...) R_INT_(k, v, __VA_ARGS__)
#define R_INT_(k, v, lo, hi)                                                                                           \
	if (!strcmp(key, k)) {                                                                                         \
		if (seen_int[fi])                                                                                      \
			BAD("%s sent twice", k);                                                                       \
		if (!parse_int(val, lo, hi, &n))                                                                       \
			BAD("%s %.40s out of range (%lld to %lld)", k, val, (long long)(lo), (long long)(hi));         \
		(v) = (__typeof__(v))n;                                                                                \
		seen_int[fi] = true;                                                                                   \
		continue;                                                                                              \
	}                                                                                                              \
	fi++;
		LAB_INT_FIELDS(R_INT)
		fi = 0;
#define R_STR(k, v)                                                                                                    \
	if (!strcmp(key, k)) {                                                                                         \
		if (seen_str[fi])                                                                                      \
			BAD("%s sent twice", k);                                                                       \
		if (vlen >= sizeof(v) || strlen(val) != vlen)                                                          \
			BAD("%s longer than %zu bytes or holding a NUL", k, sizeof(v) - 1);                            \
		memcpy((v), val, vlen + 1);                                                                            \
		seen_str[fi] = true;                                                                                   \
		continue;                                                                                              \
	}                                                                                                              \
	fi++;
		LAB_STR_FIELDS(R_STR)
		if (read_other_field(r, key, val, vlen, &seen_cpu, &holders, &ended, why, whylen) < 0)
			goto malformed;
	}
	if (!ended)
		BAD("no 'end': the stream stops early");
	if (!result_complete(r, seen_int, seen_str, seen_cpu, holders, why, whylen))
		goto malformed;
	free(copy);
	return 0;
malformed:
	free(copy);
	lab_result_free(r);
	memset(r, 0, sizeof *r);
	r->caught_by = -1;
	r->output = strdup("");
	return -1;
}

/* ---- the worker ---- */

/* How long a worker gets to stop its sandbox and clean up after SIGTERM
 * before job_free kills it: a run's cleanup takes a few hundred ms; a
 * worker stuck longer than this is not coming back. Its sandbox dies with
 * it (PR_SET_PDEATHSIG), its temp folder is swept by the next run. */
#define JOB_GRACE_MS 1500

static int abort_pipe[2] = {-1, -1};

static void on_stop(int sig)
{
	(void)sig;
	int e = errno;
	(void)!write(abort_pipe[1], "x", 1);
	errno = e;
}

int job_close_inherited(int keep)
{
	/* 1. close_range (Linux 5.9): the ranges around the one we keep */
	bool ok;
	if (keep >= 3)
		ok = (keep == 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
		     syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0;
	else
		ok = syscall(SYS_close_range, 3u, ~0u, 0u) == 0;
	if (ok)
		return 1;
	/* 2. what /proc/self/fd lists */
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		int dfd = dirfd(d);
		for (struct dirent *e; (e = readdir(d));) {
			char *end;
			long fd = strtol(e->d_name, &end, 10);
			if (*end || e->d_name[0] == '.' || fd < 3 || fd == keep || fd == dfd)
				continue;
			close((int)fd);
		}
		closedir(d);
		return 2;
	}
	/* 3. one by one up to the limit */
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (long fd = 3; fd < max; fd++)
		if (fd != keep)
			close((int)fd);
	return 3;
}

/* ---- live output: the worker forwards what it captures ---- */

/* Raw bytes a chunk line carries at most: escaped (at most twice as long)
 * with its key it stays under PIPE_BUF, so one write after POLLOUT never
 * blocks and never interleaves. */
#define CHUNK_RAW 2000

struct live_sink {
	int fd;
	uint64_t skipped;
	bool told; /* the reader knows of every skipped byte */
};

/* lab_run's on_output in the worker. It runs inside the run's watch loop,
 * whose clocks must keep ticking: when the pipe is full (the screen is
 * behind) the piece is skipped and counted, never waited for. */
static void live_send(void *ctx, const char *buf, size_t len)
{
	struct live_sink *k = ctx;
	while (len) {
		size_t piece = len < CHUNK_RAW ? len : CHUNK_RAW;
		struct pollfd p = {.fd = k->fd, .events = POLLOUT};
		if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT)) {
			k->skipped += len;
			k->told = false;
			return;
		}
		struct strbuf b = {0};
		if (!k->told)
			sb_printf(&b, "skipped\t%llu\n", (unsigned long long)k->skipped);
		put_str(&b, "chunk", buf, piece);
		if (b.s && write_all(k->fd, b.s, b.len) == 0)
			k->told = true;
		sb_free(&b);
		buf += piece;
		len -= piece;
	}
}

/* Moves the complete chunk/skipped lines at the front of j->out into
 * j->live; stops for good at the first line of the result. */
static void live_take(struct job *j)
{
	size_t used = 0;
	while (!j->result_begun) {
		char *line = j->out.s + used, *nl = memchr(line, '\n', j->out.len - used);
		if (!nl)
			break;
		size_t n = (size_t)(nl - line);
		long long v;
		if (n >= 6 && !memcmp(line, "chunk\t", 6)) {
			*nl = '\0';
			size_t vlen = unescape(line + 6);
			sb_add(&j->live, line + 6, vlen);
		} else if (n >= 5 && !memcmp(line, "gate\t", 5)) {
			*nl = '\0';
			(void)unescape(line + 5);
			bool off = !line[5]; /* decided without the screen's answer (its time ran out) */
			if (off && j->gate_waiting)
				j->gate_waited_ms += monotonic_ms() - j->gate_since_ms;
			if (!off) {
				str_copy(j->gate_call, sizeof j->gate_call, line + 5);
				j->gate_since_ms = monotonic_ms();
			}
			j->gate_waiting = !off;
		} else if (n >= 8 && !memcmp(line, "skipped\t", 8)) {
			*nl = '\0';
			if (parse_int(line + 8, 0, LLONG_MAX, &v))
				j->live_skipped = (uint64_t)v;
		} else {
			j->result_begun = true;
			break;
		}
		used += n + 1;
	}
	if (used) {
		memmove(j->out.s, j->out.s + used, j->out.len - used);
		j->out.len -= used;
	}
	if (j->live.len > JOB_LIVE_MAX) {
		/* keep the end, from a line start when one is near */
		size_t drop = j->live.len - JOB_LIVE_MAX;
		char *nl = memchr(j->live.s + drop, '\n', j->live.len - drop < 1024 ? j->live.len - drop : 1024);
		if (nl)
			drop = (size_t)(nl + 1 - j->live.s);
		memmove(j->live.s, j->live.s + drop, j->live.len - drop);
		j->live.len -= drop;
		j->live_cut += drop;
	}
}

/* What a worker runs: lab_run, or lab_audit_run through a wrapper. */
struct job_work {
	const struct lab_config *cfg;
	struct lab_setup setup; /* a copy: the worker is a fork, it gets its own memory of it */
	const struct snippet *s;
	char *const *wrapper; /* non-NULL: an audit */
	bool outside_range;
	bool gated; /* --approve ask: the caller asks the human (job_start_gated) */
};

/* lab_run's on_gate in a gated worker: the call goes to the caller as a
 * "gate" line (an empty one when the question is off). The caller reads
 * the stream all the time, and the line is short: written whole, never
 * skipped like a chunk (the run's clocks stand still while the gate
 * waits). */
static void gate_send(void *ctx, const char *call)
{
	struct live_sink *k = ctx;
	struct strbuf b = {0};
	put_str(&b, "gate", call ? call : "", call ? strlen(call) : 0); /* "" = the question is off */
	if (b.s)
		(void)write_all(k->fd, b.s, b.len); /* the caller gone: no answer comes, the gate refuses */
	sb_free(&b);
}

/* lab_run's on_gate where nobody can be asked (a matrix cell, an audit's
 * run): gate_fd -1 makes the gate refuse, naming why. */
static void gate_nobody(void *ctx, const char *call)
{
	(void)ctx;
	(void)call;
}

static int job_fork(struct job *j, const struct job_work *w)
{
	memset(j, 0, sizeof *j);
	j->fd = -1;
	j->layers = w->setup.layers;
	j->started_ms = monotonic_ms();
	int p[2];
	/* a gated run's answers come back over the same pair */
	if ((w->gated ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) : pipe2(p, O_CLOEXEC)) < 0)
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
		/* Nothing of the caller's but stdio and our own write end: another
		 * worker's read end kept open here would hide EPIPE from that
		 * worker when the caller stops reading it, and it would block
		 * forever in write while the caller waits for it. */
		job_close_inherited(p[1]);
		/* the caller's handlers and mask are not ours either */
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
		/* an abort or the caller's death makes us stop and clean up like
		 * a finished run */
		if (pipe2(abort_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
			_exit(125);
		struct sigaction sa = {.sa_handler = on_stop};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent) /* died before PDEATHSIG was armed (it may be PID 1 itself) */
			_exit(125);
		/* Part of the safety net: whatever the layers, a run started from
		 * the lab screen or the matrix has no controlling terminal, so a
		 * snippet cannot open /dev/tty to draw on the screen or push keys
		 * into it. (Isolation still applies its own setsid inside.) */
		setsid();
		struct live_sink sink = {.fd = p[1], .told = true};
		struct lab_run_opts opts = {.abort_fd = abort_pipe[0], .on_output = live_send, .output_ctx = &sink};
		if (w->setup.approve == APPROVE_ASK) {
			opts.on_gate = w->gated ? gate_send : gate_nobody;
			opts.gate_ctx = &sink;
			opts.gate_fd = w->gated ? p[1] : -1;
		}
		struct lab_result res;
		if (w->wrapper)
			lab_audit_run(w->cfg, w->s, w->wrapper, w->outside_range, &opts, &res);
		else
			lab_run(w->cfg, &w->setup, w->s, &opts, &res);
		lab_judge(w->s, w->cfg, &res);
		result_write(p[1], &res);
		lab_result_free(&res);
		_exit(0);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	j->pid = pid;
	j->fd = p[0];
	return 0;
}

int job_start(struct job *j, const struct lab_config *cfg, const struct lab_setup *setup, const struct snippet *s)
{
	return job_fork(j, &(struct job_work){.cfg = cfg, .setup = *setup, .s = s});
}

int job_start_gated(struct job *j, const struct lab_config *cfg, const struct lab_setup *setup, const struct snippet *s)
{
	return job_fork(j, &(struct job_work){.cfg = cfg, .setup = *setup, .s = s, .gated = true});
}

int job_gate_answer(struct job *j, bool yes)
{
	if (!j->gate_waiting || j->fd < 0)
		return -EINVAL;
	j->gate_waiting = false;
	j->gate_waited_ms += monotonic_ms() - j->gate_since_ms;
	/* never SIGPIPE: the worker may have gone the moment before */
	return send(j->fd, yes ? "y\n" : "n\n", 2, MSG_NOSIGNAL | MSG_DONTWAIT) == 2 ? 0 : -errno;
}

int job_start_audit(struct job *j, const struct lab_config *cfg, const struct snippet *s, char *const *wrapper,
                    bool outside_range)
{
	return job_fork(j, &(struct job_work){.cfg = cfg, .s = s, .wrapper = wrapper, .outside_range = outside_range});
}

/* Waits for the worker, but never forever: after the grace (counted from
 * the abort, or from now) it is SIGKILLed, and a SIGKILLed process is
 * always reaped at once. */
static void job_reap(struct job *j)
{
	if (j->pid <= 0)
		return;
	long deadline = (j->abort_ms ? j->abort_ms : monotonic_ms()) + JOB_GRACE_MS;
	int status = 0;
	for (;;) {
		pid_t r = waitpid(j->pid, &status, WNOHANG);
		if (r == j->pid || (r < 0 && errno != EINTR))
			break;
		if (r == 0 && monotonic_ms() >= deadline) {
			kill(j->pid, SIGKILL);
			while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		if (r == 0)
			nanosleep(&(struct timespec){0, 5L * 1000 * 1000}, NULL);
	}
	j->status = status;
	j->pid = 0;
}

/* The result a job gets when the worker's own cannot be trusted. */
static void job_error(struct job *j, const struct snippet *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void job_error(struct job *j, const struct snippet *s, const char *fmt, ...)
{
	lab_result_free(&j->res);
	memset(&j->res, 0, sizeof j->res);
	str_copy(j->res.snippet, sizeof j->res.snippet, s->name);
	j->res.threat = s->threat;
	j->res.expected_layer = s->layer;
	j->res.layers = j->layers;
	j->res.verdict = VERDICT_ERROR;
	j->res.caught_by = -1;
	j->res.ev.end.exit_code = -1;
	j->res.ev.exfil.net_probe_errno = -1;
	j->res.output = strdup("");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->res.headline, sizeof j->res.headline, fmt, ap);
	va_end(ap);
	str_copy(j->res.ev.error, sizeof j->res.ev.error, j->res.headline);
}

int job_pump(struct job *j, const struct snippet *s, const struct lab_config *cfg)
{
	(void)cfg;
	if (j->fd < 0)
		return 1;
	for (;;) {
		char tmp[65536];
		ssize_t r = read(j->fd, tmp, sizeof tmp);
		if (r > 0) {
			sb_add(&j->out, tmp, (size_t)r);
			live_take(j);
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
	if (j->out.len == 0) {
		/* the worker died without a result: say so, never guess */
		char how[64] = "";
		if (WIFSIGNALED(j->status))
			snprintf(how, sizeof how, " (killed by signal %d)", WTERMSIG(j->status));
		else if (WIFEXITED(j->status))
			snprintf(how, sizeof how, " (exit status %d)", WEXITSTATUS(j->status));
		job_error(j, s, "the lab's worker process died before reporting a result%s", how);
		return -1;
	}
	char why[200];
	if (result_read(j->out.s, j->out.len, &j->res, why, sizeof why) < 0) {
		job_error(j, s, "worker sent a malformed result: %s", why);
		return -1;
	}
	if (strcmp(j->res.snippet, s->name) != 0 || j->res.layers != j->layers || j->res.threat != s->threat ||
	    j->res.expected_layer != s->layer) {
		job_error(j, s, "worker sent a malformed result: it is for another cell (%.64s, layers %u)",
		          j->res.snippet, j->res.layers);
		return -1;
	}
	return 1;
}

void job_abort(struct job *j)
{
	if (j->pid > 0 && !j->abort_ms) {
		kill(j->pid, SIGTERM);
		j->abort_ms = monotonic_ms();
	}
}

void job_stop(struct job *j)
{
	if (j->fd >= 0) {
		job_abort(j);
		/* nobody else holds this read end: a worker still writing gets
		 * EPIPE and leaves instead of waiting for a reader */
		close(j->fd);
		j->fd = -1;
	}
}

void job_free(struct job *j)
{
	job_stop(j);
	job_reap(j);
	sb_free(&j->out);
	sb_free(&j->live);
	lab_result_free(&j->res);
	*j = (struct job){.fd = -1}; /* idle and reusable */
}
