/* evidence.h — helpers that write a run's evidence. */
#ifndef LAB_EVIDENCE_H
#define LAB_EVIDENCE_H

#include "lab.h"

/* One more mechanism really used, appended to ev->mechanisms ("a, b"). */
void mech_add(struct lab_evidence *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What RLIMIT_CPU did to the snippet's own process, from its own CPU
 * (cpu_main_ms) and how it ended, never from the run's total (the cap is
 * per process: two children at 1.05 s each reach no 2 s cap) nor from the
 * signal alone (any process may send SIGXCPU). The soft cap is cpu_time_s
 * (SIGXCPU), the hard one a second later (SIGKILL: limits.c). */
enum lab_rlimit_cpu {
	RLIMIT_CPU_NOT,  /* it did not end the process, or no figure says it did */
	RLIMIT_CPU_SOFT, /* SIGXCPU, the process's own CPU at the soft cap */
	RLIMIT_CPU_HARD, /* SIGKILL, the process's own CPU at the hard cap (SIGXCPU ignored) */
};
enum lab_rlimit_cpu evidence_rlimit_cpu(const struct lab_evidence *ev, long cpu_time_s);

#endif
