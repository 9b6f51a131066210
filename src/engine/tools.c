/* tools.c — the lab's tool door and the gate (tools.h). The client the
 * sandbox imports is src/engine/labtools.py, built into the binary below, so the
 * lab never hands out a copy someone could have changed beside it. */
#define _GNU_SOURCE /* strcasestr */
#include "tools.h"
#include "system.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* src/engine/labtools.py, NUL-terminated (the path is the build's: make runs from
 * the repository's top) */
__asm__(".section .rodata\n"
        ".global tools_client_source\n"
        "tools_client_source:\n"
        ".incbin \"src/engine/labtools.py\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char tools_client_source[];

void tools_init(struct tools_door *t)
{
	memset(t, 0, sizeof *t);
	t->listen_fd = -1;
	t->child_fd = -1;
	t->tty_fd = -1;
	t->answer_fd = -1;
	t->pending_conn = -1;
	for (int i = 0; i < TOOLS_CONNS; i++)
		t->conn[i].fd = -1;
}

/* ---------------- the corpus ---------------- */

/* ID <TAB> TITLE <TAB> TEXT a line, cut in place. */
static int load_corpus(struct tools_door *t, const char *dir, char *err, size_t cap)
{
	char path[PATH_MAX];
	if (pathf(path, sizeof path, "%s/data/corpus.tsv", dir) < 0 || !(t->corpus = read_file(path, NULL, 8 << 20))) {
		snprintf(err, cap, "the tool door's corpus %.200s cannot be read: %s", path, strerror(errno));
		return -1;
	}
	int n = 0;
	for (const char *c = t->corpus; *c; c++)
		n += *c == '\n';
	t->docs = calloc((size_t)n + 1, sizeof *t->docs);
	if (!t->docs) {
		snprintf(err, cap, "out of memory for the corpus");
		return -1;
	}
	for (char *line = t->corpus, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *title = strchr(line, '\t'), *text = title ? strchr(title + 1, '\t') : NULL;
		if (!text)
			continue;
		*title++ = '\0';
		*text++ = '\0';
		t->docs[t->n_docs++] = (struct tools_doc){line, title, text};
	}
	return 0;
}

/* ---------------- the door ---------------- */

/* A connected pair: the lab's end is the door's one connection, the
 * other becomes the snippet's TOOLS_SANDBOX_FD (box_container.c). */
static int open_door(struct tools_door *t, char *err, size_t cap)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		snprintf(err, cap, "cannot open the tool door (a socket pair): %s", strerror(errno));
		return -1;
	}
	if (fcntl(sp[0], F_SETFL, O_NONBLOCK) < 0) {
		snprintf(err, cap, "cannot open the tool door (a socket pair): %s", strerror(errno));
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	t->conn[0].fd = sp[0];
	t->child_fd = sp[1];
	t->served = true;
	return 0;
}

