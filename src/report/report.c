/* report.c — how a result and the matrix are written for people (text,
 * markdown) and programs (JSON), and the letters that stand for a verdict. */
#define _GNU_SOURCE
#include "report.h"
#include "lab.h"
#include "lab_fields.h"
#include "matrix.h"
#include "text.h"
#include "util.h"

#include <ctype.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* printf for the text reports: through report_fputs. */
static void text_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void text_out(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	report_fputs(s, stdout);
	free(s);
}

static void layers_text(char *out, size_t cap, unsigned layers)
{
	out[0] = '\0';
	for (int i = 0; i < LAYER_COUNT; i++)
		str_append(out, cap, "%s%s %s", i ? ", " : "", lab_layers[i].name,
		           layers & LAYER_BIT(i) ? "ON" : "off");
}

/* The trace section of `run`: the lines the screen shows too. */
static void report_trace_text(const struct lab_trace *t, bool started)
{
	if (!t->n && !t->note[0] && !started)
		return;
	text_out("\ntrace (calls that mattered, and what answered them):\n");
	for (int i = 0; i < t->n; i++) {
		char line[LAB_TRACE_LINE_MAX];
		lab_trace_line(&t->e[i], line, sizeof line);
		text_out("  %s\n", line);
	}
	if (t->dropped)
		text_out("  ... %ld more call(s) past the first %d kinds, counted only\n", t->dropped, LAB_TRACE_MAX);
	if (!t->n)
		text_out("  none seen\n");
	if (t->note[0])
		text_out("  (%s)\n", t->note);
}

void report_text(const struct lab_result *r, int tty)
{
	char layers[160];
	layers_text(layers, sizeof layers, r->layers);
	const char *bold = tty ? "\033[1m" : "", *off = tty ? "\033[0m" : "";
	const char *col = "";
	if (tty && !getenv("NO_COLOR"))
		col = r->verdict == VERDICT_ESCAPED || r->verdict == VERDICT_FAILED ? "\033[1;31m"
		      : r->verdict == VERDICT_ERROR                                 ? "\033[1;33m"
		                                                                    : "\033[1;32m";
	else
		col = bold;
	text_out("%s — %s\n", r->snippet, threat_name(r->threat));
	if (r->layers & LAYER_BIT(LAYER_ISOLATION))
		text_out("layers: %s (rung: %s)\n", layers, lab_rung_key(r->rung));
	else
		text_out("layers: %s\n", layers);
	if (r->ev.egress.net_mode == NET_MODE_ALLOWLIST)
		text_out("No-network mode: allowlist (the lab's egress proxy is the one door)\n");
	text_out("\n");
	text_out("%s%s%s", col, verdict_name(r->verdict), off);
	if (r->verdict == VERDICT_CONTAINED && r->caught_by >= 0)
		text_out(" by %s", lab_layers[r->caught_by].name);
	text_out("\n");
	char *head = sanitize_output(r->headline, strlen(r->headline), 0);
	text_out("  %s\n", head);
	free(head);
	if (r->verdict == VERDICT_ESCAPED && r->consequence[0])
		text_out("  consequence: %s\n", r->consequence);
	if (r->escaped) {
		text_out("  got out:");
		for (int t = 0, k = 0; t < THREAT_COUNT; t++)
			if (r->escaped & (1u << t))
				text_out("%s %s", k++ ? "," : "", threat_name((enum lab_threat)t));
		text_out("\n");
	}
	if (r->ev.host.host_planted[0]) {
		char one[sizeof r->ev.host.host_planted * 2];
		str_copy(one, sizeof one, r->ev.host.host_planted);
		text_one_line(one, sizeof one);
		char *planted = sanitize_output(one, strlen(one), 0);
		text_out("  left in the host folder: %s\n", planted);
		free(planted);
	}
	if (r->n_evidence) {
		text_out("\nevidence (gathered outside the sandbox):\n");
		for (int i = 0; i < r->n_evidence; i++) {
			char *e = sanitize_output(r->evidence[i], strlen(r->evidence[i]), 0);
			text_out("  - %s\n", e);
			free(e);
		}
	}
	if (r->ev.egress.proxy_log[0]) {
		/* the proxy's own record: evidence the snippet cannot write */
		char *log = sanitize_output(r->ev.egress.proxy_log, strlen(r->ev.egress.proxy_log), 0);
		text_out("\negress proxy log (the lab's, outside the sandbox):\n");
		for (char *line = log, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			text_out("  > %s\n", line);
		}
		free(log);
	}
	if (r->ev.tools.tools_served) {
		/* the tool door's own record, like the proxy's: every call the
		 * lab served, and what the gate said */
		char *log = sanitize_output(r->ev.tools.tool_log, strlen(r->ev.tools.tool_log), 0);
		text_out("\ntool door log (the lab's, outside the sandbox): %ld calls, %llu B in, %llu B out\n",
		         r->ev.tools.tool_calls, (unsigned long long)r->ev.tools.tool_bytes_in,
		         (unsigned long long)r->ev.tools.tool_bytes_out);
		for (char *line = log, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			text_out("  > %s\n", line);
		}
		free(log);
	}
	report_trace_text(&r->ev.trace, r->ev.started);
	if (r->ev.mechanisms[0])
		text_out("\nmechanisms: %s\n", r->ev.mechanisms);
	if (r->ev.started) {
		char *out = sanitize_output(r->output, r->output_len, 0);
		size_t lines = 0;
		for (char *p = out; *p; p++)
			lines += *p == '\n';
		text_out("\nthe snippet's own words (sanitised%s):\n",
		         r->ev.res.out_truncated ? ", truncated at the cap" : "");
		size_t shown = 0;
		for (char *line = out, *next; line && *line && shown < 40; line = next, shown++) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			text_out("  | %s\n", line);
		}
		if (lines > 40)
			text_out("  | ... (%zu more lines)\n", lines - 40);
		free(out);
	}
}

