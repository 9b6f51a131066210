/* prefix.c — the command prefixes `audit` runs the lesson's attacks
 * through: the shipped presets of other sandboxes, a prefix of the user's
 * own, and how a prefix's placeholders are filled. The runs are
 * lab_audit_run's (run.c with box_wrapper.c); the card is audit.c's. */
#define _GNU_SOURCE
#include "prefix.h"
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

int audit_preset(const char *name, const struct lab_config *cfg, const struct lab_setup *setup, char ***argv,
                 bool *outside_range, char *why, size_t whylen, char *note, size_t notelen)
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
		if (setup->net_mode == NET_MODE_ALLOWLIST)
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
