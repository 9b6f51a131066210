/* audit.h — `containment-lab audit`: the lesson's attacks run through the
 * sandbox the user already has (a command prefix, prefix.h), and the
 * report card.
 *
 * Life cycle: audit_preset (or the caller's own prefix) -> for each snippet
 * lab_audit_run (run.c, box_wrapper.c: audit_expand fills the prefix in)
 * -> audit_card_text/json/markdown. */
#ifndef LAB_AUDIT_H
#define LAB_AUDIT_H

#include "lab.h"
#include "prefix.h" /* the prefixes: presets, placeholders */
#include "util.h"

#define AUDIT_SNIPPETS_MAX 16

struct audit_card {
	const char *name; /* the preset's name, or "custom" */
	char *const *wrapper;
	const char *note;
	struct lab_result res[AUDIT_SNIPPETS_MAX];
	int n;
};

void audit_card_text(const struct audit_card *c);
/* The card's "missing:" line without its label: each layer whose attack
 * escaped, with what came out ("Clean-env missing — ..."), joined by sep;
 * or why none can be said ("none: no attack got out", "none seen, but"). */
void audit_card_missing(const struct audit_card *c, struct strbuf *b, const char *sep);
void audit_card_markdown(const struct audit_card *c);
void audit_card_json(const struct audit_card *c);
/* The exit status the card earns: 1 when an attack escaped; else 4 when
 * an attack gave no verdict (ERROR: it never ran, and proves nothing);
 * else 3 when the legit task did not run OK (the wrapper may not run the
 * code at all); else 0. */
int audit_card_status(const struct audit_card *c);
#endif
