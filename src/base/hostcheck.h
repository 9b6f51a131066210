/* hostcheck.h — what this host lets the lab build, checked before anything
 * runs: every run needs a user namespace (the range's), and some hosts
 * forbid them (user.max_user_namespaces = 0, Debian's old
 * kernel.unprivileged_userns_clone = 0) or, like Ubuntu 23.10+, let an
 * unconfined program make one but leave it no capabilities inside
 * (kernel.apparmor_restrict_unprivileged_userns = 1). */
#ifndef LAB_HOSTCHECK_H
#define LAB_HOSTCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* What was read: -1 where the knob does not exist on this kernel. */
struct hostcheck {
	bool root;               /* euid 0 */
	unsigned uid;            /* euid, for the message */
	long max_userns;         /* /proc/sys/user/max_user_namespaces */
	long userns_clone;       /* /proc/sys/kernel/unprivileged_userns_clone */
	long apparmor_restrict;  /* /proc/sys/kernel/apparmor_restrict_unprivileged_userns */
	int probe_errno;         /* the probe's failure (0: it could build a mount namespace), -1: not probed */
	const char *probe_stage; /* which step of the probe failed */
};

/* Reads the knobs; probes (a clone into a user and mount namespace that
 * makes its mounts private, ~1 ms) only where a knob says the answer may
 * be no, so a host that allows them pays nothing. */
void hostcheck_read(struct hostcheck *h);
/* Pure: the one line that says what is blocked, what still works and the
 * fix, or false when the lab can build its sandboxes here. err is the
 * errno of a clone that failed for real (0 before anything ran). */
bool hostcheck_advice(const struct hostcheck *h, int err, char *out, size_t cap);

#endif
