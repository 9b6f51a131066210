/* unit.c — tests of the parts that need no sandbox: config parsing, snippet
 * headers, the verdict logic, env building, output sanitising, result
 * serialisation, the seccomp filter's shape, the job workers' results and
 * descriptors, snippet files, encoded canaries, the /proc walker, the host
 * check, consequences, the tool agent and the run spec's snapshots
 * (tests/spec/). Built with ASan+UBSan (make build/unit).
 * Prints "ok - NAME" / "not ok - NAME" / "skip - NAME: skipped: why" and
 * ends with "N passed, N failed, N skipped". */
#define _GNU_SOURCE
#include "agent.h"
#include "cgroup.h"
#include "consequence.h"
#include "decoy.h"
#include "hostcheck.h"
#include "job.h"
#include "lab.h"
#include "layers/env.h"
#include "proc.h"
#include "range.h" /* spec_build */
#include "report.h"
#include "seccomp_filter.h"
#include "spec.h"
#include "system.h"
#include "twin.h"
#include "util.h"
#include "verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed, skipped;

#define CHECK(name, cond)                                                                                              \
	do {                                                                                                           \
		if (cond) {                                                                                            \
			passed++;                                                                                      \
			printf("ok - %s\n", name);                                                                     \
		} else {                                                                                               \
			failed++;                                                                                      \
			printf("not ok - %s  (%s:%d)\n", name, __FILE__, __LINE__);                                    \
		}                                                                                                      \
	} while (0)

static char tmpdir[] = "/tmp/cl-unit.XXXXXX";

static const char *write_tmp(const char *name, const char *text)
{
	static char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static int load_cfg(const char *text, struct lab_config *cfg, char *err, size_t n)
{
	err[0] = '\0';
	return config_load(cfg, write_tmp("layers.ini", text), err, n);
}

static void test_config(void)
{
	struct lab_config cfg;
	char err[600];
	uint64_t sz;
	long ms;
	CHECK("parse_size 256M", parse_size("256M", &sz) == 0 && sz == 256ull << 20);
	CHECK("parse_size 64KiB", parse_size("64KiB", &sz) == 0 && sz == 64 << 10);
	CHECK("parse_size rejects 12X", parse_size("12X", &sz) < 0);
	CHECK("parse_size rejects -5", parse_size("-5", &sz) < 0);
	CHECK("parse_duration 500ms", parse_duration_ms("500ms", &ms) == 0 && ms == 500);
	CHECK("parse_duration 2.5s", parse_duration_ms("2.5s", &ms) == 0 && ms == 2500);
	CHECK("parse_duration rejects 5 parsecs", parse_duration_ms("5pc", &ms) < 0);

	CHECK("good config loads",
	      load_cfg("[layers]\nnetwork = off\n[limits]\nmemory = 128M\npids = 10\ntimeout = 2s\n"
	               "[env]\nallow = PATH, LANG\n",
	               &cfg, err, sizeof err) == 0 &&
	          !cfg.layer_default[LAYER_NETWORK] && cfg.layer_default[LAYER_ISOLATION] &&
	          cfg.limits.memory == 128ull << 20 && cfg.limits.pids == 10 && cfg.limits.timeout_ms == 2000 &&
	          cfg.n_env_allow == 2 && !strcmp(cfg.env_allow[1], "LANG"));
	CHECK("bad size refused with file:line", load_cfg("[limits]\n\nmemory = 12X\n", &cfg, err, sizeof err) < 0 &&
	                                             strstr(err, "layers.ini:3:") && strstr(err, "memory = 12X") &&
	                                             strstr(err, "256M"));
	CHECK("negative pids refused", load_cfg("[limits]\npids = -5\n", &cfg, err, sizeof err) < 0 &&
	                                   strstr(err, ":2:") && strstr(err, "pids"));
	CHECK("unknown key refused", load_cfg("[limits]\nmemroy = 1G\n", &cfg, err, sizeof err) < 0 &&
	                                 strstr(err, ":2:") && strstr(err, "unknown key 'memroy'"));
	CHECK("unknown section refused",
	      load_cfg("[layers]\n[firewall]\nx = 1\n", &cfg, err, sizeof err) < 0 && strstr(err, "[firewall]"));
	CHECK("unknown layer refused",
	      load_cfg("[layers]\nfirewall = on\n", &cfg, err, sizeof err) < 0 && strstr(err, "firewall"));
	CHECK("bad bool refused",
	      load_cfg("[layers]\nenv = maybe\n", &cfg, err, sizeof err) < 0 && strstr(err, "on or off"));
	CHECK("malformed line refused",
	      load_cfg("[limits]\nthis is not ini\n", &cfg, err, sizeof err) < 0 && strstr(err, ":2:"));
	CHECK("missing file refused", config_load(&cfg, "/nonexistent/layers.ini", err, sizeof err) < 0 &&
	                                  strstr(err, "/nonexistent/layers.ini"));
	CHECK("relative snippets path is beside the file",
	      load_cfg("[paths]\nsnippets = mine\n", &cfg, err, sizeof err) == 0 &&
	          !strncmp(cfg.snippets_dir, "/tmp/cl-unit.", 13) && strstr(cfg.snippets_dir, "/mine"));

	unsigned m;
	CHECK("layers all", layers_parse("all", &m, err, sizeof err) == 0 && m == LAYERS_ALL);
	CHECK("layers none", layers_parse("none", &m, err, sizeof err) == 0 && m == 0);
	CHECK("layers list", layers_parse("network,limits", &m, err, sizeof err) == 0 &&
	                         m == (LAYER_BIT(LAYER_NETWORK) | LAYER_BIT(LAYER_LIMITS)));
	CHECK("layers unknown refused",
	      layers_parse("network,firewall", &m, err, sizeof err) < 0 && strstr(err, "firewall"));
}

/* ---- config, strict reading (config.c's key table and line reader) ---- */
static void test_config_strict(void)
{
	struct lab_config cfg;
	char err[600], text[2048], name[80];
	uint64_t sz;
	long ms;
	unsigned m;
	CHECK("parse_size: past 2^64 is out of range", parse_size("99999999999999999999G", &sz) == -ERANGE);
	CHECK("parse_size: 16E overflows the multiplier", parse_size("17179869184G", &sz) == -ERANGE);
	CHECK("parse_size: hex is malformed", parse_size("0x10", &sz) == -EINVAL);
	CHECK("parse_duration: hex is malformed",
	      parse_duration_ms("0x10", &ms) == -EINVAL && parse_duration_ms("0x0.8", &ms) == -EINVAL);
	CHECK("parse_duration: exponent is malformed", parse_duration_ms("1e3", &ms) == -EINVAL);
	CHECK("parse_duration: 1e30 seconds is out of range",
	      parse_duration_ms("1000000000000000000000000000000s", &ms) == -ERANGE);
	CHECK("parse_duration 1min", parse_duration_ms("1min", &ms) == 0 && ms == 60000);

	CHECK("duplicate key names both lines",
	      load_cfg("[limits]\nmemory = 1G\n\nmemory = 2G\n", &cfg, err, sizeof err) < 0 &&
	          strstr(err, "layers.ini:4: 'memory' given twice (first at line 2)"));
	CHECK("out of range shows bounds", load_cfg("[limits]\ntimeout = 50ms\n", &cfg, err, sizeof err) < 0 &&
	                                       strstr(err, ":2: timeout = 50ms: out of range (100ms-1h)"));
	CHECK("cpu_time rounds up to whole seconds",
	      load_cfg("[limits]\ncpu_time = 1500ms\n", &cfg, err, sizeof err) == 0 && cfg.limits.cpu_time == 2);
	CHECK("garbage and bad value each at their line",
	      load_cfg("[limits]\nthis is garbage\nmemory = 12X\n", &cfg, err, sizeof err) < 0 &&
	          strstr(err, ":2: 'this is garbage': expected key = value") &&
	          strstr(err, ":3: memory = 12X: expected a size"));
	snprintf(text, sizeof text, "[limits]\n; %0300d\npids = 9\n", 0);
	CHECK("a 300-character comment is one line",
	      load_cfg(text, &cfg, err, sizeof err) == 0 && cfg.limits.pids == 9);
	snprintf(text, sizeof text, "[env]\nhome = /%0250d\n[limits]\npids = 0\n", 0);
	CHECK("a long line does not shift later line numbers",
	      load_cfg(text, &cfg, err, sizeof err) < 0 && strstr(err, ":2: home = ") && strstr(err, ":4: pids = 0"));
	snprintf(name, sizeof name, "A%062d", 0);
	snprintf(text, sizeof text, "[env]\nallow = PATH %s\n", name);
	CHECK("a 63-character env name is kept whole",
	      load_cfg(text, &cfg, err, sizeof err) == 0 && cfg.n_env_allow == 2 && !strcmp(cfg.env_allow[1], name));
	snprintf(text, sizeof text, "[env]\nallow = PATH %sB\n", name);
	CHECK("a 64-character env name is refused, not cut",
	      load_cfg(text, &cfg, err, sizeof err) < 0 && strstr(err, "at most 63"));
	CHECK("a directory is refused",
	      config_load(&cfg, "/tmp", err, sizeof err) < 0 && strstr(err, "is a directory"));
	CHECK("/dev/zero is refused",
	      config_load(&cfg, "/dev/zero", err, sizeof err) < 0 && strstr(err, "character device"));

	char list[400] = "";
	for (int i = 0; i < 30; i++)
		str_append(list, sizeof list, "isolation,");
	str_append(list, sizeof list, "limits");
	CHECK("a 300-character layer list keeps its last item",
	      layers_parse(list, &m, err, sizeof err) == 0 &&
	          m == (LAYER_BIT(LAYER_ISOLATION) | LAYER_BIT(LAYER_LIMITS)));
	CHECK("empty item in a layer list refused",
	      layers_parse("isolation,,limits", &m, err, sizeof err) < 0 && strstr(err, "empty item 2"));
	CHECK("trailing comma refused", layers_parse("network,", &m, err, sizeof err) < 0);
}

static void test_snippets(void)
{
	struct snippet s;
	char err[600];
	const char *p =
	    write_tmp("ok.py", "#!/usr/bin/python3\n# lab:title: T\n# lab:threat: exfil\n# lab:layer: network\n"
	                       "# lab:consequence: data gone\nprint(1)\n# lab:title: not header\n");
	CHECK("snippet header parsed", snippet_load(&s, p, err, sizeof err) == 0 && s.threat == THREAT_EXFIL &&
	                                   s.layer == LAYER_NETWORK && !strcmp(s.title, "T") && !strcmp(s.name, "ok") &&
	                                   !strcmp(s.consequence, "data gone"));
	snippet_free(&s);
	p = write_tmp("nohdr.py", "print('hello')\n");
	CHECK("snippet without header refused",
	      snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, "missing snippet header"));
	p = write_tmp("badthreat.py", "# lab:title: T\n# lab:threat: mining\n# lab:layer: limits\n");
	CHECK("unknown threat refused with line",
	      snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, ":2:") && strstr(err, "mining"));
	p = write_tmp("badkey.py", "# lab:title: T\n# lab:colour: red\n");
	CHECK("unknown header key refused", snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, "lab:colour"));
	p = write_tmp("legit.py", "# lab:title: T\n# lab:threat: legit\n# lab:layer: none\n");
	CHECK("legit without expect refused", snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, "expect"));
	p = write_tmp("attack.py", "# lab:title: T\n# lab:threat: secrets\n# lab:layer: env\n");
	CHECK("attack without consequence refused",
	      snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, "consequence"));
	p = write_tmp("danger.py", "# lab:title: T\n# lab:threat: exfil\n# lab:layer: network\n"
	                           "# lab:consequence: gone\nimport os\n    # lab:danger: the upload\n\n"
	                           "    send()\n#lab:danger\nos.fork()\nx = '# lab:danger'\n");
	CHECK("# lab:danger marks the next non-blank line (8 and 10), a string is no mark",
	      snippet_load(&s, p, err, sizeof err) == 0 && s.n_danger == 2 && s.danger[0] == 8 && s.danger[1] == 10);
	snippet_free(&s);
}

/* The worker's live output: chunk lines before the result land in live,
 * escaped bytes restored; the result after them reads back whole. */
