/* main.c — the command line: list, run, matrix, exec, tui. Parses options,
 * loads the config, and hands work to the engine; prints what comes back. */
#define _GNU_SOURCE
#include "audit.h"
#include "cgroup.h"
#include "cicase.h"
#include "hostcheck.h"
#include "html.h"
#include "job.h"
#include "judge.h"
#include "lab.h"
#include "matrix.h"
#include "progress.h"
#include "range.h" /* spec_build */
#include "report.h"
#include "spec.h"
#include "tui.h"
#include "twin.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
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
	EXIT_BROKE = 5,
};

#define MATRIX_JOBS_MAX 64 /* `matrix --jobs N` */

/* --help: the text around the layers, whose lines come from lab_layers[]
 * (layer.c), the table the screen and the docs describe them from too. */
static const char usage_head[] = "usage: containment-lab [--config FILE] [COMMAND ...]\n"
                                 "\n"
                                 "Runs code an AI agent might write inside a sandbox built from four layers\n"
                                 "you switch on and off, and shows from its own evidence what got out.\n"
                                 "\n"
                                 "commands:\n"
                                 "  (none) | tui [--predict]           the lab screen (needs a terminal);\n"
                                 "                                      --predict: ask before each run\n"
                                 "  tour                               the lab screen's guided tour (t): the\n"
                                 "                                     lesson step by step, predicted, run for\n"
                                 "                                     real, scored; resumes where you left it\n"
                                 "  list [--json]                      the snippets\n"
                                 "  run NAME|PATH [--on L|--off L] [--json]\n"
                                 "                                     run one snippet and judge it\n"
                                 "  matrix [--json|--markdown|--tap] [--junit FILE] [--html FILE]\n"
                                 "         [--snippet NAME[,NAME...]]... [--jobs N] [--quiet]\n"
                                 "                                     every snippet (or those named) x all 16\n"
                                 "                                     layer combinations; --tap: TAP on stdout,\n"
                                 "                                     --junit/--html: a JUnit XML or a\n"
                                 "                                     self-contained HTML report in FILE\n"
                                 "  exec [--on L|--off L] [--rw] -- CMD [ARG...]\n"
                                 "                                     any command under the chosen layers\n"
                                 "  audit [--json|--markdown|--tap] [--junit FILE] [--preset NAME]\n"
                                 "        [--snippet NAME]... [--outside-range] [--quiet] [-- PREFIX...]\n"
                                 "                                     grade another sandbox: the attacks run\n"
                                 "                                     through PREFIX ({cmd}, {dir}, {VAR});\n"
                                 "                                     presets: bwrap firejail srt runsc lab\n"
                                 "  twin [--on L|--off L] [--docker|--bwrap] [--tools] [--spec]\n"
                                 "                                     the same layers as a docker run (or\n"
                                 "                                     bwrap) command, flag by flag; --spec:\n"
                                 "                                     the run spec both are rendered from\n"
                                 "\n"
                                 "layers (L is a comma-separated list, or all / none):\n";
static const char usage_tail[] = "  --on L turns exactly L on; --off L turns everything but L on;\n"
                                 "  neither uses the defaults in layers.ini.\n"
                                 "\n"
                                 "options:\n"
                                 "  --config FILE   use this layers.ini (default: ./layers.ini, then\n"
                                 "                  $XDG_CONFIG_HOME/containment-lab/layers.ini, then the one\n"
                                 "                  beside the binary, then the installed one)\n"
                                 "  --rung R        the Isolation layer's rung: in-process (exec() inside an\n"
                                 "                  app server of the lab's: no layer can apply), container\n"
                                 "                  (namespaces and seccomp on the host kernel), gvisor (runsc)\n"
                                 "                  or microvm (its own guest kernel in QEMU); default from\n"
                                 "                  layers.ini\n"
                                 "  --network-mode M  No-network's setting: none (no interface at all) or\n"
                                 "                  allowlist (only the lab's egress proxy, which lets out\n"
                                 "                  [network] allow's host:port pairs); default from layers.ini\n"
                                 "  --quiet, -q     no progress line on stderr (matrix and audit draw one\n"
                                 "                  only when stderr is a terminal; NO_COLOR: no colour)\n"
                                 "  --json          (with any command) a failure is also one JSON object on\n"
                                 "                  stdout: {\"format\":1,\"error\":...,\"exit\":N}\n"
                                 "  --help, -h      this text\n"
                                 "  --version, -V   the version\n"
                                 "\n"
                                 "exit status: run: 0 RAN OK or CONTAINED, 1 ESCAPED, 3 FAILED, 4 ERROR, 5 BROKE;\n"
                                 "  matrix: 0 every cell as expected, 1 some differ; audit: 0 nothing escaped and\n"
                                 "  legit ran, 1 an attack escaped, 3 legit failed, 4 an attack gave no verdict or\n"
                                 "  the preset cannot run here; exec: the command's status\n"
                                 "  (128+N for signal N, 125 lab failure, 126/127 as a shell); 2 bad usage,\n"
                                 "  config or snippet. run and exec stopped by SIGINT, SIGTERM or SIGHUP clean\n"
                                 "  up first: run then gives its ERROR (4), exec 128+N for the lab's signal N.\n"
                                 "  See containment-lab(1).\n";

/* The layer lines come from the layer table, the one text --help, the
 * screen and the docs share; all of it through report_fputs, so a
 * non-UTF-8 terminal gets ASCII. */
static void usage(void)
{
	struct strbuf b = {0};
	sb_puts(&b, usage_head);
	for (int l = 0; l < LAYER_COUNT; l++)
		sb_printf(&b, "  %-10s %-16s %-41s (%s)\n", lab_layers[l].key, lab_layers[l].name, lab_layers[l].how,
		          lab_layers[l].stops);
	sb_puts(&b, usage_tail);
	report_fputs(b.s, stdout);
	sb_free(&b);
}

