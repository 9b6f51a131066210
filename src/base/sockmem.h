#ifndef SOCKMEM_H
#define SOCKMEM_H
#include <stdbool.h>
#include <stdint.h>

/* What the sockets of the caller's network namespace hold in kernel
 * buffers, in bytes (AF_UNIX, TCP and UDP, through sock_diag). *complete is
 * false when the kernel would not list them all. Allocation-free. */
uint64_t sockmem_netns_bytes(bool *complete);
/* In the lab, once, before the first range is cloned: which kinds of
 * socket the kernel lists. The first ask may load its diag module
 * (unix_diag, inet_diag, tcp_diag, udp_diag), which must not happen in a
 * run's init every 10 ms; a kind not listed is then left out of the sum. */
void sockmem_probe(void);

#endif
