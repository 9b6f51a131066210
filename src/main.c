/* main.c — the command line: list, run, matrix, exec, tui. Parses options,
 * loads the config, and hands work to the engine; prints what comes back. */
#define _GNU_SOURCE
#include "audit.h"
#include "cgroup.h"
#include "hostcheck.h"
#include "job.h"
#include "lab.h"
#include "matrix.h"
#include "report.h"
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
                                 "  list [--json]                      the snippets\n"
                                 "  run NAME|PATH [--on L|--off L] [--json]\n"
                                 "                                     run one snippet and judge it\n"
                                 "  matrix [--json|--markdown] [--jobs N]\n"
                                 "                                     every snippet x all 16 layer combinations\n"
                                 "  exec [--on L|--off L] [--rw] -- CMD [ARG...]\n"
                                 "                                     any command under the chosen layers\n"
                                 "  audit [--json|--markdown] [--preset NAME] [--snippet NAME]...\n"
                                 "        [--outside-range] [-- PREFIX...]\n"
                                 "                                     grade another sandbox: the attacks run\n"
                                 "                                     through PREFIX ({cmd}, {dir}, {VAR});\n"
                                 "                                     presets: bwrap firejail srt runsc lab\n"
                                 "  twin [--on L|--off L] [--docker|--bwrap]\n"
                                 "                                     the same layers as a docker run (or\n"
                                 "                                     bwrap) command, flag by flag\n"
                                 "\n"
                                 "layers (L is a comma-separated list, or all / none):\n";
static const char usage_tail[] = "  --on L turns exactly L on; --off L turns everything but L on;\n"
                                 "  neither uses the defaults in layers.ini.\n"
                                 "\n"
                                 "options:\n"
                                 "  --config FILE   use this layers.ini (default: ./layers.ini, then\n"
                                 "                  $XDG_CONFIG_HOME/containment-lab/layers.ini, then the one\n"
                                 "                  beside the binary, then the installed one)\n"
                                 "  --rung R        the Isolation layer's rung: container (namespaces and\n"
                                 "                  seccomp on the host kernel), gvisor (runsc) or microvm\n"
                                 "                  (its own guest kernel in QEMU); default from layers.ini\n"
                                 "  --network-mode M  No-network's setting: none (no interface at all) or\n"
                                 "                  allowlist (only the lab's egress proxy, which lets out\n"
                                 "                  [network] allow's host:port pairs); default from layers.ini\n"
                                 "  --help          this text\n"
                                 "  --version       the version\n"
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
		fprintf(stderr, "containment-lab: %s: no snippets (*.py with a '# lab:' header) found\n",
		        cfg->snippets_dir);
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
	unsigned layers = 0;
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
	struct lab_run_opts opts = {.abort_fd = stop_on_signals()};
	lab_run(cfg, &s, layers, &opts, &res);
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
	(void)sig;
	interrupted = 1;
}

enum matrix_format { MATRIX_TEXT, MATRIX_JSON, MATRIX_MARKDOWN };

/* matrix [--json|--markdown] [--jobs N]: 0, or EXIT_USAGE (already said why). */
static int matrix_options(int argc, char **argv, enum matrix_format *fmt, long *jobs)
{
	*fmt = MATRIX_TEXT;
	*jobs = sysconf(_SC_NPROCESSORS_ONLN);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			*fmt = MATRIX_JSON;
		else if (!strcmp(argv[i], "--markdown"))
			*fmt = MATRIX_MARKDOWN;
		else if (!strcmp(argv[i], "--jobs") || !strncmp(argv[i], "--jobs=", 7)) {
			const char *v = argv[i][6] == '=' ? argv[i] + 7 : (i + 1 < argc ? argv[++i] : NULL);
			char *end;
			*jobs = v ? strtol(v, &end, 10) : 0;
			if (!v || *end || *jobs < 1 || *jobs > MATRIX_JOBS_MAX)
				return usage_error("--jobs needs a number from 1 to %d", MATRIX_JOBS_MAX);
		} else
			return usage_error("matrix: unknown option '%s'", argv[i]);
	}
	if (*jobs < 1)
		*jobs = 1;
	if (*jobs > MATRIX_JOBS_MAX)
		*jobs = MATRIX_JOBS_MAX;
	return 0;
}

/* Polls the runner's workers until every cell is in; Ctrl-C aborts what is
 * running and skips the rest. progress: "N/M cells" on stderr. */
static void matrix_wait(struct matrix *m, bool progress)
{
	struct sigaction sa = {.sa_handler = on_interrupt};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (matrix_running(m)) {
		if (interrupted && !m->aborted)
			matrix_abort(m);
		struct pollfd pfd[MATRIX_JOBS_MAX];
		int n = matrix_fds(m, pfd, MATRIX_JOBS_MAX);
		if (n == 0 && matrix_running(m)) {
			/* nothing to wait for: cannot happen, but never spin */
			matrix_halt(m);
			break;
		}
		if (poll(pfd, (nfds_t)n, 200) < 0 && errno != EINTR) {
			fprintf(stderr, "containment-lab: poll: %s\n", strerror(errno));
			matrix_halt(m);
			break;
		}
		for (int i = 0; i < n; i++)
			if (pfd[i].revents && matrix_on_ready(m, pfd[i].fd) == 1 && progress)
				fprintf(stderr, "\r%d/%d cells", matrix_count(m).ran, m->n_cells);
	}
	if (progress)
		fputs("\r              \r", stderr);
}