/* --json anywhere on the line (before exec's or audit's "--"): a failure is
 * then said on stdout too, as one JSON object a script can read
 * ({"format":1,"error":...,"exit":N}), besides the line on stderr. */
static bool json_errors;

static int vfail(int code, bool hint, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	fprintf(stderr, "containment-lab: %s\n%s", msg, hint ? "(see 'containment-lab --help')\n" : "");
	if (json_errors) {
		struct strbuf b = {0};
		sb_printf(&b, "{\"format\":%d,\"error\":", REPORT_JSON_FORMAT);
		char *inert = sanitize_output(msg, strlen(msg), 0);
		sb_json_str(&b, inert);
		free(inert);
		sb_printf(&b, ",\"exit\":%d}\n", code);
		fputs(b.s, stdout);
		fflush(stdout);
		sb_free(&b);
		json_errors = false; /* one document on stdout, never two */
	}
	return code;
}

/* A failure the user can fix: says what and why, returns code. */
static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(code, false, fmt, ap);
	va_end(ap);
	return code;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(EXIT_USAGE, true, fmt, ap);
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

/* *mask holds the default (layers.ini's [layers], in the setup) and
 * becomes what --on or --off says, if either. */
static int choose_layers(const struct layer_choice *c, unsigned *mask)
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
	}
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
	if (n < 0)
		return fail(EXIT_USAGE, "%s", err);
	if (n + n_broken == 0) {
		free(list);
		free(broken);
		return fail(EXIT_USAGE, "%s: no snippets (*.py with a '# lab:' header) found", cfg->snippets_dir);
	}
	struct strbuf b = {0};
	if (json)
		sb_printf(&b, "{\"format\":%d,\"snippets\":[", REPORT_JSON_FORMAT);
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
		sb_puts(&b, "]}\n");
	(json ? fputs : report_fputs)(b.s, stdout); /* JSON stays UTF-8 */
	sb_free(&b);
	snippets_free(list, n);
	snippets_free(broken, n_broken);
	return EXIT_OK;
}

/* ---- run and exec: a signal aborts the run, it does not kill the lab ---- */

/* Killed mid-run, the lab would leave the run folder (the decoy CSV and
 * credentials in it), its cgroups and its listeners behind. So SIGINT,
 * SIGTERM and SIGHUP only make the run's abort fd readable: the run takes
 * its own abort path (kill, reap, clean up) and the lab reports it. */
static int stop_pipe[2] = {-1, -1};
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	int saved = errno;
	stop_signal = sig;
	if (stop_pipe[1] >= 0)
		(void)!write(stop_pipe[1], "!", 1);
	errno = saved;
}

/* The abort fd to hand the run, or -1 (then a signal kills the lab as
 * before: the run could not be stopped cleanly anyway). */
static int stop_on_signals(void)
{
	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return stop_pipe[0];
}

static void stop_said(const char *what)
{
	if (stop_signal)
		fprintf(stderr, "containment-lab: %s stopped by %s: the sandbox was killed and cleaned up\n", what,
		        strsignal(stop_signal));
}

static int cmd_run(const struct lab_config *cfg, const struct lab_setup *setup, int argc, char **argv)
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
	struct lab_setup run = *setup;
	int rc = choose_layers(&lc, &run.layers);
	if (rc)
		return rc;
	struct snippet s;
	char err[512];
	if (snippet_resolve(cfg, name, &s, err, sizeof err) < 0)
		return fail(EXIT_USAGE, "%s", err);
	struct lab_result res;
	struct lab_run_opts opts = {.abort_fd = stop_on_signals()};
	lab_run(cfg, &run, &s, &opts, &res);
	lab_judge(&s, cfg, &res);
	stop_said("run");
	if (json)
		report_json(&res);
	else
		report_text(&res, isatty(1));
	int code = res.verdict == VERDICT_ESCAPED  ? EXIT_ESCAPED
	           : res.verdict == VERDICT_FAILED ? EXIT_FAILED
	           : res.verdict == VERDICT_ERROR  ? EXIT_ERROR
	           : res.verdict == VERDICT_BROKE  ? EXIT_BROKE
	                                           : EXIT_OK;
	lab_result_free(&res);
	snippet_free(&s);
	return code;
}

/* ---- matrix ---- */

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig)
{
	interrupted = sig; /* SIGINT or SIGTERM: the exit status is 128 + it */
}

/* What matrix and audit write on stdout: one format, chosen by one flag. */
enum out_format { OUT_TEXT, OUT_JSON, OUT_MARKDOWN, OUT_TAP };

/* The output options matrix and audit share. */
struct report_opts {
	enum out_format fmt;
	const char *fmt_flag; /* the flag that chose fmt, NULL for text */
	const char *junit;    /* --junit FILE */
	const char *html;     /* --html FILE (matrix only) */
	bool quiet;           /* --quiet: no progress line */
};

/* --quiet anywhere before the command, too */
static bool quiet_global;
static bool rung_all; /* --rung all: matrix on every rung of the ladder */

/* "FLAG VALUE" or "FLAG=VALUE" at argv[*i]: 1 and *value (with *i past
 * it), 0 when argv[*i] is not FLAG, -1 when no value follows (said). */
static int flag_value(const char *flag, int argc, char **argv, int *i, const char **value)
{
	size_t fl = strlen(flag);
	if (strncmp(argv[*i], flag, fl) != 0 || (argv[*i][fl] && argv[*i][fl] != '='))
		return 0;
	*value = argv[*i][fl] == '=' ? argv[*i] + fl + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
	if (!*value || !**value) {
		usage_error("%s needs a value", flag);
		return -1;
	}
	return 1;
}