/* "trace": [{"call":..,"result":..,"by":..,"count":N,"line":..}], then
 * how many calls were only counted and why none could be listed */
static void report_trace_json(struct strbuf *b, const struct lab_trace *t)
{
	sb_puts(b, ",\"trace\":[");
	for (int i = 0; i < t->n; i++) {
		char line[LAB_TRACE_LINE_MAX];
		lab_trace_line(&t->e[i], line, sizeof line);
		sb_puts(b, i ? ",{\"call\":" : "{\"call\":");
		sb_json_str(b, t->e[i].call);
		sb_puts(b, ",\"result\":");
		sb_json_str(b, t->e[i].answer[0] ? t->e[i].answer : NULL);
		sb_puts(b, ",\"by\":");
		sb_json_str(b, t->e[i].by);
		sb_printf(b, ",\"count\":%ld,\"line\":", t->e[i].count);
		sb_json_str(b, line);
		sb_puts(b, "}");
	}
	sb_printf(b, "],\"trace_dropped\":%ld,\"trace_note\":", t->dropped);
	sb_json_str(b, t->note[0] ? t->note : NULL);
}

/* ,"escaped":["exfil","takeover"]: every threat that got out */
static void escaped_json(struct strbuf *b, unsigned escaped)
{
	sb_puts(b, ",\"escaped\":[");
	for (int t = 0, k = 0; t < THREAT_COUNT; t++)
		if (escaped & (1u << t)) {
			sb_puts(b, k++ ? "," : "");
			sb_json_str(b, threat_key((enum lab_threat)t));
		}
	sb_puts(b, "]");
}

/* A log of lines as a JSON array of strings. */
static void log_json(struct strbuf *b, const char *log)
{
	sb_puts(b, "[");
	for (const char *l = log; *l;) {
		size_t len = strcspn(l, "\n");
		char line[LAB_LINE];
		size_t keep = len < sizeof line - 1 ? len : sizeof line - 1;
		memcpy(line, l, keep);
		line[keep] = '\0';
		sb_printf(b, "%s", l == log ? "" : ",");
		sb_json_str(b, line);
		l += len + (l[len] == '\n');
	}
	sb_puts(b, "]");
}

/* The tool door (tools.h) and its gate, always present: served is false
 * for a snippet without tools. */
