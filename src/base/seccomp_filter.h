/* seccomp_filter.h — the Isolation layer's syscall filter (libseccomp). */
#ifndef LAB_SECCOMP_H
#define LAB_SECCOMP_H
#include <seccomp.h>

#include <stdbool.h>
#include <stddef.h>

/* Builds the filter: default allow, EPERM for the dangerous calls, ENOSYS for
 * clone3, kill-process for any foreign ABI. With notify, the refusals ask
 * the filter's listener instead (trace.c answers the same errno). With
 * with_network, No-network's rules too (the trace with both layers on: a
 * process may have one filter with a listener). With notify and
 * with_paths, the path calls below stop too, for the trace to see what
 * they aim at (a run's, not exec's: only a run has a host target). NULL +
 * -errno in *err_out. */
scmp_filter_ctx lab_seccomp_build(bool notify, bool with_network, bool with_paths, int *err_out, int *n_rules);
/* The errno a refusal of syscall nr answers, in either filter (EPERM;
 * ENOSYS for clone3, EAFNOSUPPORT for socket, ESOCKTNOSUPPORT for
 * socketpair). With notify both filters
 * also stop connect() and sendto() with an address, for the lab to make
 * (trace.c); they refuse neither. */
int lab_seccomp_refusal_errno(int nr);
/* Adds to a notify filter: every sendmsg() (but the one whose header is
 * at handoff: the child's listener handoff) and sendmmsg() stop for the
 * lab, which reads their addresses (trace.c). 0 or -errno. */
int lab_seccomp_watch_sends(scmp_filter_ctx ctx, unsigned long long handoff);
/* landlock_create_ruleset, landlock_add_rule, landlock_restrict_self: with
 * notify, refused ENOSYS while the lab makes connect() itself (an LSM
 * checks the calling task, and that is then the lab). */
bool lab_seccomp_is_landlock(int nr);
/* memfd_secret: with notify, refused ENOSYS, its memory being the one the
 * lab cannot read when it reads a stopped call's arguments. */
bool lab_seccomp_is_secretmem(int nr);
/* The names of the calls Isolation's filter refuses (EPERM), for a box
 * that traces them its own way (gvisor: runsc --strace). */
size_t lab_seccomp_refused_names(const char *const **names);
/* A call that creates or replaces something at a path (open for writing,
 * mkdir, rename's new name...): with notify, Isolation's filter stops each
 * for the trace to see where it aims, and lets it go on. path_arg is the
 * path's argument, dirfd_arg the folder it is relative to (-1: the
 * current folder), flags_arg the open flags the filter looks at (-1: none,
 * every call stops). */
struct lab_seccomp_path_call {
	const char *name;
	int dirfd_arg, path_arg, flags_arg;
};
/* nr's row, or NULL if nr is no such call. */
const struct lab_seccomp_path_call *lab_seccomp_path_call(int nr);
/* No-network's filter: socket(AF_VSOCK) and socket(AF_UNIX) refused (the
 * namespace does not fence them), socketpair() of any type but SOCK_STREAM
 * (a datagram pair can be pointed at any socket file), io_uring too. */
scmp_filter_ctx lab_seccomp_build_network(bool notify, int *err_out);
/* Resource-limits' watch, added to a notify filter: mmap() and mremap()
 * of LAB_WATCH_MAP_MIN bytes or more, clone(), clone3(), fork(), vfork(),
 * wait4(), waitid() and mlockall() stop for the lab to look
 * (limits_watch.c), which lets each go on. 0 or -errno. */
#define LAB_WATCH_MAP_MIN (1ull << 20)
int lab_seccomp_watch_limits(scmp_filter_ctx ctx);
/* The watch alone, in a filter of its own (no other layer's filter holds
 * the listener): it refuses nothing. */
scmp_filter_ctx lab_seccomp_build_limits(int *err_out);
/* Isolation's filter for the microvm guest's init to install, as BPF
 * (malloc'd in *bpf): every refusal SCMP_ACT_NOTIFY, for the guest init
 * to answer with lab_seccomp_refusal_errno and report. Its listener is
 * also asked for connect(), sendto() with an address and Landlock's calls,
 * which it lets go on. 0 or -errno. */
int lab_seccomp_guest_bpf(void **bpf, size_t *len, int *n_rules);
/* Every call Isolation's filter may refuse (some by their arguments
 * only: clone, personality, ioctl), one nr each; how many in nrs. */
size_t lab_seccomp_iso_calls(int *nrs, size_t cap);
/* Compiles f into a memfd (releases f): 0 and *fd_out, or -errno. */
int lab_seccomp_export(scmp_filter_ctx f, const char *name, int *fd_out);

#endif
