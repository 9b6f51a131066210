/* audit.c — `audit`'s report card in text, markdown and JSON: what the
 * lesson's attacks did through the user's sandbox (the runs are
 * lab_audit_run's, the prefixes prefix.c's, the verdicts verdict.c's). */
#define _GNU_SOURCE
#include "audit.h"
#include "report.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- the card ---------------- */

static const struct lab_result *find(const struct audit_card *c, enum lab_threat t)
{
	for (int i = 0; i < c->n; i++)
		if (c->res[i].threat == t)
			return &c->res[i];
	return NULL;
}

/* The first attack of threat T that escaped, after AFTER (NULL: from the
 * start): a threat may have several snippets on the card (exfiltration
 * and dns-exfil; host-takeover, persist-hooks and daemon). */
static const struct lab_result *escaped(const struct audit_card *c, enum lab_threat t, const struct lab_result *after)
{
	for (int i = after ? (int)(after - c->res) + 1 : 0; i < c->n; i++)
		if (c->res[i].verdict == VERDICT_ESCAPED && (c->res[i].escaped & (1u << t)))
			return &c->res[i];
	return NULL;
}

static bool legit_failed(const struct audit_card *c)
{
	const struct lab_result *r = find(c, THREAT_LEGIT);
	return r && r->verdict != VERDICT_RAN_OK;
}

/* "Clean-env missing — ..." for each attack that escaped, from its evidence. */
static void missing_layers(const struct audit_card *c, struct strbuf *b, const char *sep)
{
	int n = 0;
	for (int l = 0; l < LAYER_COUNT; l++)
		for (const struct lab_result *first = escaped(c, lab_layers[l].threat, NULL), *r = first; r;
		     r = escaped(c, lab_layers[l].threat, r)) {
			const struct lab_evidence *ev = &r->ev;
			char a[32];
			if (r == first)
				sb_printf(b, "%s%s missing — ", n++ ? sep : "", lab_layers[l].name);
			else
				sb_puts(b, "; ");
			switch (lab_layers[l].threat) {
			case THREAT_SECRETS:
				if (ev->secrets.canaries_leaked > 0)
					sb_printf(
					    b, "the caller's secrets were readable inside: %d of %d came out, from %s",
					    ev->secrets.canaries_leaked, ev->secrets.canaries_planted,
					    ev->secrets.leak_places);
				else
					sb_puts(b, r->headline);
				break;
			case THREAT_EXFIL:
				/* the sink the verdict named: the attacker, else api.lab.test,
				 * else the DNS zone (the headline says it) */
				if (!ev->exfil.attacker_bytes && !ev->egress.api_bytes) {
					sb_puts(b, r->headline);
					break;
				}
				fmt_thousands(a, sizeof a,
				              ev->exfil.attacker_bytes ? ev->exfil.attacker_bytes
				                                       : ev->egress.api_bytes);
				sb_printf(b, "%s on the host's 127.0.0.1 received %s bytes%s",
				          ev->exfil.attacker_bytes ? "the attacker" : "api.lab.test", a,
				          (ev->exfil.attacker_bytes ? ev->exfil.attacker_got_canary
				                                    : ev->egress.api_got_canary)
				              ? " with the customer data's canary row"
				              : "");
				break;
			case THREAT_TAKEOVER:
				/* from the evidence: the snippet's header may name another threat */
				if (ev->host.host_target_written)
					sb_printf(b, "the sandbox wrote outside its folder: %s", ev->host.host_target);
				else if (ev->host.work_planted[0])
					sb_printf(b, "%s: it left %s in the work folder on the host", r->snippet,
					          ev->host.work_planted);
				else if (ev->end.outlived > 0)
					sb_printf(
					    b, "%s: %d process%s of the snippet's (%s) outlived the wrapper's command",
					    r->snippet, ev->end.outlived, ev->end.outlived == 1 ? "" : "es",
					    ev->end.outlived_what);
				else if (ev->host.agent_conns > 0)
					sb_printf(b, "%s: it reached your ssh-agent's socket (~/.ssh/agent.sock)%s",
					          r->snippet,
					          ev->host.agent_requests ? " and asked it for your keys" : "");
				else
					sb_puts(b, r->headline);
				break;
			case THREAT_RESOURCE:
				/* over_caps' headline: "The bomb took N processes (cap M), ..." */
				sb_puts(b,
				        !strncmp(r->headline, "The bomb took ", 14) ? r->headline + 14 : r->headline);
				break;
			default:
				break;
			}
		}
	if (n)
		return;
	/* "none" only when every attack gave a verdict and the legit task ran:
	 * an attack that never ran got nothing out, and proves nothing */
	int errors = 0;
	for (int i = 0; i < c->n; i++)
		if (c->res[i].verdict == VERDICT_ERROR)
			sb_printf(b, "%s%s",
			          errors++ ? ", " : "none seen, but the card is incomplete: ", c->res[i].snippet);
	if (errors)
		sb_puts(b, " gave no verdict (ERROR)");
	if (legit_failed(c))
		sb_printf(b, "%sthe legit task did not run OK, so the wrapper may not run the code at all",
		          errors ? sep : "none seen, but the card proves little: ");
	if (!errors && !legit_failed(c))
		sb_puts(b, "none: no attack got out");
}