static void tools_json(struct strbuf *b, const struct lab_evidence *ev)
{
	sb_printf(b, ",\"tools\":{\"served\":%s,\"calls\":%ld,\"bytes_in\":%llu,\"bytes_out\":%llu,\"log\":",
	          ev->tools.tools_served ? "true" : "false", ev->tools.tool_calls,
	          (unsigned long long)ev->tools.tool_bytes_in, (unsigned long long)ev->tools.tool_bytes_out);
	log_json(b, ev->tools.tool_log);
	sb_printf(
	    b, ",\"gate\":{\"approve\":\"%s\",\"asked\":%ld,\"made\":%ld,\"refused\":%ld,\"waited_ms\":%ld,\"call\":",
	    lab_approve_key(ev->tools.approve), ev->tools.payments_asked, ev->tools.payments_made,
	    ev->tools.payments_refused, ev->tools.gate_waited_ms);
	sb_json_str(b, ev->tools.payment_call[0] ? ev->tools.payment_call : NULL);
	sb_puts(b, ",\"said\":");
	sb_json_str(b, ev->tools.gate_said[0] ? ev->tools.gate_said : NULL);
	sb_puts(b, "}}");
}

/* One integer of the record; a bool field as a JSON boolean. */
static void record_int(struct strbuf *b, const char *key, long long v, bool is_bool)
{
	if (is_bool)
		sb_printf(b, ",\"%s\":%s", key, v ? "true" : "false");
	else
		sb_printf(b, ",\"%s\":%lld", key, v);
}

/* "record": every field of the result and its evidence, each under its
 * name in lab_fields.h's lists (the worker's stream has the same), plus
 * cpu_s and the holders; the document's other members say the same facts
 * in the words a reader wants. */
static void record_json(struct strbuf *b, const struct lab_result *r)
{
	const struct lab_evidence *ev = &r->ev;
	sb_printf(b, ",\"record\":{\"cpu_s\":%.6f", ev->res.cpu_s);
#define J_INT(k, v, ...) record_int(b, k, (long long)(v), _Generic((v), bool : true, default : false));
	LAB_INT_FIELDS(J_INT)
#define J_STR(k, v)                                                                                                    \
	sb_puts(b, ",\"" k "\":");                                                                                     \
	sb_json_str(b, v);
	LAB_STR_FIELDS(J_STR)
	sb_puts(b, ",\"holders\":[");
	for (int i = 0; i < ev->secrets.n_holders && i < (int)(sizeof ev->secrets.holder / sizeof *ev->secrets.holder);
	     i++) {
		sb_printf(b, "%s{\"comm\":", i ? "," : "");
		sb_json_str(b, ev->secrets.holder[i].comm);
		sb_printf(b, ",\"pid_in_view\":%d,\"in_cmdline\":%s}", ev->secrets.holder[i].pid_in_view,
		          ev->secrets.holder[i].in_cmdline ? "true" : "false");
	}
	sb_puts(b, "]}");
}