/* One of the shared output options at argv[*i]: 1 taken, 0 not one of
 * them, -1 usage error said. Two stdout formats are refused, not one
 * silently winning. */
static int report_option(struct report_opts *o, const char *cmd, int argc, char **argv, int *i)
{
	static const struct {
		const char *flag;
		enum out_format fmt;
	} formats[] = {{"--json", OUT_JSON}, {"--markdown", OUT_MARKDOWN}, {"--tap", OUT_TAP}};
	const char *a = argv[*i];
	for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
		if (strcmp(a, formats[k].flag) != 0)
			continue;
		if (o->fmt_flag && strcmp(o->fmt_flag, a) != 0) {
			usage_error("%s: %s and %s cannot be combined: stdout takes one format (a report FILE "
			            "goes beside any of them)",
			            cmd, o->fmt_flag, a);
			return -1;
		}
		o->fmt = formats[k].fmt;
		o->fmt_flag = formats[k].flag;
		return 1;
	}
	if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
		o->quiet = true;
		return 1;
	}
	int took = flag_value("--junit", argc, argv, i, &o->junit);
	if (took || strcmp(cmd, "matrix") != 0)
		return took;
	return flag_value("--html", argc, argv, i, &o->html);
}

/* A report file (--junit, --html), opened before anything runs so a path
 * that cannot be written is said at once, not after the whole matrix. */
static int open_report(const char *flag, const char *path, FILE **f)
{
	*f = NULL;
	if (!path)
		return 0;
	if (!(*f = fopen(path, "we")))
		return fail(EXIT_USAGE, "%s %s: cannot write: %s", flag, path, strerror(errno));
	return 0;
}

/* A report file opened for a run that did not happen: not left behind. */
static void drop_report(FILE *f, const char *path)
{
	if (!f)
		return;
	fclose(f);
	unlink(path);
}

/* Writes suite as JUnit XML into f and closes it; 0 or EXIT_ERROR (said). */
static int write_junit(FILE *f, const char *path, const struct ci_suite *suites, int n)
{
	if (!f)
		return 0;
	int rc = junit_write_all(suites, n, f);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		fprintf(stderr, "containment-lab: --junit %s: cannot write: %s\n", path, strerror(-rc));
		return EXIT_ERROR;
	}
	return 0;
}

#define MATRIX_SNIPPETS_MAX 64

struct matrix_opts {
	struct report_opts out;
	long jobs;
	const char *names[MATRIX_SNIPPETS_MAX]; /* --snippet NAME[,NAME...]: a subset */
	int n_names;
	bool tools; /* --tools: the tool snippets (lab:tools) too */
};

/* --snippet's list, split at commas into o->names (pointing into argv). */
static int snippet_names(struct matrix_opts *o, char *list)
{
	int before = o->n_names;
	for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (o->n_names >= MATRIX_SNIPPETS_MAX)
			return usage_error("matrix: at most %d snippets", MATRIX_SNIPPETS_MAX);
		o->names[o->n_names++] = name;
	}
	/* "--snippet ," names nothing: never read as "every snippet" */
	return o->n_names == before ? usage_error("--snippet needs a snippet name (see 'containment-lab list')") : 0;
}

/* matrix [--json|--markdown|--tap] [--junit FILE] [--html FILE] [--jobs N]
 * [--snippet NAME]... [--quiet]: 0, or EXIT_USAGE (already said why). */
static int matrix_options(int argc, char **argv, struct matrix_opts *o)
{
	memset(o, 0, sizeof *o);
	o->out.quiet = quiet_global;
	o->jobs = sysconf(_SC_NPROCESSORS_ONLN);
	for (int i = 1; i < argc; i++) {
		const char *v;
		int took = report_option(&o->out, "matrix", argc, argv, &i);
		if (took < 0)
			return EXIT_USAGE;
		if (took)
			continue;
		if ((took = flag_value("--jobs", argc, argv, &i, &v)) != 0) {
			char *end;
			o->jobs = took > 0 ? strtol(v, &end, 10) : 0;
			if (took < 0 || *end || o->jobs < 1 || o->jobs > MATRIX_JOBS_MAX)
				return took < 0 ? EXIT_USAGE
				                : usage_error("--jobs needs a number from 1 to %d", MATRIX_JOBS_MAX);
		} else if ((took = flag_value("--snippet", argc, argv, &i, &v)) != 0) {
			if (took < 0 || snippet_names(o, argv[i] + (v - argv[i])))
				return EXIT_USAGE;
		} else if (!strcmp(argv[i], "--tools")) {
			o->tools = true;
		} else {
			return usage_error("matrix: unknown option '%s'", argv[i]);
		}
	}
	if (o->out.junit && o->out.html && !strcmp(o->out.junit, o->out.html))
		return usage_error("matrix: --junit and --html name the same file (%s)", o->out.html);
	if (o->jobs < 1)
		o->jobs = 1;
	if (o->jobs > MATRIX_JOBS_MAX)
		o->jobs = MATRIX_JOBS_MAX;
	return 0;
}

/* Keeps the snippets --snippet named, in the folder's order; every name
 * must be one of them. Without --snippet: every snippet but the tool
 * snippets (lab:tools), unless --tools: their verdict is the gate's, the
 * same in every layer set, and their door is shut on the upper rungs, so
 * the default truth table stays the layers' (docs/lesson.md). Returns the
 * new count, or -1 (said). */