static void test_job_live(void)
{
	struct lab_result r = {.layers = 3, .verdict = VERDICT_RAN_OK, .caught_by = -1, .expected_layer = -1};
	struct snippet s = {.threat = THREAT_LEGIT, .layer = -1};
	struct job j = {.fd = -1, .layers = 3};
	int p[2];

	snprintf(r.snippet, sizeof r.snippet, "slow");
	snprintf(s.name, sizeof s.name, "slow");
	r.output = "first\nsecond\n";
	r.output_len = 13;
	r.ev.exfil.net_probe_errno = -1;
	if (pipe(p) < 0)
		abort();
	const char *chunks = "chunk\tfirst\\n\nskipped\t7\nchunk\ttab\\there\n";
	(void)!write(p[1], chunks, strlen(chunks));
	result_write(p[1], &r);
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	j.fd = p[0];
	int rc = job_pump(&j, &s, NULL);
	CHECK("job stream: the chunks go to live, the result reads back",
	      rc == 1 && j.live.len == 14 && !memcmp(j.live.s, "first\ntab\there", 14) && j.live_skipped == 7 &&
	          j.res.verdict == VERDICT_RAN_OK && j.res.output_len == 13);
	job_free(&j);
}

static struct snippet attack(enum lab_threat t, int layer)
{
	struct snippet s = {.threat = t, .layer = layer};
	snprintf(s.name, sizeof s.name, "t");
	snprintf(s.consequence, sizeof s.consequence, "bad things");
	return s;
}

/* Issue 7: a verdict names the mechanism that fired; a layer that is off,
 * or an attack that broke by itself, gets no credit. */
static void test_honest_verdicts(const struct lab_config *cfg)
{
	struct snippet ex = attack(THREAT_EXFIL, LAYER_NETWORK), bomb = attack(THREAT_RESOURCE, LAYER_LIMITS);
	struct lab_result r = {.layers = LAYERS_ALL & ~LAYER_BIT(LAYER_NETWORK)};
	r.ev.started = true;
	r.ev.end.exit_code = 1;
	r.ev.exfil.net_probe_errno = -1;
	verdict_decide(&ex, cfg, &r);
	CHECK("exfil, network off, nothing sent = BROKE, not CONTAINED",
	      r.verdict == VERDICT_BROKE && r.caught_by == -1);
	r.layers = LAYERS_ALL;
	r.ev.exfil.own_netns = true;
	r.ev.exfil.net_probe_errno = ENETUNREACH;
	snprintf(r.ev.end.exception, sizeof r.ev.end.exception, "SyntaxError");
	r.ev.end.exception_line = 3;
	verdict_decide(&ex, cfg, &r);
	CHECK("a SyntaxError = BROKE at its line, even with the layer on",
	      r.verdict == VERDICT_BROKE && strstr(r.headline, "SyntaxError at line 3"));
	snprintf(r.ev.end.exception, sizeof r.ev.end.exception, "URLError");
	verdict_decide(&ex, cfg, &r);
	CHECK("a network error with No-network on = CONTAINED",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_NETWORK);

	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL & ~LAYER_BIT(LAYER_LIMITS);
	r.ev.started = true;
	r.ev.res.peak_procs = 1;
	r.ev.res.cpu_s = 8.08;
	r.ev.end.duration_ms = 8086;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits off, 8 s of CPU = ESCAPED with the figure",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "8.1 s of CPU"));
	r.ev.res.cpu_s = 0.1;
	r.ev.end.duration_ms = 100;
	r.ev.res.out_bytes = 10u << 20;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits off, 10 MiB printed = ESCAPED (output)",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "output"));
	r.ev.res.out_bytes = 100;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits off, under every cap = BROKE", r.verdict == VERDICT_BROKE);

	r.layers = LAYERS_ALL;
	r.ev.end.exit_signal = SIGXCPU;
	r.ev.res.cpu_main_seen = true;
	r.ev.res.cpu_main_ms = 100;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, SIGXCPU with 0.1 s of the process's own CPU = BROKE (the snippet's own signal)",
	      r.verdict == VERDICT_BROKE && r.caught_by == -1);
	r.ev.res.cpu_main_seen = false;
	r.ev.res.cpu_main_ms = 0;
	r.ev.res.cpu_s = 2.4;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, SIGXCPU and no figure of the process's own = no credit", r.caught_by == -1);
	r.ev.res.cpu_main_seen = true;
	r.ev.res.cpu_main_ms = 2000;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, SIGXCPU at 2.0 s of its own CPU = CONTAINED naming RLIMIT_CPU",
	      r.verdict == VERDICT_CONTAINED && strstr(r.headline, "RLIMIT_CPU"));
	r.ev.end.exit_signal = SIGKILL;
	r.ev.res.cpu_main_ms = 1050;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, SIGKILL after 2.4 s of the run's CPU, 1.05 s of its own = no RLIMIT_CPU credit",
	      r.caught_by == -1 && !strstr(r.headline, "RLIMIT_CPU"));
	r.ev.res.cpu_main_ms = 3000;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, SIGKILL at 3.0 s of its own CPU = RLIMIT_CPU's hard limit",
	      r.verdict == VERDICT_CONTAINED && strstr(r.headline, "RLIMIT_CPU's hard limit"));
	r.ev.res.cpu_s = 0.1;
	r.ev.res.cpu_main_seen = false;
	r.ev.res.cpu_main_ms = 0;
	r.ev.end.exit_signal = SIGKILL;
	r.ev.end.timed_out = true;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, wall clock = CONTAINED naming the clock", strstr(r.headline, "wall clock at 5.0 s") != NULL);
	r.ev.end.timed_out = false;
	r.ev.end.exit_signal = 0;
	r.ev.res.cgroup_used = true;
	r.ev.res.pids_max_events = 33;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, pids.max events = CONTAINED naming pids.max", strstr(r.headline, "by pids.max") != NULL);
	r.ev.res.pids_max_events = 0;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, nothing fired = BROKE, no credit", r.verdict == VERDICT_BROKE && r.caught_by == -1);
	r.ev.res.mem_cap_killed = true;
	r.ev.res.peak_mem = cfg->limits.memory + (38u << 20);
	verdict_decide(&bomb, cfg, &r);
	CHECK("memory held past the cap before the kill = ESCAPED", r.verdict == VERDICT_ESCAPED);
	r.ev.res.peak_mem = cfg->limits.memory - 1;
	r.ev.res.out_truncated = true;
	r.ev.res.out_bytes = 10u << 20;
	verdict_decide(&bomb, cfg, &r);
	CHECK("limits on, cut at the output cap = CONTAINED (the run-wide memory kill first)",
	      r.verdict == VERDICT_CONTAINED && strstr(r.headline, "memory cap"));
}

static void test_allowlist_truth(const struct lab_config *base, const struct snippet *ex, const struct snippet *legit);
static bool evidence_has(const struct lab_result *r, const char *text);

/* Issue 17: every threat judged in every run, whatever the header says;
 * CONTAINED only for an attempt the layer met, where the lab can see one. */
static void test_every_threat(const struct lab_config *cfg)
{
	struct snippet sec = attack(THREAT_SECRETS, LAYER_ENV), ex = attack(THREAT_EXFIL, LAYER_NETWORK),
	               tk = attack(THREAT_TAKEOVER, LAYER_ISOLATION);
	struct lab_result r;
	memset(&r, 0, sizeof r);
	r.layers = LAYER_BIT(LAYER_ENV) | LAYER_BIT(LAYER_LIMITS);
	r.ev.started = true;
	r.ev.secrets.canaries_planted = 6;
	r.ev.host.host_visible = true;
	r.ev.exfil.attacker_bytes = 3735;
	r.ev.exfil.attacker_from_run = r.ev.exfil.attacker_got_canary = true;
	r.ev.host.host_target_written = true;
	snprintf(r.ev.host.host_target, sizeof r.ev.host.host_target, "/t/run/host/etc/cron.d/x");
	verdict_decide(&sec, cfg, &r);
	CHECK("a secrets header that uploaded the data and wrote the host = ESCAPED, both named, no credit",
	      r.verdict == VERDICT_ESCAPED && r.caught_by == -1 &&
	          r.escaped == ((1u << THREAT_EXFIL) | (1u << THREAT_TAKEOVER)) &&
	          strstr(r.headline, "data exfiltration and host takeover") && evidence_has(&r, "No-network would") &&
	          evidence_has(&r, "Isolation would"));
	CHECK("... and the consequence is the escape's, not the header's",
	      strcmp(r.consequence, "bad things") != 0 && r.consequence[0]);

	struct snippet legit = {.threat = THREAT_LEGIT, .layer = -1, .n_expect = 1};
	snprintf(legit.expect[0], sizeof legit.expect[0], "TOTAL 42");
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL & ~LAYER_BIT(LAYER_NETWORK);
	r.ev.started = true;
	r.output = "TOTAL 42\n";
	r.ev.exfil.attacker_bytes = 3527;
	r.ev.exfil.attacker_from_run = true;
	verdict_decide(&legit, cfg, &r);
	CHECK("a legit task that also leaks = ESCAPED, not RAN OK",
	      r.verdict == VERDICT_ESCAPED && r.escaped == 1u << THREAT_EXFIL && strstr(r.headline, "leaked"));

	memset(&r, 0, sizeof r);
	r.layers = LAYER_BIT(LAYER_ENV);
	r.ev.started = true;
	snprintf(r.ev.host.host_planted, sizeof r.ev.host.host_planted, "etc/x: setuid root, mode 4755");
	verdict_decide(&sec, cfg, &r);
	CHECK("a setuid file left in the host folder = ESCAPED as a takeover, whatever the header, naming it",
	      r.verdict == VERDICT_ESCAPED && r.escaped == 1u << THREAT_TAKEOVER && evidence_has(&r, "etc/x: setuid"));
	verdict_decide(&tk, cfg, &r);
	CHECK("... and with a takeover header, its own escape",
	      r.verdict == VERDICT_ESCAPED && r.escaped == 1u << THREAT_TAKEOVER && strstr(r.headline, "etc/x"));

	memset(&r, 0, sizeof r);
	r.layers = LAYER_BIT(LAYER_ISOLATION);
	r.rung = RUNG_GVISOR;
	r.ev.started = true;
	r.ev.res.peak_mem = cfg->limits.memory * 2; /* runsc's own, not the snippet's */
	verdict_decide(&sec, cfg, &r);
	CHECK("on the gvisor rung the host's figures are runsc's: no resource escape for another threat",
	      r.verdict != VERDICT_ESCAPED);

	/* takeover: a typo'd target */
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL;
	r.ev.started = true;
	r.ev.end.exit_code = 1;
	r.ev.trace.watch_iso = r.ev.trace.watch_net = true;
	snprintf(r.ev.host.host_target, sizeof r.ev.host.host_target, "/t/run/host/etc/cron.d/x");
	snprintf(r.ev.end.exception, sizeof r.ev.end.exception, "FileNotFoundError");
	snprintf(r.ev.end.exception_path, sizeof r.ev.end.exception_path, "/t/run/host/etc/crond.d/x");
	verdict_decide(&tk, cfg, &r);
	CHECK("a takeover dying on a path that is not its target = BROKE with Isolation on",
	      r.verdict == VERDICT_BROKE && r.caught_by == -1 && strstr(r.headline, "not the host target"));
	r.layers = 0;
	r.ev.host.host_visible = true;
	verdict_decide(&tk, cfg, &r);
	CHECK("... and with it off", r.verdict == VERDICT_BROKE);
	r.layers = LAYERS_ALL;
	r.ev.host.host_visible = false;
	snprintf(r.ev.end.exception_path, sizeof r.ev.end.exception_path, "/t/run/host/etc");
	verdict_decide(&tk, cfg, &r);
	CHECK("an error on a folder on the target's way is no typo; no attempt seen = BROKE, says so",
	      r.verdict == VERDICT_BROKE && strstr(r.headline, "no attempt"));
	r.ev.trace.target_touches = 1;
	verdict_decide(&tk, cfg, &r);
	CHECK("the write aimed at the target, met by the private root = CONTAINED by Isolation",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_ISOLATION);
	r.ev.trace.target_touches = 0;
	r.ev.trace.iso_refused = 2;
	verdict_decide(&tk, cfg, &r);
	CHECK("a call the filter refused = CONTAINED by Isolation", r.verdict == VERDICT_CONTAINED);
	r.ev.trace.iso_refused = 0;
	r.ev.trace.watch_iso = false;
	verdict_decide(&tk, cfg, &r);
	CHECK("no listener watched (LAB_TRACE=0, an upper rung): the rule stays, the evidence says it saw none",
	      r.verdict == VERDICT_CONTAINED && evidence_has(&r, "not seen"));

	/* exfiltration: the probe proves the door, the trace the attempt */
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL;
	r.ev.started = true;
	r.ev.end.exit_code = 1;
	r.ev.exfil.own_netns = true;
	r.ev.exfil.net_probe_errno = ENETUNREACH;
	r.ev.trace.watch_net = true;
	snprintf(r.ev.end.exception, sizeof r.ev.end.exception, "URLError");
	verdict_decide(&ex, cfg, &r);
	CHECK("exfil that only prints (a fake URLError), the trace watching = BROKE, not CONTAINED",
	      r.verdict == VERDICT_BROKE && r.caught_by == -1 && strstr(r.headline, "no attempt"));
	r.ev.trace.net_refused = 1;
	verdict_decide(&ex, cfg, &r);
	CHECK("a connect() the sandbox's network refused = CONTAINED by No-network",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_NETWORK);
	r.ev.trace.net_refused = 0;
	r.ev.egress.net_mode = NET_MODE_ALLOWLIST;
	r.ev.exfil.net_probe_errno = ECONNREFUSED;
	r.ev.egress.net_route_errno = ENETUNREACH;
	r.ev.egress.proxy_refused = 1;
	verdict_decide(&ex, cfg, &r);
	CHECK("a request the proxy refused = CONTAINED by No-network", r.verdict == VERDICT_CONTAINED);
}

