/* audit.c — `audit`'s own room: the shipped prefixes of other sandboxes
 * (presets), how a prefix's placeholders are filled, and the report card
 * in text, markdown and JSON. The runs themselves are lab_audit_run's
 * (run.c with box_wrapper.c); the verdicts verdict.c's. */
#define _GNU_SOURCE
#include "audit.h"
#include "report.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool on_path_at(const char *tool, char *out, size_t cap);

/* ---------------- placeholders ---------------- */

static void argv_push(char ***v, int *n, char *s)
{
	char **g = realloc(*v, sizeof **v * (size_t)(*n + 2));
	if (!g || !s)
		abort();
	g[(*n)++] = s;
	g[*n] = NULL;
	*v = g;
}

static const char *env_value(char *const *env, const char *name, size_t len)
{
	for (char *const *e = env; e && *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

/* The command line as one shell word list: each argument in single
 * quotes (a ' inside as '\''), so a shell string that holds it
 * (`sh -c '{cmd}'`, `srt -c 'nice {cmd}'`) runs exactly these arguments. */
static char *shell_line(char *const *cmd)
{
	struct strbuf b = {0};
	for (int i = 0; cmd[i]; i++) {
		sb_puts(&b, i ? " '" : "'");
		for (const char *c = cmd[i]; *c; c++)
			if (*c == '\'')
				sb_puts(&b, "'\\''");
			else
				sb_add(&b, c, 1);
		sb_puts(&b, "'");
	}
	sb_add(&b, "", 0);
	return b.s ? b.s : strdup("");
}

/* One argument with every {cmd}, {dir} and {NAME} filled in; an unknown
 * {WORD} is left as it is. */
static char *expand_one(const char *a, const char *cmdline, const char *dir, char *const *env, bool *had_cmd)
{
	struct strbuf b = {0};
	for (const char *p = a; *p;) {
		const char *close = *p == '{' ? strchr(p, '}') : NULL;
		if (close) {
			size_t len = (size_t)(close - p - 1);
			const char *v = NULL;
			if (len == 3 && !strncmp(p + 1, "cmd", 3)) {
				v = cmdline;
				*had_cmd = true;
			} else if (len == 3 && !strncmp(p + 1, "dir", 3)) {
				v = dir;
			} else if (len) {
				v = env_value(env, p + 1, len);
			}
			if (v) {
				sb_puts(&b, v);
				p = close + 1;
				continue;
			}
		}
		sb_add(&b, p, 1);
		p++;
	}
	sb_add(&b, "", 0);
	return b.s ? b.s : strdup("");
}

char **audit_expand(char *const *tmpl, char *const *cmd, const char *dir, char *const *env)
{
	char *line = shell_line(cmd);
	char **out = NULL;
	int n = 0;
	bool had_cmd = false;
	for (int i = 0; tmpl[i]; i++) {
		/* a whole argument: the command's own arguments, unless it is a
		 * shell's command string (after -c), which is one word */
		if (!strcmp(tmpl[i], "{cmd}") && !(i > 0 && !strcmp(tmpl[i - 1], "-c"))) {
			for (int j = 0; cmd[j]; j++)
				argv_push(&out, &n, strdup(cmd[j]));
			had_cmd = true;
			continue;
		}
		argv_push(&out, &n, expand_one(tmpl[i], line, dir, env, &had_cmd));
	}
	if (!had_cmd)
		for (int j = 0; cmd[j]; j++)
			argv_push(&out, &n, strdup(cmd[j]));
	free(line);
	return out;
}

int audit_resolve_wrapper(char **wrapper, char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *w = wrapper[0];
	if (!w || !*w) {
		snprintf(err, errlen, "audit: the sandbox's command is empty");
		return -1;
	}
	if (strchr(w, '/')) {
		/* the wrapper starts in the run's work folder: a relative path
		 * is the caller's, resolved now */
		if (!realpath(w, path) || access(path, X_OK) < 0) {
			snprintf(err, errlen, "audit: %s: %s", w, access(w, F_OK) ? "no such file" : "not executable");
			return -1;
		}
	} else if (!on_path_at(w, path, sizeof path)) {
		snprintf(err, errlen, "audit: %s: not found on PATH (install it, or give its path)", w);
		return -1;
	}
	char *dup = strdup(path);
	if (!dup)
		abort();
	free(wrapper[0]);
	wrapper[0] = dup;
	return 0;
}

void audit_argv_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/* ---------------- firejail, wherever it is named ---------------- */

/* Inside a PID namespace firejail says "an existing sandbox was detected"
 * and runs the command without any sandboxing (firejail#380): it runs as a
 * plain child of the lab instead (a subreaper that ends its tree). As a
 * setuid program it needs the lab to be root: rootless, 1 and why. */
static int firejail_outside(bool *outside_range, char *why, size_t whylen, char *note, size_t notelen)
{
	if (geteuid() != 0) {
		snprintf(why, whylen,
		         "firejail is setuid root, and the range's user namespace (the lab is rootless) ignores "
		         "setuid bits: it cannot run inside the range");
		return 1;
	}
	*outside_range = true;
	snprintf(note, notelen,
	         "the range could not surround it: inside a PID namespace firejail detects \"an existing "
	         "sandbox\" and runs the command unsandboxed, so it runs as a plain child of the lab "
	         "(a subreaper that ends its tree)");
	return 0;
}

static bool is_firejail(const char *arg)
{
	const char *base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	if (!strcmp(base, "firejail"))
		return true;
	/* a link to it (/usr/local/bin/firejail -> ...) by what it points at */
	char real[PATH_MAX];
	if (!strchr(arg, '/') || !realpath(arg, real))
		return false;
	base = strrchr(real, '/');
	return base && !strcmp(base + 1, "firejail");
}

int audit_custom(char *const *wrapper, bool *outside_range, char *why, size_t whylen, char *note, size_t notelen)
{
	/* the words before {cmd}: a firejail behind sudo or env counts too */
	for (int i = 0; wrapper[i] && strcmp(wrapper[i], "{cmd}") != 0; i++)
		if (is_firejail(wrapper[i]))
			return firejail_outside(outside_range, why, whylen, note, notelen);
	return 0;
}

/* The snippets an audit runs by default: the legit task and every attack
 * a foreign sandbox can be judged on, grouped by threat: the four of the
 * lesson and snippets/audit's threats people ask about (DNS exfiltration,
 * persistence in the work folder, a process that outlives the wrapper,
 * the user's ssh-agent). The kernel exploit is left out: its verdict needs
 * to see which kernel served it, which a foreign sandbox does not show. */
const char *const audit_default_names[] = {
    "legit",         "resource-bomb", "secret-theft", "exfiltration", "dns-exfil",
    "host-takeover", "persist-hooks", "daemon",       "agent-socket", NULL};

/* ---------------- presets ---------------- */

const char *const audit_preset_names[] = {"bwrap", "firejail", "srt", "runsc", "lab", NULL};

/* tool's place on PATH (absolute folders only), into out. */
static bool on_path_at(const char *tool, char *out, size_t cap)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin"), p[PATH_MAX];
	bool found = false;
	for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save))
		found = d[0] == '/' && pathf(p, sizeof p, "%s/%s", d, tool) == 0 && access(p, X_OK) == 0;
	free(copy);
	if (found)
		str_copy(out, cap, p);
	return found;
}

