/* evidence.c — helpers that write a run's evidence (lab.h), for the layers,
 * the boxes and the run alike. */
#include "evidence.h"
#include "util.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

void mech_add(struct lab_evidence *ev, const char *fmt, ...)
{
	char m[LAB_LINE];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	str_append(ev->mechanisms, sizeof ev->mechanisms, "%s%s", ev->mechanisms[0] ? ", " : "", m);
}

/* The kernel checks the cap against the process's CPU clock at each tick,
 * and sends its signal once the clock has reached it: the figure the init
 * read afterwards is at least the cap, give or take a tick of rounding. */
#define RLIMIT_CPU_SLACK_MS 20

enum lab_rlimit_cpu evidence_rlimit_cpu(const struct lab_evidence *ev, long cpu_time_s)
{
	if (!ev->res.cpu_main_seen)
		return RLIMIT_CPU_NOT;
	if (ev->end.exit_signal == SIGXCPU && ev->res.cpu_main_ms + RLIMIT_CPU_SLACK_MS >= cpu_time_s * 1000)
		return RLIMIT_CPU_SOFT;
	if (ev->end.exit_signal == SIGKILL && ev->res.cpu_main_ms + RLIMIT_CPU_SLACK_MS >= (cpu_time_s + 1) * 1000)
		return RLIMIT_CPU_HARD;
	return RLIMIT_CPU_NOT;
}