void audit_card_missing(const struct audit_card *c, struct strbuf *b, const char *sep)
{
	missing_layers(c, b, sep);
}

static void wrapper_line(const struct audit_card *c, struct strbuf *b)
{
	for (int i = 0; c->wrapper && c->wrapper[i]; i++)
		sb_printf(b, "%s%s", i ? " " : "", c->wrapper[i]);
}

static const char claim[] = "Every line rests on the lab's outside evidence (canaries in the output or at the "
                            "attacker, each named by the place it was read, the host target, the wrapper's tasks "
                            "and memory as a limit counts them: a measuring cgroup of the lab's around it, or a "
                            "/proc walk, against layers.ini's caps and its [audit] tolerance). CONTAINED means "
                            "nothing came out; the lab cannot see which mechanism of the wrapper held it back.";
static const char no_legit[] = "The legit task did not run OK: the wrapper may not run the code at all, so "
                               "CONTAINED below proves little.";

void audit_card_text(const struct audit_card *c)
{
	struct strbuf b = {0};
	sb_printf(&b, "audit: %s\nwrapper: ", c->name);
	wrapper_line(c, &b);
	sb_puts(&b, "\n");
	if (c->note && c->note[0])
		sb_printf(&b, "note: %s\n", c->note);
	if (legit_failed(c))
		sb_printf(&b, "warning: %s\n", no_legit);
	sb_puts(&b, "\n");
	for (int i = 0; i < c->n; i++) {
		const struct lab_result *r = &c->res[i];
		sb_printf(&b, "  %-15s %-10s %s\n", r->snippet, verdict_name(r->verdict), r->headline);
		for (int k = 0; k < r->n_evidence; k++)
			sb_printf(&b, "  %-15s %-10s   %s\n", "", "", r->evidence[k]);
		if (r->verdict == VERDICT_FAILED || r->verdict == VERDICT_ERROR) {
			/* the wrapper's own complaint is usually why */
			size_t len = r->output_len < 400 ? r->output_len : 400;
			sb_printf(&b, "  %-15s %-10s   output: %.*s\n", "", "", (int)len, r->output ? r->output : "");
		}
	}
	sb_puts(&b, "\nmissing: ");
	missing_layers(c, &b, "\n         ");
	sb_printf(&b, "\n\n%s\n", claim);
	char *inert = sanitize_output(b.s, b.len, 0);
	report_fputs(inert, stdout);
	free(inert);
	sb_free(&b);
}