static bool on_path(const char *tool)
{
	char p[PATH_MAX];
	return on_path_at(tool, p, sizeof p);
}

/* bubblewrap with the lesson's four layers as far as its flags go: every
 * namespace (network included), a new session, no capabilities, a minimal
 * read-only view (/usr and the merged-/usr links, a fresh /proc and /dev,
 * a private /tmp, the work folder read-only), started from an environment
 * that holds only the task's inputs. --clearenv alone is not enough: it
 * clears the child's environment, not bwrap's own, and bwrap's PID 1 in
 * the sandbox shows it in /proc/1/environ (bubblewrap#725). bwrap has no
 * resource limits. */
static const char *const preset_bwrap[] = {"env",
                                           "-i",
                                           "PATH=/usr/bin",
                                           "LAB_DATA={LAB_DATA}",
                                           "LAB_ATTACKER={LAB_ATTACKER}",
                                           "LAB_API={LAB_API}",
                                           "LAB_HOST_TARGET={LAB_HOST_TARGET}",
                                           "bwrap",
                                           "--unshare-all",
                                           "--die-with-parent",
                                           "--new-session",
                                           "--cap-drop",
                                           "ALL",
                                           "--ro-bind",
                                           "/usr",
                                           "/usr",
                                           "--symlink",
                                           "usr/bin",
                                           "/bin",
                                           "--symlink",
                                           "usr/lib",
                                           "/lib",
                                           "--symlink",
                                           "usr/lib64",
                                           "/lib64",
                                           "--symlink",
                                           "usr/sbin",
                                           "/sbin",
                                           "--proc",
                                           "/proc",
                                           "--dev",
                                           "/dev",
                                           "--tmpfs",
                                           "/tmp",
                                           "--ro-bind",
                                           "{dir}",
                                           "{dir}",
                                           "--chdir",
                                           "{dir}",
                                           "{cmd}",
                                           NULL};