static int matrix_subset(const struct lab_config *cfg, const struct matrix_opts *o, struct snippet *list, int n)
{
	for (int k = 0; k < o->n_names; k++) {
		int i = 0;
		while (i < n && strcmp(list[i].name, o->names[k]) != 0)
			i++;
		if (i == n) {
			usage_error("matrix: no snippet named '%s' in %s (see 'containment-lab list')", o->names[k],
			            cfg->snippets_dir);
			return -1;
		}
	}
	int kept = 0;
	for (int i = 0; i < n; i++) {
		bool want = !o->n_names && (o->tools || !list[i].tools);
		for (int k = 0; k < o->n_names && !want; k++)
			want = !strcmp(list[i].name, o->names[k]);
		if (!want) {
			snippet_free(&list[i]);
			continue;
		}
		if (kept != i)
			list[kept] = list[i];
		kept++;
	}
	return kept;
}

/* Polls the runner's workers until every cell is in; Ctrl-C aborts what is
 * running and skips the rest. progress: the line on stderr (progress.h). */
static void matrix_wait(struct matrix *m, bool progress, const char *what)
{
	struct sigaction sa = {.sa_handler = on_interrupt};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct progress line;
	progress_start(&line, stderr, progress, what, "cells");
	while (matrix_running(m)) {
		if (interrupted && !m->aborted)
			matrix_abort(m);
		struct matrix_counts n = matrix_count(m);
		progress_update(&line, n.ran, m->n_cells, n.differ, m->aborted ? "stopping" : "");
		struct pollfd pfd[MATRIX_JOBS_MAX];
		int nfd = matrix_fds(m, pfd, MATRIX_JOBS_MAX);
		if (nfd == 0 && matrix_running(m)) {
			/* nothing to wait for: cannot happen, but never spin */
			matrix_halt(m);
			break;
		}
		if (poll(pfd, (nfds_t)nfd, 200) < 0 && errno != EINTR) {
			fprintf(stderr, "containment-lab: poll: %s\n", strerror(errno));
			matrix_halt(m);
			break;
		}
		for (int i = 0; i < nfd; i++)
			if (pfd[i].revents)
				matrix_on_ready(m, pfd[i].fd);
	}
	progress_end(&line);
}

/* The ladder from the bottom, as `matrix --rung all` runs it. */
static const enum lab_rung ladder_order[] = {RUNG_INPROCESS, RUNG_CONTAINER, RUNG_GVISOR, RUNG_MICROVM};
#define LADDER_N ((int)(sizeof ladder_order / sizeof *ladder_order))

/* Writes the matrix (or with ladder, the LADDER_N rungs) as HTML into f and
 * closes it; 0 or EXIT_ERROR (said). */
static int write_html(FILE *f, const char *path, const struct matrix *m, const struct matrix_rung *ladder)
{
	if (!f)
		return 0;
	int rc = ladder ? html_ladder_write(ladder, LADDER_N, f) : html_matrix_write(m, f);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		fprintf(stderr, "containment-lab: --html %s: cannot write: %s\n", path, strerror(-rc));
		return EXIT_ERROR;
	}
	return 0;
}

/* The matrix on stdout in the chosen format, and in the report files. */
static int matrix_report(const struct matrix *m, const struct matrix_opts *o, FILE *junit, FILE *html)
{
	struct ci_suite suite = {0};
	if ((o->out.fmt == OUT_TAP || junit) && ci_suite_from_matrix(&suite, m) < 0)
		abort();
	if (o->out.fmt == OUT_JSON)
		report_matrix_json(m);
	else if (o->out.fmt == OUT_MARKDOWN)
		report_matrix_markdown(m);
	else if (o->out.fmt == OUT_TAP)
		tap_write(&suite, stdout);
	else
		report_matrix_text(m);
	int rc = write_junit(junit, o->out.junit, &suite, 1);
	int rc_html = write_html(html, o->out.html, m, NULL);
	ci_suite_free(&suite);
	return rc ? rc : rc_html;
}

/* The ladder's reports: stdout in the chosen format, and the files. */
static int ladder_report(const struct matrix_rung *rr, const struct matrix_opts *o, FILE *junit, FILE *html)
{
	struct ci_suite parts[LADDER_N], all;
	bool ci = o->out.fmt == OUT_TAP || junit;
	for (int i = 0; ci && i < LADDER_N; i++)
		if ((rr[i].m ? ci_suite_from_matrix(&parts[i], rr[i].m)
		             : ci_suite_rung_skipped(&parts[i], rr[i].rung, rr[i].skipped, rr[i].stopped)) < 0)
			abort();
	int rc = write_junit(junit, o->out.junit, parts, LADDER_N);
	if (ci && ci_suite_merge(&all, parts, LADDER_N, "containment-lab matrix, every rung of the ladder") < 0)
		abort();
	if (o->out.fmt == OUT_JSON)
		report_ladder_json(rr, LADDER_N);
	else if (o->out.fmt == OUT_TAP)
		tap_write(&all, stdout);
	else
		report_ladder_text(rr, LADDER_N, o->out.fmt == OUT_MARKDOWN);
	if (ci)
		ci_suite_free(&all);
	int rc_html = write_html(html, o->out.html, NULL, rr);
	return rc ? rc : rc_html;
}

/* matrix --rung all: the same snippets on every rung of the ladder, one
 * after another; a rung whose tools are missing is skipped with why. */