/* Whether any evidence line of r holds text. */
static bool evidence_has(const struct lab_result *r, const char *text)
{
	for (int i = 0; i < r->n_evidence; i++)
		if (strstr(r->evidence[i], text))
			return true;
	return false;
}

/* Issue 18: an audit's bomb against the caps as a limit counts them; a
 * cap crossed by less than layers.ini's tolerance while the wrapper's own
 * kill is in evidence is its limit holding, a little late. */
static void test_audit_tolerance(void)
{
	struct lab_config cfg;
	config_defaults(&cfg); /* timeout 5 s, pids 32, tolerance 10% */
	struct snippet bomb = attack(THREAT_RESOURCE, LAYER_LIMITS);
	struct lab_result r;
	memset(&r, 0, sizeof r);
	r.audit = true;
	r.ev.started = r.ev.attempt_seen = true;
	r.ev.res.peak_procs = 31;
	r.ev.res.cpu_s = 0.7;
	r.ev.end.duration_ms = 5400;     /* from the wrapper's start */
	r.ev.end.snippet_start_ms = 200; /* the interpreter started 0.2 s later: 5.2 s its own */
	r.ev.end.exit_code = 137;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: 5.2 s of a 5 s cap, the wrapper's kill (137) = CONTAINED, stopped at 5.2 s by its timeout",
	      r.verdict == VERDICT_CONTAINED && strstr(r.headline, "stopped at 5.2 s: the wrapper's timeout") &&
	          strstr(r.headline, "within the 10% tolerance"));
	memset(&r.evidence, 0, sizeof r.evidence);
	r.n_evidence = 0;
	r.ev.end.exit_code = 0;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: 5.2 s of a 5 s cap and no kill in evidence = ESCAPED", r.verdict == VERDICT_ESCAPED);
	r.n_evidence = 0;
	r.ev.end.exit_code = 137;
	r.ev.end.duration_ms = 5800;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: 5.6 s of a 5 s cap, past the tolerance, killed = ESCAPED",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "5.6 s of wall time (cap 5.0 s)"));
	r.n_evidence = 0;
	r.ev.end.duration_ms = 3000;
	r.ev.res.peak_procs = 65;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: 65 processes of 32, killed = ESCAPED (far past the tolerance)",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "65 processes (cap 32)"));
	r.n_evidence = 0;
	r.ev.res.peak_procs = 31;
	r.ev.end.timed_out = true; /* the lab's clock, not the wrapper's */
	r.ev.end.duration_ms = 5400;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: a kill by the lab's own clock is no kill by the wrapper", r.verdict != VERDICT_CONTAINED);

	/* CI at load 20: `audit --preset lab` ESCAPED with "2.1 s of CPU (cap
	 * 2.0 s)", the whole tree's (the ASan lab's own start-up in it) against
	 * a cap layers.ini gives per process */
	memset(&r, 0, sizeof r);
	r.audit = true;
	r.ev.started = r.ev.attempt_seen = true;
	r.ev.res.peak_procs = 31;
	r.ev.end.duration_ms = 4400;
	r.ev.res.cpu_s = 2.1;
	r.ev.res.cpu_proc_seen = true;
	r.ev.res.cpu_proc_max_ms = 800;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: 2.1 s of CPU in the tree, 0.8 s in the busiest process = CONTAINED (the cap is per process)",
	      r.verdict == VERDICT_CONTAINED && strstr(r.headline, "0.8 s CPU in one process") &&
	          evidence_has(&r, "2.10 s in the wrapper's whole tree"));
	r.n_evidence = 0;
	r.ev.res.cpu_proc_max_ms = 2600;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: one process past the per-process CPU cap, no kill = ESCAPED, named per process",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "2.6 s of CPU in one process (cap 2.0 s)"));
	r.n_evidence = 0;
	r.ev.res.cpu_proc_seen = false;
	r.ev.res.cpu_proc_max_ms = 0;
	r.ev.res.cpu_s = 2.6;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("audit: no process of the snippet's seen: the tree's total is judged, and says so",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "2.6 s of CPU (cap 2.0 s)") &&
	          evidence_has(&r, "the tree's total is judged"));
}

static void test_verdicts(void)
{
	struct lab_config cfg;
	config_defaults(&cfg);
	struct snippet legit = {.threat = THREAT_LEGIT, .layer = -1, .n_expect = 1};
	snprintf(legit.expect[0], sizeof legit.expect[0], "TOTAL 42");
	struct lab_result r = {.layers = LAYERS_ALL};
	r.ev.started = true;
	r.output = "x\nTOTAL 42\n";
	r.ev.expect_found = true;
	verdict_decide(&legit, &cfg, &r);
	CHECK("legit exit 0 + expected text = RAN OK", r.verdict == VERDICT_RAN_OK);
	r.ev.end.exit_code = 1;
	verdict_decide(&legit, &cfg, &r);
	CHECK("legit exit 1 = FAILED", r.verdict == VERDICT_FAILED);
	r.ev.end.exit_code = 0;
	r.ev.expect_found = false;
	r.output = "x\nTOTAL 41\n";
	verdict_decide(&legit, &cfg, &r);
	CHECK("legit wrong answer = FAILED, says what is missing",
	      r.verdict == VERDICT_FAILED && r.n_evidence > 0 && strstr(r.evidence[r.n_evidence - 1], "TOTAL 42"));

	struct snippet ex = attack(THREAT_EXFIL, LAYER_NETWORK);
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL;
	r.ev.started = true;
	r.ev.exfil.own_netns = true;
	r.ev.exfil.net_probe_errno = ENETUNREACH;
	verdict_decide(&ex, &cfg, &r);
	CHECK("exfil: 0 bytes + ENETUNREACH = CONTAINED by network", r.verdict == VERDICT_CONTAINED &&
	                                                                 r.caught_by == LAYER_NETWORK &&
	                                                                 strstr(r.headline, "Network is unreachable"));
	r.ev.exfil.attacker_bytes = 43;
	verdict_decide(&ex, &cfg, &r);
	CHECK("exfil: bytes with none of this run's marks (another run's) = not this run's escape",
	      r.verdict == VERDICT_CONTAINED);
	r.ev.exfil.attacker_bytes = 1204;
	r.ev.exfil.attacker_got_canary = true;
	r.ev.exfil.attacker_from_run = true;
	verdict_decide(&ex, &cfg, &r);
	CHECK("exfil: bytes at the attacker = ESCAPED with the count",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "1,204 bytes") && strstr(r.headline, "canary"));

	/* red team round 3: bytes at the attacker the lab could tie to no one,
	 * with the network open, are not "nothing reached the attacker" */
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL & ~LAYER_BIT(LAYER_NETWORK);
	r.ev.started = true;
	r.ev.exfil.net_probe_errno = -1;
	r.ev.exfil.attacker_bytes = r.ev.exfil.attacker_untied_bytes = 3527;
	verdict_decide(&ex, &cfg, &r);
	CHECK("exfil: network off, 3,527 untied bytes = ESCAPED, says it could not tie them",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "3,527 bytes the lab could not tie"));
	r.ev.exfil.attacker_untied_bytes = 0;
	r.ev.exfil.attacker_stranger_bytes = 3527;
	verdict_decide(&ex, &cfg, &r);
	CHECK("exfil: network off, a live stranger's bytes only = BROKE, the bytes named as not counted",
	      r.verdict == VERDICT_BROKE && evidence_has(&r, "no process of this run held"));
	/* an allow-list cannot tell data from a request */
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL;
	r.ev.started = true;
	r.ev.exfil.own_netns = true;
	r.ev.egress.net_mode = NET_MODE_ALLOWLIST;
	r.ev.exfil.net_probe_errno = ECONNREFUSED;
	r.ev.egress.net_route_errno = ENETUNREACH;
	r.ev.egress.proxy_allowed = 1;
	r.ev.egress.api_requests = 1;
	r.ev.egress.api_bytes = 315;
	verdict_decide(&ex, &cfg, &r);
	CHECK("exfil behind the allow-list: 1 request let through, 315 bytes, no canary read = ESCAPED, never "
	      "'nothing went through'",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "1 request(s), 315 bytes") &&
	          !strstr(r.headline, "nothing of this run"));
	r.ev.egress.proxy_allowed = 0;
	r.ev.egress.api_requests = 0;
	r.ev.egress.api_bytes = 0;
	r.ev.egress.proxy_refused = 1;
	verdict_decide(&ex, &cfg, &r);
	CHECK("exfil behind the allow-list: refused only = CONTAINED", r.verdict == VERDICT_CONTAINED);
	struct snippet sec3 = attack(THREAT_SECRETS, LAYER_ENV);
	r.layers = LAYERS_ALL & ~LAYER_BIT(LAYER_ENV);
	r.ev.egress.proxy_allowed = 1;
	r.ev.egress.api_bytes = 590;
	r.ev.secrets.canaries_planted = 6;
	verdict_decide(&sec3, &cfg, &r);
	CHECK("secrets, Clean-env off, a request let through with bytes = ESCAPED, not BROKE",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "no planted secret it can read"));
	r.layers = LAYERS_ALL;
	verdict_decide(&sec3, &cfg, &r);
	CHECK("secrets, Clean-env on, a request let through = CONTAINED by Clean-env (nothing in reach)",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_ENV);

	struct snippet sec = attack(THREAT_SECRETS, LAYER_ENV);
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL;
	r.ev.started = true;
	r.ev.secrets.canaries_planted = 6;
	verdict_decide(&sec, &cfg, &r);
	CHECK("secrets: none leaked, env on = CONTAINED by env",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_ENV);
	r.ev.secrets.canaries_leaked = 2;
	verdict_decide(&sec, &cfg, &r);
	CHECK("secrets: a canary in the output = ESCAPED",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "2 of 6"));

	struct snippet bomb = attack(THREAT_RESOURCE, LAYER_LIMITS);
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL;
	r.ev.started = true;
	r.ev.res.peak_procs = cfg.limits.pids;
	r.ev.res.peak_mem = cfg.limits.memory - 1;
	verdict_decide(&bomb, &cfg, &r);
	/* a peak at the cap is no refusal (the red team's F3, round 6: 30
	 * children under a cap of 32 were "refused" by RLIMIT_NPROC) */
	CHECK("bomb at the caps, no refusal counted = BROKE, no credit",
	      r.verdict == VERDICT_BROKE && r.caught_by == -1);
	r.ev.res.cgroup_used = true;
	r.ev.res.pids_max_events = 3;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("bomb at the caps, pids.events max 3 = CONTAINED by limits",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_LIMITS && strstr(r.headline, "pids.max"));
	r.ev.res.cgroup_used = false;
	r.ev.res.pids_max_events = 0;
	r.ev.res.peak_vm = cfg.limits.memory - (200u << 20);
	verdict_decide(&bomb, &cfg, &r);
	CHECK("address space 200 MiB under RLIMIT_AS = no credit (F4)", r.caught_by == -1);
	r.ev.res.peak_vm = cfg.limits.memory - (2u << 20);
	verdict_decide(&bomb, &cfg, &r);
	/* a peak near the cap is no refusal either (round 7, F4: a PROT_NONE
	 * mapping the kernel granted, 6 MiB under the cap) */
	CHECK("address space 2 MiB under RLIMIT_AS, nothing refused = BROKE, 'no limit was seen to fire'",
	      r.verdict == VERDICT_BROKE && r.caught_by == -1 && strstr(r.headline, "no limit was seen to fire"));
	r.ev.res.peak_vm = 0;
	r.ev.trace.watch_limits = true;
	r.ev.trace.as_refused = 2;
	r.ev.trace.as_len = 300ll << 20;
	r.ev.trace.as_vm = 14ll << 20;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("an mmap() the watch saw past RLIMIT_AS = CONTAINED naming it (round 7, F7)",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_LIMITS &&
	          strstr(r.headline, "mmap() of 300 MiB") && strstr(r.headline, "RLIMIT_AS"));
	r.ev.trace.as_refused = 0;
	r.ev.trace.nproc_refused = 1;
	r.ev.trace.nproc_tasks = cfg.limits.pids;
	r.ev.res.cpu_throttled = 40;
	r.ev.res.cpu_s = 2.5;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("a fork the watch saw at RLIMIT_NPROC, and a throttled hog: the refusal heads (round 7, F7, F9)",
	      r.verdict == VERDICT_CONTAINED && strstr(r.headline, "Resource-limits: fork refused") &&
	          strstr(r.headline, "RLIMIT_NPROC"));
	r.ev.trace.nproc_refused = 0;
	r.ev.trace.cpu_kills = 1;
	r.ev.trace.cpu_kill_ms = 2000;
	r.ev.trace.cpu_kill_sig = SIGXCPU;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("a child RLIMIT_CPU killed, its end read by the watch, and a throttle: the kill heads (round 7, F6, F9)",
	      r.verdict == VERDICT_CONTAINED &&
	          strstr(r.headline, "Resource-limits: a child process killed by RLIMIT_CPU"));
	r.ev.trace.cpu_kills = 0;
	r.ev.res.cpu_throttled = 0;
	r.ev.res.cpu_s = 0;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("nothing seen, watched: BROKE, and the evidence says what the watch covers",
	      r.verdict == VERDICT_BROKE && evidence_has(&r, "every mapping of 1 MiB or more"));
	r.ev.trace.watch_limits = false;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("nothing seen, unwatched: BROKE, and the evidence says refusals leave no count",
	      r.verdict == VERDICT_BROKE && evidence_has(&r, "no call of the run's was watched"));
	r.ev.res.peak_procs = cfg.limits.pids + 1;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("bomb one process over = ESCAPED", r.verdict == VERDICT_ESCAPED);
	r.ev.res.peak_procs = 1;
	r.ev.res.peak_mem = cfg.limits.memory + 1;
	verdict_decide(&bomb, &cfg, &r);
	CHECK("bomb one byte over = ESCAPED", r.verdict == VERDICT_ESCAPED);

	struct snippet tk = attack(THREAT_TAKEOVER, LAYER_ISOLATION);
	memset(&r, 0, sizeof r);
	r.layers = 0;
	r.ev.started = true;
	r.ev.host.host_visible = true;
	r.ev.host.host_target_written = true;
	verdict_decide(&tk, &cfg, &r);
	CHECK("takeover: host target written = ESCAPED", r.verdict == VERDICT_ESCAPED);
	r.ev.host.host_target_written = false;
	verdict_decide(&tk, &cfg, &r);
	CHECK("takeover failing on its own is not credited to a layer",
	      r.verdict == VERDICT_BROKE && r.caught_by == -1);
	test_honest_verdicts(&cfg);
	test_every_threat(&cfg);

	memset(&r, 0, sizeof r);
	snprintf(r.ev.error, sizeof r.ev.error, "cannot create a user namespace");
	verdict_decide(&tk, &cfg, &r);
	CHECK("not started = ERROR with the reason",
	      r.verdict == VERDICT_ERROR && strstr(r.headline, "user namespace"));

	struct lab_setup net_on = lab_setup_default(&cfg), gv_net_off = net_on, none = net_on;
	net_on.layers = LAYER_BIT(LAYER_NETWORK);
	gv_net_off.layers = LAYERS_ALL & ~LAYER_BIT(LAYER_NETWORK);
	gv_net_off.rung = RUNG_GVISOR;
	none.layers = 0;
	CHECK("truth table: attack contained iff own layer on",
	      verdict_expected(&ex, &cfg, &net_on) == VERDICT_CONTAINED &&
	          verdict_expected(&ex, &cfg, &gv_net_off) == VERDICT_ESCAPED &&
	          verdict_expected(&legit, &cfg, &none) == VERDICT_RAN_OK);
	test_allowlist_truth(&cfg, &ex, &legit);
}

