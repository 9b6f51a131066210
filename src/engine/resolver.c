/* resolver.c — the attacker's DNS zone for `audit` (resolver.h).
 *
 * A query is a 12-byte header and a name as labels (a length byte, then
 * that many bytes, up to a zero byte). The exfiltration this catches puts
 * the data in the labels before the zone, hex-encoded, as DNS tunnels do:
 * "<hex>.<n>.<zone>". Each label before the zone that is even-length hex
 * is decoded and kept, in the order they came (loopback keeps it); the
 * piece's number, the last label before the zone, is not data. */
#define _GNU_SOURCE
#include "resolver.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define RESOLVER_KEEP (256 << 10)

int resolver_open(struct lab_resolver *rv, const char *token)
{
	*rv = (struct lab_resolver){.fd = -1};
	snprintf(rv->zone, sizeof rv->zone, "%s.resolver.lab.test", token);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	rv->fd = fd;
	rv->port = ntohs(a.sin_port);
	return 0;
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

static bool is_hex(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit(p[i]))
			return false;
	return n > 0 && n % 2 == 0;
}

static void keep(struct lab_resolver *rv, const unsigned char *hex, size_t n)
{
	rv->bytes += n / 2;
	if (rv->len + n / 2 > RESOLVER_KEEP)
		return;
	char *d = realloc(rv->data, rv->len + n / 2 + 1);
	if (!d)
		return;
	rv->data = d;
	for (size_t i = 0; i < n; i += 2)
		d[rv->len++] = (char)(hexval(hex[i]) << 4 | hexval(hex[i + 1]));
	d[rv->len] = '\0';
}

/* One datagram: this run's zone's query, or a stray. */
static void take(struct lab_resolver *rv, const unsigned char *m, size_t n)
{
	/* a query (QR 0, opcode 0) with one question */
	if (n < 13 || (m[2] & 0xF8) != 0 || m[4] != 0 || m[5] != 1) {
		rv->strays++;
		return;
	}
	struct {
		size_t at, len;
	} lab[128];
	int k = 0;
	size_t p = 12;
	char name[256];
	size_t nl = 0;
	while (p < n && m[p] != 0) {
		size_t l = m[p];
		if (l > 63 || p + 1 + l > n || k == 128 || nl + l + 1 >= sizeof name) {
			rv->strays++;
			return;
		}
		lab[k].at = p + 1;
		lab[k++].len = l;
		if (nl)
			name[nl++] = '.';
		memcpy(name + nl, m + p + 1, l);
		nl += l;
		p += 1 + l;
	}
	name[nl] = '\0';
	size_t zl = strlen(rv->zone);
	if (p >= n || nl <= zl || name[nl - zl - 1] != '.' || strcasecmp(name + nl - zl, rv->zone) != 0) {
		rv->strays++;
		return;
	}
	rv->queries++;
	/* the labels before the zone (which has 4 of its own); of two or more,
	 * the last is the piece's number, not data */
	int before = k - 4, data = before > 1 ? before - 1 : before;
	for (int i = 0; i < data; i++)
		if (is_hex(m + lab[i].at, lab[i].len))
			keep(rv, m + lab[i].at, lab[i].len);
}

void resolver_event(struct lab_resolver *rv)
{
	unsigned char m[1500];
	for (int round = 0; rv->fd >= 0 && round < 4096; round++) {
		ssize_t n = recv(rv->fd, m, sizeof m, MSG_DONTWAIT);
		if (n < 0)
			return;
		take(rv, m, (size_t)n);
	}
}

void resolver_close(struct lab_resolver *rv)
{
	if (rv->fd >= 0)
		close(rv->fd);
	free(rv->data);
	*rv = (struct lab_resolver){.fd = -1};
}
