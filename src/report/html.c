/* html.c — the matrix as a self-contained HTML page (html.h). Every text
 * from a snippet or a run goes through sb_xml_str: inert and escaped. */
#define _GNU_SOURCE
#include "html.h"
#include "matrix.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* A verdict's class and colour; the mark repeats it without colour. */
static const char *verdict_class(enum lab_verdict v)
{
	static const char *const cls[VERDICT_COUNT] = {
	    [VERDICT_RAN_OK] = "ranok",    [VERDICT_FAILED] = "failed", [VERDICT_CONTAINED] = "contained",
	    [VERDICT_ESCAPED] = "escaped", [VERDICT_ERROR] = "error",   [VERDICT_BROKE] = "broke",
	};
	return (int)v >= 0 && v < VERDICT_COUNT ? cls[v] : "error";
}

/* Large type and strong contrast: it is read from the back of a room. */
static const char style[] =
    "body{font:20px/1.4 'DejaVu Sans',sans-serif;margin:1.2em;color:#111;background:#fff}"
    "h1{font-size:1.6em;margin:0 0 .2em}h2{font-size:1.25em;margin:1.4em 0 .4em}"
    ".summary{font-size:1.3em;font-weight:bold;padding:.2em .5em;display:inline-block;border-radius:.2em}"
    ".summary.ok{background:#1b7f3b;color:#fff}.summary.bad{background:#b3001b;color:#fff}"
    ".machine{color:#333;margin:.4em 0 1em}"
    "table.grid{border-collapse:collapse;font-family:'DejaVu Sans Mono',monospace}"
    ".grid th,.grid td{border:2px solid #fff;padding:0;text-align:center;min-width:2.6em}"
    ".grid thead th{font-size:.8em;padding:.2em .3em;background:#eee}"
    ".grid tbody th{text-align:left;padding:.2em .6em;background:#eee;font-family:'DejaVu Sans',sans-serif}"
    ".grid td a{display:block;padding:.35em 0;color:inherit;text-decoration:none;font-weight:bold}"
    ".grid td.differs a{outline:4px solid #000;outline-offset:-4px}"
    ".contained{background:#1b7f3b;color:#fff}.escaped{background:#c8102e;color:#fff}"
    ".ranok{background:#d7e3f4;color:#111}.failed{background:#f28c28;color:#111}"
    ".error{background:#f2d024;color:#111}.broke{background:#7b3fa0;color:#fff}"
    ".notrun{background:#ccc;color:#111}"
    ".legend span{display:inline-block;padding:.1em .5em;margin:0 .4em .3em 0;border-radius:.2em}"
    ".cell{border-left:.5em solid #ccc;padding:.3em .8em;margin:.6em 0;background:#fafafa}"
    ".cell:target{background:#fff6cc}"
    ".cell h3{margin:0;font-size:1em}.cell .v{padding:0 .4em;border-radius:.2em}"
    ".cell ul{margin:.2em 0;padding-left:1.2em}.cell p{margin:.2em 0}"
    ".mono{font-family:'DejaVu Sans Mono',monospace;font-size:.85em;white-space:pre-wrap}"
    "@media print{.cell{break-inside:avoid}}";

static void head(struct strbuf *b, int as_expected, int cells)
{
	sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	           /* nothing may be fetched: the page is the whole report */
	           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	           "style-src 'unsafe-inline'\">\n"
	           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	sb_printf(b, "containment-lab matrix: %d/%d cells as expected", as_expected, cells);
	sb_printf(b, "</title>\n<style>%s</style></head>\n<body>\n", style);
}

static void machine(struct strbuf *b, const struct matrix *m, const struct matrix_counts *n)
{
	struct utsname u;
	if (uname(&u) < 0)
		memset(&u, 0, sizeof u);
	char when[40];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
	bool all = n->as_expected == m->n_cells;
	sb_printf(b, "<p class=\"summary %s\">%d/%d cells as expected (%d differ, %d errors)</p>\n", all ? "ok" : "bad",
	          n->as_expected, m->n_cells, m->n_cells - n->as_expected, n->errors);
	sb_printf(b,
	          "<p class=\"machine\">%d snippets &#215; %d layer sets, as %s, rung <b>%s</b>, network mode "
	          "<b>%s</b>, limits by <b>",
	          m->n_snips, LAB_COMBOS, report_matrix_who(), lab_rung_key(m->setup.rung),
	          lab_net_mode_key(m->setup.net_mode));
	sb_xml_str(b, report_matrix_limits(m));
	sb_puts(b, "</b><br>on ");
	sb_xml_str(b, u.nodename);
	sb_puts(b, " (");
	sb_xml_str(b, u.sysname);
	sb_puts(b, " ");
	sb_xml_str(b, u.release);
	sb_puts(b, " ");
	sb_xml_str(b, u.machine);
	sb_printf(b, "), containment-lab %s, %s, %.1f s</p>\n", LAB_VERSION, when, matrix_elapsed_ms(m) / 1000.0);
}