/* No-network's allow-list: the truth table follows lab:uses, and the
 * judge reads the proxy's and api.lab.test's evidence. */
static void test_allowlist_truth(const struct lab_config *base, const struct snippet *ex, const struct snippet *legit)
{
	struct lab_config cfg = *base;
	struct snippet api_task = *legit, leak = *ex;
	snprintf(api_task.uses, sizeof api_task.uses, "api.lab.test:80");
	snprintf(leak.uses, sizeof leak.uses, "api.lab.test:80");
	struct lab_setup net = lab_setup_default(&cfg), none = net;
	net.layers = LAYER_BIT(LAYER_NETWORK);
	none.layers = 0;
	CHECK("mode none: a task that needs a host FAILS under No-network, runs without it",
	      verdict_expected(&api_task, &cfg, &net) == VERDICT_FAILED &&
	          verdict_expected(&api_task, &cfg, &none) == VERDICT_RAN_OK &&
	          verdict_expected(&leak, &cfg, &net) == VERDICT_CONTAINED &&
	          verdict_expected(ex, &cfg, &net) == VERDICT_CONTAINED);
	net.net_mode = none.net_mode = NET_MODE_ALLOWLIST;
	CHECK("allowlist: the listed host lets the task and the leak out; a plain exfiltration stays contained",
	      verdict_expected(&api_task, &cfg, &net) == VERDICT_RAN_OK &&
	          verdict_expected(&leak, &cfg, &net) == VERDICT_ESCAPED &&
	          verdict_expected(ex, &cfg, &net) == VERDICT_CONTAINED &&
	          verdict_expected(&leak, &cfg, &none) == VERDICT_ESCAPED);
	cfg.n_net_allow = 0;
	CHECK("allowlist without the host: the leak is contained, the task fails",
	      verdict_expected(&api_task, &cfg, &net) == VERDICT_FAILED &&
	          verdict_expected(&leak, &cfg, &net) == VERDICT_CONTAINED);

	struct lab_result r;
	memset(&r, 0, sizeof r);
	r.layers = LAYERS_ALL;
	r.ev.started = true;
	r.ev.exfil.own_netns = true;
	r.ev.egress.net_mode = NET_MODE_ALLOWLIST;
	r.ev.exfil.net_probe_errno = ECONNREFUSED;
	r.ev.egress.net_route_errno = ENETUNREACH;
	r.ev.end.exit_code = 1;
	r.ev.egress.proxy_refused = 1;
	snprintf(r.ev.egress.proxy_refusal, sizeof r.ev.egress.proxy_refusal,
	         "attacker.lab.test:80: not in allow-list (rule: allow = api.lab.test:80)");
	verdict_decide(ex, &cfg, &r);
	CHECK("allowlist: the proxy's refusal and no route out = CONTAINED by No-network, naming the rule",
	      r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_NETWORK &&
	          strstr(r.headline, "rule: allow = api.lab.test:80"));
	r.ev.egress.net_route_errno = 0;
	verdict_decide(ex, &cfg, &r);
	CHECK("allowlist: a route out that connected is no proof", r.verdict == VERDICT_BROKE);
	r.ev.egress.net_route_errno = ENETUNREACH;
	r.ev.egress.api_from_run = true;
	r.ev.egress.api_got_canary = true;
	r.ev.egress.api_bytes = 1200;
	verdict_decide(ex, &cfg, &r);
	CHECK("allowlist: the canary at the allowed host = ESCAPED, whatever the proxy refused",
	      r.verdict == VERDICT_ESCAPED && strstr(r.headline, "allowed host"));
	r.layers = 0;
	r.ev.egress.api_from_run = false;
	r.ev.exfil.own_netns = false;
	verdict_decide(ex, &cfg, &r);
	CHECK("No-network off: the proxy's word is no layer's credit", r.verdict == VERDICT_BROKE);
}

static void test_env(void)
{
	struct lab_config cfg;
	config_defaults(&cfg);
	char *src[] = {"PATH=/usr/bin", "AWS_SECRET_ACCESS_KEY=shh", "HOME=/home/dev", "LANG=C.UTF-8", NULL};
	char **env = NULL;
	int n = 0;
	lab_env_build(&cfg, src, true, "/tmp", &env, &n);
	CHECK("clean env keeps allow-listed names", lab_env_get(env, "PATH") && lab_env_get(env, "LANG"));
	CHECK("clean env drops secrets", !lab_env_get(env, "AWS_SECRET_ACCESS_KEY"));
	CHECK("clean env resets HOME", lab_env_get(env, "HOME") && !strcmp(lab_env_get(env, "HOME"), "/tmp") && n == 3);
	lab_env_free(env);
	env = NULL;
	n = 0;
	lab_env_build(&cfg, src, false, "/tmp", &env, &n);
	CHECK("naive env passes everything", n == 4 && lab_env_get(env, "AWS_SECRET_ACCESS_KEY"));
	lab_env_free(env);
}

static void test_sanitize(void)
{
	const char in[] = "ok \x1b[2J\x1b]0;pwned\x07 \r\x9b tab\there \xe2\x94\x80 \xc2\x9b \xff\n";
	char *out = sanitize_output(in, sizeof in - 1, 0);
	CHECK("ESC shown as ^[", strstr(out, "^[[2J") && strstr(out, "^[]0;pwned^G"));
	CHECK("CR shown as ^M", strstr(out, "^M"));
	CHECK("no control byte survives", !strpbrk(out, "\x1b\x07\r\t"));
	CHECK("raw C1 and invalid bytes escaped",
	      strstr(out, "\\x9b") && strstr(out, "\\xc2\\x9b") && strstr(out, "\\xff"));
	CHECK("valid UTF-8 kept", strstr(out, "\xe2\x94\x80"));
	free(out);
	out = sanitize_output("a\xe2\x80\xae"
	                      "b\xe2\x80\x8b"
	                      "c",
	                      9, 0);
	CHECK("bidi override and zero-width shown as escapes", !strcmp(out, "a\\u202eb\\u200bc"));
	free(out);
	out = sanitize_output("abcdef", 6, 3);
	CHECK("cap respected", !strcmp(out, "abc"));
	free(out);
	/* a terminal that is not UTF-8: the lab's punctuation in ASCII */
	out = report_to_ascii("a \xe2\x80\x94 b \xe2\x80\x93 c \xe2\x86\x92 d\xe2\x80\xa6 2\xc3\x97"
	                      "3 \xe2\x80\x98"
	                      "q\xe2\x80\x99 \xe2\x80\x9c"
	                      "Q\xe2\x80\x9d");
	CHECK("dashes, arrow, ellipsis, times, quotes as ASCII", !strcmp(out, "a -- b - c -> d... 2x3 'q' \"Q\""));
	free(out);
	out = report_to_ascii("caf\xc3\xa9"
	                      " \xe4\xb8\xad \xf0\x9f\x98\x80 \xff\xc2\x9b \x1b");
	CHECK("other characters as \\u escapes, bad bytes as \\x, controls left to the sanitiser",
	      !strcmp(out, "caf\\u00e9 \\u4e2d \\U0001f600 \\xff\\xc2\\x9b \x1b"));
	free(out);
}

