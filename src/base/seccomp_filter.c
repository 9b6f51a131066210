/* seccomp_filter.c — the syscall filter applied by the Isolation layer.
 *
 * Default allow (the snippet is a full Python), and refuse with EPERM what a
 * sandboxed program never needs and an escape always does: changing mounts,
 * debugging other processes, loading kernel code, new namespaces, keyrings,
 * io_uring (its own syscall path around this filter), TIOCSTI (typing into a
 * terminal). clone3 gets ENOSYS because its flags live in memory the filter
 * cannot read; libc then falls back to clone(), whose flags we can check.
 * Only the native ABI is in the filter, so libseccomp kills the process for
 * any other (i386 int 0x80, x32).
 *
 * With the trace on (trace.c), every refusal is SCMP_ACT_NOTIFY instead of
 * SCMP_ACT_ERRNO: the kernel stops the caller and asks the lab, which logs
 * the call with its arguments and answers the very errno the rule would
 * have given (lab_seccomp_refusal_errno). The refusal never depends on the
 * lab: should its listener be gone, the kernel answers ENOSYS itself. */
#define _GNU_SOURCE
#include "seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const char *const refused[] = {
    /* the mount family */
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "open_tree",
    "move_mount",
    "mount_setattr",
    /* other processes' memory and descriptors */
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    /* kernel code and state */
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "bpf",
    "perf_event_open",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "iopl",
    "ioperm",
    "quotactl",
    "lookup_dcookie",
    "uselib",
    "vhangup",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    /* keyrings */
    "keyctl",
    "add_key",
    "request_key",
    /* namespaces */
    "unshare",
    "setns",
    /* race helpers and side channels used by exploits */
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
};

size_t lab_seccomp_refused_names(const char *const **names)
{
	*names = refused;
	return sizeof refused / sizeof *refused;
}

/* Landlock's three calls, refused while the lab makes connect() itself
 * (watch_connect). */
static const char *const landlock_calls[] = {"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"};

bool lab_seccomp_is_landlock(int nr)
{
	for (size_t i = 0; i < sizeof landlock_calls / sizeof *landlock_calls; i++)
		if (nr == seccomp_syscall_resolve_name(landlock_calls[i]))
			return true;
	return false;
}

bool lab_seccomp_is_secretmem(int nr)
{
	return nr == seccomp_syscall_resolve_name("memfd_secret");
}

int lab_seccomp_refusal_errno(int nr)
{
	if (nr == SCMP_SYS(clone3) || lab_seccomp_is_landlock(nr) || lab_seccomp_is_secretmem(nr))
		return ENOSYS;
	/* only No-network's filter refuses these: socket() a family "not
	 * there", socketpair() a type "not there" (as if the kernel lacked
	 * them, so a program falls back as it would on such a kernel) */
	if (nr == SCMP_SYS(socket))
		return EAFNOSUPPORT;
	return nr == SCMP_SYS(socketpair) ? ESOCKTNOSUPPORT : EPERM;
}

/* The trace also watches connect() and the sends that carry an address
 * (sendto, sendmsg, sendmmsg): the filter stops the caller and the lab
 * makes the call itself on the caller's own socket (trace.c), so the
 * answer is the kernel's for the sandbox's network. It refuses none of
 * them. But an LSM checks the task that calls, not the socket: a
 * snippet that forbade itself connect() with Landlock would get through on
 * the lab's call. So, exactly while the lab makes the calls, Landlock is
 * refused ENOSYS, as on a kernel built without it (libraries treat it as
 * best-effort, and the snippet knows it holds no such rule). AppArmor and
 * SELinux labels are compared per call in trace.c instead. */
