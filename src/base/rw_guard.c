/* rw_guard.c — `exec --rw`'s guard. With --rw the command's current folder
 * is the one place a run can write on the real disk, and a mount flag
 * inside the sandbox cannot help there: a setuid file made in it is a
 * setuid file for every local user who reaches the folder from outside.
 * So the range refuses, with EPERM, every call that could leave one: a
 * mode with the setuid or setgid bit (chmod family, open and creat), a
 * device node (mknod), file capabilities (the setxattr family: EOPNOTSUPP,
 * so that tools setting an ACL fall back to a plain chmod), and the
 * calls whose arguments a filter cannot read (openat2's struct, io_uring's
 * rings: ENOSYS and EPERM). Loaded by the range's child (box_container.c)
 * after the layers' own filters, whatever the layers. */
#define _GNU_SOURCE
#include "rw_guard.h"

#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/stat.h>

#define NR_FCHMODAT2  452 /* Linux 6.6; libseccomp 2.5 has no name for it */
#define NR_SETXATTRAT 463 /* Linux 6.13 */

struct mode_rule {
	int nr;
	unsigned arg; /* which argument holds the mode */
};

static int deny_bits(scmp_filter_ctx f, const struct mode_rule *m, scmp_datum_t mask, scmp_datum_t value)
{
	struct scmp_arg_cmp c = {.arg = m->arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = value};
	return seccomp_rule_add_array(f, SCMP_ACT_ERRNO(EPERM), m->nr, 1, &c);
}

int rw_guard_load(void)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	if (!f)
		return -ENOMEM;
	const struct mode_rule modes[] = {{SCMP_SYS(chmod), 1}, {SCMP_SYS(fchmod), 1}, {SCMP_SYS(fchmodat), 2},
	                                  {NR_FCHMODAT2, 2},    {SCMP_SYS(open), 2},   {SCMP_SYS(openat), 3},
	                                  {SCMP_SYS(creat), 1}};
	const struct mode_rule nodes[] = {{SCMP_SYS(mknod), 1}, {SCMP_SYS(mknodat), 2}};
	const int xattrs[] = {SCMP_SYS(setxattr), SCMP_SYS(lsetxattr), SCMP_SYS(fsetxattr), NR_SETXATTRAT};
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof modes / sizeof *modes; i++) {
		rc = deny_bits(f, &modes[i], S_ISUID, S_ISUID);
		if (rc == 0)
			rc = deny_bits(f, &modes[i], S_ISGID, S_ISGID);
	}
	for (size_t i = 0; rc == 0 && i < sizeof nodes / sizeof *nodes; i++) {
		rc = deny_bits(f, &nodes[i], S_IFMT, S_IFCHR);
		if (rc == 0)
			rc = deny_bits(f, &nodes[i], S_IFMT, S_IFBLK);
	}
	for (size_t i = 0; rc == 0 && i < sizeof xattrs / sizeof *xattrs; i++)
		rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EOPNOTSUPP), xattrs[i], 0);
	if (rc == 0)
		rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
	if (rc == 0)
		rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(io_uring_setup), 0);
	if (rc == 0)
		rc = seccomp_load(f);
	seccomp_release(f);
	return rc;
}
