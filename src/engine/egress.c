/* egress.c — the allow-list's proxy and the lab's small internet (see
 * egress.h). Everything here runs in the lab's event loop: every socket is
 * non-blocking, a request head is capped (EGRESS_HEAD_MAX), so are the
 * connections (EGRESS_CONNS) and the time a head may take (EGRESS_HEAD_MS),
 * so a hostile client (garbage, a 10 MB header, a slow drip) costs the lab
 * a 400, 431 or 408 and a closed socket, never a hang. */
#define _GNU_SOURCE
#include "egress.h"
#include "config.h"
#include "system.h"
#include "util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define PIPE_CAP    (EGRESS_HEAD_MAX + 32768)
#define API_REQ_MAX (1 << 20)
#define SHOWN_PATH  56

struct egress_pipe {
	char *buf;
	size_t len, off;
};

enum conn_state { CONN_HEAD, CONN_RELAY };

struct egress_conn {
	int fd, up;
	enum conn_state state;
	bool connecting, client_eof, up_eof, up_shut;
	char head[EGRESS_HEAD_MAX + 2]; /* one past the cap, and its NUL */
	size_t head_len;
	struct egress_pipe c2u, u2c;
	long t0, last;
	char what[LAB_LINE]; /* "GET api.lab.test:80 /prices" */
	uint64_t up_bytes, down_bytes;
	size_t own_down; /* our own "200 Connection established": not the host's answer */
};

struct egress_api_conn {
	int fd;
	char *buf;
	size_t len;
	size_t head;    /* the request head's length once it is in, else 0 */
	uint64_t total; /* every byte read, the head's included */
	bool answered;
	long t0;
};

void egress_init(struct egress *e, const struct lab_config *cfg)
{
	memset(e, 0, sizeof *e);
	e->cfg = cfg;
	e->chan[0] = e->chan[1] = e->listen_fd = e->api_fd = e->attacker_fd = -1;
}

static void log_line(struct egress *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(struct egress *e, const char *fmt, ...)
{
	char line[LAB_LINE];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	char *log = strncmp(line, "ALLOW", 5) ? e->log_other : e->log_allow;
	size_t cap = sizeof e->log_allow;
	if (strlen(log) + strlen(line) + 2 >= cap) {
		e->log_dropped++;
		return;
	}
	str_append(log, cap, "%s\n", line);
}

/* A deep backlog: connections that are not the proxy's (another run's, a
 * local user's) are accepted and shut at once, and a burst of them must
 * not fill the queue and delay the proxy's own connect by a SYN retry. */
static int listen_loopback(int port, int *port_out)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
		int err = errno;
		close(fd);
		return -err;
	}
	if (port_out)
		*port_out = ntohs(a.sin_port);
	return fd;
}

int egress_serve(struct egress *e)
{
	if (e->inside) { /* the init binds it in the sandbox's namespace */
		e->api_port = EGRESS_INSIDE_API_PORT;
		return 0;
	}
	int fd = listen_loopback(0, &e->api_port);
	if (fd < 0)
		return fd;
	e->api_fd = fd;
	return 0;
}

void egress_watch(struct egress *e, const struct lab_decoys *d, bool proxied_only)
{
	e->d = d;
	e->proxied_only = proxied_only;
}

/* Remembered when the proxy connects upstream: the local port the kernel
 * gave its socket (known as soon as connect() is called). */
static void remember_opened(struct egress *e, int up)
{
	struct sockaddr_in a = {0};
	socklen_t al = sizeof a;
	if (getsockname(up, (struct sockaddr *)&a, &al) < 0 || a.sin_family != AF_INET)
		return;
	e->opened[e->opened_next] = ntohs(a.sin_port);
	e->opened_next = (e->opened_next + 1) % EGRESS_OPENED;
}

bool egress_opened(struct egress *e, int fd)
{
	struct sockaddr_in a = {0};
	socklen_t al = sizeof a;
	if (getpeername(fd, (struct sockaddr *)&a, &al) < 0 || a.sin_family != AF_INET ||
	    a.sin_addr.s_addr != htonl(INADDR_LOOPBACK) || !a.sin_port)
		return false;
	for (int k = 0; k < EGRESS_OPENED; k++)
		if (e->opened[k] == ntohs(a.sin_port)) {
			e->opened[k] = 0;
			return true;
		}
	return false;
}