static int matrix_ladder(const struct lab_config *cfg, const struct lab_setup *setup, const struct matrix_opts *o,
                         const struct snippet *list, int n, FILE *junit, FILE *html)
{
	struct matrix *ms = calloc(LADDER_N, sizeof *ms);
	struct matrix_rung rr[LADDER_N];
	if (!ms)
		abort();
	bool all = true;
	for (int i = 0; i < LADDER_N; i++) {
		rr[i] = (struct matrix_rung){.rung = ladder_order[i]};
		struct lab_setup on_rung = *setup;
		on_rung.rung = ladder_order[i];
		if (interrupted) {
			rr[i].stopped = true;
			str_copy(rr[i].skipped, sizeof rr[i].skipped, "not run: the matrix was stopped");
			continue;
		}
		if (!lab_rung_ready(cfg, ladder_order[i], rr[i].skipped, sizeof rr[i].skipped))
			continue;
		if (matrix_init(&ms[i], cfg, &on_rung, list, n, (int)o->jobs) < 0)
			abort();
		matrix_start(&ms[i]);
		matrix_wait(&ms[i], !o->out.quiet && isatty(2), lab_rung_key(ladder_order[i]));
		rr[i].m = &ms[i];
		all = all && matrix_count(&ms[i]).as_expected == ms[i].n_cells;
	}
	int rc = ladder_report(rr, o, junit, html);
	for (int i = 0; i < LADDER_N; i++)
		if (rr[i].m)
			matrix_free(&ms[i]);
	free(ms);
	/* stopped: the shell's convention, whatever the cells that ran said */
	return interrupted ? 128 + interrupted : rc ? rc : all ? EXIT_OK : EXIT_ESCAPED;
}

static int cmd_matrix(const struct lab_config *cfg, const struct lab_setup *setup, int argc, char **argv)
{
	struct matrix_opts o;
	if (matrix_options(argc, argv, &o))
		return EXIT_USAGE;
	char err[512];
	struct snippet *list;
	int n = snippet_discover(cfg->snippets_dir, &list, err, sizeof err);
	if (n < 0)
		return fail(EXIT_USAGE, "%s", err);
	FILE *junit = NULL, *html = NULL;
	int n_all = n;
	if ((n = matrix_subset(cfg, &o, list, n)) < 0 || open_report("--junit", o.out.junit, &junit) ||
	    open_report("--html", o.out.html, &html)) {
		drop_report(junit, o.out.junit);
		snippets_free(list, n < 0 ? n_all : n);
		return EXIT_USAGE;
	}
	if (rung_all) {
		int rc = matrix_ladder(cfg, setup, &o, list, n, junit, html);
		snippets_free(list, n);
		return rc;
	}
	struct matrix m;
	if (matrix_init(&m, cfg, setup, list, n, (int)o.jobs) < 0)
		abort();
	matrix_start(&m);
	matrix_wait(&m, !o.out.quiet && isatty(2), "matrix");
	int rc = matrix_report(&m, &o, junit, html);
	bool all = matrix_count(&m).as_expected == m.n_cells;
	matrix_free(&m);
	snippets_free(list, n);
	return interrupted ? 128 + interrupted : rc ? rc : all ? EXIT_OK : EXIT_ESCAPED;
}

static int cmd_exec(const struct lab_config *cfg, const struct lab_setup *setup, int argc, char **argv)
{
	struct layer_choice lc = {0};
	struct lab_setup run = *setup;
	int i = 1, took;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--rw"))
			run.exec_rw = true;
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
	int rc = choose_layers(&lc, &run.layers);
	if (rc)
		return rc;
	struct lab_run_opts opts = {.abort_fd = stop_on_signals()};
	rc = lab_exec(cfg, &run, &argv[i], &opts);
	stop_said("exec");
	/* the shell's convention for a command stopped by signal N */
	return stop_signal ? 128 + stop_signal : rc;
}

/* twin [--on L|--off L] [--docker|--bwrap] [--tools] [--spec]: the layers
 * as another tool's command line (twin.c), with --tools the tool snippets'
 * door and gate, with --spec the run spec itself (spec.h) that the boxes
 * and the twin render; --rung was taken out of argv by main. */
static int cmd_twin(const struct lab_config *cfg, const struct lab_setup *setup, int argc, char **argv)
{
	struct layer_choice lc = {0};
	enum twin_tool tool = TWIN_DOCKER;
	bool tools = false, spec = false;
	int took;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tools"))
			tools = true;
		else if (!strcmp(argv[i], "--spec"))
			spec = true;
		else if (!strcmp(argv[i], "--docker"))
			tool = TWIN_DOCKER;
		else if (!strcmp(argv[i], "--bwrap"))
			tool = TWIN_BWRAP;
		else if ((took = layer_option(&lc, argc, argv, i)) != 0) {
			if (took < 0)
				return EXIT_USAGE;
			i += took - 1;
		} else
			return usage_error("twin: unknown argument '%s'", argv[i]);
	}
	struct lab_setup run = *setup;
	int rc = choose_layers(&lc, &run.layers);
	if (rc)
		return rc;
	struct strbuf b = {0};
	if (spec) {
		struct run_spec s;
		struct spec_host host;
		spec_build(&s, cfg, &run);
		spec_host_probe(&host);
		spec_text(&s, &host, &b);
	} else {
		twin_text(cfg, &run, tool, &b);
	}
	if (tools)
		twin_tools_text(tool, &b);
	report_fputs(b.s, stdout);
	sb_free(&b);
	return EXIT_OK;
}

/* A NULL-terminated copy of args, each string its own (audit_argv_free). */
static char **dup_args(char *const *args)
{
	int n = 0;
	while (args[n])
		n++;
	char **v = calloc((size_t)n + 1, sizeof *v);
	for (int k = 0; v && k < n; k++)
		if (!(v[k] = strdup(args[k])))
			abort();
	if (!v)
		abort();
	return v;
}

