/* seccomp_filter.h — the Isolation layer's syscall filter (libseccomp). */
#ifndef LAB_SECCOMP_H
#define LAB_SECCOMP_H
#include <seccomp.h>

#include <stdbool.h>

/* Builds the filter: default allow, EPERM for the dangerous calls, ENOSYS for
 * clone3, kill-process for any foreign ABI. With notify, the refusals ask
 * the filter's listener instead (trace.c answers the same errno). With
 * with_network, No-network's rules too (the trace with both layers on: a
 * process may have one filter with a listener). NULL + -errno in *err_out. */
scmp_filter_ctx lab_seccomp_build(bool notify, bool with_network, int *err_out, int *n_rules);
/* The errno a refusal of syscall nr answers, in either filter (EPERM;
 * ENOSYS for clone3, EAFNOSUPPORT for socket, ESOCKTNOSUPPORT for
 * socketpair). With notify both filters
 * also stop connect() for the lab to make (trace.c); it refuses none. */
int lab_seccomp_refusal_errno(int nr);
/* landlock_create_ruleset, landlock_add_rule, landlock_restrict_self: with
 * notify, refused ENOSYS while the lab makes connect() itself (an LSM
 * checks the calling task, and that is then the lab). */
bool lab_seccomp_is_landlock(int nr);
/* No-network's filter: socket(AF_VSOCK) and socket(AF_UNIX) refused (the
 * namespace does not fence them), socketpair() of any type but SOCK_STREAM
 * (a datagram pair can be pointed at any socket file), io_uring too. */
scmp_filter_ctx lab_seccomp_build_network(bool notify, int *err_out);
#endif