/* firejail without a profile: no network, a private (empty) home and /tmp
 * would hide the work folder, so only the network and the home are cut. */
static const char *const preset_firejail[] = {
    "firejail",        "--quiet",      "--noprofile", "--net=none", "--private",
    "--caps.drop=all", "--nonewprivs", "--",          "{cmd}",      NULL};

/* Anthropic's sandbox runtime with its default settings. */
static const char *const preset_srt[] = {"srt", "{cmd}", NULL};

/* gVisor's `runsc do`: the host's root behind gVisor, no network. */
static const char *const preset_runsc[] = {
    "runsc", "--rootless", "--network=none", "--platform=ptrace", "--root={HOME}/.runsc", "do", "{cmd}", NULL};

static char **dup_argv(const char *const *v)
{
	char **out = NULL;
	int n = 0;
	for (int i = 0; v[i]; i++)
		argv_push(&out, &n, strdup(v[i]));
	return out;
}

int audit_lab_wrapper(const struct lab_config *cfg, unsigned layers, char ***argv, char *why, size_t whylen)
{
	char self[PATH_MAX], on[64] = "";
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	*argv = NULL;
	if (k <= 0) {
		snprintf(why, whylen, "cannot find the lab's own binary (/proc/self/exe)");
		return 1;
	}
	self[k] = '\0';
	for (int l = 0; l < LAYER_COUNT; l++)
		if (layers & LAYER_BIT(l))
			str_append(on, sizeof on, "%s%s", on[0] ? "," : "", lab_layers[l].key);
	if ((layers & LAYERS_ALL) == LAYERS_ALL)
		str_copy(on, sizeof on, "all");
	else if (!on[0])
		str_copy(on, sizeof on, "none");
	char **out = NULL;
	int n = 0;
	argv_push(&out, &n, strdup(self));
	if (cfg->path[0]) {
		argv_push(&out, &n, strdup("--config"));
		argv_push(&out, &n, strdup(cfg->path));
	}
	const char *const rest[] = {"exec",
	                            "--on",
	                            on,
	                            "--",
	                            "/usr/bin/env",
	                            "LAB_DATA={LAB_DATA}",
	                            "LAB_ATTACKER={LAB_ATTACKER}",
	                            "LAB_API={LAB_API}",
	                            "LAB_HOST_TARGET={LAB_HOST_TARGET}",
	                            "{cmd}",
	                            NULL};
	for (int i = 0; rest[i]; i++)
		argv_push(&out, &n, strdup(rest[i]));
	*argv = out;
	return 0;
}