static void test_serialise(void)
{
	struct lab_result r = {
	    .layers = 5, .verdict = VERDICT_ESCAPED, .caught_by = -1, .n_evidence = 2, .escaped = 1u << THREAT_EXFIL};
	snprintf(r.snippet, sizeof r.snippet, "exfiltration");
	snprintf(r.evidence[0], LAB_LINE, "line\twith\\tabs\nand newline");
	snprintf(r.evidence[1], LAB_LINE, "second");
	r.output = "bytes\0with nul\n\x1b[31m";
	r.output_len = 21;
	r.ev.exfil.attacker_bytes = 1204;
	r.ev.res.cpu_s = 0.25;
	r.ev.exfil.net_probe_errno = -1;
	r.ev.trace = (struct lab_trace){.n = 2, .dropped = 7};
	r.ev.trace.e[0] = (struct lab_trace_entry){"unshare(CLONE_NEWUSER)", "-1 EPERM", "seccomp (Isolation)", 10000};
	r.ev.trace.e[1] = (struct lab_trace_entry){"killed by SIGXCPU", "", "RLIMIT_CPU 2 s (Resource-limits)", 1};
	snprintf(r.ev.trace.note, sizeof r.ev.trace.note, "a note");
	r.ev.trace.watch_net = r.ev.trace.watch_iso = true;
	r.ev.trace.net_refused = 3;
	r.ev.trace.target_touches = 2;
	snprintf(r.ev.end.exception_path, sizeof r.ev.end.exception_path, "/tmp/x/host/etc/crond.d/y");
	r.ev.secrets.n_holders = 5;
	r.ev.secrets.holder[0] = (typeof(r.ev.secrets.holder[0])){"bwrap", 1, false};
	r.ev.secrets.holder[1] = (typeof(r.ev.secrets.holder[1])){"sh\tx", 0, true};
	/* a comm is the snippet's to choose: leading blanks are its too */
	r.ev.secrets.holder[2] = (typeof(r.ev.secrets.holder[2])){" lead", 2, false};
	r.ev.secrets.holder[3] = (typeof(r.ev.secrets.holder[3])){"\tlead", 3, false};
	r.ev.secrets.holder[4] = (typeof(r.ev.secrets.holder[4])){"\r\v\f", 4, false};
	r.inproc.on = r.inproc.token_in_output = true;
	r.inproc.toggles = 9;
	int p[2];
	if (pipe(p) < 0)
		abort();
	result_write(p[1], &r);
	close(p[1]);
	char buf[8192];
	ssize_t n = read(p[0], buf, sizeof buf);
	close(p[0]);
	struct lab_result back = {0};
	char why[200];
	CHECK("result round-trips", n > 0 && result_read(buf, (size_t)n, &back, why, sizeof why) == 0 &&
	                                back.verdict == VERDICT_ESCAPED && back.layers == 5 && back.caught_by == -1 &&
	                                back.n_evidence == 2 && !strcmp(back.evidence[0], r.evidence[0]) &&
	                                back.output_len == 21 && !memcmp(back.output, r.output, 21) &&
	                                back.ev.exfil.attacker_bytes == 1204 && back.ev.exfil.net_probe_errno == -1 &&
	                                back.ev.res.cpu_s > 0.24);
	CHECK("the trace round-trips",
	      back.ev.trace.n == 2 && back.ev.trace.dropped == 7 && back.ev.trace.e[0].count == 10000 &&
	          !strcmp(back.ev.trace.e[0].call, "unshare(CLONE_NEWUSER)") &&
	          !strcmp(back.ev.trace.e[1].answer, "") && !strcmp(back.ev.trace.e[1].by, r.ev.trace.e[1].by) &&
	          !strcmp(back.ev.trace.note, "a note"));
	CHECK("what got out and the attempts round-trip",
	      back.escaped == 1u << THREAT_EXFIL && back.ev.trace.watch_net && back.ev.trace.watch_iso &&
	          back.ev.trace.net_refused == 3 && back.ev.trace.iso_refused == 0 &&
	          back.ev.trace.target_touches == 2 && !strcmp(back.ev.end.exception_path, r.ev.end.exception_path));
	CHECK("a holder's name comes back as it was, leading blanks and all",
	      back.ev.secrets.n_holders == 5 && !strcmp(back.ev.secrets.holder[2].comm, " lead") &&
	          !strcmp(back.ev.secrets.holder[3].comm, "\tlead") &&
	          !strcmp(back.ev.secrets.holder[4].comm, "\r\v\f") && back.ev.secrets.holder[4].pid_in_view == 4);
	CHECK("the key holders and the in-process record round-trip",
	      back.ev.secrets.n_holders == 5 && !strcmp(back.ev.secrets.holder[0].comm, "bwrap") &&
	          back.ev.secrets.holder[0].pid_in_view == 1 && !back.ev.secrets.holder[0].in_cmdline &&
	          !strcmp(back.ev.secrets.holder[1].comm, "sh\tx") && back.ev.secrets.holder[1].in_cmdline &&
	          back.inproc.on && back.inproc.token_in_output && !back.inproc.token_at_attacker &&
	          back.inproc.toggles == 9);
	char line[LAB_TRACE_LINE_MAX];
	lab_trace_line(&back.ev.trace.e[0], line, sizeof line);
	CHECK("a trace line reads as the call, its answer, who answered, how often",
	      !strcmp(line, "unshare(CLONE_NEWUSER) = -1 EPERM  seccomp (Isolation)  (x10000)"));
	lab_result_free(&back);
	CHECK("truncated result refused", result_read("verdict\t2\n", 10, &back, why, sizeof why) < 0);
	lab_result_free(&back);
}

static void test_seccomp(void)
{
	int e = 0, n = 0;
	scmp_filter_ctx ctx = lab_seccomp_build(false, false, false, &e, &n);
	CHECK("seccomp filter builds", ctx != NULL && n > 50);
	if (!ctx)
		return;
	int fd = memfd_create("pfc", 0);
	seccomp_export_pfc(ctx, fd);
	lseek(fd, 0, SEEK_SET);
	char pfc[65536];
	ssize_t len = read(fd, pfc, sizeof pfc - 1);
	pfc[len > 0 ? len : 0] = '\0';
	close(fd);
	CHECK("filter has only the native arch",
	      strstr(pfc, "filter for arch x86_64") && !strstr(pfc, "arch x86 ") && !strstr(pfc, "arch x32"));
	CHECK("foreign arch kills the process", strstr(pfc, "invalid architecture action\naction KILL_PROCESS"));
	static const char *const must[] = {"mount",       "ptrace",         "bpf",
	                                   "keyctl",      "unshare",        "setns",
	                                   "userfaultfd", "io_uring_setup", "open_by_handle_at",
	                                   "kexec_load",  "perf_event_open"};
	bool all = true;
	for (size_t i = 0; i < sizeof must / sizeof *must; i++) {
		char needle[64];
		snprintf(needle, sizeof needle, "syscall \"%s\"", must[i]);
		if (!strstr(pfc, needle))
			all = false;
	}
	CHECK("dangerous syscalls are in the filter", all);
	CHECK("TIOCSTI matched on the low 32 bits", strstr(pfc, "$a1.lo32 & 0xffffffff == 21522") != NULL);
	CHECK("clone3 answers ENOSYS", strstr(pfc, "action ERRNO(38)") != NULL);

	/* x32 shares x86_64's audit arch: the BPF itself must reject syscall
	 * numbers with the x32 bit (0x40000000) set. */
	fd = memfd_create("bpf", 0);
	seccomp_export_bpf(ctx, fd);
	off_t sz = lseek(fd, 0, SEEK_END);
	lseek(fd, 0, SEEK_SET);
	struct sock_filter *prog = malloc((size_t)sz);
	bool x32 = false;
	if (prog && read(fd, prog, (size_t)sz) == sz)
		for (size_t i = 0; i < (size_t)sz / sizeof *prog; i++)
			if (BPF_CLASS(prog[i].code) == BPF_JMP && prog[i].k == 0x40000000)
				x32 = true;
	free(prog);
	close(fd);
	CHECK("x32 syscall numbers are checked in the BPF", x32);
	seccomp_release(ctx);
}

/* The trace's filter: every refusal asks the listener. With the listener
 * closed (a lab that died or never took it) the kernel must still refuse
 * (ENOSYS), never let the call through: a child loads the filter, closes
 * its listener and tries unshare(CLONE_NEWUSER), which it could otherwise
 * do (unprivileged user namespaces are allowed here). */
static void test_paths(void)
{
	char p[64];
	snprintf(p, sizeof p, "/a//b/./c/../d/");
	path_lexical(p);
	CHECK("a path made plain by its text", !strcmp(p, "/a/b/d"));
	snprintf(p, sizeof p, "/../..//x/..");
	path_lexical(p);
	CHECK("no '..' climbs above /", !strcmp(p, "/"));
	CHECK("a folder holds its own paths, not a sibling with the same start",
	      path_is_or_holds("/t/run", "/t/run/host/etc") && path_is_or_holds("/t/run", "/t/run") &&
	          !path_is_or_holds("/t/run", "/t/run2/host") && path_is_or_holds("/", "/x"));
}

static void test_seccomp_notify(void)
{
	int e = 0, n = 0;
	scmp_filter_ctx ctx = lab_seccomp_build(true, false, true, &e, &n);
	CHECK("the trace's filter builds", ctx != NULL && n > 50);
	if (!ctx)
		return;
	int fd = memfd_create("pfc", 0);
	seccomp_export_pfc(ctx, fd);
	lseek(fd, 0, SEEK_SET);
	static char pfc[65536];
	ssize_t len = read(fd, pfc, sizeof pfc - 1);
	pfc[len > 0 ? len : 0] = '\0';
	close(fd);
	/* libseccomp 2.5 prints the notify action as its number */
	char notify[32];
	snprintf(notify, sizeof notify, "action %#x;", SECCOMP_RET_USER_NOTIF);
	CHECK("the trace's filter asks the listener and answers no errno itself",
	      strstr(pfc, notify) && !strstr(pfc, "action ERRNO"));
	scmp_filter_ctx both = lab_seccomp_build(true, true, true, &e, &n);
	int bfd = memfd_create("pfc2", 0);
	if (both)
		seccomp_export_pfc(both, bfd);
	seccomp_release(both);
	static char pfc2[65536];
	len = pread(bfd, pfc2, sizeof pfc2 - 1, 0);
	pfc2[len > 0 ? len : 0] = '\0';
	close(bfd);
	CHECK("with No-network on too, its socket rules ride in the filter with the listener",
	      !strstr(pfc, "syscall \"socket\"") && strstr(pfc2, "syscall \"socket\""));
	CHECK("the trace's filter stops sendto() and the calls that write at a path, for the lab to look",
	      strstr(pfc, "syscall \"sendto\"") && strstr(pfc, "syscall \"openat\"") &&
	          strstr(pfc, "syscall \"mkdir\"") && strstr(pfc, "syscall \"renameat2\""));
	scmp_filter_ctx plain = lab_seccomp_build(true, false, false, &e, &n);
	int qfd = memfd_create("pfc3", 0);
	if (plain)
		seccomp_export_pfc(plain, qfd);
	seccomp_release(plain);
	static char pfc3[65536];
	len = pread(qfd, pfc3, sizeof pfc3 - 1, 0);
	pfc3[len > 0 ? len : 0] = '\0';
	close(qfd);
	CHECK("exec's filter (no host target) lets opens and mkdir run unstopped",
	      len > 0 && !strstr(pfc3, "syscall \"openat\"") && !strstr(pfc3, "syscall \"mkdir\""));
	/* Resource-limits' watch in a filter of its own: it stops, it refuses nothing */
	scmp_filter_ctx watch = lab_seccomp_build_limits(&e);
	int wfd = memfd_create("pfc4", 0);
	if (watch)
		seccomp_export_pfc(watch, wfd);
	seccomp_release(watch);
	static char pfc4[65536];
	len = pread(wfd, pfc4, sizeof pfc4 - 1, 0);
	pfc4[len > 0 ? len : 0] = '\0';
	close(wfd);
	CHECK("Resource-limits' own filter stops mappings, new tasks and waits, and refuses nothing",
	      len > 0 && strstr(pfc4, notify) && !strstr(pfc4, "action ERRNO") && !strstr(pfc4, "action KILL") &&
	          strstr(pfc4, "syscall \"mmap\"") && strstr(pfc4, "syscall \"mremap\"") &&
	          strstr(pfc4, "syscall \"clone\"") && strstr(pfc4, "syscall \"clone3\"") &&
	          strstr(pfc4, "syscall \"wait4\"") && strstr(pfc4, "syscall \"waitid\"") &&
	          strstr(pfc4, "syscall \"mlockall\"") && !strstr(pfc4, "syscall \"unshare\""));
	char min[48];
	snprintf(min, sizeof min, "$a1.lo32 >= %llu", LAB_WATCH_MAP_MIN & 0xffffffffULL);
	CHECK("... an mmap() only from 1 MiB on (the interpreter's small ones go by unasked)",
	      strstr(pfc4, "$a1.hi32 > 0") || strstr(pfc4, min));
	const struct lab_seccomp_path_call *oc = lab_seccomp_path_call(SCMP_SYS(openat));
	CHECK("openat's path is its second argument, relative to its first, flags third",
	      oc && oc->path_arg == 1 && oc->dirfd_arg == 0 && oc->flags_arg == 2 &&
	          !lab_seccomp_path_call(SCMP_SYS(read)));
	CHECK("the refusal's errno is the rule's: EPERM, ENOSYS for clone3, EAFNOSUPPORT for socket",
	      lab_seccomp_refusal_errno(SCMP_SYS(unshare)) == EPERM &&
	          lab_seccomp_refusal_errno(SCMP_SYS(clone3)) == ENOSYS &&
	          lab_seccomp_refusal_errno(SCMP_SYS(socket)) == EAFNOSUPPORT);
	fd = memfd_create("bpf", 0);
	seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	off_t sz = lseek(fd, 0, SEEK_END);
	struct sock_filter *prog = malloc((size_t)sz);
	if (!prog || pread(fd, prog, (size_t)sz, 0) != sz)
		abort();
	close(fd);
	pid_t pid = fork();
	if (pid == 0) {
		struct sock_fprog fp = {.len = (unsigned short)(sz / (off_t)sizeof *prog), .filter = prog};
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		int lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
		if (lfd < 0)
			_exit(100);
		close(lfd);
		_exit(syscall(SYS_unshare, CLONE_NEWUSER) == 0 ? 0 : errno);
	}
	free(prog);
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK("no listener: the kernel still refuses the call (ENOSYS), it never runs",
	      WIFEXITED(st) && WEXITSTATUS(st) == ENOSYS);
}