/* audit's verdict skipped: the preset cannot run here. */
static int audit_skipped(const char *preset, const char *why, const struct report_opts *o, FILE *junit)
{
	struct ci_suite suite;
	if (ci_suite_skipped(&suite, preset, why) < 0)
		abort();
	if (o->fmt == OUT_JSON) {
		struct strbuf b = {0};
		sb_printf(&b, "{\"format\":%d,\"audit\":", REPORT_JSON_FORMAT);
		sb_json_str(&b, preset);
		sb_puts(&b, ",\"skipped\":");
		sb_json_str(&b, why);
		sb_puts(&b, "}\n");
		fputs(b.s, stdout);
		sb_free(&b);
	} else if (o->fmt == OUT_TAP) {
		tap_write(&suite, stdout);
	} else {
		printf("audit: %s skipped: %s\n", preset, why);
	}
	int rc = write_junit(junit, o->junit, &suite, 1);
	ci_suite_free(&suite);
	return rc ? rc : EXIT_ERROR;
}

/* The card on stdout in the chosen format, and as JUnit. */
static int audit_report(const struct audit_card *card, const struct report_opts *o, FILE *junit)
{
	struct ci_suite suite = {0};
	if ((o->fmt == OUT_TAP || junit) && ci_suite_from_audit(&suite, card) < 0)
		abort();
	if (o->fmt == OUT_JSON)
		audit_card_json(card);
	else if (o->fmt == OUT_MARKDOWN)
		audit_card_markdown(card);
	else if (o->fmt == OUT_TAP)
		tap_write(&suite, stdout);
	else
		audit_card_text(card);
	int rc = write_junit(junit, o->junit, &suite, 1);
	ci_suite_free(&suite);
	return rc;
}

/* audit's command line: the report options, a preset or the wrapper's
 * command after "--" (*cmd: its first word), the snippets to run. */
struct audit_args {
	struct report_opts o;
	const char *preset, *names[AUDIT_SNIPPETS_MAX];
	int n_names;
	bool outside;
	char **cmd;
};

static int audit_args_parse(int argc, char **argv, struct audit_args *a)
{
	int i = 1, took;
	a->cmd = &argv[argc]; /* none yet: argv's own NULL */
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if ((took = report_option(&a->o, "audit", argc, argv, &i)) < 0)
			return EXIT_USAGE;
		if (took)
			continue;
		if (!strcmp(argv[i], "--outside-range"))
			a->outside = true;
		else if (!strcmp(argv[i], "--preset") || !strcmp(argv[i], "--snippet")) {
			if (i + 1 >= argc)
				return usage_error("audit: %s needs a name", argv[i]);
			if (argv[i][2] == 'p')
				a->preset = argv[++i];
			else if (a->n_names < AUDIT_SNIPPETS_MAX)
				a->names[a->n_names++] = argv[++i];
			else
				return usage_error("audit: at most %d snippets", AUDIT_SNIPPETS_MAX);
		} else
			return usage_error("audit: unknown option '%s' (put the sandbox's command after --)", argv[i]);
	}
	if (a->preset && i < argc)
		return usage_error("audit: --preset %s or a command after --, not both", a->preset);
	if (!a->preset && i >= argc)
		return usage_error("audit: which sandbox? --preset NAME (bwrap, firejail, srt, runsc, lab) or "
		                   "-- PREFIX... e.g. audit -- bwrap --unshare-all ... {cmd}");
	if (!a->n_names)
		for (int k = 0; audit_default_names[k]; k++)
			a->names[a->n_names++] = audit_default_names[k];
	a->cmd = &argv[i];
	return EXIT_OK;
}

/* Every snippet of the card through the wrapper, in turn, judged; stops at
 * a snippet it cannot find (EXIT_USAGE) or a signal. */
static int audit_card_run(const struct lab_config *cfg, const struct audit_args *a, struct audit_card *card)
{
	int code = EXIT_OK;
	struct progress line;
	/* stopped (SIGINT, SIGTERM, SIGHUP): the running attack is killed and
	 * cleaned up, the card so far printed with it as ERROR (exit 4) */
	struct lab_run_opts opts = {.abort_fd = stop_on_signals()};
	progress_start(&line, stderr, !a->o.quiet, "audit", "snippets");
	for (int k = 0; k < a->n_names && code == EXIT_OK && !stop_signal; k++) {
		struct snippet s;
		char err[512];
		if (snippet_resolve(cfg, a->names[k], &s, err, sizeof err) < 0) {
			code = fail(EXIT_USAGE, "%s", err);
			break;
		}
		int differ = 0;
		for (int r = 0; r < card->n; r++)
			differ += card->res[r].verdict !=
			          (card->res[r].threat == THREAT_LEGIT ? VERDICT_RAN_OK : VERDICT_CONTAINED);
		progress_update(&line, k, a->n_names, differ, s.name);
		struct lab_result *res = &card->res[card->n++];
		lab_audit_run(cfg, &s, card->wrapper, a->outside, &opts, res);
		lab_judge(&s, cfg, res);
		snippet_free(&s);
	}
	progress_end(&line);
	stop_said("audit");
	return code;
}