static int watch_connect(scmp_filter_ctx ctx, bool notify)
{
	if (!notify)
		return 0;
	int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0);
	/* sendto() with an address (a datagram needs no connect(), and
	 * MSG_FASTOPEN on a stream connects in the send); with none it is a
	 * send on a connected socket, and is left alone */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, SCMP_A4(SCMP_CMP_NE, 0));
	for (size_t i = 0; rc == 0 && i < sizeof landlock_calls / sizeof *landlock_calls; i++) {
		int nr = seccomp_syscall_resolve_name(landlock_calls[i]);
		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	}
	/* memfd_secret(): pages no one else may read, /proc/PID/mem included,
	 * so an address or a header put there is hidden from the lab that
	 * reads the calls it stops (red team round 7): refused ENOSYS, as on a
	 * kernel without it, and the program falls back to ordinary memory */
	int nr = seccomp_syscall_resolve_name("memfd_secret");
	if (rc == 0 && nr != __NR_SCMP_ERROR)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	return rc;
}

/* sendmsg() and sendmmsg() name their address inside struct msghdr, in
 * memory no rule can read: every call stops, and the lab lets one without
 * an address go on at once (trace.c). All but one: the child hands the
 * filter's listener to the lab with a sendmsg() right after loading it,
 * when nobody could answer yet; that one's header is at handoff, a random
 * page only the lab and the child map (trace_state.h). */
int lab_seccomp_watch_sends(scmp_filter_ctx ctx, unsigned long long handoff)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmsg), 1, SCMP_A1(SCMP_CMP_NE, handoff));
	return rc == 0 ? seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendmmsg), 0) : rc;
}

/* Resource-limits' watch (limits_watch.c): where a cap of the layer's
 * meets the run, the filter stops the caller for the lab to look, and the
 * lab lets every one go on (CONTINUE): the kernel answers it, never the
 * lab. Mappings of LAB_WATCH_MAP_MIN or more (mmap's length, mremap's new
 * length), against RLIMIT_AS: smaller ones, the interpreter's own by the
 * hundred, go by unasked (glibc's malloc, when brk is refused, falls back
 * on an mmap of 1 MiB or more, which is seen). Every new task (clone,
 * clone3, fork, vfork), against RLIMIT_NPROC. Every wait (wait4, waitid),
 * for the lab to read the children that ended, RLIMIT_CPU's kills among
 * them, before their parent reaps them. And mlockall(), after which a
 * process's mappings meet RLIMIT_MEMLOCK before RLIMIT_AS. */
static const char *const limits_calls[] = {"clone", "clone3", "fork", "vfork", "wait4", "waitid", "mlockall"};

int lab_seccomp_watch_limits(scmp_filter_ctx ctx)
{
	int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(mmap), 1, SCMP_A1(SCMP_CMP_GE, LAB_WATCH_MAP_MIN));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(mremap), 1,
		                      SCMP_A2(SCMP_CMP_GE, LAB_WATCH_MAP_MIN));
	for (size_t i = 0; rc == 0 && i < sizeof limits_calls / sizeof *limits_calls; i++) {
		int nr = seccomp_syscall_resolve_name(limits_calls[i]);
		if (nr != __NR_SCMP_ERROR) /* fork and vfork: not on every architecture */
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	}
	return rc;
}

/* Resource-limits' own filter, when no filter of Isolation's or
 * No-network's holds the listener: it refuses nothing and kills nothing
 * (a foreign ABI goes by, as with the layers off: the watch only looks). */
scmp_filter_ctx lab_seccomp_build_limits(int *err_out)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		*err_out = -ENOMEM;
		return NULL;
	}
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (rc == 0)
		rc = lab_seccomp_watch_limits(ctx);
	if (rc < 0) {
		seccomp_release(ctx);
		*err_out = rc;
		return NULL;
	}
	return ctx;
}

/* The calls that create or replace a file or folder at a path, or change
 * one's mode, owner, times, extended attributes or size: which argument is
 * the path, and the folder descriptor it is relative to (-1: the current
 * folder). With the trace, Isolation's filter stops each for
 * the lab to look at the path and let it go on (trace.c): the host target,
 * or a folder on the way to it, looked up in the private root is the
 * layer meeting the attempt. open() and openat() only for writing or
 * creating (flags), so the interpreter's own reads never stop. */