bool egress_in_flight(const struct egress *e)
{
	for (int i = 0; i < EGRESS_CONNS; i++) {
		const struct egress_conn *c = e->conn[i];
		if (c && c->state == CONN_RELAY && (c->connecting || c->c2u.off < c->c2u.len))
			return true;
	}
	return false;
}

int egress_open_door(struct egress *e)
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, e->chan) < 0 ? -errno : 0;
}

/* ---------------- the child's side ---------------- */

/* One listening socket on the sandbox's 127.0.0.1:port, handed to the lab
 * and closed here: the snippet must never accept() on the lab's sockets. */
static int hand_listener(struct egress *e, int port, char tag)
{
	int fd = listen_loopback(port, NULL);
	if (fd < 0)
		return -fd;
	int err = fd_send(e->chan[1], fd, tag);
	close(fd);
	return err < 0 ? -err : 0;
}

int egress_child_door(struct egress *e, bool proxy, const char **what)
{
	close(e->chan[0]);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = {0};
	str_copy(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	*what = "bring lo up in the sandbox's network namespace";
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return errno;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return errno;
	close(s);
	int err = 0;
	if (proxy) {
		*what = "listen on 127.0.0.1:3128 in the sandbox's network namespace and hand it to the lab";
		err = hand_listener(e, EGRESS_PORT, 'L');
	} else if (e->inside) {
		/* ports below 1024 are ours to bind: CAP_NET_BIND_SERVICE
		 * counts in the user namespace that owns this network */
		*what =
		    "listen on 127.0.0.1:80 (api.lab.test) in the sandbox's network namespace and hand it to the lab";
		err = hand_listener(e, EGRESS_INSIDE_API_PORT, 'I');
		*what =
		    "listen on 127.0.0.1:8080 (the attacker) in the sandbox's network namespace and hand it to the lab";
		if (!err)
			err = hand_listener(e, EGRESS_INSIDE_ATTACKER_PORT, 'A');
	}
	close(e->chan[1]);
	return err;
}

void egress_after_clone(struct egress *e)
{
	if (e->chan[1] >= 0)
		close(e->chan[1]);
	e->chan[1] = -1;
}

/* What the init hands over, each once: the proxy's socket ('L'), or
 * api.lab.test's ('I') and the attacker's ('A'). The pair is done when
 * the init closes its end (or sends anything else). */
static void take_door(struct egress *e)
{
	for (;;) {
		char tag = 0;
		int fd = fd_recv(e->chan[0], &tag);
		if (fd == -EAGAIN)
			return;
		int *slot = tag == 'L' ? &e->listen_fd : tag == 'I' ? &e->api_fd : tag == 'A' ? &e->attacker_fd : NULL;
		if (fd < 0 || !slot || *slot >= 0) {
			if (fd >= 0)
				close(fd);
			break;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		*slot = fd;
	}
	close(e->chan[0]);
	e->chan[0] = -1;
}

int egress_take_attacker(struct egress *e)
{
	int fd = e->attacker_fd;
	e->attacker_fd = -1;
	return fd;
}

/* ---------------- the proxy ---------------- */

static void conn_free(struct egress *e, int i)
{
	struct egress_conn *c = e->conn[i];
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	if (c->up >= 0)
		close(c->up);
	free(c->c2u.buf);
	free(c->u2c.buf);
	free(c);
	e->conn[i] = NULL;
}

/* A whole answer of our own, then the connection ends. */
static void answer(struct egress *e, int i, int code, const char *reason, const char *body)
{
	struct egress_conn *c = e->conn[i];
	char msg[LAB_LINE * 2];
	int n = snprintf(msg, sizeof msg,
	                 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n"
	                 "X-Containment-Lab: egress proxy\r\n\r\n%s",
	                 code, reason, strlen(body), body);
	if (n > 0)
		(void)!send(c->fd, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1,
		            MSG_NOSIGNAL | MSG_DONTWAIT);
	conn_free(e, i);
}

static void refuse_bad(struct egress *e, int i, int code, const char *reason, const char *why)
{
	char body[LAB_LINE];
	snprintf(body, sizeof body, "containment-lab egress proxy: %d %s: %s\n", code, reason, why);
	e->bad++;
	log_line(e, "BAD    %d %s (%zu bytes read)", code, why, e->conn[i]->head_len);
	answer(e, i, code, reason, body);
}

/* The small internet: where a name lives on the lab's 127.0.0.1, or 0. */
static int small_internet(const struct egress *e, const char *host)
{
	if (!strcasecmp(host, "api.lab.test"))
		return e->api_port;
	if (!strcasecmp(host, "attacker.lab.test"))
		return e->attacker_port;
	return 0;
}

/* "http://host[:port]/path" or, for CONNECT, "host:port". */
static bool split_target(const char *target, bool connect_form, char *host, size_t hcap, int *port, const char **path)
{
	const char *h = target;
	if (!connect_form) {
		if (strncasecmp(target, "http://", 7) != 0)
			return false;
		h = target + 7;
	}
	size_t hl = strcspn(h, ":/?#");
	if (!hl || hl >= hcap)
		return false;
	memcpy(host, h, hl);
	host[hl] = '\0';
	for (size_t k = 0; k < hl; k++)
		if (!(isalnum((unsigned char)host[k]) || host[k] == '-' || host[k] == '.'))
			return false;
	const char *rest = h + hl;
	*port = connect_form ? 0 : 80;
	if (*rest == ':') {
		char *end;
		long p = strtol(rest + 1, &end, 10);
		if (!isdigit((unsigned char)rest[1]) || p < 1 || p > 65535)
			return false;
		*port = (int)p;
		rest = end;
	}
	if (connect_form)
		return *port > 0 && !*rest;
	/* "http://host?q" has an empty path: origin form makes it "/?q" */
	*path = *rest == '/' || *rest == '?' ? rest : "/";
	return *rest == '/' || *rest == '?' || !*rest;
}

static int pipe_push(struct egress_pipe *p, const void *data, size_t n)
{
	if (!p->buf && !(p->buf = malloc(PIPE_CAP)))
		return -1;
	if (p->len + n > PIPE_CAP)
		return -1;
	memcpy(p->buf + p->len, data, n);
	p->len += n;
	return 0;
}

/* Forward form: the request line in origin form, the Proxy-* headers
 * dropped (they are for us), the rest of the head and any body as sent. */
static int forward_head(struct egress_conn *c, const char *method, const char *path, const char *version,
                        const char *headers_end)
{
	char line[EGRESS_HEAD_MAX + 64];
	int n = snprintf(line, sizeof line, "%s %s%s %s\r\n", method, *path == '?' ? "/" : "", path, version);
	if (n < 0 || (size_t)n >= sizeof line || pipe_push(&c->c2u, line, (size_t)n) < 0)
		return -1;
	const char *h = strchr(c->head, '\n') + 1;
	while (h < headers_end) {
		const char *eol = memchr(h, '\n', (size_t)(headers_end - h));
		size_t len = eol ? (size_t)(eol - h) + 1 : (size_t)(headers_end - h);
		if (strncasecmp(h, "Proxy-", 6) != 0 && pipe_push(&c->c2u, h, len) < 0)
			return -1;
		h += len;
	}
	return pipe_push(&c->c2u, headers_end, c->head_len - (size_t)(headers_end - c->head));
}

static int connect_upstream(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The request line, exactly "METHOD SP target SP HTTP/1.0|1.1 CRLF" (RFC
 * 9112 3): one space each, no other version, no bare LF — a looser reading
 * would let the proxy and api.lab.test see two different requests.
 * 1 when whole and well-formed, 0 when its end has not come yet, -1 bad. */
static int request_line(const char *head, char method[16], char *target, size_t tcap, char version[16])
{
	const char *eol = strchr(head, '\n');
	size_t m = strspn(head, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
	if (!head[m]) /* capitals so far: a method still coming */
		return m > 15 ? -1 : 0;
	if (m == 0 || m > 15 || head[m] != ' ')
		return -1;
	if (!eol)
		return 0;
	if (eol == head || eol[-1] != '\r')
		return -1;
	const char *t = head + m + 1, *sp = t;
	while (sp < eol && (unsigned char)*sp > 0x20 && (unsigned char)*sp < 0x7f)
		sp++;
	size_t tl = (size_t)(sp - t);
	if (!tl || tl >= tcap || *sp != ' ' || eol - (sp + 1) != 9 ||
	    (strncmp(sp + 1, "HTTP/1.1\r", 9) != 0 && strncmp(sp + 1, "HTTP/1.0\r", 9) != 0))
		return -1;
	memcpy(method, head, m);
	method[m] = '\0';
	memcpy(target, t, tl);
	target[tl] = '\0';
	memcpy(version, sp + 1, 8);
	version[8] = '\0';
	return 1;
}

static bool bad_first_line(const char *head)
{
	char method[16], target[EGRESS_HEAD_MAX], version[16];
	return request_line(head, method, target, sizeof target, version) < 0;
}

/* What is wrong with a request line request_line() refused, for the log. */
static const char *line_problem(const char *head)
{
	const char *eol = strchr(head, '\n');
	if (eol && (eol == head || eol[-1] != '\r'))
		return "not an HTTP/1 request: its first line ends in a bare LF, not CRLF";
	return "not an HTTP/1 request line: METHOD SP target SP HTTP/1.0 or HTTP/1.1 CRLF";
}

/* The head is in: refuse it, or open the way to the small internet. */
static void decide(struct egress *e, int i, char *eoh)
{
	struct egress_conn *c = e->conn[i];
	char method[16], target[EGRESS_HEAD_MAX], version[16], host[LAB_NET_HOST_MAX];
	int port = 0;
	const char *path = "";
	bool ok = request_line(c->head, method, target, sizeof target, version) == 1;
	bool is_connect = ok && !strcmp(method, "CONNECT");
	if (!ok) {
		refuse_bad(e, i, 400, "Bad Request", line_problem(c->head));
		return;
	}
	if (!split_target(target, is_connect, host, sizeof host, &port, &path)) {
		refuse_bad(e, i, 400, "Bad Request",
		           is_connect ? "CONNECT needs host:port"
		                      : "a proxy request names its host: GET http://HOST/PATH");
		return;
	}
	char shown[SHOWN_PATH + 4];
	snprintf(shown, sizeof shown, "%.*s%s", SHOWN_PATH, path, strlen(path) > SHOWN_PATH ? "..." : "");
	for (char *p = shown; *p; p++) /* the sandbox's bytes, shown on a terminal */
		if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			*p = '?';
	snprintf(c->what, sizeof c->what, "%s %s:%d%s%s", method, host, port, is_connect ? "" : " ", shown);
	if (!config_net_allowed(e->cfg, host, port)) {
		char rule[160], body[LAB_LINE * 2];
		config_net_rule(e->cfg, rule, sizeof rule);
		e->refused++;
		if (!e->refusal[0])
			snprintf(e->refusal, sizeof e->refusal, "%s:%d: not in allow-list (rule: %s)", host, port,
			         rule);
		log_line(e, "REFUSE %s -> 403 not in allow-list (rule: %s)", c->what, rule);
		snprintf(body, sizeof body,
		         "containment-lab egress proxy: %s:%d refused: not in allow-list (rule: %s in layers.ini "
		         "[network])\n",
		         host, port, rule);
		answer(e, i, 403, "Forbidden", body);
		return;
	}
	int to = small_internet(e, host);
	if (to && (c->up = connect_upstream(to)) >= 0)
		remember_opened(e, c->up);
	if (!to || c->up < 0) {
		e->bad++;
		log_line(e,
		         "NOROUTE %s -> 502: the lab's proxy reaches only its small internet (api.lab.test, "
		         "attacker.lab.test)",
		         c->what);
		answer(e, i, 502, "Bad Gateway",
		       "containment-lab egress proxy: allowed, but the lab reaches only its own small internet "
		       "(api.lab.test, attacker.lab.test)\n");
		return;
	}
	size_t head_end = (size_t)(eoh - c->head) + 4;
	int rc;
	if (is_connect) {
		static const char ok_line[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		rc = pipe_push(&c->u2c, ok_line, sizeof ok_line - 1);
		c->own_down = sizeof ok_line - 1;
		if (rc == 0 && c->head_len > head_end)
			rc = pipe_push(&c->c2u, c->head + head_end, c->head_len - head_end);
	} else {
		rc = forward_head(c, method, path, version, eoh + 2);
	}
	if (rc < 0) {
		refuse_bad(e, i, 500, "Internal Server Error", "out of memory");
		return;
	}
	e->allowed++;
	e->to_attacker += to == e->attacker_port;
	c->state = CONN_RELAY;
	c->connecting = true;
}

static void read_head(struct egress *e, int i)
{
	struct egress_conn *c = e->conn[i];
	ssize_t n = read(c->fd, c->head + c->head_len, EGRESS_HEAD_MAX + 1 - c->head_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->head_len)
			refuse_bad(e, i, 400, "Bad Request", "the client hung up before its head was complete");
		else
			conn_free(e, i);
		return;
	}
	c->head_len += (size_t)n;
	c->head[c->head_len] = '\0';
	char *eoh = memmem(c->head, c->head_len, "\r\n\r\n", 4);
	if (eoh) {
		decide(e, i, eoh);
	} else if (c->head_len > EGRESS_HEAD_MAX) {
		/* a 10 MB header is cut here: what it sends after is never read */
		refuse_bad(e, i, 431, "Request Header Fields Too Large", "request head over 16 KiB");
	} else if (memchr(c->head, '\0', c->head_len)) {
		refuse_bad(e, i, 400, "Bad Request", "not an HTTP/1 request: a NUL byte in its head");
	} else if (bad_first_line(c->head)) {
		/* garbage, a bare LF, a loose request line: refused at once,
		 * without waiting for the rest of a head that may never come */
		refuse_bad(e, i, 400, "Bad Request", line_problem(c->head));
	}
}

static void relay_done(struct egress *e, int i, const char *how)
{
	struct egress_conn *c = e->conn[i];
	/* the host's bytes only: the proxy's own "200 Connection established" is not its answer */
	uint64_t down = c->down_bytes > c->own_down ? c->down_bytes - c->own_down : 0;
	if (!strcmp(how, "answered") && !down)
		how = "closed by the host without an answer";
	log_line(e, "ALLOW  %s -> %s, %llu bytes up, %llu down", c->what, how, (unsigned long long)c->up_bytes,
	         (unsigned long long)down);
	conn_free(e, i);
}

/* One step of a relay: read from one side when the other side's buffer
 * is empty, write what is buffered. Returns false when the relay ended. */
static bool pump(struct egress_pipe *p, int from, int to, bool *eof, uint64_t *count)
{
	if (p->off == p->len && !*eof && from >= 0) {
		if (!p->buf && !(p->buf = malloc(PIPE_CAP)))
			return false;
		ssize_t n = read(from, p->buf, PIPE_CAP);
		if (n > 0) {
			p->off = 0;
			p->len = (size_t)n;
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			*eof = true;
		}
	}
	if (p->off < p->len) {
		ssize_t w = send(to, p->buf + p->off, p->len - p->off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (w > 0) {
			p->off += (size_t)w;
			*count += (uint64_t)w;
		}
		if (p->off == p->len)
			p->off = p->len = 0;
	}
	return true;
}

static void relay(struct egress *e, int i, short ev_client, short ev_up, long now)
{
	struct egress_conn *c = e->conn[i];
	if (c->connecting && ev_up) {
		int err = 0;
		socklen_t l = sizeof err;
		getsockopt(c->up, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err) {
			e->allowed--;
			e->bad++;
			log_line(e, "NOROUTE %s -> 502: %s", c->what, strerror(err));
			answer(e, i, 502, "Bad Gateway", "containment-lab egress proxy: the host did not answer\n");
			return;
		}
		c->connecting = false;
	}
	if (c->connecting)
		return;
	uint64_t before = c->up_bytes + c->down_bytes;
	if (!pump(&c->c2u, (ev_client & (POLLIN | POLLHUP | POLLERR)) ? c->fd : -1, c->up, &c->client_eof,
	          &c->up_bytes) ||
	    !pump(&c->u2c, (ev_up & (POLLIN | POLLHUP | POLLERR)) ? c->up : -1, c->fd, &c->up_eof, &c->down_bytes)) {
		relay_done(e, i, "a side reset");
		return;
	}
	if (c->client_eof && !c->up_shut && c->c2u.off == c->c2u.len) {
		shutdown(c->up, SHUT_WR); /* the client is done: so is its request */
		c->up_shut = true;
	}
	if (c->up_bytes + c->down_bytes != before)
		c->last = now;
	if (c->up_eof && c->u2c.off == c->u2c.len)
		relay_done(e, i, "answered");
	else if (c->client_eof && c->up_eof)
		relay_done(e, i, "closed");
}

static void accept_proxy(struct egress *e, long now)
{
	int fd = accept4(e->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	for (int i = 0; i < EGRESS_CONNS; i++) {
		if (e->conn[i])
			continue;
		struct egress_conn *c = calloc(1, sizeof *c);
		if (!c)
			break;
		*c = (struct egress_conn){.fd = fd, .up = -1, .t0 = now, .last = now};
		e->conn[i] = c;
		return;
	}
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
	(void)!send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
	e->bad++;
	log_line(e, "BAD    503 more than %d connections at once", EGRESS_CONNS);
}

/* ---------------- api.lab.test ---------------- */

static void api_free(struct egress *e, int i)
{
	if (!e->api[i])
		return;
	close(e->api[i]->fd);
	free(e->api[i]->buf);
	free(e->api[i]);
	e->api[i] = NULL;
}

/* The payload (bodies, query strings) url-decoded into its own scanner:
 * "%2C" and "+" of a form post or a query turn back into the data. A
 * %XX cut by a read boundary is missed here; the raw scanner still reads
 * it plain. */
static void payload_scan(struct egress *e, const char *data, size_t n)
{
	char buf[4096];
	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		char ch = data[j];
		if (ch == '+')
			ch = ' ';
		else if (ch == '%' && j + 2 < n && isxdigit((unsigned char)data[j + 1]) &&
		         isxdigit((unsigned char)data[j + 2])) {
			char hex[3] = {data[j + 1], data[j + 2], '\0'};
			ch = (char)strtol(hex, NULL, 16);
			j += 2;
		}
		buf[k++] = ch;
		if (k == sizeof buf) {
			decoy_scan(e->d, &e->payload_sc, buf, k);
			k = 0;
		}
	}
	if (k)
		decoy_scan(e->d, &e->payload_sc, buf, k);
}

/* Bytes past a request head are data the sandbox chose to send: counted
 * (an allow-list cannot tell them from a request) and searched. */
static void payload_keep(struct egress *e, const char *data, size_t n)
{
	e->api_payload += n;
	if (e->d)
		payload_scan(e, data, n);
}

/* The head just came in: its query string is payload too. */
static void head_in(struct egress *e, struct egress_api_conn *a)
{
	const char *eol = strstr(a->buf, "\r\n");
	const char *q = eol ? memchr(a->buf, '?', (size_t)(eol - a->buf)) : NULL;
	if (q) {
		size_t ql = strcspn(q + 1, " \r\n");
		payload_keep(e, q + 1, ql);
	}
	payload_keep(e, a->buf + a->head, a->len - a->head);
}

/* A price list for the legitimate task: fixed, so its totals are known. */
static const char prices[] = "sku,item,unit_price,units\n"
                             "A-100,Widget,2.50,40\n"
                             "A-200,Gadget,12.75,8\n"
                             "B-300,Sprocket,0.99,150\n"
                             "C-400,Flange,7.20,25\n";

/* Once the whole request is in: the answer, then the write side shut.
 * What still comes is read (counted, searched) until the proxy hangs up. */
static void api_answer(struct egress *e, int i)
{
	struct egress_api_conn *a = e->api[i];
	if (a->answered || !a->head)
		return;
	unsigned long long body = 0;
	char *cl = strcasestr(a->buf, "\r\ncontent-length:");
	if (cl && cl < a->buf + a->head)
		body = strtoull(cl + 17, NULL, 10);
	uint64_t got = a->total - a->head;
	bool too_big = body > API_REQ_MAX;
	if (!too_big && got < body)
		return;
	e->api_requests++;
	char reply[512], thanks[128];
	const char *status = "404 Not Found", *text = "no such page on api.lab.test\n";
	if (too_big) {
		status = "413 Content Too Large";
		text = "api.lab.test takes requests up to 1 MiB\n";
	} else if (!strncmp(a->buf, "GET /prices ", 12) || !strncmp(a->buf, "GET /prices?", 12)) {
		status = "200 OK";
		text = prices;
	} else if (!strncmp(a->buf, "POST /feedback", 14)) {
		e->feedback_posts++;
		snprintf(thanks, sizeof thanks, "thank you: feedback #%ld recorded (%llu bytes)\n", e->feedback_posts,
		         body);
		status = "201 Created";
		text = thanks;
	}
	int n =
	    snprintf(reply, sizeof reply,
	             "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
	             status, strlen(text), text);
	(void)!send(a->fd, reply, (size_t)n < sizeof reply ? (size_t)n : sizeof reply - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(a->fd, SHUT_WR);
	a->answered = true;
}

static void api_event(struct egress *e, int i)
{
	struct egress_api_conn *a = e->api[i];
	char tmp[65536];
	ssize_t n = read(a->fd, tmp, sizeof tmp);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		api_free(e, i);
		return;
	}
	e->api_bytes += (uint64_t)n;
	a->total += (uint64_t)n;
	if (e->d)
		decoy_scan(e->d, &e->raw_sc, tmp, (size_t)n);
	if (a->head) {
		payload_keep(e, tmp, (size_t)n);
	} else {
		/* the head is kept whole (the proxy caps it at 16 KiB) */
		size_t take = a->len + (size_t)n > API_REQ_MAX ? API_REQ_MAX - a->len : (size_t)n;
		char *g = realloc(a->buf, a->len + take + 1);
		if (!g) {
			api_free(e, i);
			return;
		}
		a->buf = g;
		memcpy(a->buf + a->len, tmp, take);
		a->len += take;
		a->buf[a->len] = '\0';
		char *eoh = memmem(a->buf, a->len, "\r\n\r\n", 4);
		if (eoh) {
			a->head = (size_t)(eoh - a->buf) + 4;
			head_in(e, a);
		} else if (a->len == API_REQ_MAX) {
			api_free(e, i);
			return;
		}
	}
	api_answer(e, i);
}

static void api_accept(struct egress *e, long now)
{
	/* all that waits, so connections the proxy did not open cannot
	 * fill the backlog; those are shut at once and take no slot */
	for (int round = 0; round < 4 * EGRESS_CONNS; round++) {
		int fd = accept4(e->api_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		if (e->proxied_only && !egress_opened(e, fd)) {
			e->api_strays++;
			close(fd);
			continue;
		}
		int i = 0;
		while (i < EGRESS_CONNS && e->api[i])
			i++;
		if (i == EGRESS_CONNS || !(e->api[i] = calloc(1, sizeof *e->api[i]))) {
			close(fd);
			continue;
		}
		*e->api[i] = (struct egress_api_conn){.fd = fd, .t0 = now};
	}
}

/* ---------------- the loop's side ---------------- */

enum { SLOT_CHAN = -1, SLOT_LISTEN = -2, SLOT_API = -3 };

int egress_poll(const struct egress *e, struct pollfd *pfd, int max)
{
	int n = 0;
#define ADD(f, events)                                                                                                 \
	do {                                                                                                           \
		if (n < max)                                                                                           \
			pfd[n++] = (struct pollfd){(f), (events), 0};                                                  \
	} while (0)
	if (e->chan[0] >= 0)
		ADD(e->chan[0], POLLIN);
	if (e->listen_fd >= 0)
		ADD(e->listen_fd, POLLIN);
	if (e->api_fd >= 0)
		ADD(e->api_fd, POLLIN);
	for (int i = 0; i < EGRESS_CONNS; i++) {
		const struct egress_conn *c = e->conn[i];
		if (e->api[i])
			ADD(e->api[i]->fd, POLLIN);
		if (!c)
			continue;
		if (c->state == CONN_HEAD) {
			ADD(c->fd, POLLIN);
			continue;
		}
		/* nothing from the client until the way up is open */
		short cev = (short)((c->c2u.off == c->c2u.len && !c->client_eof && !c->connecting ? POLLIN : 0) |
		                    (c->u2c.off < c->u2c.len ? POLLOUT : 0));
		short uev = (short)((c->u2c.off == c->u2c.len && !c->up_eof ? POLLIN : 0) |
		                    (c->connecting || c->c2u.off < c->c2u.len ? POLLOUT : 0));
		ADD(c->fd, cev);
		ADD(c->up, uev);
	}
#undef ADD
	return n;
}

static short revents_of(const struct pollfd *pfd, int n, int fd)
{
	for (int k = 0; k < n; k++)
		if (pfd[k].fd == fd)
			return pfd[k].revents;
	return 0;
}

void egress_ready(struct egress *e, const struct pollfd *pfd, int n, long now)
{
	if (e->chan[0] >= 0 && revents_of(pfd, n, e->chan[0]))
		take_door(e);
	if (e->listen_fd >= 0 && revents_of(pfd, n, e->listen_fd))
		accept_proxy(e, now);
	if (e->api_fd >= 0 && revents_of(pfd, n, e->api_fd))
		api_accept(e, now);
	for (int i = 0; i < EGRESS_CONNS; i++) {
		if (e->api[i] && revents_of(pfd, n, e->api[i]->fd))
			api_event(e, i);
		else if (e->api[i] && now - e->api[i]->t0 > EGRESS_IDLE_MS)
			api_free(e, i);
		struct egress_conn *c = e->conn[i];
		if (!c)
			continue;
		short cev = revents_of(pfd, n, c->fd);
		if (c->state == CONN_HEAD) {
			if (cev)
				read_head(e, i);
			else if (now - c->t0 > EGRESS_HEAD_MS)
				refuse_bad(e, i, 408, "Request Timeout", "no complete request head within 2 s");
			continue;
		}
		short uev = revents_of(pfd, n, c->up);
		if (cev || uev)
			relay(e, i, cev, uev, now);
		else if (now - c->last > EGRESS_IDLE_MS)
			relay_done(e, i, "idle, closed by the proxy");
	}
}

/* The log as evidence: every ALLOW line first (what got out), then the
 * refusals and the bad requests while room lasts, and a last line that
 * counts what was not kept — room for it is reserved. */
static void compose_log(struct egress *e, char *out, size_t cap)
{
	const size_t note = 96;
	int left = e->log_dropped;
	out[0] = '\0';
	const char *parts[] = {e->log_allow, e->log_other};
	for (size_t k = 0; k < 2; k++)
		for (const char *l = parts[k]; *l;) {
			size_t len = strcspn(l, "\n");
			if (strlen(out) + len + 1 + note < cap)
				str_append(out, cap, "%.*s\n", (int)len, l);
			else
				left++;
			l += len + (l[len] == '\n');
		}
	if (left)
		str_append(out, cap, "... %d more line(s) not kept (in all: %ld allowed, %ld refused, %ld bad)\n", left,
		           e->allowed, e->refused, e->bad);
}

void egress_finish(struct egress *e, const struct lab_decoys *d, struct lab_evidence *ev)
{
	for (int i = 0; i < EGRESS_CONNS; i++) {
		if (e->conn[i] && e->conn[i]->state == CONN_RELAY)
			relay_done(e, i, "cut at the end of the run");
		else if (e->conn[i] && e->conn[i]->head_len)
			refuse_bad(e, i, 408, "Request Timeout", "the run ended before the head was complete");
		else
			conn_free(e, i);
	}
	ev->egress.proxy_allowed = e->allowed;
	ev->egress.proxy_refused = e->refused;
	ev->egress.proxy_bad = e->bad;
	ev->egress.proxy_to_attacker = e->to_attacker;
	str_copy(ev->egress.proxy_refusal, sizeof ev->egress.proxy_refusal, e->refusal);
	compose_log(e, ev->egress.proxy_log, sizeof ev->egress.proxy_log);
	ev->egress.api_bytes = e->api_bytes;
	ev->egress.api_payload = e->api_payload;
	ev->egress.api_requests = e->api_requests;
	ev->egress.api_strays = e->api_strays;
	if (d && e->d == d) {
		int secrets = 0;
		for (int i = 0; i < d->n_secret; i++)
			secrets += e->raw_sc.found[i] || e->payload_sc.found[i];
		ev->egress.api_got_canary = e->raw_sc.canary_row || e->payload_sc.canary_row;
		ev->egress.secrets_to_api = secrets;
		ev->egress.api_from_run = ev->egress.api_got_canary || secrets > 0;
	}
}

/* Which planted secrets reached api.lab.test (after egress_finish). */
bool egress_secret_seen(const struct egress *e, int i)
{
	return e->d && i >= 0 && i < DECOY_SECRETS && (e->raw_sc.found[i] || e->payload_sc.found[i]);
}

void egress_close(struct egress *e)
{
	for (int i = 0; i < EGRESS_CONNS; i++) {
		conn_free(e, i);
		api_free(e, i);
	}
	int *fds[] = {&e->chan[0], &e->chan[1], &e->listen_fd, &e->api_fd, &e->attacker_fd};
	for (size_t k = 0; k < sizeof fds / sizeof *fds; k++)
		if (*fds[k] >= 0) {
			close(*fds[k]);
			*fds[k] = -1;
		}
}
