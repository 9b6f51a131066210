/* evidence.h — helpers that write a run's evidence. */
#ifndef LAB_EVIDENCE_H
#define LAB_EVIDENCE_H

#include "lab.h"

/* One more mechanism really used, appended to ev->mechanisms ("a, b"). */
void mech_add(struct lab_evidence *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