void report_json(const struct lab_result *r)
{
	struct strbuf b = {0};
	sb_printf(&b, "{\"format\":%d,\"snippet\":", REPORT_JSON_FORMAT);
	sb_json_str(&b, r->snippet);
	sb_puts(&b, ",\"threat\":");
	sb_json_str(&b, threat_key(r->threat));
	sb_printf(&b, ",\"rung\":\"%s\"", lab_rung_key(r->rung));
	sb_puts(&b, ",\"layers\":{");
	for (int i = 0; i < LAYER_COUNT; i++)
		sb_printf(&b, "%s\"%s\":%s", i ? "," : "", lab_layers[i].key,
		          r->layers & LAYER_BIT(i) ? "true" : "false");
	sb_puts(&b, "},\"verdict\":");
	sb_json_str(&b, verdict_name(r->verdict));
	sb_puts(&b, ",\"caught_by\":");
	sb_json_str(&b, r->caught_by >= 0 ? lab_layers[r->caught_by].key : NULL);
	escaped_json(&b, r->escaped);
	sb_puts(&b, ",\"headline\":");
	sb_json_str(&b, r->headline);
	sb_puts(&b, ",\"consequence\":");
	sb_json_str(&b, r->verdict == VERDICT_ESCAPED ? r->consequence : NULL);
	sb_puts(&b, ",\"evidence\":[");
	for (int i = 0; i < r->n_evidence; i++) {
		if (i)
			sb_puts(&b, ",");
		sb_json_str(&b, r->evidence[i]);
	}
	sb_puts(&b, "],\"output\":");
	char *out = sanitize_output(r->output, r->output_len, 0);
	sb_json_str(&b, out);
	free(out);
	const struct lab_evidence *ev = &r->ev;
	sb_printf(&b, ",\"output_truncated\":%s", ev->res.out_truncated ? "true" : "false");
	sb_puts(&b, ",\"exit\":{\"code\":");
	if (ev->started && !ev->end.exit_signal)
		sb_printf(&b, "%d", ev->end.exit_code);
	else
		sb_puts(&b, "null");
	sb_puts(&b, ",\"signal\":");
	if (ev->end.exit_signal)
		sb_printf(&b, "%d", ev->end.exit_signal);
	else
		sb_puts(&b, "null");
	sb_printf(&b, ",\"timed_out\":%s,\"safety_net\":%s", ev->end.timed_out ? "true" : "false",
	          ev->end.safety_net ? "true" : "false");
	sb_puts(&b, ",\"foreign\":"); /* a signal the lab did not send, and what it knows of the sender */
	sb_json_str(&b, ev->end.foreign_signal ? ev->end.foreign : NULL);
	sb_puts(&b, "}");
	sb_printf(&b, ",\"duration_ms\":%ld", ev->end.duration_ms);
	sb_puts(&b, ",\"mechanisms\":");
	sb_json_str(&b, ev->mechanisms);
	report_trace_json(&b, &ev->trace);
	sb_printf(&b,
	          ",\"measured\":{\"peak_procs\":%ld,\"peak_mem_bytes\":%llu,\"cpu_s\":%.3f,"
	          "\"canaries_planted\":%d,\"canaries_leaked\":%d,\"attacker_bytes\":%llu,"
	          "\"attacker_got_canary\":%s,\"host_target_written\":%s,\"net_probe_errno\":%d}",
	          ev->res.peak_procs, (unsigned long long)ev->res.peak_mem, ev->res.cpu_s, ev->secrets.canaries_planted,
	          ev->secrets.canaries_leaked, (unsigned long long)ev->exfil.attacker_bytes,
	          ev->exfil.attacker_got_canary ? "true" : "false", ev->host.host_target_written ? "true" : "false",
	          ev->exfil.net_probe_errno);
	/* how the figures were taken, and how it ended in the interpreter's words */
	b.len--; /* reopen "measured" */
	sb_printf(&b, ",\"attacker_from_run\":%s,\"attacker_untied_bytes\":%llu,\"attacker_stranger_bytes\":%llu",
	          ev->exfil.attacker_from_run ? "true" : "false", (unsigned long long)ev->exfil.attacker_untied_bytes,
	          (unsigned long long)ev->exfil.attacker_stranger_bytes);
	sb_printf(&b, ",\"mem_unseen\":%d,\"peak_mem_lower_bound\":%s", ev->res.mem_unseen,
	          ev->res.peak_mem_sampled && !ev->res.peak_mem_from_cgroup ? "true" : "false");
	sb_printf(&b, ",\"peak_mem_source\":\"%s\",\"peak_vm_bytes\":%llu,\"out_bytes\":%llu,\"mem_cap_killed\":%s",
	          ev->res.peak_mem_from_cgroup ? "cgroup"
	          : ev->res.peak_mem_sampled   ? "sampled"
	                                       : "rusage",
	          (unsigned long long)ev->res.peak_vm, (unsigned long long)ev->res.out_bytes,
	          ev->res.mem_cap_killed ? "true" : "false");
	sb_puts(&b, ",\"exception\":");
	sb_json_str(&b, ev->end.exception[0] ? ev->end.exception : NULL);
	sb_printf(&b, ",\"exception_line\":%d,\"exception_path\":", ev->end.exception_line);
	sb_json_str(&b, ev->end.exception_path[0] ? ev->end.exception_path : NULL);
	sb_puts(&b, ",\"host_planted\":");
	sb_json_str(&b, ev->host.host_planted[0] ? ev->host.host_planted : NULL);
	sb_puts(&b, "}");
	/* what the lab saw the snippet try; a count is evidence only where
	 * its listener watched */
	const struct lab_trace *t = &ev->trace;
	sb_printf(&b,
	          ",\"attempts\":{\"watched_net\":%s,\"watched_isolation\":%s,\"net_refused\":%ld,"
	          "\"isolation_refused\":%ld,\"target_touches\":%ld,\"proxy_refused\":%ld}",
	          t->watch_net ? "true" : "false", t->watch_iso ? "true" : "false", t->net_refused, t->iso_refused,
	          t->target_touches, ev->egress.proxy_refused + ev->egress.proxy_bad);
	sb_puts(&b, ",\"error\":");
	sb_json_str(&b, ev->error[0] ? ev->error : NULL);
	sb_printf(&b, ",\"network_mode\":\"%s\",\"egress\":{\"allowed\":%ld,\"refused\":%ld,\"bad\":%ld,\"refusal\":",
	          lab_net_mode_key((enum lab_net_mode)ev->egress.net_mode), ev->egress.proxy_allowed,
	          ev->egress.proxy_refused, ev->egress.proxy_bad);
	sb_json_str(&b, ev->egress.proxy_refusal[0] ? ev->egress.proxy_refusal : NULL);
	sb_printf(&b, ",\"route_probe_errno\":%d,\"api_requests\":%ld,\"api_bytes\":%llu,\"api_got_canary\":%s,",
	          ev->egress.net_route_errno, ev->egress.api_requests, (unsigned long long)ev->egress.api_bytes,
	          ev->egress.api_got_canary ? "true" : "false");
	sb_printf(&b, "\"api_payload\":%llu,\"secrets_to_api\":%d,\"api_strays\":%ld,\"to_attacker\":%ld,\"log\":",
	          (unsigned long long)ev->egress.api_payload, ev->egress.secrets_to_api, ev->egress.api_strays,
	          ev->egress.proxy_to_attacker);
	log_json(&b, ev->egress.proxy_log);
	sb_puts(&b, "}");
	tools_json(&b, ev);
	record_json(&b, r);
	sb_puts(&b, "}\n");
	fputs(b.s, stdout);
	sb_free(&b);
}

