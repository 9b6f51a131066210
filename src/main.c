/* main.c — the command line: list, run, matrix, exec, tui. Parses options,
 * loads the config, and hands work to the engine; prints what comes back. */
#define _GNU_SOURCE
#include "job.h"
#include "lab.h"
#include "tui.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

enum {
	EXIT_OK = 0,
	EXIT_ESCAPED = 1,
	EXIT_USAGE = 2,
	EXIT_FAILED = 3,
	EXIT_ERROR = 4,
};

static const char usage_text[] =
	"usage: containment-lab [--config FILE] [COMMAND ...]\n"
	"\n"
	"Runs code an AI agent might write inside a sandbox built from four layers\n"
	"you switch on and off, and shows from its own evidence what got out.\n"
	"\n"
	"commands:\n"
	"  (none) | tui                       the lab screen (needs a terminal)\n"
	"  list [--json]                      the snippets\n"
	"  run NAME|PATH [--on L|--off L] [--json]\n"
	"                                     run one snippet and judge it\n"
	"  matrix [--json|--markdown] [--jobs N]\n"
	"                                     every snippet x all 16 layer combinations\n"
	"  exec [--on L|--off L] [--rw] -- CMD [ARG...]\n"
	"                                     any command under the chosen layers\n"
	"\n"
	"layers (L is a comma-separated list, or all / none):\n"
	"  isolation  Isolation        namespaces, pivot_root, no caps, seccomp  (host takeover)\n"
	"  network    No-network       own empty network namespace               (exfiltration)\n"
	"  env        Clean-env        allow-listed env, no credentials, no fds  (secret theft)\n"
	"  limits     Resource-limits  cgroups/rlimits, timeout, output cap      (resource bombs)\n"
	"  --on L turns exactly L on; --off L turns everything but L on;\n"
	"  neither uses the defaults in layers.ini.\n"
	"\n"
	"options:\n"
	"  --config FILE   use this layers.ini (default: ./layers.ini, then\n"
	"                  $XDG_CONFIG_HOME/containment-lab/layers.ini, then the one\n"
	"                  beside the binary, then the installed one)\n"
	"  --help          this text\n"
	"  --version       the version\n"
	"\n"
	"exit status: run: 0 RAN OK or CONTAINED, 1 ESCAPED, 3 FAILED, 4 ERROR;\n"
	"  matrix: 0 every cell as expected, 1 some differ; exec: the command's status\n"
	"  (128+N for signal N, 125 lab failure, 126/127 as a shell); 2 bad usage,\n"
	"  config or snippet. See containment-lab(1).\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("containment-lab: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n(see 'containment-lab --help')\n", stderr);
	va_end(ap);
	return EXIT_USAGE;
}

/* --on / --off / defaults -> a layer mask */
struct layer_choice {
	const char *on, *off;
};

/* --on L, --off L, --on=L, --off=L at argv[i]: how many arguments it took
 * (0 = not a layer option, -1 = usage error already printed). */
static int layer_option(struct layer_choice *lc, int argc, char **argv, int i)
{
	const char *a = argv[i];
	if (!strcmp(a, "--on") || !strcmp(a, "--off")) {
		if (i + 1 >= argc) {
			usage_error("%s needs a list of layers", a);
			return -1;
		}
		*(a[3] == 'f' ? &lc->off : &lc->on) = argv[i + 1];
		return 2;
	}
	if (!strncmp(a, "--on=", 5))
		lc->on = a + 5;
	else if (!strncmp(a, "--off=", 6))
		lc->off = a + 6;
	else
		return 0;
	return 1;
}

static int choose_layers(const struct lab_config *cfg, const struct layer_choice *c, unsigned *mask)
{
	char err[200];
	if (c->on && c->off)
		return usage_error("--on and --off cannot be combined");
	if (c->on)
		return layers_parse(c->on, mask, err, sizeof err) < 0 ? usage_error("%s", err) : 0;
	if (c->off) {
		unsigned off;
		if (layers_parse(c->off, &off, err, sizeof err) < 0)
			return usage_error("%s", err);
		*mask = LAYERS_ALL & ~off;
		return 0;
	}
	*mask = 0;
	for (int i = 0; i < LAYER_COUNT; i++)
		if (cfg->layer_default[i])
			*mask |= LAYER_BIT(i);
	return 0;
}

