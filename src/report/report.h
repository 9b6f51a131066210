/* report.h — one result and the matrix written for people (text, markdown)
 * and programs (JSON), output made safe to show, and the short names every
 * face of the lab uses for a verdict and a set of layers. */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "lab.h"
#include "text.h" /* sanitize_output, report_fputs */
#include "util.h"
#include "verdict.h" /* verdict_name, for every face that shows one */

struct matrix;

/* `containment-lab run`: the result for a person (colours on a tty) or as JSON. */
void report_text(const struct lab_result *r, int fd_is_tty);
void report_json(const struct lab_result *r);

/* The one mark a matrix cell shows, the table every face uses (the matrix
 * text and markdown, the screen's list, grid and help): + CONTAINED,
 * X ESCAPED, . RAN OK, F FAILED, ! ERROR, B BROKE -- never a layer letter
 * (I N E L) nor a digit, and readable without colour. */
char report_verdict_letter(enum lab_verdict v);
/* The order verdicts are listed in a legend: + X . F ! B */
extern const enum lab_verdict report_verdict_order[VERDICT_COUNT];
/* The legend line: "+ CONTAINED  X ESCAPED  . RAN OK  F FAILED  ! ERROR  B BROKE". */
#define REPORT_LEGEND_MAX 96
void report_verdict_legend(char *out, size_t len);
/* `containment-lab matrix`, `--markdown`, `--json` on stdout, from a matrix
 * that has run (cells not run show as such). */
void report_matrix_text(const struct matrix *m);
void report_matrix_markdown(const struct matrix *m);
void report_matrix_json(const struct matrix *m);
/* `matrix --rung all`: each rung's matrix (or why it was skipped) in the
 * ladder's order, then the whole ladder's count. */
struct matrix_rung;
void report_ladder_text(const struct matrix_rung *r, int n, bool markdown);
void report_ladder_json(const struct matrix_rung *r, int n);

/* Version of every JSON document the lab writes ("format": 1), and of its
 * schema (docs/containment-lab.schema.json): raised when a field changes
 * meaning or goes; new fields may come without a raise. */
#define REPORT_JSON_FORMAT 1

/* The name a CI report (JUnit, TAP, HTML) gives the matrix's cell c:
 * "host-takeover [I-EL] container/none" (snippet, layers, rung, network
 * mode). */
#define REPORT_CELL_NAME_MAX 128
void report_cell_name(const struct matrix *m, int c, char out[REPORT_CELL_NAME_MAX]);
/* "root" or "an unprivileged user", as the matrix's faces say who ran it. */
const char *report_matrix_who(void);
/* What the limits layer really used in this matrix ("cgroup-v2", ...). */
const char *report_matrix_limits(const struct matrix *m);
/* str made inert (sanitize_output) and escaped for XML and HTML text or a
 * quoted attribute: & < > " ' as entities, a newline kept. */
void sb_xml_str(struct strbuf *b, const char *str);

#endif