/* ---- short names ---- */

char report_verdict_letter(enum lab_verdict v)
{
	/* marks no layer letter (I N E L) or digit can be read as, each its
	 * own shape in monochrome and ASCII: the colour only repeats them */
	static const char letter[VERDICT_COUNT] = {
	    [VERDICT_RAN_OK] = '.',  [VERDICT_FAILED] = 'F', [VERDICT_CONTAINED] = '+',
	    [VERDICT_ESCAPED] = 'X', [VERDICT_ERROR] = '!',  [VERDICT_BROKE] = 'B',
	};
	return (int)v >= 0 && v < VERDICT_COUNT ? letter[v] : '!';
}

const enum lab_verdict report_verdict_order[VERDICT_COUNT] = {
    VERDICT_CONTAINED, VERDICT_ESCAPED, VERDICT_RAN_OK, VERDICT_FAILED, VERDICT_ERROR, VERDICT_BROKE,
};

void report_verdict_legend(char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < VERDICT_COUNT && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%c %s", i ? "  " : "",
		                         report_verdict_letter(report_verdict_order[i]),
		                         verdict_name(report_verdict_order[i]));
}

/* ---- the matrix ---- */

const char *report_matrix_who(void)
{
	return geteuid() == 0 ? "root" : "an unprivileged user";
}

/* What the limits layer really used, read from the first cell that had it on. */
const char *report_matrix_limits(const struct matrix *m)
{
	for (int c = 0; c < m->n_cells; c++) {
		const struct matrix_cell *cell = &m->cells[c];
		if (cell->state == MATRIX_DONE && (c % LAB_COMBOS) & LAYER_BIT(LAYER_LIMITS) && cell->res.ev.started)
			/* "rlimits-only (rootless: cgroup-v1 is not delegated ...)" names a cgroup it did not use */
			return strstr(cell->res.ev.mechanisms, "rlimits-only")           ? "rlimits-only"
			       : strstr(cell->res.ev.mechanisms, "cgroup-v2, delegated") ? "cgroup-v2, delegated"
			       : strstr(cell->res.ev.mechanisms, "cgroup-v2")            ? "cgroup-v2"
			       : strstr(cell->res.ev.mechanisms, "cgroup-v1")            ? "cgroup-v1"
			                                                                 : "rlimits-only";
	}
	return "";
}