static int cmd_list(const struct lab_config *cfg, int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return usage_error("list: unknown option '%s'", argv[i]);
	}
	char err[512];
	struct snippet *list, *broken;
	int n_broken;
	int n = snippet_scan(cfg->snippets_dir, &list, &broken, &n_broken, err, sizeof err);
	if (n < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		return EXIT_USAGE;
	}
	if (n + n_broken == 0) {
		fprintf(stderr, "containment-lab: %s: no snippets (*.py with a '# lab:' header) found\n", cfg->snippets_dir);
		free(list);
		free(broken);
		return EXIT_USAGE;
	}
	struct strbuf b = {0};
	if (json)
		sb_puts(&b, "[");
	/* the broken ones are listed after the rest, with why: one bad file
	 * never hides the others */
	for (int i = 0; i < n + n_broken; i++) {
		const struct snippet *s = i < n ? &list[i] : &broken[i - n];
		const char *layer = s->layer >= 0 ? lab_layers[s->layer].key : NULL;
		if (json) {
			sb_puts(&b, i ? ",{\"name\":" : "{\"name\":");
			sb_json_str(&b, s->name);
			sb_puts(&b, ",\"title\":");
			sb_json_str(&b, i < n ? s->title : NULL);
			sb_puts(&b, ",\"threat\":");
			sb_json_str(&b, i < n ? threat_key(s->threat) : NULL);
			sb_puts(&b, ",\"layer\":");
			sb_json_str(&b, layer);
			sb_puts(&b, ",\"path\":");
			char *path = sanitize_output(s->path, strlen(s->path), 0);
			sb_json_str(&b, path);
			free(path);
			sb_puts(&b, ",\"broken\":");
			sb_json_str(&b, i < n ? NULL : s->error);
			sb_puts(&b, "}");
		} else if (i < n) {
			sb_printf(&b, "%-16s %-18s %-16s %s\n", s->name, threat_name(s->threat),
				  layer ? lab_layers[s->layer].name : "-", s->title);
		} else {
			sb_printf(&b, "%-16s BROKEN: %s\n", s->name, s->error);
		}
	}
	if (json)
		sb_puts(&b, "]\n");
	fputs(b.s, stdout);
	sb_free(&b);
	snippets_free(list, n);
	snippets_free(broken, n_broken);
	return EXIT_OK;
}

static int cmd_run(const struct lab_config *cfg, int argc, char **argv)
{
	struct layer_choice lc = {0};
	bool json = false;
	const char *name = NULL;
	int took;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if ((took = layer_option(&lc, argc, argv, i)) != 0) {
			if (took < 0)
				return EXIT_USAGE;
			i += took - 1;
		} else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("run: unknown option '%s'", argv[i]);
		else if (name)
			return usage_error("run: one snippet at a time ('%s' and '%s')", name, argv[i]);
		else
			name = argv[i];
	}
	if (!name)
		return usage_error("run: which snippet? (see 'containment-lab list')");
	unsigned layers;
	int rc = choose_layers(cfg, &lc, &layers);
	if (rc)
		return rc;
	struct snippet s;
	char err[512];
	if (snippet_resolve(cfg, name, &s, err, sizeof err) < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		return EXIT_USAGE;
	}
	struct lab_result res;
	lab_run(cfg, &s, layers, NULL, &res);
	if (json)
		report_json(&res);
	else
		report_text(&res, isatty(1));
	int code = res.verdict == VERDICT_ESCAPED ? EXIT_ESCAPED
		   : res.verdict == VERDICT_FAILED ? EXIT_FAILED
		   : res.verdict == VERDICT_ERROR  ? EXIT_ERROR
						   : EXIT_OK;
	result_free(&res);
	snippet_free(&s);
	return code;
}

/* ---- matrix ---- */

static const char cell_letter[VERDICT_COUNT] = {'O', 'F', 'C', 'E', '!', 'B'};

