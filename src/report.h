/* report.h — one result and the matrix written for people (text, markdown)
 * and programs (JSON), output made safe to show, and the short names every
 * face of the lab uses for a verdict and a set of layers. */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "lab.h"
#include "util.h"
#include "verdict.h" /* verdict_name, for every face that shows one */

struct matrix;

/* Control characters and escapes made inert: "\x1b" -> "^[", invalid UTF-8 -> "\xNN".
 * Keeps \n and turns \t into spaces. Caller frees. */
char *sanitize_output(const char *buf, size_t len, size_t max_bytes);
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
/* A layer's letter: I N E L (the first of its key, upper case). */
char report_layer_letter(int layer);

#define REPORT_LABEL_MAX (LAYER_COUNT * 2)
/* Which layers are on, a letter each, '-' when off: "IN-L", or spaced
 * "I N - L" (spaced = true). out has REPORT_LABEL_MAX bytes. */
void report_layers_label(unsigned layers, bool spaced, char out[REPORT_LABEL_MAX]);

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

/* Text for people in the user's locale. When LC_CTYPE's character set is
 * not UTF-8 (LC_ALL=C, a Latin-1 terminal), the text writers (run's and
 * matrix's text, list, --help, the lab screen) spell the lab's punctuation
 * in ASCII: an em dash as "--", an arrow as "->", an ellipsis as "...",
 * curly quotes as straight ones; any other non-ASCII character as \uXXXX,
 * a byte that is not UTF-8 as \xNN. JSON stays UTF-8 always.
 * report_utf8: the environment's LC_CTYPE is UTF-8 (asked once, without
 * setlocale). report_to_ascii: that transliteration, always (malloc'd).
 * report_ascii_text: a malloc'd copy of s, ASCII unless report_utf8().
 * report_fputs: fputs through report_ascii_text. Control characters pass
 * unchanged: making snippet text inert is sanitize_output's job. */
bool report_utf8(void);
char *report_to_ascii(const char *s);
char *report_ascii_text(const char *s);
int report_fputs(const char *s, FILE *f);

#endif