static void matrix_legend(const struct matrix *m)
{
	text_out("containment-lab matrix: %d snippets x %d layer combinations, as %s (rung: %s, network mode: %s, "
	         "limits: %s)\ncolumns:",
	         m->n_snips, LAB_COMBOS, report_matrix_who(), lab_rung_key(m->setup.rung),
	         lab_net_mode_key(m->setup.net_mode), report_matrix_limits(m));
	for (int l = 0; l < LAYER_COUNT; l++)
		text_out(" %c=%s", report_layer_letter(l), lab_layers[l].name);
	char legend[REPORT_LEGEND_MAX];
	report_verdict_legend(legend, sizeof legend);
	text_out(", '-' = off\ncells: %s  (* = not as expected, ? = not run)\n\n%-15s", legend, "");
}

/* The grid: a row per snippet, a column per layer combination, all on first. */
static void matrix_grid(const struct matrix *m, bool md)
{
	char lab[REPORT_LABEL_MAX];
	if (md)
		text_out("| snippet |");
	for (int col = 0; col < LAB_COMBOS; col++) {
		report_layers_label(layers_for_column(col), false, lab);
		text_out(md ? " %s |" : " %s", lab);
	}
	text_out("\n");
	if (md) {
		text_out("|---|");
		for (int col = 0; col < LAB_COMBOS; col++)
			text_out(":---:|");
		text_out("\n");
	}
	for (int si = 0; si < m->n_snips; si++) {
		text_out(md ? "| %s |" : "%-15.15s", m->snips[si].name);
		for (int col = 0; col < LAB_COMBOS; col++) {
			const struct matrix_cell *c = matrix_cell(m, si, layers_for_column(col));
			bool done = c->state == MATRIX_DONE;
			char cell[8];
			if (!done)
				snprintf(cell, sizeof cell, "?");
			else
				snprintf(cell, sizeof cell, "%c%s", report_verdict_letter(c->res.verdict),
				         c->res.verdict == c->expected ? "" : "*");
			if (md && done)
				text_out(" `%c` %s%s |", report_verdict_letter(c->res.verdict),
				         verdict_name(c->res.verdict), c->res.verdict == c->expected ? "" : " *");
			else if (md)
				text_out(" not run |");
			else
				text_out("   %-2s", cell);
		}
		text_out("\n");
	}
	text_out("\n");
}

static const char *cell_headline(const struct matrix_cell *c)
{
	return c->state == MATRIX_DONE ? c->res.headline : "not run";
}

/* The cells that differ, with what the lab saw; cells that differ for the
 * same reason (say, no user namespaces here) share a line. */
static void matrix_differences(const struct matrix *m, bool md)
{
	bool *shown = calloc((size_t)m->n_cells + 1, sizeof *shown);
	if (!shown)
		abort();
	for (int c = 0; c < m->n_cells; c++) {
		const struct matrix_cell *first = &m->cells[c];
		if (shown[c] || matrix_cell_expected(first))
			continue;
		const char *head = cell_headline(first);
		bool done = first->state == MATRIX_DONE;
		struct strbuf where = {0};
		int same = 0;
		for (int o = c; o < m->n_cells; o++) {
			const struct matrix_cell *other = &m->cells[o];
			if (shown[o] || matrix_cell_expected(other) || strcmp(cell_headline(other), head) != 0 ||
			    (other->state == MATRIX_DONE && other->res.verdict != first->res.verdict))
				continue;
			shown[o] = true;
			if (++same <= 4) {
				char lab[REPORT_LABEL_MAX];
				report_layers_label((unsigned)(o % LAB_COMBOS), false, lab);
				sb_printf(&where, "%s%s [%s]", same > 1 ? ", " : "", m->snips[o / LAB_COMBOS].name,
				          lab);
			}
		}
		if (same > 4)
			sb_printf(&where, " and %d more cells", same - 4);
		char *h = sanitize_output(head, strlen(head), 0);
		text_out("%s%s: got %s: %s\n", md ? "- " : "", where.s,
		         done ? verdict_name(first->res.verdict) : "nothing", h);
		free(h);
		sb_free(&where);
	}
	free(shown);
}