/* ==== job and snippet: worker results, inherited fds, snippet files ==== */

/* A stream as result_write makes it, with one line replaced (or dropped when
 * with is ""), or with extra appended. */
static char *crafted(const char *key, const char *with, const char *extra)
{
	struct lab_result r = {.verdict = VERDICT_CONTAINED,
	                       .caught_by = LAYER_NETWORK,
	                       .threat = THREAT_EXFIL,
	                       .expected_layer = LAYER_NETWORK,
	                       .layers = LAYERS_ALL,
	                       .n_evidence = 1};
	snprintf(r.snippet, sizeof r.snippet, "exfiltration");
	snprintf(r.evidence[0], LAB_LINE, "probe");
	r.output = "out";
	r.output_len = 3;
	r.ev.exfil.net_probe_errno = -1;
	r.ev.end.exit_code = 0;
	int p[2];
	if (pipe(p) < 0)
		abort();
	result_write(p[1], &r);
	close(p[1]);
	static char buf[16384];
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
	struct strbuf b = {0};
	sb_add(&b, "", 0);
	for (char *line = buf, *next; *line; line = next) {
		next = strchr(line, '\n') + 1;
		size_t klen = strlen(key);
		if (key[0] && !strncmp(line, key, klen) && line[klen] == '\t') {
			sb_puts(&b, with);
			continue;
		}
		if (extra && !strncmp(line, "end\t", 4))
			sb_puts(&b, extra);
		sb_add(&b, line, (size_t)(next - line));
	}
	return b.s;
}

static bool refused(const char *stream, const char *reason)
{
	struct lab_result r;
	char why[200];
	int rc = result_read(stream, strlen(stream), &r, why, sizeof why);
	bool ok = rc < 0 && strstr(why, reason) && r.caught_by == -1 && r.output;
	if (!ok)
		printf("#   rc %d, why: %s\n", rc, why);
	lab_result_free(&r);
	return ok;
}

static void test_job_results(void)
{
	struct lab_result r;
	char why[200];
	char *s = crafted("", "", NULL);
	CHECK("crafted stream reads back", result_read(s, strlen(s), &r, why, sizeof why) == 0 &&
	                                       r.verdict == VERDICT_CONTAINED && r.caught_by == LAYER_NETWORK);
	lab_result_free(&r);
	free(s);
	static const struct {
		const char *key, *with, *extra, *reason, *name;
	} cases[] = {
	    {"caught_by", "caught_by\t7\n", NULL, "caught_by 7 out of range (-1 to 3)", "caught_by 7 refused"},
	    {"verdict", "verdict\t9\n", NULL, "verdict 9 out of range", "verdict 9 refused"},
	    {"threat", "threat\t-1\n", NULL, "threat -1 out of range", "negative threat refused"},
	    {"layers", "layers\t16\n", NULL, "layers 16 out of range", "layers beyond the four refused"},
	    {"", "", "holder\t3\t0\tbwrap\n", "1 holder lines for n_holders 0", "a holder beyond n_holders refused"},
	    {"", "", "holder\t3\t2\tbwrap\n", "not 'PID 0|1 COMM'", "a holder line out of its shape refused"},
	    {"n_holders", "n_holders\t1\n", "holder\t +7\t0\tx\n", "not 'PID 0|1 COMM'",
	     "a holder's PID with a blank and a sign refused"},
	    {"started", "started\t2\n", NULL, "started 2 out of range (0 to 1)", "a flag of 2 refused"},
	    {"exit_signal", "exit_signal\t12x\n", NULL, "exit_signal 12x out of range", "trailing junk refused"},
	    {"peak_procs", "peak_procs\t\n", NULL, "peak_procs  out of range", "an empty number refused"},
	    {"duration_ms", "duration_ms\t99999999999999999999\n", NULL, "out of range", "overflow refused"},
	    {"cpu_s", "cpu_s\tnan\n", NULL, "cpu_s nan out of range", "cpu_s nan refused"},
	    {"verdict", "", NULL, "missing field 'verdict'", "a missing verdict refused"},
	    {"headline", "", NULL, "missing field 'headline'", "a missing string refused"},
	    {"output", "", NULL, "missing field 'output'", "a missing output refused"},
	    {"", "", "verdict\t2\n", "verdict sent twice", "a field sent twice refused"},
	    {"", "", "colour\tred\n", "unknown field 'colour'", "an unknown field refused"},
	    {"", "", "no tab here\n", "a line without a field name", "a line without a tab refused"},
	    {"verdict", "verdict\t3\n", NULL, "verdict ESCAPED with caught_by 1", "ESCAPED caught by a layer refused"},
	    {"canaries_leaked", "canaries_leaked\t3\n", NULL, "canaries_leaked 3 more than the 0 planted",
	     "more canaries leaked than planted refused"},
	    {"", "", "trace\t0\\tfork()\\t-1 EAGAIN\\tpids.max\n", "count 0 out of range",
	     "a trace entry counted 0 times refused"},
	    {"", "", "trace\t1\\tfork()\\t-1 EAGAIN\n", "without its four parts",
	     "a trace entry missing a part refused"},
	    {"", "", "trace\t1\\tfork()\\t\x1b[2J\\tx\n", "not printable ASCII",
	     "a trace entry with a control character refused"},
	    {"", "", "trace\t1\\t\\t-1\\tx\n", "empty", "a trace entry without a call refused"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		s = crafted(cases[i].key, cases[i].with, cases[i].extra);
		CHECK(cases[i].name, refused(s, cases[i].reason));
		free(s);
	}
	char head[400];
	snprintf(head, sizeof head, "headline\t%0*d\n", LAB_LINE, 0);
	s = crafted("headline", head, NULL);
	CHECK("a headline longer than its field refused", refused(s, "headline longer than 319 bytes"));
	free(s);
	struct strbuf ev = {0};
	for (int i = 0; i <= LAB_EVIDENCE_MAX; i++)
		sb_puts(&ev, "evidence\tmore\n");
	s = crafted("", "", ev.s);
	sb_free(&ev);
	char too_many[64];
	snprintf(too_many, sizeof too_many, "more than %d evidence lines", LAB_EVIDENCE_MAX);
	CHECK("more evidence lines than fit refused", refused(s, too_many));
	free(s);
	for (int i = 0; i <= LAB_TRACE_MAX; i++)
		sb_printf(&ev, "trace\t1\\tcall%d()\\t-1 EPERM\\tseccomp\n", i);
	s = crafted("", "", ev.s);
	sb_free(&ev);
	CHECK("more trace entries than fit refused", refused(s, "more than 24 trace entries"));
	free(s);
	CHECK("a stream holding only 'end' is no verdict", refused("end\t\n", "missing field 'threat'"));
	CHECK("an empty stream is no verdict", refused("", "nothing"));
	s = crafted("", "", NULL);
	s[strlen(s) - 1] = '\0'; /* "end\t" without its newline: cut short */
	CHECK("a stream cut before its last newline refused", refused(s, "not terminated"));
	free(s);
	s = crafted("", "", NULL);
	size_t n = strlen(s);
	s = realloc(s, n + 16);
	memcpy(s + n, "verdict\t0\n", sizeof "verdict\t0\n");
	CHECK("data after end refused", refused(s, "data after 'end'"));
	free(s);
}

/* job_close_inherited in a forked child: only stdio and the kept fd stay. */
static void test_job_fds(void)
{
	int keep[2], other[2];
	if (pipe(keep) < 0 || pipe(other) < 0)
		abort();
	int high = fcntl(other[0], F_DUPFD, 200);
	pid_t pid = fork();
	if (pid == 0) {
		int how = job_close_inherited(keep[1]);
		bool ok = fcntl(keep[1], F_GETFD) >= 0 && fcntl(0, F_GETFD) >= 0 && fcntl(2, F_GETFD) >= 0 &&
		          fcntl(keep[0], F_GETFD) < 0 && fcntl(other[0], F_GETFD) < 0 && fcntl(other[1], F_GETFD) < 0 &&
		          fcntl(high, F_GETFD) < 0;
		_exit(ok ? how : 100);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK("a worker keeps only stdio and its own pipe end",
	      WIFEXITED(st) && WEXITSTATUS(st) >= 1 && WEXITSTATUS(st) <= 3);
	close(keep[0]);
	close(keep[1]);
	close(other[0]);
	close(other[1]);
	close(high);
}

static void test_snippet_files(void)
{
	struct snippet s;
	char err[600];
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/fifo.py", tmpdir);
	mkfifo(path, 0600);
	CHECK("a FIFO snippet is refused without blocking",
	      snippet_load(&s, path, err, sizeof err) < 0 && strstr(err, "named pipe (FIFO), not a regular file"));
	const char *p = write_tmp("bom.py", "\xef\xbb\xbf# lab:title: B\n# lab:threat: secrets\n# lab:layer: env\n"
	                                    "# lab:consequence: c\n");
	CHECK("a UTF-8 BOM is fine", snippet_load(&s, p, err, sizeof err) == 0 && !strcmp(s.title, "B"));
	snippet_free(&s);
	p = write_tmp("wrong.py", "# lab:title: W\n# lab:threat: exfil\n# lab:layer: env\n# lab:consequence: c\n");
	CHECK("a threat on the wrong layer is refused with FILE:LINE",
	      snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, "wrong.py:3: layer 'env' does not stop"));
	p = write_tmp("x.sh", "# lab:title: W\n# lab:threat: exfil\n# lab:layer: network\n# lab:consequence: c\n");
	CHECK("only .py files are snippets", snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, "not a snippet"));
	p = write_tmp("evil.py", "# lab:title: a\x1b[2J b\xc2\x9b c\x9b d\xe9 e\xe2\x80\xae\n# lab:threat: secrets\n"
	                         "# lab:layer: env\n# lab:consequence: x\x1b]0;t\x07\n");
	CHECK("header text is stored inert", snippet_load(&s, p, err, sizeof err) == 0 &&
	                                         !strcmp(s.title, "a^[[2J b\\xc2\\x9b c\\x9b d\\xe9 e\\u202e") &&
	                                         !strcmp(s.consequence, "x^[]0;t^G"));
	snippet_free(&s);
	char big[400];
	snprintf(big, sizeof big, "# lab:title: %0*d\n# lab:threat: secrets\n# lab:layer: env\n# lab:consequence: c\n",
	         128, 0);
	p = write_tmp("long.py", big);
	CHECK("a title that does not fit is refused with the limit",
	      snippet_load(&s, p, err, sizeof err) < 0 && strstr(err, "long.py:1: title longer than 127 bytes"));
	snprintf(big, sizeof big, "# lab:title: %0*d\n# lab:threat: secrets\n# lab:layer: env\n# lab:consequence: c\n",
	         127, 0);
	p = write_tmp("fits.py", big);
	CHECK("a title of 127 bytes fits", snippet_load(&s, p, err, sizeof err) == 0 && strlen(s.title) == 127);
	snippet_free(&s);
	struct snippet *good, *broken;
	int nb;
	int n = snippet_scan(tmpdir, &good, &broken, &nb, err, sizeof err);
	bool fifo_listed = false;
	for (int i = 0; i < nb; i++)
		fifo_listed |= !strcmp(broken[i].name, "fifo") && strstr(broken[i].error, "FIFO");
	CHECK("a scan lists broken files and keeps the good ones", n >= 3 && fifo_listed);
	snippets_free(good, n);
	snippets_free(broken, nb);
	unlink(path);
}
/* ==== end of job and snippet tests ==== */

