#ifndef RESOLVER_H
#define RESOLVER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The attacker's DNS zone, as `audit` serves it: a UDP socket on the
 * host's 127.0.0.1 that takes queries for one zone of this run's own
 * (a random label under resolver.lab.test) and keeps what their names
 * carry. A query for any other name (a stranger's, another run's) is
 * counted apart and its bytes never kept. Nothing is answered: a query
 * that arrived is the piece of data delivered. */
struct lab_resolver {
	int fd;
	int port;
	char zone[96];  /* "<token>.resolver.lab.test" */
	long queries;   /* datagrams for this run's zone */
	long strays;    /* datagrams for any other name, or not a query */
	uint64_t bytes; /* decoded bytes the zone's names carried */
	char *data;     /* those bytes, the first RESOLVER_KEEP of them */
	size_t len;
};

/* Opens the socket, on a port of its own; 0 or -errno. */
int resolver_open(struct lab_resolver *rv, const char *token);
/* Every datagram waiting, read and decoded. */
void resolver_event(struct lab_resolver *rv);
void resolver_close(struct lab_resolver *rv);

#endif
