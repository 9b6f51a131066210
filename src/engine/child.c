/* child.c — the helpers a box's child (and a layer's child hook) uses
 * while it builds the sandbox: failing with the step and the path on the
 * report pipe, reporting a line, loading a seccomp filter (with a listener
 * handed to the lab). None returns to the lab: they run in the child. */
#define _GNU_SOURCE
#include "run.h"
#include "system.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

void run_fail(struct run *r, const char *stage, const char *what, int err)
{
	char msg[PATH_MAX + 200];
	int n = snprintf(msg, sizeof msg, "E %d %s: %s\n", err, stage, what ? what : "");
	if (n > (int)sizeof msg - 1)
		n = (int)sizeof msg - 1;
	(void)!write(r->rep[1], msg, (size_t)n);
	_exit(125);
}

void run_report(struct run *r, const char *fmt, ...)
{
	char msg[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n > 0)
		(void)!write(r->rep[1], msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

void run_load_filter(struct run *r, struct sock_fprog *prog, const char *which)
{
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog) < 0)
		run_fail(r, "load a seccomp filter", which, errno);
}

void run_load_filter_listen(struct run *r, struct sock_fprog *prog, const char *which)
{
	int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	if (fd < 0)
		run_fail(r, "load a seccomp filter with a listener", which, errno);
	/* a refusal nobody answers would stop the snippet at its first one.
	 * The filter stops sendmsg() too, for the lab, which has no listener
	 * yet: this one's header sits in the page the rule lets by (the
	 * trace's handoff page, at a random address only the lab and this
	 * process know; the snippet's exec drops it) */
	int e = r->tr.handoff ? fd_send_at(r->sync[0], fd, 'n', r->tr.handoff) : fd_send(r->sync[0], fd, 'n');
	if (e < 0)
		run_fail(r, "hand the filter's listener to the lab", which, -e);
	close(fd);
}