static int cmd_audit(const struct lab_config *cfg, const struct lab_setup *setup, int argc, char **argv)
{
	struct audit_args a = {.o = {.quiet = quiet_global}};
	int code = audit_args_parse(argc, argv, &a);
	if (code != EXIT_OK)
		return code;
	FILE *junit;
	if (open_report("--junit", a.o.junit, &junit))
		return EXIT_USAGE;
	char **wrapper = NULL, why[LAB_LINE], note[LAB_LINE] = "";
	if (a.preset) {
		int rc = audit_preset(a.preset, cfg, setup, &wrapper, &a.outside, why, sizeof why, note, sizeof note);
		if (rc < 0) {
			drop_report(junit, a.o.junit);
			return usage_error("audit: no preset '%s' (bwrap, firejail, srt, runsc, lab)", a.preset);
		}
		if (rc > 0)
			return audit_skipped(a.preset, why, &a.o, junit);
	}
	if (!wrapper)
		wrapper = dup_args(a.cmd);
	if (audit_resolve_wrapper(wrapper, why, sizeof why) < 0) {
		audit_argv_free(wrapper);
		drop_report(junit, a.o.junit);
		return fail(EXIT_USAGE, "%s", why);
	}
	if (!a.preset && !a.outside && audit_custom(wrapper, &a.outside, why, sizeof why, note, sizeof note) > 0) {
		audit_argv_free(wrapper);
		return audit_skipped("custom", why, &a.o, junit);
	}
	if (a.outside && !note[0])
		snprintf(note, sizeof note,
		         "run outside the range (--outside-range): the lab ends the wrapper's "
		         "process tree, but not what leaves it");
	struct audit_card *card = calloc(1, sizeof *card);
	if (!card)
		abort();
	card->name = a.preset ? a.preset : "custom";
	card->wrapper = wrapper;
	card->note = note;
	code = audit_card_run(cfg, &a, card);
	if (code == EXIT_OK) {
		int rc = audit_report(card, &a.o, junit);
		code = rc ? rc : audit_card_status(card);
	} else {
		drop_report(junit, a.o.junit);
	}
	for (int k = 0; k < card->n; k++)
		lab_result_free(&card->res[k]);
	free(card);
	audit_argv_free(wrapper);
	return code;
}

/* A setting that reads the same anywhere on the line before exec's "--":
 * --rung NAME (the Isolation layer's rung) and --network-mode NAME
 * (No-network's setting), for run, matrix, exec and the screen, over
 * layers.ini's. */
struct choice_option {
	const char *flag;            /* "--rung" */
	int (*by_key)(const char *); /* -1 if unknown */
	const char *choices;         /* for the message */
};

/* A rung, or "all" (RUNG_COUNT): every rung, for matrix. */
static int rung_or_all(const char *key)
{
	return !strcmp(key, "all") ? RUNG_COUNT : lab_rung_by_key(key);
}

static const struct choice_option choice_options[] = {
    {"--rung", rung_or_all, "in-process, container, gvisor, microvm or all (matrix only)"},
    {"--network-mode", lab_net_mode_by_key, "none or allowlist"},
    {"--approve", lab_approve_by_key, "never, always or ask"},
};

/* Takes every choice option out of argv so no option loop sees it; fills
 * out[] (-1 = not given) and returns the new argc, or -1 (usage error said). */
static int take_choice_options(int out[], int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break; /* exec's command follows */
		for (size_t k = 0; k < sizeof choice_options / sizeof *choice_options; k++) {
			const struct choice_option *o = &choice_options[k];
			size_t fl = strlen(o->flag);
			const char *v;
			int took = 1;
			if (!strcmp(argv[i], o->flag)) {
				if (i + 1 >= argc) {
					usage_error("%s needs one of %s", o->flag, o->choices);
					return -1;
				}
				v = argv[i + 1];
				took = 2;
			} else if (!strncmp(argv[i], o->flag, fl) && argv[i][fl] == '=') {
				v = argv[i] + fl + 1;
			} else {
				continue;
			}
			if ((out[k] = o->by_key(v)) < 0) {
				usage_error("%s %s: expected %s", o->flag, v, o->choices);
				return -1;
			}
			memmove(&argv[i], &argv[i + took], sizeof *argv * (size_t)(argc - i - took + 1));
			argc -= took;
			i--;
			break;
		}
	}
	return argc;
}

/* Whether cmd builds sandboxes that need a user namespace (audit's wrapper
 * box needs one only rootless). */
static bool host_blocks(const char *cmd)
{
	static const char *const builds[] = {"tui", "tour", "run", "matrix", "exec"};
	for (size_t k = 0; k < sizeof builds / sizeof *builds; k++)
		if (!strcmp(cmd, builds[k]))
			return true;
	return !strcmp(cmd, "audit") && geteuid() != 0;
}

/* A host that allows the lab no usable user namespace is said in one line
 * before anything runs (hostcheck.c), with what still works and the fix. */
static int check_host(void)
{
	struct hostcheck h;
	char line[600];
	hostcheck_read(&h);
	if (!hostcheck_advice(&h, 0, line, sizeof line))
		return EXIT_OK;
	return fail(EXIT_ERROR, "%s", line);
}

/* --json before exec's or audit's "--" (what follows is another program's). */
static bool wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "--json"))
			return true;
	return false;
}

/* --approve (the tool gate, tools.h) is for run, matrix and the screen;
 * ask needs a human at a terminal, one call at a time: run (on the
 * terminal) and the screen (its prompt) only. EXIT_OK, or the usage
 * error said. */
static int approve_refused(int approve, const char *cmd)
{
	bool tui = !strcmp(cmd, "tui");
	if (!tui && strcmp(cmd, "run") != 0 && strcmp(cmd, "matrix") != 0)
		return usage_error("--approve is for run, matrix and the screen (the tool gate), not for %s", cmd);
	/* the screen asks in its result pane (its matrix cannot ask: its
	 * cells' gates refuse, and say so) */
	if (approve != APPROVE_ASK || tui)
		return EXIT_OK;
	if (!strcmp(cmd, "matrix"))
		return usage_error("--approve ask is one human answer per payment: matrix runs its cells at once, in "
		                   "workers; use --approve never or always (or run one cell with run)");
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || !isatty(STDIN_FILENO)) {
		if (fd >= 0)
			close(fd);
		return usage_error("--approve ask asks you on the terminal, and there is none here (%s): use "
		                   "--approve never or always",
		                   fd < 0 ? "no /dev/tty" : "stdin is not a terminal");
	}
	close(fd);
	return EXIT_OK;
}

