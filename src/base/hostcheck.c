/* hostcheck.c — can this host give the lab a user namespace it may use?
 * Read before anything runs (main.c) and again to explain a clone that
 * failed (box_container.c), so the user gets one line, not the errno of
 * whichever step broke first. */
#define _GNU_SOURCE
#include "hostcheck.h"
#include "system.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long knob(const char *path)
{
	char *s = read_file(path, NULL, 64);
	if (!s)
		return -1;
	long v = strtol(s, NULL, 10);
	free(s);
	return v;
}

/* A child in a new user and mount namespace makes its mounts private, the
 * first thing every box does there: it exits 0, or 1 + the errno. */
static void probe(struct hostcheck *h)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return;
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD | CLONE_NEWUSER | CLONE_NEWNS, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		close(fds[0]);
		int e = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ? errno : 0;
		(void)!write(fds[1], &e, sizeof e);
		_exit(e != 0);
	}
	close(fds[1]);
	if (pid < 0) {
		h->probe_errno = errno;
		h->probe_stage = "clone a user namespace";
	} else {
		int e = 0;
		h->probe_errno = read(fds[0], &e, sizeof e) == (ssize_t)sizeof e ? e : EPIPE;
		h->probe_stage = "make mounts private in it";
		waitpid(pid, NULL, 0);
	}
	close(fds[0]);
}

void hostcheck_read(struct hostcheck *h)
{
	*h = (struct hostcheck){.root = geteuid() == 0, .uid = (unsigned)geteuid(), .probe_errno = -1};
	h->max_userns = knob("/proc/sys/user/max_user_namespaces");
	h->userns_clone = knob("/proc/sys/kernel/unprivileged_userns_clone");
	h->apparmor_restrict = knob("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	/* only AppArmor's rule needs a look: the lab may be confined by a
	 * profile that grants userns (docs/apparmor/containment-lab) */
	if (!h->root && h->apparmor_restrict == 1 && h->max_userns != 0 && h->userns_clone != 0)
		probe(h);
}

bool hostcheck_advice(const struct hostcheck *h, int err, char *out, size_t cap)
{
	char why[80] = "";
	if (err)
		snprintf(why, sizeof why, "; clone: %s", strerror(err));
	if (h->max_userns == 0) {
		snprintf(out, cap,
		         "this host allows no user namespace (user.max_user_namespaces is 0%s), and every run needs "
		         "one, as root too: nothing can run. Fix: sudo sysctl -w user.max_user_namespaces=15000",
		         why);
		return true;
	}
	if (!h->root && h->userns_clone == 0) {
		snprintf(out, cap,
		         "unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone is 0%s): "
		         "as uid %u nothing can run, as root everything works. Fix: sudo sysctl -w "
		         "kernel.unprivileged_userns_clone=1, or run the lab as root",
		         why, h->uid);
		return true;
	}
	if (!h->root && h->apparmor_restrict == 1 && (err || h->probe_errno > 0)) {
		snprintf(out, cap,
		         "AppArmor restricts unprivileged user namespaces here "
		         "(kernel.apparmor_restrict_unprivileged_userns=1, as on Ubuntu 23.10+): the lab's get no "
		         "capabilities (%s: %s), so as uid %u nothing can run; as root everything works. Fix: load the "
		         "lab's profile (sudo make install-apparmor, see README \"Rootless\"), or run as root",
		         err ? "clone" : h->probe_stage, strerror(err ? err : h->probe_errno), h->uid);
		return true;
	}
	if (!err)
		return false;
	snprintf(out, cap,
	         "cannot create the sandbox's namespaces (%s). Inside a container the default seccomp profile "
	         "blocks them: run the container with --security-opt seccomp=unconfined, or run the lab on the host",
	         strerror(err));
	return true;
}
