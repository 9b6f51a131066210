/* junit.c — a CI suite (cicase.h) as JUnit XML, the report GitHub Actions,
 * GitLab and Jenkins show as tests: <testsuites> holding one <testsuite>,
 * a <testcase> per case; a case not as expected holds a <failure>, one the
 * lab could not judge an <error>, one not run <skipped>. The elements and
 * attributes are the ones Jenkins' JUnit schema (junit-4.xsd) requires,
 * in its order; tests/junit.xsd checks them. */
#include "cicase.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>

static void attr(struct strbuf *b, const char *name, const char *value)
{
	sb_printf(b, " %s=\"", name);
	sb_xml_str(b, value);
	sb_puts(b, "\"");
}

static void testcase(struct strbuf *b, const struct ci_case *k)
{
	sb_puts(b, "    <testcase");
	attr(b, "name", k->name);
	attr(b, "classname", k->classname);
	sb_printf(b, " time=\"%.3f\">\n", k->seconds);
	static const char *const tag[] = {[CI_FAIL] = "failure", [CI_ERROR] = "error", [CI_SKIP] = "skipped"};
	if (k->outcome != CI_PASS) {
		sb_printf(b, "      <%s", tag[k->outcome]);
		attr(b, "message", k->message);
		if (k->outcome == CI_SKIP) {
			sb_puts(b, "/>\n");
		} else {
			attr(b, "type", k->outcome == CI_FAIL ? "verdict" : "lab-error");
			sb_puts(b, ">");
			sb_printf(b, "expected: %s\ngot: %s\n", k->expected, k->got ? k->got : "nothing");
			sb_xml_str(b, k->details);
			sb_printf(b, "</%s>\n", tag[k->outcome]);
		}
	}
	if (k->details && k->outcome == CI_PASS) { /* a failure's body has them */
		sb_puts(b, "      <system-out>");
		sb_xml_str(b, k->details);
		sb_puts(b, "</system-out>\n");
	}
	sb_puts(b, "    </testcase>\n");
}

static void suite(struct strbuf *b, const struct ci_suite *s)
{
	sb_puts(b, "  <testsuite");
	attr(b, "name", s->name);
	sb_printf(b, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"", s->n, s->failures,
	          s->errors, s->skipped, s->seconds);
	attr(b, "timestamp", s->timestamp);
	attr(b, "hostname", s->hostname);
	sb_puts(b, ">\n    <properties>\n");
	for (int i = 0; i < s->n_props; i++) {
		sb_puts(b, "      <property");
		attr(b, "name", s->props[i].key);
		attr(b, "value", s->props[i].value);
		sb_puts(b, "/>\n");
	}
	sb_puts(b, "    </properties>\n");
	for (int i = 0; i < s->n; i++)
		testcase(b, &s->cases[i]);
	sb_puts(b, "  </testsuite>\n");
}

int junit_write_all(const struct ci_suite *s, int n, FILE *f)
{
	struct strbuf b = {0};
	int tests = 0, failures = 0, errors = 0;
	double seconds = 0;
	for (int i = 0; i < n; i++) {
		tests += s[i].n;
		failures += s[i].failures;
		errors += s[i].errors;
		seconds += s[i].seconds;
	}
	sb_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	attr(&b, "name", n == 1 ? s[0].name : "containment-lab matrix, every rung of the ladder");
	/* the schema has no skipped count on <testsuites>, only on <testsuite> */
	sb_printf(&b, " tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", tests, failures, errors, seconds);
	for (int i = 0; i < n; i++)
		suite(&b, &s[i]);
	sb_puts(&b, "</testsuites>\n");
	int rc = fwrite(b.s, 1, b.len, f) == b.len && fflush(f) == 0 ? 0 : -(errno ? errno : EIO);
	sb_free(&b);
	return rc;
}

int junit_write(const struct ci_suite *s, FILE *f)
{
	return junit_write_all(s, 1, f);
}