static void combo_label(char out[5], unsigned layers)
{
	static const char letters[LAYER_COUNT] = {'I', 'N', 'E', 'L'};
	for (int i = 0; i < LAYER_COUNT; i++)
		out[i] = layers & LAYER_BIT(i) ? letters[i] : '-';
	out[4] = '\0';
}

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static bool is_expected(const struct snippet *list, const struct lab_result *res, const bool *done, int c)
{
	return done[c] && res[c].verdict == verdict_expected(&list[c / 16], (unsigned)(c % 16));
}

static int cmd_matrix(const struct lab_config *cfg, int argc, char **argv)
{
	enum { TEXT, JSON, MARKDOWN } fmt = TEXT;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			fmt = JSON;
		else if (!strcmp(argv[i], "--markdown"))
			fmt = MARKDOWN;
		else if (!strcmp(argv[i], "--jobs") || !strncmp(argv[i], "--jobs=", 7)) {
			const char *v = argv[i][6] == '=' ? argv[i] + 7 : (i + 1 < argc ? argv[++i] : NULL);
			char *end;
			jobs = v ? strtol(v, &end, 10) : 0;
			if (!v || *end || jobs < 1 || jobs > 64)
				return usage_error("--jobs needs a number from 1 to 64");
		} else
			return usage_error("matrix: unknown option '%s'", argv[i]);
	}
	if (jobs < 1)
		jobs = 1;
	char err[512];
	struct snippet *list;
	int n = snippet_discover(cfg->snippets_dir, &list, err, sizeof err);
	if (n < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		return EXIT_USAGE;
	}
	int cells = n * 16;
	struct lab_result *res = calloc((size_t)cells, sizeof *res);
	bool *done = calloc((size_t)cells, sizeof *done);
	struct job *running = calloc((size_t)jobs, sizeof *running);
	int *slot_cell = calloc((size_t)jobs, sizeof *slot_cell);
	if (!res || !done || !running || !slot_cell)
		abort();
	struct sigaction sa = {.sa_handler = on_interrupt};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	long t0 = monotonic_ms();
	int next = 0, active = 0, finished = 0;
	for (long k = 0; k < jobs; k++)
		slot_cell[k] = -1;
	/* cell c = snippet c/16, layers c%16 */
	while (finished < cells) {
		while (!interrupted && next < cells && active < jobs) {
			long k = 0;
			while (slot_cell[k] >= 0)
				k++;
			int r = job_start(&running[k], cfg, &list[next / 16], (unsigned)(next % 16));
			if (r < 0) {
				fprintf(stderr, "containment-lab: cannot start a worker: %s\n", strerror(-r));
				interrupted = 1;
				break;
			}
			slot_cell[k] = next++;
			active++;
		}
		if (active == 0)
			break;
		struct pollfd pfd[64];
		for (long k = 0; k < jobs; k++)
			pfd[k] = (struct pollfd){slot_cell[k] >= 0 ? running[k].fd : -1, POLLIN, 0};
		if (poll(pfd, (nfds_t)jobs, 200) < 0 && errno != EINTR)
			break;
		if (interrupted)
			for (long k = 0; k < jobs; k++)
				if (slot_cell[k] >= 0)
					job_abort(&running[k]);
		for (long k = 0; k < jobs; k++) {
			if (slot_cell[k] < 0 || !pfd[k].revents)
				continue;
			int c = slot_cell[k];
			if (job_pump(&running[k], &list[c / 16], cfg) == 0)
				continue;
			res[c] = running[k].res;
			running[k].res.output = NULL; /* moved */
			job_free(&running[k]);
			done[c] = true;
			slot_cell[k] = -1;
			active--;
			finished++;
			if (fmt == TEXT && isatty(2))
				fprintf(stderr, "\r%d/%d cells", finished, cells);
		}
	}
	long elapsed = monotonic_ms() - t0;
	if (fmt == TEXT && isatty(2))
		fputs("\r              \r", stderr);

	int match = 0, errors = 0;
	for (int c = 0; c < cells; c++) {
		if (done[c] && res[c].verdict == verdict_expected(&list[c / 16], (unsigned)(c % 16)))
			match++;
		if (done[c] && res[c].verdict == VERDICT_ERROR)
			errors++;
	}
	const char *who = geteuid() == 0 ? "root" : "an unprivileged user";
	const char *mech = "";
	for (int c = 0; c < cells; c++)
		if (done[c] && (c % 16) & LAYER_BIT(LAYER_LIMITS) && res[c].ev.started) {
			mech = strstr(res[c].ev.mechanisms, "cgroup-v2")   ? "cgroup-v2"
			       : strstr(res[c].ev.mechanisms, "cgroup-v1") ? "cgroup-v1"
									   : "rlimits-only";
			break;
		}

	if (fmt == JSON) {
		struct strbuf b = {0};
		sb_printf(&b, "{\"as\":\"%s\",\"limits_mechanism\":\"%s\",\"cells\":[", geteuid() == 0 ? "root" : "user",
			  mech);
		for (int c = 0; c < cells; c++) {
			const struct lab_result *r = &res[c];
			sb_puts(&b, c ? ",{\"snippet\":" : "{\"snippet\":");
			sb_json_str(&b, list[c / 16].name);
			sb_puts(&b, ",\"layers\":{");
			for (int i = 0; i < LAYER_COUNT; i++)
				sb_printf(&b, "%s\"%s\":%s", i ? "," : "", lab_layers[i].key,
					  (c % 16) & LAYER_BIT(i) ? "true" : "false");
			sb_puts(&b, "},\"expected\":");
			sb_json_str(&b, verdict_name(verdict_expected(&list[c / 16], (unsigned)(c % 16))));
			sb_puts(&b, ",\"verdict\":");
			sb_json_str(&b, done[c] ? verdict_name(r->verdict) : NULL);
			sb_puts(&b, ",\"caught_by\":");
			sb_json_str(&b, done[c] && r->caught_by >= 0 ? lab_layers[r->caught_by].key : NULL);
			sb_puts(&b, ",\"headline\":");
			sb_json_str(&b, done[c] ? r->headline : "not run");
			sb_printf(&b, ",\"duration_ms\":%ld}", r->ev.duration_ms);
		}
		sb_printf(&b, "],\"cells_total\":%d,\"as_expected\":%d,\"elapsed_ms\":%ld}\n", cells, match, elapsed);
		fputs(b.s, stdout);
		sb_free(&b);
	} else {
		bool md = fmt == MARKDOWN;
		if (md)
			printf("| snippet |");
		else
			printf("containment-lab matrix: %d snippets x 16 layer combinations, as %s (limits: %s)\n"
			       "columns: I=Isolation N=No-network E=Clean-env L=Resource-limits, '-' = off\n"
			       "cells: O=RAN OK C=CONTAINED E=ESCAPED F=FAILED !=ERROR, '*' = not as expected\n\n%-15s",
			       n, who, mech, "");
		for (int col = 0; col < 16; col++) {
			char lab[5];
			combo_label(lab, layers_for_column(col));
			printf(md ? " %s |" : " %s", lab);
		}
		printf("\n");
		if (md) {
			printf("|---|");
			for (int l = 0; l < 16; l++)
				printf(":---:|");
			printf("\n");
		}
		for (int si = 0; si < n; si++) {
			printf(md ? "| %s |" : "%-15.15s", list[si].name);
			for (int col = 0; col < 16; col++) {
				unsigned l = layers_for_column(col);
				int c = si * 16 + (int)l;
				enum lab_verdict exp = verdict_expected(&list[si], (unsigned)l);
				char cell[8];
				if (!done[c])
					snprintf(cell, sizeof cell, "?");
				else
					snprintf(cell, sizeof cell, "%c%s", cell_letter[res[c].verdict],
						 res[c].verdict == exp ? "" : "*");
				if (md)
					printf(" %s |", done[c] ? verdict_name(res[c].verdict) : "not run");
				else
					printf("   %-2s", cell);
			}
			printf("\n");
		}
		printf("\n");
		/* the cells that differ, with what the lab saw; cells that differ
		 * for the same reason (say, no user namespaces here) share a line */
		bool *shown = calloc((size_t)cells, sizeof *shown);
		if (!shown)
			abort();
		for (int c = 0; c < cells; c++) {
			if (shown[c] || is_expected(list, res, done, c))
				continue;
			const char *head = done[c] ? res[c].headline : "not run";
			struct strbuf where = {0};
			int same = 0;
			for (int o = c; o < cells; o++) {
				const char *h2 = done[o] ? res[o].headline : "not run";
				if (shown[o] || is_expected(list, res, done, o) || strcmp(h2, head) ||
				    (done[o] && res[o].verdict != res[c].verdict))
					continue;
				shown[o] = true;
				if (++same <= 4) {
					char lab[5];
					combo_label(lab, (unsigned)(o % 16));
					sb_printf(&where, "%s%s [%s]", same > 1 ? ", " : "", list[o / 16].name, lab);
				}
			}
			if (same > 4)
				sb_printf(&where, " and %d more cells", same - 4);
			char *h = sanitize_output(head, strlen(head), 0);
			printf("%s%s: got %s: %s\n", md ? "- " : "", where.s, done[c] ? verdict_name(res[c].verdict) : "nothing",
			       h);
			free(h);
			sb_free(&where);
		}
		free(shown);
		printf("%s%d/%d cells as expected (%d differ, %d errors) as %s in %.1f s\n", md ? "\n" : "", match,
		       cells, cells - match, errors, who, elapsed / 1000.0);
	}
	for (int c = 0; c < cells; c++)
		result_free(&res[c]);
	free(res);
	free(done);
	free(running);
	free(slot_cell);
	snippets_free(list, n);
	return match == cells ? EXIT_OK : EXIT_ESCAPED;
}