/* ======================================================================
 * encoded canaries, the matrix's column order, the /proc
 * walker and cgroup.procs parsing (cgroup_kill_path). Expected values are
 * computed independently (Python's base64 / bytes.hex), not by the code
 * under test.
 * ====================================================================== */

static void test_encoded_canaries(void)
{
	static const char tok[] = "ghp_A1b2C3d4E5f6G7h8I9j0kL"; /* 26 bytes */
	/* base64.b64encode(tok[k:k + (len - k) // 3 * 3]) for k = 0, 1, 2 */
	static const char *const b64[3] = {"Z2hwX0ExYjJDM2Q0RTVmNkc3aDhJOWow", "aHBfQTFiMkMzZDRFNWY2RzdoOEk5ajBr",
	                                   "cF9BMWIyQzNkNEU1ZjZHN2g4STlqMGtM"};
	static const char hex[] = "6768705f4131623243336434453566364737683849396a306b4c";
	char v[DECOY_VARIANTS][112];
	int n = -1;
	memset(v, 0, sizeof v);
	decoy_encode_variants(tok, v, &n);
	CHECK("canary variants: 3 base64 alignments + hex lower/upper + reversed + rot13", n == 7);
	if (n != 7)
		return;
	/* python3 -c 'import codecs; t="ghp_A1b2C3d4E5f6G7h8I9j0kL"; print(t[::-1], codecs.encode(t, "rot13"))' */
	CHECK("canary variant: reversed", !strcmp(v[5], "Lk0j9I8h7G6f5E4d3C2b1A_phg"));
	CHECK("canary variant: rot13", !strcmp(v[6], "tuc_N1o2P3q4R5s6T7u8V9w0xY"));
	for (int k = 0; k < 3; k++) {
		char name[80];
		snprintf(name, sizeof name, "canary variant: base64 at alignment %d", k);
		CHECK(name, !strcmp(v[k], b64[k]));
	}
	CHECK("canary variant: lowercase hex", !strcmp(v[3], hex));
	char up[sizeof hex];
	for (size_t i = 0; i < sizeof hex; i++)
		up[i] = (char)(hex[i] >= 'a' && hex[i] <= 'f' ? hex[i] - 32 : hex[i]);
	CHECK("canary variant: uppercase hex", !strcmp(v[4], up));
	/* a thief's blob with 0, 1 or 2 bytes before the token: Python's
	 * base64 of PREFIX + tok + "|tail" holds one of the variants */
	static const struct {
		const char *blob;
		int variant;
	} in[] = {
	    {"Z2hwX0ExYjJDM2Q0RTVmNkc3aDhJOWowa0x8dGFpbA==", 0},
	    {"eGdocF9BMWIyQzNkNEU1ZjZHN2g4STlqMGtMfHRhaWw=", 2}, /* "x" + tok */
	    {"eHlnaHBfQTFiMkMzZDRFNWY2RzdoOEk5ajBrTHx0YWls", 1}, /* "xy" + tok */
	};
	for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
		char name[80];
		snprintf(name, sizeof name, "base64 of the token after %zu byte(s) contains variant %d", i,
		         in[i].variant);
		CHECK(name, strstr(in[i].blob, v[in[i].variant]) != NULL);
	}
	/* 13 bytes: alignments 0 and 1 keep 4 full groups, 2 would keep 3 */
	n = -1;
	decoy_encode_variants("sk-ant-12345x", v, &n);
	CHECK("13-byte token: two base64 variants, two hex, reversed and rot13",
	      n == 6 && !strcmp(v[4], "x54321-tna-ks") && !strcmp(v[5], "fx-nag-12345k") &&
	          !strcmp(v[0], "c2stYW50LTEyMzQ1") && !strcmp(v[1], "ay1hbnQtMTIzNDV4") &&
	          !strcmp(v[2], "736b2d616e742d313233343578") && !strcmp(v[3], "736B2D616E742D313233343578"));
	n = -1;
	decoy_encode_variants("AKIA1234567", v, &n); /* 11 bytes: too short for base64 */
	CHECK("11-byte token: no base64, hex, reversed and rot13", n == 4 && !strcmp(v[0], "414b494131323334353637"));
}

static void test_matrix_columns(void)
{
	unsigned all = 0, seen[16];
	for (int l = 0; l < LAYER_COUNT; l++)
		all |= LAYER_BIT(l);
	CHECK("matrix column 0: every layer on", layers_for_column(0) == all);
	CHECK("matrix column 15: no layer on", layers_for_column(15) == 0);
	bool distinct = true, iso_slowest = true, in_range = true;
	for (int c = 0; c < 16; c++) {
		seen[c] = layers_for_column(c);
		in_range &= (seen[c] & ~all) == 0;
		for (int d = 0; d < c; d++)
			distinct &= seen[d] != seen[c];
		/* Isolation on in the first half only; it changes once */
		iso_slowest &= !!(seen[c] & LAYER_BIT(LAYER_ISOLATION)) == (c < 8);
	}
	CHECK("matrix columns: 16 distinct combinations", distinct && in_range);
	CHECK("matrix columns: Isolation changes slowest (on in 0-7, off in 8-15)", iso_slowest);
	/* every other layer changes more often than Isolation */
	bool faster = true;
	for (int l = 0; l < LAYER_COUNT; l++) {
		int changes = 0;
		for (int c = 1; c < 16; c++)
			changes += !!(seen[c] & LAYER_BIT(l)) != !!(seen[c - 1] & LAYER_BIT(l));
		if (l != LAYER_ISOLATION && changes <= 1)
			faster = false;
		if (l == LAYER_ISOLATION && changes != 1)
			faster = false;
	}
	CHECK("matrix columns: the other layers change faster", faster);
}

