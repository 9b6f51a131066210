/* seccomp_filter.h — the Isolation layer's syscall filter (libseccomp). */
#ifndef LAB_SECCOMP_H
#define LAB_SECCOMP_H
#include <seccomp.h>

#include <stdbool.h>

/* Builds the filter: default allow, EPERM for the dangerous calls, ENOSYS for
 * clone3, kill-process for any foreign ABI. With notify, the refusals ask
 * the filter's listener instead (trace.c answers the same errno). NULL +
 * -errno in *err_out. */
scmp_filter_ctx lab_seccomp_build(bool notify, int *err_out, int *n_rules);
/* The errno a refusal of syscall nr answers (EPERM; ENOSYS for clone3). */
int lab_seccomp_refusal_errno(int nr);
/* No-network's filter: socket(AF_VSOCK) refused (the namespace does not
 * fence it). */
scmp_filter_ctx lab_seccomp_build_network(int *err_out);
#endif
