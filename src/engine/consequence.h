/* consequence.h — an escape's consequence in the words of this run: the
 * snippet's header says what escaping costs as a template, and the lab
 * fills it from its own measurements and its own uid, so the sentence a
 * class reads never says more (or other) than the evidence beside it. */
#ifndef LAB_CONSEQUENCE_H
#define LAB_CONSEQUENCE_H

#include "lab.h"

/* Fills tmpl into out (cap bytes):
 *   {procs}  the most processes of the run at once     "17"
 *   {mem}    its peak memory                           "31 MiB"
 *   {cpu}    its CPU time                              "2.0 s"
 *   {sent}   what the attacker received                "3,707 bytes"
 *   {who}    whom the lab ran as                       "root", "uid 65534"
 *   {root:A|B}  A when the lab ran as root, B otherwise (A and B may hold
 *            the fields above; neither holds '|' or '}')
 * Anything else in braces stays as it is. Pure: reads only its arguments. */
void consequence_fill(char *out, size_t cap, const char *tmpl, const struct lab_evidence *ev, unsigned lab_uid);

#endif