static bool has_pid(const pid_t *v, int n, pid_t p)
{
	for (int i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

/* A forked tree: child A, A's child B, and C double-forked by B (B exits,
 * so C is reparented to us as a subreaper). proc_descendants must find A
 * and C, and none once they are reaped. */
static void test_proc_walker(void)
{
	int pc[2], pb[2]; /* C's pid, then B's (separate pipes: either may come first) */
	if (pipe(pc) < 0 || pipe(pb) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		CHECK("proc walker: set-up", false);
		return;
	}
	pid_t a = fork();
	if (a == 0) {
		close(pc[0]);
		close(pb[0]);
		pid_t b = fork();
		if (b == 0) {
			pid_t c = fork();
			if (c == 0) {
				pid_t me = getpid();
				if (write(pc[1], &me, sizeof me) != sizeof me)
					_exit(1);
				close(pc[1]);
				for (;;)
					pause();
			}
			_exit(0); /* B leaves C behind: the double fork */
		}
		close(pc[1]);
		waitpid(b, NULL, 0);
		if (write(pb[1], &b, sizeof b) != sizeof b)
			_exit(1);
		close(pb[1]);
		for (;;)
			pause();
	}
	close(pc[1]);
	close(pb[1]);
	pid_t c = 0, b = 0;
	bool got = a > 0 && read(pc[0], &c, sizeof c) == sizeof c && read(pb[0], &b, sizeof b) == sizeof b;
	close(pc[0]);
	close(pb[0]);
	/* C is a child of ours by now (B was reaped by A) */
	pid_t out[64];
	int n = got ? proc_descendants(getpid(), out, 64, true) : -1;
	CHECK("proc walker: finds the child and the double-forked grandchild",
	      got && n == 2 && has_pid(out, n, a) && has_pid(out, n, c) && !has_pid(out, n, b));
	pid_t one;
	CHECK("proc walker: max bounds what is written, the count is the total",
	      got && proc_descendants(getpid(), &one, 1, true) == 2 && (one == a || one == c));
	CHECK("proc walker: a pid with no children has none", got && proc_descendants(c, out, 64, true) == 0);
	/* once they are killed and reaped, not even a zombie is listed */
	if (a > 0 && kill(a, SIGKILL) == 0)
		waitpid(a, NULL, 0);
	if (got && kill(c, SIGKILL) == 0)
		waitpid(c, NULL, 0);
	CHECK("proc walker: killed and reaped, none is left", got && proc_descendants(getpid(), out, 64, false) == 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* cgroup_kill_path parses DIR/cgroup.procs: it must kill the listed pids
 * and step over anything that is not a positive pid ("-1" would be every
 * process, "0" our process group). Run in a child in new user+PID
 * namespaces, in its own process group: a parsing slip there kills only
 * the test's own processes, and shows. */
static void test_cgroup_procs_parsing(void)
{
	pid_t t = fork();
	if (t == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(77);
		pid_t init = fork();
		if (init == 0) {
			setpgid(0, 0);
			pid_t listed = fork();
			if (listed == 0)
				for (;;)
					pause();
			pid_t bystander = fork();
			if (bystander == 0)
				for (;;)
					pause();
			char dir[] = "/tmp/cl-unit-cg.XXXXXX", file[64], text[128];
			if (!mkdtemp(dir))
				_exit(3);
			snprintf(file, sizeof file, "%s/cgroup.procs", dir);
			snprintf(text, sizeof text, "junk\n-1\n0\n  %d\n\n", (int)listed);
			FILE *f = fopen(file, "w");
			if (!f)
				_exit(3);
			fputs(text, f);
			fclose(f);
			cgroup_kill_path(dir); /* the file never empties: it gives up after its rounds */
			int st = 0;
			bool listed_killed =
			    waitpid(listed, &st, WNOHANG) == listed && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
			bool bystander_alive = kill(bystander, 0) == 0 && waitpid(bystander, NULL, WNOHANG) == 0;
			kill(bystander, SIGKILL);
			unlink(file);
			rmdir(dir);
			_exit(listed_killed ? (bystander_alive ? 0 : 5) : 4);
		}
		int st = 0;
		waitpid(init, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 6);
	}
	int st = 0;
	waitpid(t, &st, 0);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 99;
	if (rc == 77) {
		skipped++;
		printf("skip - cgroup.procs parsing: skipped: no user+PID namespace for a safe test here\n");
		return;
	}
	CHECK("cgroup.procs parsing: the listed pid is killed", rc != 4 && rc != 6 && rc != 99);
	CHECK("cgroup.procs parsing: junk, -1 and 0 kill nobody else", rc == 0);
}

/* hostcheck_advice: the one line for each host that allows no usable user
 * namespace, from the knobs as read (the AppArmor rule cannot be met on
 * this host: its probe's EPERM is given here, as Ubuntu's kernel answers). */
static void test_hostcheck(void)
{
	char line[600];
	struct hostcheck open = {
	    .uid = 1000, .max_userns = 96000, .userns_clone = -1, .apparmor_restrict = -1, .probe_errno = -1};
	CHECK("hostcheck: a host that allows user namespaces says nothing",
	      !hostcheck_advice(&open, 0, line, sizeof line));
	struct hostcheck h = open;
	h.max_userns = 0;
	h.root = true;
	CHECK("hostcheck: max_user_namespaces 0 blocks root too, with the sysctl to fix it",
	      hostcheck_advice(&h, 0, line, sizeof line) && strstr(line, "user.max_user_namespaces is 0") &&
	          strstr(line, "as root too") && strstr(line, "sysctl -w user.max_user_namespaces="));
	h = open;
	h.userns_clone = 0;
	CHECK("hostcheck: unprivileged_userns_clone 0 blocks a user, not root",
	      hostcheck_advice(&h, 0, line, sizeof line) && strstr(line, "as uid 1000 nothing can run") &&
	          strstr(line, "as root everything works"));
	h.root = true;
	CHECK("hostcheck: unprivileged_userns_clone 0 leaves root alone", !hostcheck_advice(&h, 0, line, sizeof line));
	h = open;
	h.apparmor_restrict = 1;
	h.probe_errno = 0;
	CHECK("hostcheck: AppArmor's rule with a profile that grants userns (the probe worked): nothing to say",
	      !hostcheck_advice(&h, 0, line, sizeof line));
	h.probe_errno = EPERM;
	h.probe_stage = "make mounts private in it";
	CHECK("hostcheck: AppArmor's rule and no profile: the rule, the failed step and the profile to load",
	      hostcheck_advice(&h, 0, line, sizeof line) && strstr(line, "apparmor_restrict_unprivileged_userns=1") &&
	          strstr(line, "make mounts private in it: Operation not permitted") &&
	          strstr(line, "make install-apparmor") && !strchr(line, '\n'));
	h = open;
	CHECK("hostcheck: a clone that failed elsewhere (a container's seccomp profile) says so",
	      hostcheck_advice(&h, EPERM, line, sizeof line) && strstr(line, "seccomp=unconfined"));
}

/* An escape's consequence is built from the run's figures and the lab's uid
 * (issue 22: a rootless lab's takeover is not "a root cron job"). */
static void test_consequence(void)
{
	struct lab_evidence ev = {.res = {.peak_procs = 17, .peak_mem = 31u << 20, .cpu_s = 2.04},
	                          .exfil = {.attacker_bytes = 3707}};
	char out[256];

	consequence_fill(out, sizeof out, "{procs} processes, {mem}, {cpu} of CPU; {sent} out", &ev, 0);
	CHECK("consequence: the figures are the evidence's",
	      !strcmp(out, "17 processes, 31 MiB, 2.0 s of CPU; 3,707 bytes out"));
	consequence_fill(out, sizeof out, "{root:a root cron job|a cron entry of {who}'s} sits there", &ev, 0);
	CHECK("consequence: a root lab gets the root wording", !strcmp(out, "a root cron job sits there"));
	consequence_fill(out, sizeof out, "{root:a root cron job|a cron entry of {who}'s} sits there", &ev, 65534);
	CHECK("consequence: a rootless lab gets its own uid, not root",
	      !strcmp(out, "a cron entry of uid 65534's sits there"));
	consequence_fill(out, sizeof out, "{nope} and {root:unclosed", &ev, 0);
	CHECK("consequence: unknown fields and an unclosed choice stay as written",
	      !strcmp(out, "{nope} and {root:unclosed"));
}

/* The ssh-agent stand-in: a client's REQUEST_IDENTITIES gets one decoy
 * key with its comment, anything else FAILURE, and each is counted. */
static int agent_client(const char *path, unsigned char type)
{
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	str_copy(sa.sun_path, sizeof sa.sun_path, path);
	if (c < 0 || connect(c, (struct sockaddr *)&sa, sizeof sa) < 0) {
		if (c >= 0)
			close(c);
		return -1;
	}
	unsigned char req[5] = {0, 0, 0, 1, type};
	(void)!write(c, req, sizeof req);
	return c; /* the answer is read once the agent has pumped */
}

static void agent_pump(struct lab_agent *a)
{
	for (int round = 0; round < 8; round++) {
		int fds[AGENT_POLL_MAX], n = agent_poll_fds(a, fds, AGENT_POLL_MAX);
		for (int i = 0; i < n; i++)
			agent_event(a, fds[i]);
	}
}

static void test_agent(void)
{
	struct lab_agent a, zero = {.fd = -1};
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/agent.sock", tmpdir);
	CHECK("agent: opens its socket", agent_open(&a, path, "deploy@billing-api") == 0);
	struct stat st;
	CHECK("agent: the socket is 0600", stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	int c = agent_client(path, 11);
	agent_pump(&a);
	unsigned char buf[256];
	ssize_t n = c >= 0 ? read(c, buf, sizeof buf) : -1;
	CHECK("agent: REQUEST_IDENTITIES answered with IDENTITIES_ANSWER and one key",
	      n > 9 && buf[4] == 12 && buf[5] == 0 && buf[6] == 0 && buf[7] == 0 && buf[8] == 1);
	CHECK("agent: the key's comment is in the answer", n > 0 && memmem(buf, (size_t)n, "deploy@billing-api", 18));
	if (c >= 0)
		close(c);
	c = agent_client(path, 13);
	agent_pump(&a);
	n = c >= 0 ? read(c, buf, sizeof buf) : -1;
	CHECK("agent: any other request gets FAILURE", n == 5 && buf[3] == 1 && buf[4] == 5);
	if (c >= 0)
		close(c);
	CHECK("agent: two connections, two requests, one key list", a.conns == 2 && a.requests == 2 && a.listed == 1);
	agent_close(&a);
	CHECK("agent: the socket is gone after", access(path, F_OK) != 0);
	char longp[200];
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	longp[sizeof longp - 1] = '\0';
	CHECK("agent: a path too long for sun_path is refused", agent_open(&a, longp, "x") == -ENAMETOOLONG);
	/* never opened: nothing to poll, nothing closed (not stdin) */
	CHECK("agent: a struct never opened polls nothing",
	      agent_poll_fds(&zero, (int[AGENT_POLL_MAX]){0}, AGENT_POLL_MAX) == 0);
	agent_close(&zero);
	CHECK("agent: closing one never opened leaves stdin open", fcntl(0, F_GETFD) >= 0);
}

/* ---- the run spec's snapshots (tests/spec/) ----
 * Every layer set x rung x network mode rendered from the built-in config
 * for a fixed merged-/usr host, and the twin's commands, compared with the
 * reviewed files in tests/spec/. The renderings are written to build/spec/
 * as well: `make spec-update` copies them over (then review the diff). */
static bool snapshot_matches(const char *name, const char *text)
{
	char want_path[PATH_MAX], got_path[PATH_MAX];
	snprintf(want_path, sizeof want_path, "tests/spec/%s.txt", name);
	snprintf(got_path, sizeof got_path, "build/spec/%s.txt", name);
	mkdir("build/spec", 0755);
	FILE *f = fopen(got_path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	size_t n = 0;
	char *want = read_file(want_path, &n, 1 << 20);
	bool same = want && n == strlen(text) && !memcmp(want, text, n);
	/* a NULL printed as "(null)" is glibc's kindness, not a rendering */
	if (strstr(text, "(null)")) {
		printf("# %s prints (null): a step without a path reached %%s\n", got_path);
		same = false;
	}
	if (!same)
		printf("# %s differs from %s (diff -u %s %s; make spec-update takes it)\n", got_path, want_path,
		       want_path, got_path);
	free(want);
	return same;
}

static void fixed_host(struct spec_host *h)
{
	static const char *const top[][2] = {{"/bin", "usr/bin"}, {"/sbin", "usr/sbin"},   {"/lib", "usr/lib"},
	                                     {"/lib32", NULL},    {"/lib64", "usr/lib64"}, {"/libx32", NULL}};
	*h = (struct spec_host){0};
	for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
		h->top[i].path = top[i][0];
		h->top[i].exists = top[i][1] != NULL;
		snprintf(h->top[i].link, sizeof h->top[i].link, "%s", top[i][1] ? top[i][1] : "");
	}
	h->n_top = (int)(sizeof top / sizeof *top);
}

static void test_spec_snapshots(void)
{
	struct lab_config cfg;
	struct spec_host host;
	config_defaults(&cfg);
	snprintf(cfg.python, sizeof cfg.python, "/usr/bin/python3");
	fixed_host(&host);
	static const enum lab_rung rungs[] = {RUNG_INPROCESS, RUNG_CONTAINER, RUNG_GVISOR, RUNG_MICROVM};
	for (size_t k = 0; k < sizeof rungs / sizeof *rungs; k++)
		for (int mode = 0; mode < NET_MODE_COUNT; mode++) {
			struct strbuf b = {0};
			for (int col = 0; col < 16; col++) {
				struct run_spec s;
				spec_build(&s, &cfg,
				           &(struct lab_setup){.layers = layers_for_column(col),
				                               .rung = rungs[k],
				                               .net_mode = (enum lab_net_mode)mode});
				spec_text(&s, &host, &b);
				sb_puts(&b, "\n");
			}
			char name[64], check[128];
			snprintf(name, sizeof name, "%s-%s", lab_rung_key(rungs[k]),
			         lab_net_mode_key((enum lab_net_mode)mode));
			snprintf(check, sizeof check,
			         "spec: the 16 layer sets on the %s rung, mode %s, as tests/spec/%s.txt",
			         lab_rung_key(rungs[k]), lab_net_mode_key((enum lab_net_mode)mode), name);
			CHECK(check, snapshot_matches(name, b.s ? b.s : ""));
			sb_free(&b);
		}
	/* exec's view: the caller's folder in place of the task's, no decoy home */
	struct strbuf b = {0};
	for (int rw = 0; rw < 2; rw++)
		for (unsigned layers = 0; layers < 16; layers += 15) {
			struct run_spec s;
			spec_build(
			    &s, &cfg,
			    &(struct lab_setup){.layers = layers, .rung = RUNG_CONTAINER, .exec = true, .exec_rw = rw});
			spec_text(&s, &host, &b);
			sb_puts(&b, "\n");
		}
	CHECK("spec: exec and exec --rw, all layers and none, as tests/spec/exec.txt", snapshot_matches("exec", b.s));
	sb_free(&b);
	/* the twin renders the same spec: its commands, for every layer set */
	for (int tool = 0; tool < 2; tool++) {
		struct strbuf all = {0};
		for (int col = 0; col < 16; col++) {
			struct strbuf t = {0};
			struct lab_setup setup = {.layers = layers_for_column(col), .rung = RUNG_CONTAINER};
			twin_text_on(&cfg, &setup, (enum twin_tool)tool, &host, &t);
			char *end = t.s ? strstr(t.s, "\nflag by flag") : NULL;
			if (end)
				end[1] = '\0';
			sb_puts(&all, t.s ? t.s : "");
			sb_puts(&all, "\n");
			sb_free(&t);
		}
		CHECK(tool ? "spec: the bwrap twin's command for the 16 layer sets, as tests/spec/twin-bwrap.txt"
		           : "spec: the docker twin's command for the 16 layer sets, as tests/spec/twin-docker.txt",
		      snapshot_matches(tool ? "twin-bwrap" : "twin-docker", all.s));
		sb_free(&all);
	}
	/* the spec is data: building it twice gives the same bytes, and no
	 * layer asks for more steps than the list holds */
	struct run_spec a, c;
	struct lab_setup all_on = {.layers = 15, .rung = RUNG_CONTAINER};
	spec_build(&a, &cfg, &all_on);
	spec_build(&c, &cfg, &all_on);
	CHECK("spec: built twice, the same steps", a.n_fs == c.n_fs && a.n_fs > 0 && a.n_rl == 6 && c.n_rl == 6);
}

int main(void)
{
	test_audit_tolerance();
	if (!mkdtemp(tmpdir))
		return 1;
	test_config();
	test_config_strict();
	test_snippets();
	test_verdicts();
	test_env();
	test_sanitize();
	test_serialise();
	test_seccomp();
	test_seccomp_notify();
	test_paths();
	test_job_results();
	test_job_live();
	test_job_fds();
	test_snippet_files();
	/* encoded canaries, columns, /proc, cgroup.procs and what follows */
	test_encoded_canaries();
	test_matrix_columns();
	test_proc_walker();
	test_cgroup_procs_parsing();
	test_hostcheck();
	test_consequence();
	test_agent();
	test_spec_snapshots();
	remove_tree(tmpdir);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