static void matrix_text(const struct matrix *m, bool md)
{
	if (!md) {
		matrix_legend(m);
	} else {
		char legend[REPORT_LEGEND_MAX];
		report_verdict_legend(legend, sizeof legend);
		text_out("No-network mode: %s. cells: %s (* = not as expected)\n\n",
		         lab_net_mode_key(m->setup.net_mode), legend);
	}
	matrix_grid(m, md);
	matrix_differences(m, md);
	struct matrix_counts n = matrix_count(m);
	/* "differ" here is every cell not as expected, not run ones included */
	text_out("%s%d/%d cells as expected (%d differ, %d errors) as %s on the %s rung in %.1f s\n", md ? "\n" : "",
	         n.as_expected, m->n_cells, m->n_cells - n.as_expected, n.errors, report_matrix_who(),
	         lab_rung_key(m->setup.rung), matrix_elapsed_ms(m) / 1000.0);
}

void report_matrix_text(const struct matrix *m)
{
	matrix_text(m, false);
}

void report_matrix_markdown(const struct matrix *m)
{
	matrix_text(m, true);
}

/* The matrix's JSON document, without a newline. */
static void matrix_json(struct strbuf *b, const struct matrix *m)
{
	sb_printf(b,
	          "{\"format\":%d,\"as\":\"%s\",\"rung\":\"%s\",\"network_mode\":\"%s\",\"limits_mechanism\":\"%s\","
	          "\"cells\":[",
	          REPORT_JSON_FORMAT, geteuid() == 0 ? "root" : "user", lab_rung_key(m->setup.rung),
	          lab_net_mode_key(m->setup.net_mode), report_matrix_limits(m));
	for (int c = 0; c < m->n_cells; c++) {
		const struct matrix_cell *cell = &m->cells[c];
		const struct lab_result *r = &cell->res;
		bool done = cell->state == MATRIX_DONE;
		unsigned layers = (unsigned)(c % LAB_COMBOS);
		sb_puts(b, c ? ",{\"snippet\":" : "{\"snippet\":");
		sb_json_str(b, m->snips[c / LAB_COMBOS].name);
		sb_puts(b, ",\"layers\":{");
		for (int i = 0; i < LAYER_COUNT; i++)
			sb_printf(b, "%s\"%s\":%s", i ? "," : "", lab_layers[i].key,
			          layers & LAYER_BIT(i) ? "true" : "false");
		sb_puts(b, "},\"expected\":");
		sb_json_str(b, verdict_name(cell->expected));
		sb_puts(b, ",\"verdict\":");
		sb_json_str(b, done ? verdict_name(r->verdict) : NULL);
		sb_puts(b, ",\"caught_by\":");
		sb_json_str(b, done && r->caught_by >= 0 ? lab_layers[r->caught_by].key : NULL);
		escaped_json(b, done ? r->escaped : 0);
		sb_puts(b, ",\"headline\":");
		sb_json_str(b, done ? r->headline : "not run");
		sb_printf(b, ",\"duration_ms\":%ld,\"trace\":[", r->ev.end.duration_ms);
		/* the cell's trace, as lines: it came through the worker's stream */
		for (int i = 0; done && i < r->ev.trace.n; i++) {
			char line[LAB_TRACE_LINE_MAX];
			lab_trace_line(&r->ev.trace.e[i], line, sizeof line);
			sb_puts(b, i ? "," : "");
			sb_json_str(b, line);
		}
		sb_puts(b, "]}");
	}
	sb_printf(b, "],\"cells_total\":%d,\"as_expected\":%d,\"elapsed_ms\":%ld}", m->n_cells,
	          matrix_count(m).as_expected, matrix_elapsed_ms(m));
}

void report_matrix_json(const struct matrix *m)
{
	struct strbuf b = {0};
	matrix_json(&b, m);
	sb_puts(&b, "\n");
	fputs(b.s, stdout);
	sb_free(&b);
}

/* ---- the ladder: `matrix --rung all` ---- */

/* What the ladder came to, over the rungs that ran. */
struct ladder_counts {
	int ran, skipped, cells, as_expected, errors;
	long elapsed_ms;
};

static struct ladder_counts ladder_count(const struct matrix_rung *r, int n)
{
	struct ladder_counts t = {0};
	for (int i = 0; i < n; i++) {
		if (!r[i].m) {
			t.skipped++;
			continue;
		}
		struct matrix_counts c = matrix_count(r[i].m);
		t.ran++;
		t.cells += r[i].m->n_cells;
		t.as_expected += c.as_expected;
		t.errors += c.errors;
		t.elapsed_ms += matrix_elapsed_ms(r[i].m);
	}
	return t;
}