static int cmd_matrix(const struct lab_config *cfg, int argc, char **argv)
{
	enum matrix_format fmt;
	long jobs;
	if (matrix_options(argc, argv, &fmt, &jobs))
		return EXIT_USAGE;
	char err[512];
	struct snippet *list;
	int n = snippet_discover(cfg->snippets_dir, &list, err, sizeof err);
	if (n < 0) {
		fprintf(stderr, "containment-lab: %s\n", err);
		return EXIT_USAGE;
	}
	struct matrix m;
	if (matrix_init(&m, cfg, list, n, (int)jobs) < 0)
		abort();
	matrix_start(&m);
	matrix_wait(&m, fmt == MATRIX_TEXT && isatty(2));
	if (fmt == MATRIX_JSON)
		report_matrix_json(&m);
	else if (fmt == MATRIX_MARKDOWN)
		report_matrix_markdown(&m);
	else
		report_matrix_text(&m);
	bool all = matrix_count(&m).as_expected == m.n_cells;
	matrix_free(&m);
	snippets_free(list, n);
	return all ? EXIT_OK : EXIT_ESCAPED;
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
	unsigned layers = 0;
	int rc = choose_layers(cfg, &lc, &layers);
	if (rc)
		return rc;
	struct lab_run_opts opts = {.abort_fd = stop_on_signals()};
	rc = lab_exec(cfg, layers, rw, &argv[i], &opts);
	stop_said("exec");
	/* the shell's convention for a command stopped by signal N */
	return stop_signal ? 128 + stop_signal : rc;
}

/* twin [--on L|--off L] [--docker|--bwrap]: the layers as another tool's
 * command line (twin.c); --rung was taken out of argv by main. */
static int cmd_twin(const struct lab_config *cfg, int argc, char **argv)
{
	struct layer_choice lc = {0};
	enum twin_tool tool = TWIN_DOCKER;
	int took;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--docker"))
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
	unsigned layers = 0;
	int rc = choose_layers(cfg, &lc, &layers);
	if (rc)
		return rc;
	struct strbuf b = {0};
	twin_text(cfg, layers, (enum lab_rung)cfg->rung, tool, &b);
	report_fputs(b.s, stdout);
	sb_free(&b);
	return EXIT_OK;
}

/* The snippets an audit runs by default: the legit task and the four
 * attacks (the kernel exploit's verdict needs to see which kernel served
 * it, which a foreign sandbox does not show). */
static const char *const audit_default[] = {"legit", "resource-bomb", "secret-theft", "exfiltration", "host-takeover"};

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