static const struct lab_seccomp_path_call path_calls[] = {
    {"open", -1, 0, 1},
    {"creat", -1, 0, -1},
    {"mkdir", -1, 0, -1},
    {"mknod", -1, 0, -1},
    {"rename", -1, 1, -1},
    {"link", -1, 1, -1},
    {"symlink", -1, 1, -1},
    {"openat", 0, 1, 2},
    {"openat2", 0, 1, -1},
    {"mkdirat", 0, 1, -1},
    {"mknodat", 0, 1, -1},
    {"renameat", 2, 3, -1},
    {"renameat2", 2, 3, -1},
    {"linkat", 2, 3, -1},
    {"symlinkat", 1, 2, -1},
    /* a folder's own mode, owner or times: a world-writable host root
     * takes no new file (round 7, finding 3) */
    {"chmod", -1, 0, -1},
    {"fchmodat", 0, 1, -1},
    {"fchmodat2", 0, 1, -1},
    {"chown", -1, 0, -1},
    {"lchown", -1, 0, -1},
    {"fchownat", 0, 1, -1},
    {"utime", -1, 0, -1},
    {"utimes", -1, 0, -1},
    {"utimensat", 0, 1, -1},
    {"futimesat", 0, 1, -1},
    {"setxattr", -1, 0, -1},
    {"lsetxattr", -1, 0, -1},
    {"removexattr", -1, 0, -1},
    {"lremovexattr", -1, 0, -1},
    {"truncate", -1, 0, -1},
    {"setxattrat", 0, 1, -1},
    {"removexattrat", 0, 1, -1},
};

/* Calls newer than the libseccomp a lab may be built with (Debian 12's
 * 2.5.4 knows no setxattrat): their x86-64 numbers */
static int path_call_nr(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);
#if defined(__x86_64__)
	if (nr == __NR_SCMP_ERROR && !strcmp(name, "setxattrat"))
		nr = 463;
	else if (nr == __NR_SCMP_ERROR && !strcmp(name, "removexattrat"))
		nr = 466;
#endif
	return nr;
}

#define N_PATH_CALLS (sizeof path_calls / sizeof *path_calls)

const struct lab_seccomp_path_call *lab_seccomp_path_call(int nr)
{
	/* resolved once: the lab asks for every notification it takes */
	static int nrs[N_PATH_CALLS];
	static bool resolved;
	if (!resolved) {
		for (size_t i = 0; i < N_PATH_CALLS; i++)
			nrs[i] = path_call_nr(path_calls[i].name);
		resolved = true;
	}
	for (size_t i = 0; i < N_PATH_CALLS; i++)
		if (nr == nrs[i] && nrs[i] != __NR_SCMP_ERROR)
			return &path_calls[i];
	return NULL;
}

static int watch_paths(scmp_filter_ctx ctx)
{
	/* O_WRONLY and O_RDWR are values of the access mode, O_CREAT and
	 * O_TRUNC bits (O_RDONLY|O_TRUNC empties a file too) */
	static const struct {
		unsigned long mask, value;
	} writes[] = {{O_ACCMODE, O_WRONLY}, {O_ACCMODE, O_RDWR}, {O_CREAT, O_CREAT}, {O_TRUNC, O_TRUNC}};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < N_PATH_CALLS; i++) {
		const struct lab_seccomp_path_call *c = &path_calls[i];
		int nr = path_call_nr(c->name);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture (open, mkdir... on arm64) */
		if (c->flags_arg < 0) {
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
			continue;
		}
		for (size_t k = 0; rc == 0 && k < sizeof writes / sizeof *writes; k++) {
			struct scmp_arg_cmp cmp = {(unsigned)c->flags_arg, SCMP_CMP_MASKED_EQ, writes[k].mask,
			                           writes[k].value};
			rc = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &cmp);
		}
	}
	return rc;
}

/* What a refusal does: the errno itself, or ask the lab (which answers the
 * same errno). */
static uint32_t refuse(bool notify, int nr)
{
	return notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO((unsigned)lab_seccomp_refusal_errno(nr));
}

