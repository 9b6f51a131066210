/* tap.c — a CI suite (cicase.h) as TAP version 13 on a stream, for `prove`
 * and the CI systems that read the Test Anything Protocol: a plan, an "ok"
 * or "not ok" line per case (an ERROR is "not ok" too), a skipped case
 * "ok ... # SKIP why", and a YAML block under each case that is not ok
 * with what was expected, what came and the lab's evidence. */
#include "cicase.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A description: inert, one line, '#' escaped (it starts a directive). */
static void description(struct strbuf *b, const char *s)
{
	char *inert = sanitize_output(s, strlen(s), 0);
	for (const char *p = inert; *p; p++) {
		if (*p == '#' || *p == '\\')
			sb_add(b, "\\", 1);
		sb_add(b, *p == '\n' ? " " : p, 1);
	}
	free(inert);
}

/* A YAML scalar: a JSON string is a valid double-quoted YAML one. */
static void yaml(struct strbuf *b, const char *key, const char *value)
{
	char *inert = sanitize_output(value, strlen(value), 0);
	sb_printf(b, "  %s: ", key);
	sb_json_str(b, inert);
	sb_puts(b, "\n");
	free(inert);
}

int tap_write(const struct ci_suite *s, FILE *f)
{
	struct strbuf b = {0};
	sb_puts(&b, "TAP version 13\n");
	if (s->n == 1 && s->cases[0].outcome == CI_SKIP) {
		/* a whole suite that cannot run here: the plan says so */
		sb_puts(&b, "1..0 # SKIP ");
		description(&b, s->cases[0].message);
		sb_puts(&b, "\n");
	} else {
		sb_printf(&b, "1..%d\n# ", s->n);
		description(&b, s->name);
		sb_puts(&b, "\n");
	}
	for (int i = 0; i < s->n && !(s->n == 1 && s->cases[0].outcome == CI_SKIP); i++) {
		const struct ci_case *k = &s->cases[i];
		sb_printf(&b, "%s %d - ", k->outcome == CI_PASS || k->outcome == CI_SKIP ? "ok" : "not ok", i + 1);
		description(&b, k->name);
		if (k->outcome == CI_SKIP) {
			sb_puts(&b, " # SKIP ");
			description(&b, k->message);
			sb_puts(&b, "\n");
			continue;
		}
		sb_puts(&b, ": ");
		description(&b, k->outcome == CI_PASS ? k->got : k->outcome == CI_ERROR ? "ERROR" : "not as expected");
		sb_puts(&b, "\n");
		if (k->outcome == CI_PASS)
			continue;
		sb_puts(&b, "  ---\n");
		yaml(&b, "message", k->message);
		yaml(&b, "expected", k->expected);
		yaml(&b, "got", k->got ? k->got : "nothing");
		yaml(&b, "details", k->details ? k->details : "");
		sb_puts(&b, "  ...\n");
	}
	sb_printf(&b, "# cases: %d, failed: %d, errors: %d, skipped: %d\n", s->n, s->failures, s->errors, s->skipped);
	int rc = fwrite(b.s, 1, b.len, f) == b.len && fflush(f) == 0 ? 0 : -(errno ? errno : EIO);
	sb_free(&b);
	return rc;
}