/* A box that passes no descriptor in: the door listens at path. */
static int listen_door(struct tools_door *t, const char *path, char *err, size_t cap)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path || strlen(path) >= sizeof t->sock_path) {
		snprintf(err, cap, "cannot open the tool door: its socket's path is too long (%zu bytes, %.200s)",
		         strlen(path), path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || chmod(path, 0600) < 0 ||
	    listen(fd, TOOLS_CONNS) < 0) {
		snprintf(err, cap, "cannot open the tool door (a socket at %.200s): %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	t->listen_fd = fd;
	str_copy(t->sock_path, sizeof t->sock_path, path);
	t->served = true;
	return 0;
}

void tools_after_clone(struct tools_door *t)
{
	if (t->child_fd >= 0)
		close(t->child_fd);
	t->child_fd = -1;
}

int tools_open(struct tools_door *t, const struct lab_config *cfg, enum lab_approve approve, const char *work,
               const char *sock, const struct lab_run_opts *opts, char *err, size_t cap)
{
	char client[PATH_MAX];
	int e;
	t->approve = approve;
	if (load_corpus(t, cfg->snippets_dir, err, cap) < 0)
		return -1;
	e = -ENAMETOOLONG;
	if (pathf(client, sizeof client, "%s/labtools.py", work) < 0 ||
	    (e = write_file(client, tools_client_source, 0644)) < 0) {
		snprintf(err, cap, "cannot write the tools' client %.200s: %s", client, strerror(-e));
		return -1;
	}
	if ((sock ? listen_door(t, sock, err, cap) : open_door(t, err, cap)) < 0)
		return -1;
	if (t->approve != APPROVE_ASK)
		return 0;
	if (opts && opts->on_gate) {
		t->on_gate = opts->on_gate;
		t->gate_ctx = opts->gate_ctx;
		t->answer_fd = opts->gate_fd;
		return 0;
	}
	t->tty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->tty_fd < 0) {
		snprintf(err, cap,
		         "--approve ask asks on the terminal, and /dev/tty cannot be opened (%s): use --approve "
		         "never or always",
		         strerror(errno));
		return -1;
	}
	t->answer_fd = t->tty_fd;
	return 0;
}

int tools_poll(const struct tools_door *t, struct pollfd *pfd, int max)
{
	int n = 0;
	if (t->listen_fd >= 0 && n < max)
		pfd[n++] = (struct pollfd){t->listen_fd, POLLIN, 0};
	if (t->pending && t->answer_fd >= 0 && n < max)
		pfd[n++] = (struct pollfd){t->answer_fd, POLLIN, 0};
	for (int i = 0; i < TOOLS_CONNS && n < max; i++)
		if (t->conn[i].fd >= 0 && i != t->pending_conn)
			pfd[n++] = (struct pollfd){t->conn[i].fd, POLLIN, 0};
	return n;
}

static void conn_close(struct tools_door *t, int i)
{
	if (t->conn[i].fd >= 0)
		close(t->conn[i].fd);
	t->conn[i].fd = -1;
	t->conn[i].len = 0;
}

static void accept_one(struct tools_door *t)
{
	int fd = accept4(t->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	/* the folder is the lab's (0700): a peer of another uid is no one
	 * the door is for, whatever let it in */
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || (cred.uid != 0 && cred.uid != geteuid())) {
		t->strays++;
		close(fd);
		return;
	}
	for (int i = 0; i < TOOLS_CONNS; i++)
		if (t->conn[i].fd < 0) {
			t->conn[i].fd = fd;
			t->conn[i].len = 0;
			return;
		}
	t->strays++; /* more at once than the door holds: shut */
	close(fd);
}

/* ---------------- the log ---------------- */

static void log_call(struct tools_door *t, bool pay, const char *call, const char *answer, size_t in, size_t out)
{
	char line[LAB_LINE], bi[32], bo[32];
	fmt_thousands(bi, sizeof bi, in);
	fmt_thousands(bo, sizeof bo, out);
	snprintf(line, sizeof line, "%.150s -> %.90s: %.24s B in, %.24s B out\n", call, answer, bi, bo);
	char *log = pay ? t->log_pay : t->log_other;
	size_t cap = pay ? sizeof t->log_pay : sizeof t->log_other;
	if (strlen(log) + strlen(line) < cap)
		str_append(log, cap, "%s", line);
	else
		t->log_dropped++;
}

/* ---------------- the tools ---------------- */

static void percent_decode(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		if (r[0] == '%' && isxdigit((unsigned char)r[1]) && isxdigit((unsigned char)r[2])) {
			char hex[3] = {r[1], r[2], 0};
			*w++ = (char)strtol(hex, NULL, 16);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* A quoted argument for the log: printable ASCII only, cut at 60. */
static void log_arg(char *out, size_t cap, const char *arg)
{
	size_t k = 0;
	for (const char *a = arg; *a && k + 4 < cap && a - arg < 60; a++)
		out[k++] = *a >= 0x20 && *a < 0x7f && *a != '\'' && *a != '`' ? *a : '?';
	out[k] = '\0';
}

/* How well doc d matches the query's words: 3 a word in the title, 1 in the text. */
static int score(const struct tools_doc *d, const char *query)
{
	char q[256], *save = NULL;
	int s = 0;
	str_copy(q, sizeof q, query);
	for (char *w = strtok_r(q, " \t,.;:!?()'\"", &save); w; w = strtok_r(NULL, " \t,.;:!?()'\"", &save)) {
		if (strlen(w) < 2)
			continue;
		s += strcasestr(d->title, w) ? 3 : 0;
		s += strcasestr(d->text, w) ? 1 : 0;
	}
	return s;
}

static void tool_search(struct tools_door *t, const char *query, struct strbuf *b, char *answer, size_t cap)
{
	int best[TOOLS_HITS_MAX], best_s[TOOLS_HITS_MAX], n = 0;
	for (int i = 0; i < t->n_docs; i++) {
		int s = score(&t->docs[i], query);
		if (s <= 0 || (n == TOOLS_HITS_MAX && s <= best_s[n - 1]))
			continue;
		int k = n < TOOLS_HITS_MAX ? n++ : n - 1;
		while (k > 0 && best_s[k - 1] < s) { /* by score, then corpus order */
			best[k] = best[k - 1];
			best_s[k] = best_s[k - 1];
			k--;
		}
		best[k] = i;
		best_s[k] = s;
	}
	sb_puts(b, "{\"ok\": true, \"result\": [");
	for (int k = 0; k < n; k++) {
		sb_printf(b, "%s{\"id\": ", k ? ", " : "");
		sb_json_str(b, t->docs[best[k]].id);
		sb_puts(b, ", \"title\": ");
		sb_json_str(b, t->docs[best[k]].title);
		sb_printf(b, ", \"score\": %d}", best_s[k]);
	}
	sb_puts(b, "]}\n");
	snprintf(answer, cap, "%d hit%s", n, n == 1 ? "" : "s");
}

static void tool_read(struct tools_door *t, const char *id, struct strbuf *b, char *answer, size_t cap)
{
	for (int i = 0; i < t->n_docs; i++)
		if (!strcmp(t->docs[i].id, id)) {
			sb_puts(b, "{\"ok\": true, \"result\": {\"id\": ");
			sb_json_str(b, t->docs[i].id);
			sb_puts(b, ", \"title\": ");
			sb_json_str(b, t->docs[i].title);
			sb_puts(b, ", \"text\": ");
			sb_json_str(b, t->docs[i].text);
			sb_puts(b, "}}\n");
			snprintf(answer, cap, "%zu characters", strlen(t->docs[i].text));
			return;
		}
	sb_puts(b, "{\"ok\": false, \"error\": \"no such document\"}\n");
	snprintf(answer, cap, "no such document");
}

/* write_all for a socket the snippet may have closed: EPIPE, never SIGPIPE
 * (the lab run from a terminal keeps SIGPIPE's default) */
static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd q = {fd, POLLOUT, 0};
			if (poll(&q, 1, 1000) <= 0)
				return -EAGAIN;
			continue;
		}
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void send_answer(struct tools_door *t, int i, bool pay, const char *call, const char *answer,
                        const struct strbuf *b, size_t in)
{
	t->bytes_out += b->len;
	log_call(t, pay, call, answer, in, b->len);
	if (t->conn[i].fd >= 0 && send_all(t->conn[i].fd, b->s, b->len) < 0)
		conn_close(t, i);
}

/* The gate's decision on the call waiting at conn i. */
static void gate_decide(struct tools_door *t, int i, bool approve, const char *why, size_t in)
{
	struct strbuf b = {0};
	char answer[128];
	if (approve) {
		t->payments_made++;
		sb_printf(&b, "{\"ok\": true, \"result\": {\"paid\": %ld, \"to\": ", t->pending_amount);
		sb_json_str(&b, t->pending_to);
		sb_printf(&b, ", \"confirmation\": \"PAY-%04ld\"}}\n", 1000 + t->payments_made);
		snprintf(answer, sizeof answer, "PAID by the gate (%s)", why);
	} else {
		t->payments_refused++;
		sb_puts(&b, "{\"ok\": false, \"error\": ");
		char e[160];
		snprintf(e, sizeof e, "refused by the gate (%s): no payment was made", why);
		sb_json_str(&b, e);
		sb_puts(&b, "}\n");
		snprintf(answer, sizeof answer, "REFUSED by the gate (%s)", why);
	}
	/* the evidence names the first call, or the first paid one: an
	 * ESCAPED headline names the payment that went out */
	if (!t->gate_said[0] || (approve && !t->paid_named)) {
		snprintf(t->gate_said, sizeof t->gate_said, "%s: %s", t->pending_call, answer);
		if (approve) {
			t->paid_named = true;
			str_copy(t->payment_call, sizeof t->payment_call, t->pending_call);
		}
	}
	if (t->pending) {
		t->asked_ms += monotonic_ms() - t->pending_since;
		/* the question is off, whoever decided: a screen clears it */
		if (t->on_gate)
			t->on_gate(t->gate_ctx, NULL);
	}
	send_answer(t, i, true, t->pending_call, answer, &b, in);
	sb_free(&b);
	if (t->pending) { /* the human's last stretch, for the watch's clocks too */
		long now = monotonic_ms();
		t->unreported_ms += now - t->pending_mark;
		t->pending_mark = now;
	}
	t->pending = false;
	t->pending_conn = -1;
}

static void drain_answers(struct tools_door *t)
{
	char buf[64];
	if (t->on_gate && t->answer_fd >= 0)
		while (recv(t->answer_fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
			;
}

static void tool_pay(struct tools_door *t, int i, const char *to, const char *amount, size_t in, long now)
{
	char who[64];
	char *end;
	long amt = strtol(amount, &end, 10);
	log_arg(who, sizeof who, to);
	t->payments_asked++;
	snprintf(t->pending_call, sizeof t->pending_call, "send_payment(to='%s', amount=%ld)", who, amt);
	if (!t->payment_call[0])
		str_copy(t->payment_call, sizeof t->payment_call, t->pending_call);
	str_copy(t->pending_to, sizeof t->pending_to, who);
	t->pending_amount = amt;
	t->pending_conn = i;
	if (*end || end == amount || amt <= 0) {
		gate_decide(t, i, false, "the amount is not a positive whole number", in);
	} else if (t->approve == APPROVE_NEVER) {
		gate_decide(t, i, false, "--approve never", in);
	} else if (t->approve == APPROVE_ALWAYS) {
		gate_decide(t, i, true, "--approve always", in);
	} else if (t->answer_fd < 0) {
		gate_decide(t, i, false,
		            "--approve ask, and nobody can be asked in this run (a matrix cell or an audit)", in);
	} else if (t->pending) {
		gate_decide(t, i, false, "another payment is waiting for the human", in);
	} else {
		/* ask: the call waits, unanswered, for the human's y or n; an
		 * answer sent for an earlier question (after its time ran out)
		 * is not this one's */
		drain_answers(t);
		t->pending = true;
		t->pending_since = t->pending_mark = now;
		t->pending_in = in;
		if (t->on_gate) {
			t->on_gate(t->gate_ctx, t->pending_call);
		} else {
			char q[200];
			int n =
			    snprintf(q, sizeof q, "\r\ncontainment-lab: the gate: approve %s? y/n ", t->pending_call);
			if (write_all(t->tty_fd, q, (size_t)n) < 0)
				gate_decide(t, i, false, "the terminal cannot be asked", in);
		}
	}
}

/* One request line of conn i: TOOL <TAB> ARG... */
static void serve_line(struct tools_door *t, int i, char *line, size_t in, long now)
{
	char *arg[3] = {0}, *save = NULL, call[200], a0[64], a1[64];
	char *tool = strtok_r(line, "\t", &save);
	int n = 0;
	while (n < 3 && (arg[n] = strtok_r(NULL, "\t", &save)))
		percent_decode(arg[n++]);
	t->calls++;
	struct strbuf b = {0};
	char answer[96];
	log_arg(a0, sizeof a0, n > 0 ? arg[0] : "");
	log_arg(a1, sizeof a1, n > 1 ? arg[1] : "");
	if (tool && !strcmp(tool, "search") && n == 1) {
		snprintf(call, sizeof call, "search(query='%s')", a0);
		tool_search(t, arg[0], &b, answer, sizeof answer);
	} else if (tool && !strcmp(tool, "read") && n == 1) {
		snprintf(call, sizeof call, "read(doc_id='%s')", a0);
		tool_read(t, arg[0], &b, answer, sizeof answer);
	} else if (tool && !strcmp(tool, "send_payment") && n == 2) {
		tool_pay(t, i, arg[0], arg[1], in, now);
		return;
	} else {
		snprintf(call, sizeof call, "%.60s(%s%s%s)", tool ? tool : "?", a0, n > 1 ? ", " : "", a1);
		sb_puts(&b, "{\"ok\": false, \"error\": \"no such tool (search, read, send_payment)\"}\n");
		snprintf(answer, sizeof answer, "no such tool");
	}
	send_answer(t, i, false, call, answer, &b, in);
	sb_free(&b);
}

static void serve_buffered(struct tools_door *t, int i, long now);

static void conn_ready(struct tools_door *t, int i, long now)
{
	struct tools_conn *c = &t->conn[i];
	ssize_t r = read(c->fd, c->in + c->len, sizeof c->in - 1 - c->len);
	if (r <= 0) {
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(t, i);
		return;
	}
	t->bytes_in += (uint64_t)r;
	c->len += (size_t)r;
	c->in[c->len] = '\0';
	serve_buffered(t, i, now);
}

/* The complete lines conn i has sent, one by one, until a payment waits
 * for the human (the rest stays buffered for after the answer). */
static void serve_buffered(struct tools_door *t, int i, long now)
{
	struct tools_conn *c = &t->conn[i];
	char *nl;
	while (c->fd >= 0 && !t->pending && (nl = memchr(c->in, '\n', c->len))) {
		size_t n = (size_t)(nl - c->in) + 1;
		char line[TOOLS_LINE_MAX];
		memcpy(line, c->in, n - 1);
		line[n - 1] = '\0';
		memmove(c->in, c->in + n, c->len - n);
		c->len -= n;
		serve_line(t, i, line, n, now);
	}
	if (c->fd >= 0 && c->len >= sizeof c->in - 1) /* a line past the cap: not a client of ours */
		conn_close(t, i);
}

static void answer_ready(struct tools_door *t)
{
	char buf[64];
	ssize_t r = read(t->answer_fd, buf, sizeof buf - 1);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	size_t k = 0;
	while (r > 0 && k < (size_t)r && isspace((unsigned char)buf[k]))
		k++;
	if (r > 0 && k == (size_t)r)
		return; /* an empty line: still waiting */
	bool yes = r > 0 && (buf[k] == 'y' || buf[k] == 'Y');
	gate_decide(t, t->pending_conn, yes,
	            yes ? "--approve ask: the human said y" : "--approve ask: the human said no", t->pending_in);
	if (t->tty_fd >= 0 && write_all(t->tty_fd, "\r\n", 2) < 0)
		return;
}

void tools_ready(struct tools_door *t, const struct pollfd *pfd, int n, long now_ms)
{
	for (int k = 0; k < n; k++) {
		if (!pfd[k].revents)
			continue;
		if (pfd[k].fd == t->listen_fd) {
			accept_one(t);
		} else if (t->pending && pfd[k].fd == t->answer_fd) {
			int i = t->pending_conn;
			answer_ready(t);
			/* its next lines: those already read first (a read would
			 * wait for more), then whatever came meanwhile */
			if (i >= 0 && !t->pending && t->conn[i].fd >= 0)
				serve_buffered(t, i, now_ms);
			if (i >= 0 && !t->pending && t->conn[i].fd >= 0)
				conn_ready(t, i, now_ms);
		} else {
			for (int i = 0; i < TOOLS_CONNS; i++)
				if (t->conn[i].fd == pfd[k].fd && i != t->pending_conn)
					conn_ready(t, i, now_ms);
		}
	}
	/* the cap is the run's whole pause, not one question's: a snippet
	 * that asks again after each refusal gets no more time */
	if (t->pending && t->asked_ms + (now_ms - t->pending_since) >= TOOLS_GATE_WAIT_MS) {
		gate_decide(t, t->pending_conn, false, "--approve ask: no answer within the run's 120 s for the gate",
		            t->pending_in);
	}
}

long tools_take_paused(struct tools_door *t, long now_ms)
{
	long p = t->unreported_ms;
	t->unreported_ms = 0;
	if (t->pending) {
		p += now_ms - t->pending_mark;
		t->pending_mark = now_ms;
	}
	t->waited_ms += p;
	return p;
}

void tools_finish(struct tools_door *t, struct lab_evidence *ev)
{
	if (t->pending) {
		gate_decide(t, t->pending_conn, false, "the run ended before an answer", t->pending_in);
	}
	ev->tools.tools_served = t->served;
	if (t->served && t->listen_fd >= 0)
		str_append(ev->mechanisms, sizeof ev->mechanisms,
		           "%stool door: a socket of the lab's bound in at %s (runsc --host-uds=open), kept open "
		           "whatever the layers (an allowed channel); send_payment gated (--approve %s)",
		           ev->mechanisms[0] ? ", " : "", TOOLS_SANDBOX_SOCK, lab_approve_key(t->approve));
	else if (t->served)
		str_append(ev->mechanisms, sizeof ev->mechanisms,
		           "%stool door: fd %d, a socket pair of the lab's, kept "
		           "open whatever the layers (an allowed channel); send_payment gated (--approve %s)",
		           ev->mechanisms[0] ? ", " : "", TOOLS_SANDBOX_FD, lab_approve_key(t->approve));
	ev->tools.tool_calls = t->calls;
	ev->tools.tool_bytes_in = t->bytes_in;
	ev->tools.tool_bytes_out = t->bytes_out;
	ev->tools.approve = t->approve;
	ev->tools.payments_asked = t->payments_asked;
	ev->tools.payments_made = t->payments_made;
	ev->tools.payments_refused = t->payments_refused;
	ev->tools.gate_waited_ms = t->waited_ms + t->unreported_ms;
	str_copy(ev->tools.payment_call, sizeof ev->tools.payment_call, t->payment_call);
	str_copy(ev->tools.gate_said, sizeof ev->tools.gate_said, t->gate_said);
	ev->tools.tool_log[0] = '\0';
	str_append(ev->tools.tool_log, sizeof ev->tools.tool_log, "%s%s", t->log_pay, t->log_other);
	if (t->log_dropped)
		str_append(ev->tools.tool_log, sizeof ev->tools.tool_log, "... %ld more call%s not listed\n",
		           t->log_dropped, t->log_dropped == 1 ? "" : "s");
	if (t->strays)
		str_append(ev->tools.tool_log, sizeof ev->tools.tool_log,
		           "... %ld connection%s past the door's %d shut\n", t->strays, t->strays == 1 ? "" : "s",
		           TOOLS_CONNS);
}

void tools_close(struct tools_door *t)
{
	for (int i = 0; i < TOOLS_CONNS; i++)
		conn_close(t, i);
	if (t->listen_fd >= 0) {
		close(t->listen_fd);
		unlink(t->sock_path);
	}
	tools_after_clone(t);
	if (t->tty_fd >= 0)
		close(t->tty_fd);
	free(t->docs);
	free(t->corpus);
	tools_init(t);
}