/* socketpair() types No-network refuses: every one but SOCK_STREAM. A
 * datagram pair is not tied to its twin: connect() points it at any socket
 * file in view and sendto() names one per call (with Isolation off, the
 * host's /dev/log, /run/systemd/notify, a listener of the attacker's).
 * SOCK_RAW is the same thing (AF_UNIX makes it a datagram socket); the rest
 * are no AF_UNIX type at all. A stream pair stays connected to its twin
 * (connect() and sendto() with an address on it are EISCONN),
 * and it is the one Python's multiprocessing, subprocess and asyncio use. */
static const unsigned long refused_pair_types[] = {SOCK_DGRAM,     SOCK_RAW,  SOCK_RDM,
                                                   SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET};
/* the type argument's low bits; SOCK_NONBLOCK and SOCK_CLOEXEC sit above */
#define LAB_SOCK_TYPE_MASK 0xfUL

/* No-network's rules, in its own filter or (merged) in Isolation's, which
 * refuses io_uring already. */
static int add_network_rules(scmp_filter_ctx ctx, bool notify, bool io_uring)
{
	int rc = seccomp_rule_add(ctx, refuse(notify, SCMP_SYS(socket)), SCMP_SYS(socket), 1,
	                          SCMP_A0(SCMP_CMP_EQ, AF_VSOCK));
	if (rc == 0 && io_uring)
		rc = seccomp_rule_add(ctx, refuse(notify, SCMP_SYS(io_uring_setup)), SCMP_SYS(io_uring_setup), 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, refuse(notify, SCMP_SYS(socket)), SCMP_SYS(socket), 1,
		                      SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
	for (size_t i = 0; rc == 0 && i < sizeof refused_pair_types / sizeof *refused_pair_types; i++)
		rc = seccomp_rule_add(ctx, refuse(notify, SCMP_SYS(socketpair)), SCMP_SYS(socketpair), 1,
		                      SCMP_A1(SCMP_CMP_MASKED_EQ, LAB_SOCK_TYPE_MASK, refused_pair_types[i]));
	return rc;
}

/* EPERM for syscall nr whenever its first argument has any of these bits. */
static int refuse_arg0_bits(scmp_filter_ctx ctx, bool notify, int nr, const unsigned long *bits, size_t n_bits, int *n)
{
	for (size_t i = 0; i < n_bits; i++) {
		int rc =
		    seccomp_rule_add(ctx, refuse(notify, nr), nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, bits[i], bits[i]));
		if (rc < 0)
			return rc;
		(*n)++;
	}
	return 0;
}

scmp_filter_ctx lab_seccomp_build(bool notify, bool with_network, bool with_paths, int *err_out, int *n_rules)
{
	int rc, n = 0;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		*err_out = -ENOMEM;
		return NULL;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0)
		goto fail;
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		int nr = seccomp_syscall_resolve_name(refused[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture (e.g. iopl on arm64) */
		rc = seccomp_rule_add(ctx, refuse(notify, nr), nr, 0);
		if (rc < 0)
			goto fail;
		n++;
	}
	/* clone with any namespace flag: one rule per bit (a rule can only test
	 * masked equality, and any one bit set is enough to refuse). */
	static const unsigned long ns_flags[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,    CLONE_NEWUSER,
	                                         CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP, CLONE_NEWTIME};
	if ((rc = refuse_arg0_bits(ctx, notify, SCMP_SYS(clone), ns_flags, sizeof ns_flags / sizeof *ns_flags, &n)) < 0)
		goto fail;
	/* personality(): switching ASLR off or making every mapping executable
	 * only helps an exploit */
	static const unsigned long persona[] = {0x0040000 /* ADDR_NO_RANDOMIZE */, 0x0400000 /* READ_IMPLIES_EXEC */};
	if ((rc = refuse_arg0_bits(ctx, notify, SCMP_SYS(personality), persona, sizeof persona / sizeof *persona, &n)) <
	    0)
		goto fail;
	rc = seccomp_rule_add(ctx, refuse(notify, SCMP_SYS(clone3)), SCMP_SYS(clone3), 0);
	if (rc < 0)
		goto fail;
	n++;
	/* The request argument is an int: compare only its low 32 bits, or a
	 * value with junk in the high half would slip past. */
	static const unsigned long ioctls[] = {TIOCSTI, TIOCLINUX};
	for (size_t i = 0; i < sizeof ioctls / sizeof *ioctls; i++) {
		rc = seccomp_rule_add(ctx, refuse(notify, SCMP_SYS(ioctl)), SCMP_SYS(ioctl), 1,
		                      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, ioctls[i]));
		if (rc < 0)
			goto fail;
		n++;
	}
	if ((rc = watch_connect(ctx, notify)) < 0 || (notify && with_paths && (rc = watch_paths(ctx)) < 0))
		goto fail;
	/* the trace with both layers on: one listener a process, so
	 * No-network's rules ride in this filter (not counted as ours) */
	if (with_network && (rc = add_network_rules(ctx, notify, false)) < 0)
		goto fail;
	if (n_rules)
		*n_rules = n;
	return ctx;