/* The options before the command (--help, --version, --config, --predict,
 * --quiet): the command's index in argv, or -1 with *code the exit status
 * (help and version printed, a usage error said). */
static int global_options(int argc, char **argv, const char **config_file, bool *predict, int *code)
{
	int i = 1;
	*code = EXIT_OK;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage();
			return -1;
		}
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("containment-lab %s\n", LAB_VERSION);
			return -1;
		}
		if (!strcmp(argv[i], "--config") || !strncmp(argv[i], "--config=", 9)) {
			*config_file = argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!*config_file || !**config_file) {
				*code = usage_error("--config needs a file");
				return -1;
			}
			continue;
		}
		if (!strcmp(argv[i], "--predict")) {
			*predict = true; /* the screen's predict mode (p) from the start */
			continue;
		}
		if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			quiet_global = true; /* matrix's and audit's progress line */
			continue;
		}
		if (argv[i][0] == '-') {
			*code = usage_error("unknown option '%s'", argv[i]);
			return -1;
		}
		break;
	}
	return i;
}

/* The run's choices: layers.ini's defaults, then the command line's
 * (--rung, --network-mode, --approve; the config stays what the file
 * says). cmd: the command, NULL for the screen. */
static int setup_choices(const struct lab_config *cfg, const int choice[3], const char *cmd, struct lab_setup *setup)
{
	*setup = lab_setup_default(cfg);
	if (choice[0] == RUNG_COUNT) {
		if (!cmd || strcmp(cmd, "matrix") != 0)
			return usage_error("--rung all is for matrix: the other commands run on one rung");
		rung_all = true;
	} else if (choice[0] >= 0) {
		setup->rung = choice[0];
	}
	if (choice[1] >= 0)
		setup->net_mode = choice[1];
	if (choice[2] >= 0 && approve_refused(choice[2], cmd ? cmd : "tui") != EXIT_OK)
		return EXIT_USAGE;
	if (choice[2] >= 0)
		setup->approve = choice[2];
	return EXIT_OK;
}

/* The screen: no command, `tui [--predict]` or `tour`. */
static int screen_command(const struct lab_config *cfg, const struct lab_setup *setup, bool predict, int argc,
                          char **argv)
{
	if (argc && !strcmp(argv[0], "tour")) {
		if (argc > 1)
			return usage_error("tour takes no options ('%s')", argv[1]);
		return tui_main(cfg, setup, true, true);
	}
	for (int k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--predict") != 0)
			return usage_error("tui: unknown option '%s' (--predict)", argv[k]);
		predict = true;
	}
	return tui_main(cfg, setup, predict, false);
}

static int cmd_list_setup(const struct lab_config *cfg, const struct lab_setup *setup, int argc, char **argv)
{
	(void)setup;
	return cmd_list(cfg, argc, argv);
}

static const struct {
	const char *name;
	int (*fn)(const struct lab_config *cfg, const struct lab_setup *setup, int argc, char **argv);
} commands[] = {
    {"list", cmd_list_setup}, {"run", cmd_run},     {"matrix", cmd_matrix},
    {"exec", cmd_exec},       {"audit", cmd_audit}, {"twin", cmd_twin},
};

int main(int argc, char **argv)
{
	const char *config_file = NULL;
	int choice[3] = {-1, -1, -1}; /* --rung, --network-mode, --approve */
	bool predict = false;
	json_errors = wants_json(argc, argv);
	if ((argc = take_choice_options(choice, argc, argv)) < 0)
		return EXIT_USAGE;
	/* Part of the safety net: descriptors the lab inherited from whoever
	 * started it (a shell's `7</`, a CI harness's pipes) are the user's
	 * real files and must never reach a sandbox, whatever the layers. */
	syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
	int code, i = global_options(argc, argv, &config_file, &predict, &code);
	if (i < 0)
		return code;
	struct lab_config cfg;
	char err[600];
	if (config_load(&cfg, config_file, err, sizeof err) < 0) {
		char *inert = sanitize_output(err, strlen(err), 0); /* it quotes the file's bytes */
		fail(EXIT_USAGE, "%s", inert);
		free(inert);
		return EXIT_USAGE;
	}
	const char *cmd = i < argc ? argv[i] : NULL;
	struct lab_setup setup;
	if ((code = setup_choices(&cfg, choice, cmd, &setup)) != EXIT_OK)
		return code;
	if (!cmd || host_blocks(cmd)) {
		if (check_host() != EXIT_OK)
			return EXIT_ERROR;
		cgroup_lab_settle(); /* before any worker is forked */
	}
	if (!cmd || !strcmp(cmd, "tui") || !strcmp(cmd, "tour"))
		return screen_command(&cfg, &setup, predict, argc - i, argv + i);
	if (predict)
		return usage_error("--predict is for the lab screen: containment-lab --predict (or tui --predict)");
	int sub_argc = argc - i;
	char **sub_argv = argv + i;
	if (sub_argc > 1 && (!strcmp(sub_argv[1], "--help") || !strcmp(sub_argv[1], "-h"))) {
		usage();
		return EXIT_OK;
	}
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++)
		if (!strcmp(cmd, commands[k].name))
			return commands[k].fn(&cfg, &setup, sub_argc, sub_argv);
	return usage_error("unknown command '%s' (list, run, matrix, exec, audit, twin, tui)", cmd);
}