static int cmd_exec(const struct lab_config *cfg, int argc, char **argv)
{
	struct layer_choice lc = {0};
	bool rw = false;
	int i = 1, took;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--rw"))
			rw = true;
		else if ((took = layer_option(&lc, argc, argv, i)) != 0) {
			if (took < 0)
				return EXIT_USAGE;
			i += took - 1;
		} else if (argv[i][0] == '-')
			return usage_error("exec: unknown option '%s' (put the command after --)", argv[i]);
		else
			break;
	}
	if (i >= argc)
		return usage_error("exec: which command? e.g. containment-lab exec --on all -- /bin/true");
	unsigned layers;
	int rc = choose_layers(cfg, &lc, &layers);
	if (rc)
		return rc;
	return lab_exec(cfg, layers, rw, &argv[i]);
}

int main(int argc, char **argv)
{
	const char *config_file = NULL;
	int i = 1;
	/* Part of the safety net: descriptors the lab inherited from whoever
	 * started it (a shell's `7</`, a CI harness's pipes) are the user's
	 * real files and must never reach a sandbox, whatever the layers. */
	syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("containment-lab %s\n", LAB_VERSION);
			return EXIT_OK;
		}
		if (!strcmp(argv[i], "--config") || !strncmp(argv[i], "--config=", 9)) {
			config_file = argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!config_file || !*config_file)
				return usage_error("--config needs a file");
			continue;
		}
		if (argv[i][0] == '-')
			return usage_error("unknown option '%s'", argv[i]);
		break;
	}
	struct lab_config cfg;
	char err[600];
	if (config_load(&cfg, config_file, err, sizeof err) < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		return EXIT_USAGE;
	}
	if (i >= argc || !strcmp(argv[i], "tui"))
		return tui_main(&cfg);
	const char *cmd = argv[i];
	int sub_argc = argc - i;
	char **sub_argv = argv + i;
	if (sub_argc > 1 && (!strcmp(sub_argv[1], "--help") || !strcmp(sub_argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "list"))
		return cmd_list(&cfg, sub_argc, sub_argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(&cfg, sub_argc, sub_argv);
	if (!strcmp(cmd, "matrix"))
		return cmd_matrix(&cfg, sub_argc, sub_argv);
	if (!strcmp(cmd, "exec"))
		return cmd_exec(&cfg, sub_argc, sub_argv);
	return usage_error("unknown command '%s' (list, run, matrix, exec, tui)", cmd);
}