fail:
	seccomp_release(ctx);
	*err_out = rc;
	return NULL;
}

/* No-network's own filter. A network namespace does not fence every socket
 * family: AF_VSOCK talks to the hypervisor and shares its port space with the
 * host, whatever the namespace; an AF_UNIX socket connects to any socket file
 * in view, and without Isolation that is the host's (/run/docker.sock, a
 * session bus, a listener of the attacker's). So the layer refuses both
 * families itself (EAFNOSUPPORT, as if the kernel lacked them). socketpair()
 * stays for streams only: a datagram pair can be pointed at any socket file
 * (refused_pair_types, ESOCKTNOSUPPORT). io_uring is refused too
 * (IORING_OP_SOCKET makes sockets without socket()), and a foreign ABI kills
 * the process, as under Isolation: its socket calls would go around these
 * rules. With notify (the trace, when Isolation's filter is not there to
 * hold the one listener a process may have), the refusals ask the lab. */
scmp_filter_ctx lab_seccomp_build_network(bool notify, int *err_out)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		*err_out = -ENOMEM;
		return NULL;
	}
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = add_network_rules(ctx, notify, true);
	if (rc == 0)
		rc = watch_connect(ctx, notify);
	if (rc < 0) {
		seccomp_release(ctx);
		*err_out = rc;
		return NULL;
	}
	return ctx;
}

size_t lab_seccomp_iso_calls(int *nrs, size_t cap)
{
	static const char *const by_args[] = {"clone", "personality", "clone3", "ioctl"};
	size_t n = 0;
	for (size_t i = 0; i < sizeof refused / sizeof *refused + sizeof by_args / sizeof *by_args && n < cap; i++) {
		const char *name =
		    i < sizeof refused / sizeof *refused ? refused[i] : by_args[i - sizeof refused / sizeof *refused];
		int nr = seccomp_syscall_resolve_name(name);
		if (nr != __NR_SCMP_ERROR)
			nrs[n++] = nr;
	}
	return n;
}

int lab_seccomp_guest_bpf(void **bpf, size_t *len, int *n_rules)
{
	int err = 0;
	scmp_filter_ctx ctx = lab_seccomp_build(true, false, false, &err, n_rules);
	if (!ctx)
		return err;
	int fd = memfd_create("containment-lab-guest-filter", MFD_CLOEXEC);
	if (fd < 0 || (err = seccomp_export_bpf(ctx, fd)) < 0) {
		err = fd < 0 ? -errno : err;
		seccomp_release(ctx);
		if (fd >= 0)
			close(fd);
		return err;
	}
	seccomp_release(ctx);
	off_t size = lseek(fd, 0, SEEK_END);
	*bpf = size > 0 ? malloc((size_t)size) : NULL;
	if (!*bpf || pread(fd, *bpf, (size_t)size, 0) != size) {
		err = *bpf ? -EIO : -ENOMEM;
		free(*bpf);
		*bpf = NULL;
		close(fd);
		return err;
	}
	close(fd);
	*len = (size_t)size;
	return 0;
}

int lab_seccomp_export(scmp_filter_ctx f, const char *name, int *fd_out)
{
	int fd = memfd_create(name, MFD_CLOEXEC), r = fd < 0 ? -errno : seccomp_export_bpf(f, fd);
	seccomp_release(f);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}
