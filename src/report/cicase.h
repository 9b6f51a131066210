/* cicase.h — what a CI report says, built once from a matrix or an audit
 * card and rendered by each writer (junit.c, tap.c): a suite of test cases,
 * one per matrix cell or per snippet of the card, each passed, failed (a
 * verdict other than the one expected), an error (the lab could not judge
 * it) or skipped (not run, with why).
 *
 * Life cycle: ci_suite_from_matrix / ci_suite_from_audit /
 * ci_suite_skipped -> junit_write, tap_write -> ci_suite_free. */
#ifndef CICASE_H
#define CICASE_H

#include "lab.h"
#include "report.h"

struct matrix;
struct audit_card;

enum ci_outcome { CI_PASS, CI_FAIL, CI_ERROR, CI_SKIP };

struct ci_case {
	char name[REPORT_CELL_NAME_MAX]; /* "host-takeover [I-EL] container/none" */
	char classname[96];              /* "containment-lab.matrix.host-takeover" */
	enum ci_outcome outcome;
	char message[LAB_LINE + 96]; /* one line: "expected ESCAPED, got CONTAINED: ..." or why skipped */
	const char *expected, *got;  /* verdict names; got is NULL when not run */
	double seconds;
	char *details; /* the headline, the catching layer, evidence, trace: malloc'd */
};

#define CI_PROPS_MAX 8
struct ci_suite {
	char name[160];
	char hostname[64];
	char timestamp[24]; /* UTC, "2026-01-31T12:00:00" (the JUnit schema's form, no zone) */
	double seconds;
	struct {
		const char *key;
		char value[160];
	} props[CI_PROPS_MAX];
	int n_props;
	struct ci_case *cases;
	int n;
	int failures, errors, skipped;
};

/* 0, or -ENOMEM. The matrix must have run (cells not run are skipped). */
int ci_suite_from_matrix(struct ci_suite *s, const struct matrix *m);
/* The card's results: legit expected RAN OK, every attack CONTAINED. */
int ci_suite_from_audit(struct ci_suite *s, const struct audit_card *c);
/* A suite of one skipped case: an audit whose preset cannot run here. */
int ci_suite_skipped(struct ci_suite *s, const char *audit_name, const char *why);
/* A suite of one case for a rung of `matrix --rung all` that did not run:
 * skipped when its tools are not here, an error when the matrix was
 * stopped before it. */
int ci_suite_rung_skipped(struct ci_suite *s, enum lab_rung rung, const char *why, bool stopped);
/* One suite of every case of parts (for TAP's single plan); the parts are
 * emptied and freed. */
int ci_suite_merge(struct ci_suite *dst, struct ci_suite *parts, int n, const char *name);
void ci_suite_free(struct ci_suite *s);

/* The writers: 0, or -errno when the stream could not be written. */
int junit_write(const struct ci_suite *s, FILE *f);
/* n suites as one <testsuites> (the ladder: a <testsuite> per rung). */
int junit_write_all(const struct ci_suite *s, int n, FILE *f);
int tap_write(const struct ci_suite *s, FILE *f);

#endif
