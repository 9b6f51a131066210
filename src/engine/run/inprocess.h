/* inprocess.h — the rung below the container (docs/lesson.md, exercise
 * 2): the snippet is exec()'d inside an app server of the lab's
 * (src/engine/run/app_server.py, built into the binary) that holds decoys
 * the way a real one does: API keys in its environment, a database URL and a
 * session token in module globals, a keep-alive client for api.lab.test
 * and the customer CSV in memory.
 *
 * No layer can apply without a process boundary, so the engine runs this
 * rung as a container run with no layer at all, inside the range as every
 * run is (the machine stays safe). The toggles are kept for the record and
 * shown as n/a; the verdict is the evidence's, as on every rung.
 *
 * Life cycle (run.c): inprocess_setup -> plan_snippet -> inprocess_plan
 * (the app server and its token in the run) -> the run -> inprocess_gather
 * (before the run's folder goes) -> lab_judge (judge.c: the verdict with no
 * layer, then the toggles back and the token's evidence). */
#ifndef LAB_INPROCESS_H
#define LAB_INPROCESS_H

#include "run.h"
#include "util.h" /* struct strbuf */

/* The rung is in-process: *own becomes setup run as a container with no
 * layer and true is returned; false leaves own untouched. */
bool inprocess_setup(const struct lab_setup *setup, struct lab_setup *own);
/* After plan_snippet: writes the app server into the run's work folder,
 * hands it a fresh session token and makes it the command, the snippet its
 * argument. 0, or -1 with ev->error naming the file. */
int inprocess_plan(struct run *r, struct lab_evidence *ev);
/* Before the run's folder is removed: where the token went, the toggles
 * kept (res->inproc), and why no layer applied first in the mechanisms.
 * The judge (judge.c) then says it in the evidence. */
void inprocess_gather(const struct run *r, const struct strbuf *output, unsigned toggles, struct lab_result *res);

#endif
