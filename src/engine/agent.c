/* agent.c — the ssh-agent stand-in (agent.h).
 *
 * A message is a uint32 length (big-endian) and that many bytes, the first
 * its type. REQUEST_IDENTITIES (11) is answered by IDENTITIES_ANSWER (12):
 * a uint32 count, then per key a string blob ("ssh-ed25519" and 32 bytes)
 * and a string comment. Any other request gets FAILURE (5), as an agent
 * that holds no matching key answers. One request a connection: after the
 * answer the lab closes it. */
#define _GNU_SOURCE
#include "agent.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

enum { AGENT_FAILURE = 5, REQUEST_IDENTITIES = 11, IDENTITIES_ANSWER = 12 };

int agent_open(struct lab_agent *a, const char *path, const char *comment)
{
	*a = (struct lab_agent){.fd = -1};
	for (int i = 0; i < AGENT_CONNS; i++)
		a->conn[i] = -1;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path || strlen(path) >= sizeof a->path)
		return -ENAMETOOLONG;
	str_copy(sa.sun_path, sizeof sa.sun_path, path);
	str_copy(a->path, sizeof a->path, path);
	str_copy(a->comment, sizeof a->comment, comment);
	if (getrandom(a->key, sizeof a->key, 0) != (ssize_t)sizeof a->key)
		return errno ? -errno : -EIO;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* 0600 from the start: no moment with the socket open to others */
	mode_t old = umask(0177);
	int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (r < 0 || listen(fd, AGENT_CONNS) < 0) {
		int e = errno;
		close(fd);
		if (r == 0)
			unlink(path);
		return -e;
	}
	a->fd = fd;
	return 0;
}

int agent_poll_fds(const struct lab_agent *a, int *fds, int max)
{
	/* connections exist only while the listener does: a zeroed struct
	 * (never opened) has none */
	int n = 0;
	if (a->fd < 0)
		return 0;
	if (n < max)
		fds[n++] = a->fd;
	for (int i = 0; i < AGENT_CONNS && n < max; i++)
		if (a->conn[i] >= 0)
			fds[n++] = a->conn[i];
	return n;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A string of the protocol (uint32 length, bytes) at p: its length. */
static size_t put_str(unsigned char *p, const void *s, size_t n)
{
	put32(p, (uint32_t)n);
	memcpy(p + 4, s, n);
	return 4 + n;
}

static void answer(struct lab_agent *a, int fd, int type)
{
	unsigned char msg[256], blob[64];
	size_t n = 4;
	if (type == REQUEST_IDENTITIES) {
		size_t bn = put_str(blob, "ssh-ed25519", 11);
		bn += put_str(blob + bn, a->key, sizeof a->key);
		msg[n++] = IDENTITIES_ANSWER;
		put32(msg + n, 1);
		n += 4;
		n += put_str(msg + n, blob, bn);
		n += put_str(msg + n, a->comment, strlen(a->comment));
		a->listed++;
	} else {
		msg[n++] = AGENT_FAILURE;
	}
	put32(msg, (uint32_t)(n - 4));
	/* a client gone already (it closed after its request) must not
	 * raise SIGPIPE in the lab: the command line does not ignore it */
	(void)!send(fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	a->requests++;
}

static void conn_end(struct lab_agent *a, int i)
{
	close(a->conn[i]);
	a->conn[i] = -1;
	a->len[i] = 0;
}

bool agent_event(struct lab_agent *a, int fd)
{
	if (fd < 0 || a->fd < 0)
		return false;
	if (fd == a->fd) {
		for (int round = 0; round < AGENT_CONNS * 4; round++) {
			int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (c < 0)
				break;
			struct ucred cr;
			socklen_t cl = sizeof cr;
			if (a->peer_ok && (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 || cr.pid <= 0 ||
			                   !a->peer_ok(a->peer_ctx, cr.pid))) {
				a->strays++;
				close(c);
				continue;
			}
			a->conns++;
			int i = 0;
			while (i < AGENT_CONNS && a->conn[i] >= 0)
				i++;
			if (i == AGENT_CONNS) {
				close(c); /* counted: it reached the agent */
				continue;
			}
			a->conn[i] = c;
		}
		return true;
	}
	for (int i = 0; i < AGENT_CONNS; i++) {
		if (a->conn[i] != fd)
			continue;
		ssize_t got = read(fd, a->buf[i] + a->len[i], sizeof a->buf[i] - a->len[i]);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (got <= 0) {
			conn_end(a, i);
			return true;
		}
		a->len[i] += (size_t)got;
		/* the length word and the type: enough to answer */
		if (a->len[i] >= 5) {
			answer(a, fd, a->buf[i][4]);
			conn_end(a, i);
		}
		return true;
	}
	return false;
}

void agent_close(struct lab_agent *a)
{
	if (a->fd < 0)
		return;
	for (int i = 0; i < AGENT_CONNS; i++)
		if (a->conn[i] >= 0)
			conn_end(a, i);
	close(a->fd);
	unlink(a->path);
	a->fd = -1;
}
