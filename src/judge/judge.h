/* judge.h — a run's result judged (after lab_run or lab_audit_run). */
#ifndef LAB_JUDGE_H
#define LAB_JUDGE_H

#include "lab.h"

/* Fills res's verdict, caught_by, headline and evidence lines from its
 * evidence (verdict_decide), the consequence in the run's figures, and on
 * the in-process rung the toggles back with what no layer could do. */
void lab_judge(const struct snippet *s, const struct lab_config *cfg, struct lab_result *res);

#endif