static int cmd_audit(const struct lab_config *cfg, int argc, char **argv)
{
	enum matrix_format fmt = MATRIX_TEXT;
	const char *preset = NULL, *names[AUDIT_SNIPPETS_MAX];
	int n_names = 0, i = 1;
	bool outside = false;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--json"))
			fmt = MATRIX_JSON;
		else if (!strcmp(argv[i], "--markdown"))
			fmt = MATRIX_MARKDOWN;
		else if (!strcmp(argv[i], "--outside-range"))
			outside = true;
		else if (!strcmp(argv[i], "--preset") || !strcmp(argv[i], "--snippet")) {
			if (i + 1 >= argc)
				return usage_error("audit: %s needs a name", argv[i]);
			if (argv[i][2] == 'p')
				preset = argv[++i];
			else if (n_names < AUDIT_SNIPPETS_MAX)
				names[n_names++] = argv[++i];
			else
				return usage_error("audit: at most %d snippets", AUDIT_SNIPPETS_MAX);
		} else
			return usage_error("audit: unknown option '%s' (put the sandbox's command after --)", argv[i]);
	}
	if (preset && i < argc)
		return usage_error("audit: --preset %s or a command after --, not both", preset);
	if (!preset && i >= argc)
		return usage_error("audit: which sandbox? --preset NAME (bwrap, firejail, srt, runsc, lab) or "
		                   "-- PREFIX... e.g. audit -- bwrap --unshare-all ... {cmd}");
	char **wrapper = NULL, why[LAB_LINE], note[LAB_LINE] = "";
	if (preset) {
		int rc = audit_preset(preset, cfg, &wrapper, &outside, why, sizeof why, note, sizeof note);
		if (rc < 0)
			return usage_error("audit: no preset '%s' (bwrap, firejail, srt, runsc, lab)", preset);
		if (rc > 0) {
			if (fmt == MATRIX_JSON) {
				struct strbuf b = {0};
				sb_puts(&b, "{\"audit\":");
				sb_json_str(&b, preset);
				sb_puts(&b, ",\"skipped\":");
				sb_json_str(&b, why);
				sb_puts(&b, "}\n");
				fputs(b.s, stdout);
				sb_free(&b);
			} else {
				printf("audit: %s skipped: %s\n", preset, why);
			}
			return EXIT_ERROR;
		}
	}
	if (!n_names)
		for (size_t k = 0; k < sizeof audit_default / sizeof *audit_default; k++)
			names[n_names++] = audit_default[k];
	struct audit_card *card = calloc(1, sizeof *card);
	if (!card)
		abort();
	card->name = preset ? preset : "custom";
	if (!wrapper)
		wrapper = dup_args(&argv[i]);
	if (audit_resolve_wrapper(wrapper, why, sizeof why) < 0) {
		fprintf(stderr, "containment-lab: %s\n", why);
		free(card);
		audit_argv_free(wrapper);
		return EXIT_USAGE;
	}
	card->wrapper = wrapper;
	if (outside && !note[0])
		snprintf(note, sizeof note,
		         "run outside the range (--outside-range): the lab ends the wrapper's "
		         "process tree, but not what leaves it");
	card->note = note;
	int code = EXIT_OK;
	for (int k = 0; k < n_names && code == EXIT_OK; k++) {
		struct snippet s;
		char err[512];
		if (snippet_resolve(cfg, names[k], &s, err, sizeof err) < 0) {
			fprintf(stderr, "containment-lab: %s\n", err);
			code = EXIT_USAGE;
			break;
		}
		if (fmt == MATRIX_TEXT && isatty(2))
			fprintf(stderr, "\r%d/%d %-20s", k + 1, n_names, s.name);
		lab_audit_run(cfg, &s, card->wrapper, outside, &card->res[card->n++]);
		snippet_free(&s);
	}
	if (fmt == MATRIX_TEXT && isatty(2))
		fputs("\r                              \r", stderr);
	if (code == EXIT_OK) {
		if (fmt == MATRIX_JSON)
			audit_card_json(card);
		else if (fmt == MATRIX_MARKDOWN)
			audit_card_markdown(card);
		else
			audit_card_text(card);
		code = audit_card_status(card);
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

static const struct choice_option choice_options[] = {
    {"--rung", lab_rung_by_key, "container, gvisor or microvm"},
    {"--network-mode", lab_net_mode_by_key, "none or allowlist"},
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
	static const char *const builds[] = {"tui", "run", "matrix", "exec"};
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
	fprintf(stderr, "containment-lab: %s\n", line);
	return EXIT_ERROR;
}

int main(int argc, char **argv)
{
	const char *config_file = NULL;
	int i = 1, choice[2] = {-1, -1}; /* --rung, --network-mode */
	bool predict = false;
	if ((argc = take_choice_options(choice, argc, argv)) < 0)
		return EXIT_USAGE;
	/* Part of the safety net: descriptors the lab inherited from whoever
	 * started it (a shell's `7</`, a CI harness's pipes) are the user's
	 * real files and must never reach a sandbox, whatever the layers. */
	syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage();
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
		if (!strcmp(argv[i], "--predict")) {
			predict = true; /* the screen's predict mode (p) from the start */
			continue;
		}
		if (argv[i][0] == '-')
			return usage_error("unknown option '%s'", argv[i]);
		break;
	}
	struct lab_config cfg;
	char err[600];
	if (config_load(&cfg, config_file, err, sizeof err) < 0) {
		char *inert = sanitize_output(err, strlen(err), 0); /* it quotes the file's bytes */
		fprintf(stderr, "containment-lab: %s\n", inert);
		free(inert);
		return EXIT_USAGE;
	}
	if (choice[0] >= 0)
		cfg.rung = choice[0];
	if (choice[1] >= 0)
		cfg.net_mode = choice[1];
	if (i >= argc || host_blocks(argv[i])) {
		if (check_host() != EXIT_OK)
			return EXIT_ERROR;
		cgroup_lab_settle(); /* before any worker is forked */
	}
	if (i < argc && !strcmp(argv[i], "tui")) {
		for (int k = i + 1; k < argc; k++) {
			if (strcmp(argv[k], "--predict") != 0)
				return usage_error("tui: unknown option '%s' (--predict)", argv[k]);
			predict = true;
		}
		return tui_main(&cfg, predict);
	}
	if (i >= argc)
		return tui_main(&cfg, predict);
	if (predict)
		return usage_error("--predict is for the lab screen: containment-lab --predict (or tui --predict)");
	const char *cmd = argv[i];
	int sub_argc = argc - i;
	char **sub_argv = argv + i;
	if (sub_argc > 1 && (!strcmp(sub_argv[1], "--help") || !strcmp(sub_argv[1], "-h"))) {
		usage();
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
	if (!strcmp(cmd, "audit"))
		return cmd_audit(&cfg, sub_argc, sub_argv);
	if (!strcmp(cmd, "twin"))
		return cmd_twin(&cfg, sub_argc, sub_argv);
	return usage_error("unknown command '%s' (list, run, matrix, exec, audit, twin, tui)", cmd);
}