void report_ladder_text(const struct matrix_rung *r, int n, bool markdown)
{
	for (int i = 0; i < n; i++) {
		const char *key = lab_rung_key(r[i].rung);
		if (markdown)
			text_out("%s## The %s rung\n\n", i ? "\n" : "", key);
		else
			text_out("%s== the %s rung\n", i ? "\n" : "", key);
		if (r[i].m)
			matrix_text(r[i].m, markdown);
		else {
			/* the reason may quote layers.ini's bytes (a kernel path) */
			char *inert = sanitize_output(r[i].skipped, strlen(r[i].skipped), 0);
			text_out("%s: %s\n", r[i].stopped ? "stopped" : "skipped", inert);
			free(inert);
		}
	}
	struct ladder_counts t = ladder_count(r, n);
	text_out("\n%sthe ladder: %d/%d cells as expected (%d differ, %d errors) on %d of %d rungs in %.1f s",
	         markdown ? "**" : "", t.as_expected, t.cells, t.cells - t.as_expected, t.errors, t.ran, n,
	         t.elapsed_ms / 1000.0);
	for (int i = 0, k = 0; i < n; i++)
		if (!r[i].m && !r[i].stopped)
			text_out("%s%s", k++ ? ", " : "; skipped: ", lab_rung_key(r[i].rung));
	for (int i = 0, k = 0; i < n; i++)
		if (r[i].stopped)
			text_out("%s%s", k++ ? ", " : "; stopped before: ", lab_rung_key(r[i].rung));
	text_out("%s\n", markdown ? "**" : "");
}

void report_ladder_json(const struct matrix_rung *r, int n)
{
	struct strbuf b = {0};
	struct ladder_counts t = ladder_count(r, n);
	sb_printf(&b, "{\"format\":%d,\"as\":\"%s\",\"ladder\":[", REPORT_JSON_FORMAT,
	          geteuid() == 0 ? "root" : "user");
	for (int i = 0; i < n; i++) {
		sb_puts(&b, i ? "," : "");
		if (r[i].m) {
			matrix_json(&b, r[i].m);
			continue;
		}
		sb_printf(&b, "{\"rung\":\"%s\",\"stopped\":%s,\"skipped\":", lab_rung_key(r[i].rung),
		          r[i].stopped ? "true" : "false");
		sb_json_str(&b, r[i].skipped);
		sb_puts(&b, "}");
	}
	bool stopped = false;
	for (int i = 0; i < n; i++)
		stopped = stopped || r[i].stopped || (r[i].m && r[i].m->aborted);
	sb_printf(&b,
	          "],\"rungs_run\":%d,\"rungs_skipped\":%d,\"stopped\":%s,\"cells_total\":%d,\"as_expected\":%d,"
	          "\"elapsed_ms\":%ld}\n",
	          t.ran, t.skipped, stopped ? "true" : "false", t.cells, t.as_expected, t.elapsed_ms);
	fputs(b.s, stdout);
	sb_free(&b);
}

/* ---- names and text the CI reports share ---- */

void report_cell_name(const struct matrix *m, int c, char out[REPORT_CELL_NAME_MAX])
{
	char lab[REPORT_LABEL_MAX];
	report_layers_label((unsigned)(c % LAB_COMBOS), false, lab);
	snprintf(out, REPORT_CELL_NAME_MAX, "%s [%s] %s/%s", m->snips[c / LAB_COMBOS].name, lab,
	         lab_rung_key(m->setup.rung), lab_net_mode_key(m->setup.net_mode));
}

void sb_xml_str(struct strbuf *b, const char *str)
{
	/* inert first: no control character (XML 1.0 allows none but \t \n
	 * \r) and valid UTF-8, whatever a snippet's header held */
	char *inert = sanitize_output(str ? str : "", str ? strlen(str) : 0, 0);
	for (const char *p = inert; *p; p++) {
		const char *ent = *p == '&'    ? "&amp;"
		                  : *p == '<'  ? "&lt;"
		                  : *p == '>'  ? "&gt;"
		                  : *p == '"'  ? "&quot;"
		                  : *p == '\'' ? "&#39;"
		                               : NULL;
		if (ent)
			sb_puts(b, ent);
		else
			sb_add(b, p, 1);
	}
	free(inert);
}