int audit_preset(const char *name, const struct lab_config *cfg, char ***argv, bool *outside_range, char *why,
                 size_t whylen, char *note, size_t notelen)
{
	const struct {
		const char *name, *tool, *install;
		const char *const *argv;
	} presets[] = {
	    {"bwrap", "bwrap", "apt-get install bubblewrap", preset_bwrap},
	    {"firejail", "firejail", "apt-get install firejail", preset_firejail},
	    {"srt", "srt", "npm install -g @anthropic-ai/sandbox-runtime (needs node, bubblewrap, socat, ripgrep)",
	     preset_srt},
	    {"runsc", "runsc", "apt-get install runsc", preset_runsc},
	};
	*argv = NULL;
	*outside_range = false;
	note[0] = why[0] = '\0';
	if (!strcmp(name, "lab")) {
		if (audit_lab_wrapper(cfg, LAYERS_ALL, argv, why, whylen))
			return 1;
		/* the inner exec's proxy would reach its own api.lab.test, out of
		 * the audit's sight: the wrapper gets mode none, and is told so */
		if (cfg->net_mode == NET_MODE_ALLOWLIST)
			snprintf(
			    note, notelen,
			    "the lab preset runs exec with No-network mode none: --network-mode allowlist is the "
			    "audit's, not the wrapper's (an inner proxy would reach its own api.lab.test, which the "
			    "audit cannot see), so this card says nothing about the allow-list");
		return 0;
	}
	for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
		if (strcmp(name, presets[i].name) != 0)
			continue;
		if (!on_path(presets[i].tool)) {
			snprintf(why, whylen, "%s is not installed (%s)", presets[i].tool, presets[i].install);
			return 1;
		}
		if (!strcmp(name, "firejail") && firejail_outside(outside_range, why, whylen, note, notelen))
			return 1;
		if (!strcmp(name, "firejail"))
			str_append(note, notelen, "; --private replaces the passwd entry's home, not $HOME");
		if (!strcmp(name, "runsc"))
			snprintf(note, notelen,
			         "gVisor keeps the snippet's processes inside its Sentry: the lab counts none of them, "
			         "and the memory it sees is the Sentry's whole footprint, gVisor's own included");
		*argv = dup_argv(presets[i].argv);
		/* started by env -i, whose PATH is the sandbox's: bwrap by its place */
		for (char **a = *argv; !strcmp(name, "bwrap") && *a; a++)
			if (!strcmp(*a, "bwrap")) {
				char at[PATH_MAX];
				if (on_path_at("bwrap", at, sizeof at)) {
					free(*a);
					*a = strdup(at);
				}
				break;
			}
		return 0;
	}
	return -1;
}

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
				if (ev->canaries_leaked > 0)
					sb_printf(
					    b, "the caller's secrets were readable inside: %d of %d came out, from %s",
					    ev->canaries_leaked, ev->canaries_planted, ev->leak_places);
				else
					sb_puts(b, r->headline);
				break;
			case THREAT_EXFIL:
				/* the sink the verdict named: the attacker, else api.lab.test,
				 * else the DNS zone (the headline says it) */
				if (!ev->attacker_bytes && !ev->api_bytes) {
					sb_puts(b, r->headline);
					break;
				}
				fmt_thousands(a, sizeof a, ev->attacker_bytes ? ev->attacker_bytes : ev->api_bytes);
				sb_printf(b, "%s on the host's 127.0.0.1 received %s bytes%s",
				          ev->attacker_bytes ? "the attacker" : "api.lab.test", a,
				          (ev->attacker_bytes ? ev->attacker_got_canary : ev->api_got_canary)
				              ? " with the customer data's canary row"
				              : "");
				break;
			case THREAT_TAKEOVER:
				/* from the evidence: the snippet's header may name another threat */
				if (ev->host_target_written)
					sb_printf(b, "the sandbox wrote outside its folder: %s", ev->host_target);
				else if (ev->work_planted[0])
					sb_printf(b, "%s: it left %s in the work folder on the host", r->snippet,
					          ev->work_planted);
				else if (ev->outlived > 0)
					sb_printf(
					    b, "%s: %d process%s of the snippet's (%s) outlived the wrapper's command",
					    r->snippet, ev->outlived, ev->outlived == 1 ? "" : "es", ev->outlived_what);
				else if (ev->agent_conns > 0)
					sb_printf(b, "%s: it reached your ssh-agent's socket (~/.ssh/agent.sock)%s",
					          r->snippet, ev->agent_requests ? " and asked it for your keys" : "");
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
		if (r->ev.cpu_proc_seen)
			sb_printf(&b, "%.3f", r->ev.cpu_proc_max_ms / 1000.0);
		else
			sb_puts(&b, "null");
		sb_printf(&b,
		          ",\"peak_procs\":%ld,\"peak_mem\":%llu,\"cpu_s\":%.3f,\"duration_ms\":%ld,"
		          "\"canaries_leaked\":%d,\"attacker_bytes\":%llu,\"host_target_written\":%s}",
		          r->ev.peak_procs, (unsigned long long)r->ev.peak_mem, r->ev.cpu_s, r->ev.duration_ms,
		          r->ev.canaries_leaked, (unsigned long long)r->ev.attacker_bytes,
		          r->ev.host_target_written ? "true" : "false");
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
