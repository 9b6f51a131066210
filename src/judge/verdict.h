/* verdict.h — the judge (verdict.c). Pure: it reads the evidence the lab
 * gathered outside the sandbox and the config's caps, nothing else, and knows
 * no curses and no process. */
#ifndef LAB_VERDICT_H
#define LAB_VERDICT_H

#include "lab.h"

const char *verdict_name(enum lab_verdict v); /* "RAN OK" */
/* The truth table: what this snippet should give as setup runs it (its
 * layers, rung, No-network's mode and the gate), with cfg's allow-list. */
enum lab_verdict verdict_expected(const struct snippet *s, const struct lab_config *cfg, const struct lab_setup *setup);
/* Fills verdict, caught_by, headline, evidence from res->ev. */
void verdict_decide(const struct snippet *s, const struct lab_config *cfg, struct lab_result *res);

#endif