static void legend(struct strbuf *b)
{
	sb_puts(b, "<p class=\"legend\">");
	for (int i = 0; i < VERDICT_COUNT; i++) {
		enum lab_verdict v = report_verdict_order[i];
		sb_printf(b, "<span class=\"%s\">%c %s</span>", verdict_class(v), report_verdict_letter(v),
		          verdict_name(v));
	}
	sb_puts(b, "<span class=\"notrun\">? not run</span><br>columns: ");
	for (int l = 0; l < LAYER_COUNT; l++)
		sb_printf(b, "%s<b>%c</b> = %s", l ? ", " : "", report_layer_letter(l), lab_layers[l].name);
	sb_puts(b, ", <b>-</b> = off; a cell framed in black and marked * is not what the truth table expects; "
	           "each cell links to its evidence below.</p>\n");
}

/* Anchors are "c<cell>" for one matrix, "<rung>-c<cell>" on the ladder. */
static void grid(struct strbuf *b, const struct matrix *m, const char *anchor)
{
	char lab[REPORT_LABEL_MAX];
	sb_puts(b, "<table class=\"grid\"><thead><tr><th>snippet</th>");
	for (int col = 0; col < LAB_COMBOS; col++) {
		report_layers_label(layers_for_column(col), false, lab);
		sb_printf(b, "<th>%s</th>", lab);
	}
	sb_puts(b, "</tr></thead>\n<tbody>\n");
	for (int si = 0; si < m->n_snips; si++) {
		sb_puts(b, "<tr><th title=\"");
		sb_xml_str(b, m->snips[si].title);
		sb_puts(b, "\">");
		sb_xml_str(b, m->snips[si].name);
		sb_puts(b, "</th>");
		for (int col = 0; col < LAB_COMBOS; col++) {
			int c = matrix_index(si, layers_for_column(col));
			const struct matrix_cell *cell = &m->cells[c];
			bool done = cell->state == MATRIX_DONE;
			bool differs = !matrix_cell_expected(cell);
			sb_printf(b, "<td class=\"%s%s\" title=\"", done ? verdict_class(cell->res.verdict) : "notrun",
			          differs ? " differs" : "");
			sb_xml_str(b, done ? cell->res.headline : "not run");
			sb_printf(b, "\"><a href=\"#%sc%d\">%c%s</a></td>", anchor, c,
			          done ? report_verdict_letter(cell->res.verdict) : '?', differs ? "*" : "");
		}
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</tbody></table>\n");
}

static void cell_evidence(struct strbuf *b, const struct matrix *m, int c, const char *anchor)
{
	const struct matrix_cell *cell = &m->cells[c];
	const struct lab_result *r = &cell->res;
	bool done = cell->state == MATRIX_DONE;
	char name[REPORT_CELL_NAME_MAX];
	report_cell_name(m, c, name);
	sb_printf(b, "<div class=\"cell\" id=\"%sc%d\"><h3>", anchor, c);
	sb_xml_str(b, name);
	sb_printf(b, " <span class=\"v %s\">%s", done ? verdict_class(r->verdict) : "notrun",
	          done ? verdict_name(r->verdict) : "not run");
	if (done && r->verdict == VERDICT_CONTAINED && r->caught_by >= 0)
		sb_printf(b, " by %s", lab_layers[r->caught_by].name);
	sb_printf(b, "</span>%s</h3>\n", matrix_cell_expected(cell) ? "" : " (not as expected)");
	sb_printf(b, "<p>expected: %s", verdict_name(cell->expected));
	if (done)
		sb_printf(b, "; %.1f s", (double)r->ev.end.duration_ms / 1000.0);
	sb_puts(b, "</p>\n<p><b>");
	sb_xml_str(b, done ? r->headline : "not run");
	sb_puts(b, "</b></p>\n");
	if (!done) {
		sb_puts(b, "</div>\n");
		return;
	}
	if (r->n_evidence) {
		sb_puts(b, "<ul>");
		for (int i = 0; i < r->n_evidence; i++) {
			sb_puts(b, "<li>");
			sb_xml_str(b, r->evidence[i]);
			sb_puts(b, "</li>");
		}
		sb_puts(b, "</ul>\n");
	}
	if (r->ev.tools.tools_served) {
		sb_printf(b, "<p>tool door log (the lab's): %ld calls</p>\n<p class=\"mono\">", r->ev.tools.tool_calls);
		sb_xml_str(b, r->ev.tools.tool_log);
		sb_puts(b, "</p>\n");
	}
	if (r->ev.trace.n) {
		sb_puts(b, "<p class=\"mono\">");
		for (int i = 0; i < r->ev.trace.n; i++) {
			char line[LAB_TRACE_LINE_MAX];
			lab_trace_line(&r->ev.trace.e[i], line, sizeof line);
			sb_xml_str(b, line);
			sb_puts(b, "\n");
		}
		sb_puts(b, "</p>\n");
	}
	if (r->ev.mechanisms[0]) {
		sb_puts(b, "<p>mechanisms: ");
		sb_xml_str(b, r->ev.mechanisms);
		sb_puts(b, "</p>\n");
	}
	sb_puts(b, "</div>\n");
}

static void every_cell(struct strbuf *b, const struct matrix *m, const char *anchor)
{
	for (int seq = 0; seq < m->n_cells; seq++)
		cell_evidence(b, m, matrix_index(seq / LAB_COMBOS, layers_for_column(seq % LAB_COMBOS)), anchor);
}

static int page_out(struct strbuf *b, FILE *f)
{
	sb_puts(b, "</body></html>\n");
	int rc = fwrite(b->s, 1, b->len, f) == b->len && fflush(f) == 0 ? 0 : -(errno ? errno : EIO);
	sb_free(b);
	return rc;
}

int html_matrix_write(const struct matrix *m, FILE *f)
{
	struct strbuf b = {0};
	struct matrix_counts n = matrix_count(m);
	head(&b, n.as_expected, m->n_cells);
	sb_puts(&b, "<h1>containment-lab matrix</h1>\n");
	machine(&b, m, &n);
	legend(&b);
	grid(&b, m, "");
	sb_puts(&b, "<h2>Every cell: verdict and evidence</h2>\n");
	every_cell(&b, m, "");
	return page_out(&b, f);
}

int html_ladder_write(const struct matrix_rung *r, int n, FILE *f)
{
	struct strbuf b = {0};
	int cells = 0, as_expected = 0;
	for (int i = 0; i < n; i++)
		if (r[i].m) {
			cells += r[i].m->n_cells;
			as_expected += matrix_count(r[i].m).as_expected;
		}
	head(&b, as_expected, cells);
	sb_puts(&b, "<h1>containment-lab matrix: every rung of the ladder</h1>\n");
	sb_printf(&b, "<p class=\"summary %s\">%d/%d cells as expected over the rungs that ran</p>\n",
	          as_expected == cells ? "ok" : "bad", as_expected, cells);
	legend(&b);
	char anchor[32];
	for (int i = 0; i < n; i++) {
		const char *key = lab_rung_key(r[i].rung);
		sb_printf(&b, "<h2 id=\"%s\">The %s rung</h2>\n", key, key);
		if (!r[i].m) {
			sb_puts(&b, "<p class=\"summary bad\">skipped: ");
			sb_xml_str(&b, r[i].skipped);
			sb_puts(&b, "</p>\n");
			continue;
		}
		struct matrix_counts c = matrix_count(r[i].m);
		snprintf(anchor, sizeof anchor, "%s-", key);
		machine(&b, r[i].m, &c);
		grid(&b, r[i].m, anchor);
	}
	for (int i = 0; i < n; i++) {
		if (!r[i].m)
			continue;
		const char *key = lab_rung_key(r[i].rung);
		snprintf(anchor, sizeof anchor, "%s-", key);
		sb_printf(&b, "<h2>Every cell on the %s rung: verdict and evidence</h2>\n", key);
		every_cell(&b, r[i].m, anchor);
	}
	return page_out(&b, f);
}