void audit_card_markdown(const struct audit_card *c)
{
	struct strbuf b = {0};
	sb_printf(&b, "### `%s`\n\n`", c->name);
	wrapper_line(c, &b);
	sb_puts(&b, "`\n\n");
	if (c->note && c->note[0])
		sb_printf(&b, "Note: %s\n\n", c->note);
	if (legit_failed(c))
		sb_printf(&b, "**Warning:** %s\n\n", no_legit);
	sb_puts(&b, "| snippet | verdict | evidence |\n|---|---|---|\n");
	for (int i = 0; i < c->n; i++)
		sb_printf(&b, "| %s | %s | %s |\n", c->res[i].snippet, verdict_name(c->res[i].verdict),
		          c->res[i].headline);
	sb_puts(&b, "\nMissing: ");
	missing_layers(c, &b, "; ");
	sb_puts(&b, "\n");
	char *inert = sanitize_output(b.s, b.len, 0);
	fputs(inert, stdout);
	free(inert);
	sb_free(&b);
}

void audit_card_json(const struct audit_card *c)
{
	struct strbuf b = {0};
	sb_printf(&b, "{\"format\":%d,\"audit\":", REPORT_JSON_FORMAT);
	sb_json_str(&b, c->name);
	sb_puts(&b, ",\"wrapper\":[");
	for (int i = 0; c->wrapper && c->wrapper[i]; i++) {
		if (i)
			sb_puts(&b, ",");
		sb_json_str(&b, c->wrapper[i]);
	}
	sb_puts(&b, "],\"note\":");
	sb_json_str(&b, c->note && c->note[0] ? c->note : NULL);
	sb_puts(&b, ",\"results\":[");
	for (int i = 0; i < c->n; i++) {
		const struct lab_result *r = &c->res[i];
		sb_puts(&b, i ? ",{\"snippet\":" : "{\"snippet\":");
		sb_json_str(&b, r->snippet);
		sb_puts(&b, ",\"threat\":");
		sb_json_str(&b, threat_key(r->threat));
		sb_puts(&b, ",\"verdict\":");
		sb_json_str(&b, verdict_name(r->verdict));
		sb_puts(&b, ",\"headline\":");
		sb_json_str(&b, r->headline);
		sb_puts(&b, ",\"evidence\":[");
		for (int k = 0; k < r->n_evidence; k++) {
			if (k)
				sb_puts(&b, ",");
			sb_json_str(&b, r->evidence[k]);
		}
		sb_printf(&b, "],\"cpu_proc_max_s\":");
		if (r->ev.res.cpu_proc_seen)
			sb_printf(&b, "%.3f", r->ev.res.cpu_proc_max_ms / 1000.0);
		else
			sb_puts(&b, "null");
		sb_printf(&b,
		          ",\"peak_procs\":%ld,\"peak_mem\":%llu,\"cpu_s\":%.3f,\"duration_ms\":%ld,"
		          "\"canaries_leaked\":%d,\"attacker_bytes\":%llu,\"host_target_written\":%s}",
		          r->ev.res.peak_procs, (unsigned long long)r->ev.res.peak_mem, r->ev.res.cpu_s,
		          r->ev.end.duration_ms, r->ev.secrets.canaries_leaked,
		          (unsigned long long)r->ev.exfil.attacker_bytes,
		          r->ev.host.host_target_written ? "true" : "false");
	}
	sb_puts(&b, "],\"missing\":[");
	int n = 0;
	for (int l = 0; l < LAYER_COUNT; l++) {
		if (escaped(c, lab_layers[l].threat, NULL)) {
			if (n++)
				sb_puts(&b, ",");
			sb_json_str(&b, lab_layers[l].key);
		}
	}
	sb_printf(&b, "],\"legit_ok\":%s,\"ok\":%s}\n", legit_failed(c) ? "false" : "true",
	          audit_card_status(c) ? "false" : "true");
	fputs(b.s, stdout);
	sb_free(&b);
}

int audit_card_status(const struct audit_card *c)
{
	bool error = false;
	for (int i = 0; i < c->n; i++) {
		if (c->res[i].verdict == VERDICT_ESCAPED)
			return 1;
		error |= c->res[i].verdict == VERDICT_ERROR;
	}
	return error ? 4 : legit_failed(c) ? 3 : 0;
}
