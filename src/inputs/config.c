/* config.c — layers.ini, read strictly. Every knob has a built-in default and
 * one row in config_keys[]: its section, key, type, bounds and field. That
 * table drives parsing, the lists of known keys and the error texts. A file
 * may only override known keys, each once, with well-formed values in range;
 * every problem is reported as FILE:LINE: what is wrong, at the line it is
 * about. */
#define _GNU_SOURCE
#include "config.h"
#include "system.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LAB_SHAREDIR
#define LAB_SHAREDIR "/usr/local/share/containment-lab"
#endif

/* A layers.ini is a few hundred bytes; anything near this is not one. */
#define CONFIG_MAX_BYTES ((size_t)64 << 10)

struct lab_setup lab_setup_default(const struct lab_config *cfg)
{
	struct lab_setup setup = {
	    .rung = cfg->default_rung, .net_mode = cfg->default_net_mode, .approve = APPROVE_NEVER};
	for (int i = 0; i < LAYER_COUNT; i++)
		if (cfg->layer_default[i])
			setup.layers |= LAYER_BIT(i);
	return setup;
}

void config_defaults(struct lab_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	for (int i = 0; i < LAYER_COUNT; i++)
		cfg->layer_default[i] = true;
	cfg->tmp_size = 64ull << 20;
	str_copy(cfg->hostname, sizeof cfg->hostname, "sandbox");
	cfg->outside_uid = LAB_OUTSIDE_UID_AUTO; /* a uid of each run's own (run_uid.h) */
	const char *allow[] = {"PATH", "LANG", "LC_ALL", "TZ"};
	for (size_t i = 0; i < sizeof allow / sizeof *allow; i++)
		str_copy(cfg->env_allow[cfg->n_env_allow++], LAB_ENV_NAME_MAX, allow[i]);
	str_copy(cfg->clean_home, sizeof cfg->clean_home, "/tmp");
	cfg->default_rung = RUNG_CONTAINER;
	cfg->default_net_mode = NET_MODE_NONE;
	str_copy(cfg->net_allow[cfg->n_net_allow++], LAB_NET_HOST_MAX, "api.lab.test:80");
	cfg->limits = (struct lab_limits){
	    .memory = 256ull << 20,
	    .pids = 32,
	    .cpu = 0.5,
	    .cpu_time = 2,
	    .timeout_ms = 5000,
	    .output = 64 << 10,
	    .file_size = 1 << 20,
	    .open_files = 64,
	};
	cfg->safety_timeout_ms = 30000;
	cfg->safety_output = 1 << 20;
	cfg->audit_tolerance_pct = 10;
	str_copy(cfg->python, sizeof cfg->python, "/usr/bin/python3");
}

/* ---- values: decimal only (no hex, no exponent, no sign), locale-free ---- */

/* DIGITS[.DIGITS] at s; *end is where it stopped. -EINVAL when s does not
 * start with a digit or a '.' has no digits after it. */
static int parse_decimal(const char *s, double *v, const char **end)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	double x = 0;
	for (; isdigit((unsigned char)*s); s++)
		x = x * 10 + (*s - '0');
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		for (double scale = 0.1; isdigit((unsigned char)*s); s++, scale /= 10)
			x += (*s - '0') * scale;
	}
	*v = x;
	*end = s;
	return 0;
}

/* DIGITS only; -ERANGE past UINT64_MAX. */
static int parse_whole(const char *s, uint64_t *out, const char **end)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	uint64_t v = 0;
	bool overflow = false;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			v = v * 10 + d;
	}
	*end = s;
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v = 0;
	int rc = parse_whole(s, &v, &end);
	if (rc == -EINVAL)
		return rc;
	uint64_t mul = 1;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K':
			mul = 1ull << 10;
			break;
		case 'M':
			mul = 1ull << 20;
			break;
		case 'G':
			mul = 1ull << 30;
			break;
		default:
			return -EINVAL;
		}
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -EINVAL;
	}
	/* well-formed but too big to count: out of range, not malformed */
	if (rc == -ERANGE || v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int parse_duration_ms(const char *s, long *out)
{
	const char *end;
	double v;
	if (parse_decimal(s, &v, &end) < 0)
		return -EINVAL;
	double mul;
	if (!strcmp(end, "ms"))
		mul = 1;
	else if (!strcmp(end, "s") || !*end) /* bare numbers are seconds */
		mul = 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60000;
	else if (!strcmp(end, "h"))
		mul = 3600 * 1000;
	else
		return -EINVAL;
	if (!isfinite(v) || v * mul > 24.0 * 3600 * 1000)
		return -ERANGE;
	*out = (long)(v * mul);
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	if (!strcasecmp(s, "on") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcmp(s, "1"))
		*out = true;
	else if (!strcasecmp(s, "off") || !strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcmp(s, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

/* Bounds as a reader writes them: 16M, 64G, 100ms, 1h. */
static void fmt_size_bound(char *out, size_t cap, uint64_t n)
{
	fmt_size_exact(out, cap, n, "GMK", "", " bytes");
}

static void fmt_ms_bound(char *out, size_t cap, long ms)
{
	if (ms >= 3600000 && ms % 3600000 == 0)
		snprintf(out, cap, "%ldh", ms / 3600000);
	else if (ms >= 60000 && ms % 60000 == 0)
		snprintf(out, cap, "%ldmin", ms / 60000);
	else if (ms >= 1000 && ms % 1000 == 0)
		snprintf(out, cap, "%lds", ms / 1000);
	else
		snprintf(out, cap, "%ldms", ms);
}

/* ---- the table ---- */

enum key_kind {
	KEY_LAYER,     /* bool: a layer on or off by default */
	KEY_SIZE,      /* uint64_t bytes */
	KEY_MS,        /* long milliseconds, written as a duration */
	KEY_SECONDS,   /* long whole seconds (rounded up), written as a duration */
	KEY_COUNT,     /* long, decimal */
	KEY_UID,       /* long: "auto" (LAB_OUTSIDE_UID_AUTO) or a uid, decimal */
	KEY_CORES,     /* double */
	KEY_PERCENT,   /* long whole percent, "10%" or "10" */
	KEY_HOSTNAME,  /* char[]: one word */
	KEY_RUNG,      /* enum lab_rung: a rung of the isolation ladder, by name */
	KEY_NAMES,     /* the env allow-list */
	KEY_NETMODE,   /* enum lab_net_mode: No-network's setting, by name */
	KEY_HOSTPORTS, /* the proxy's allow-list: host:port pairs */
	KEY_ABSPATH,   /* char[]: an absolute path, taken as written */
	KEY_PATH,      /* char[]: a path, relative ones beside the file */
	KEY_PROGRAM,   /* KEY_PATH that must be an executable file now */
};

struct config_key {
	const char *section, *key;
	enum key_kind kind;
	double lo, hi; /* bytes, ms, count or cores */
	size_t offset, size;
	const char *expect; /* what a well-formed value looks like */
};

#define FIELD(f) offsetof(struct lab_config, f), sizeof(((struct lab_config *)0)->f)

_Static_assert(LAYER_COUNT == 4, "one [layers] row per layer");

static const struct config_key config_keys[] = {
    {"layers", "isolation", KEY_LAYER, 0, 0, FIELD(layer_default[LAYER_ISOLATION]), "on or off"},
    {"layers", "network", KEY_LAYER, 0, 0, FIELD(layer_default[LAYER_NETWORK]), "on or off"},
    {"layers", "env", KEY_LAYER, 0, 0, FIELD(layer_default[LAYER_ENV]), "on or off"},
    {"layers", "limits", KEY_LAYER, 0, 0, FIELD(layer_default[LAYER_LIMITS]), "on or off"},
    {"isolation", "tmp_size", KEY_SIZE, 1 << 20, 16.0 * (1 << 30), FIELD(tmp_size), "a size like 64M"},
    {"isolation", "hostname", KEY_HOSTNAME, 0, 0, FIELD(hostname), "a host name without spaces or '/'"},
    {"isolation", "outside_uid", KEY_UID, 1, 4294967294.0, FIELD(outside_uid),
     "auto or an unprivileged uid like 65534"},
    {"isolation", "rung", KEY_RUNG, 0, 0, FIELD(default_rung), "in-process, container, gvisor or microvm"},
    {"isolation", "kernel", KEY_ABSPATH, 0, 0, FIELD(guest_kernel), "the absolute path of a guest kernel"},
    {"network", "mode", KEY_NETMODE, 0, 0, FIELD(default_net_mode), "none or allowlist"},
    {"network", "allow", KEY_HOSTPORTS, 0, LAB_NET_ALLOW_MAX, FIELD(net_allow), "host:port pairs like api.lab.test:80"},
    {"env", "allow", KEY_NAMES, 0, LAB_ENV_ALLOW_MAX, FIELD(env_allow), "variable names like PATH LANG"},
    {"env", "home", KEY_ABSPATH, 0, 0, FIELD(clean_home), "an absolute path"},
    {"limits", "memory", KEY_SIZE, 16 << 20, 64.0 * (1 << 30), FIELD(limits.memory), "a size like 256M"},
    {"limits", "pids", KEY_COUNT, 1, 4096, FIELD(limits.pids), "a count like 32"},
    {"limits", "cpu", KEY_CORES, 0.01, 1024, FIELD(limits.cpu), "cores as a number like 0.5"},
    {"limits", "cpu_time", KEY_SECONDS, 1000, 3600 * 1000, FIELD(limits.cpu_time), "a duration like 2s"},
    {"limits", "timeout", KEY_MS, 100, 3600 * 1000, FIELD(limits.timeout_ms), "a duration like 5s or 500ms"},
    {"limits", "output", KEY_SIZE, 1024, 64 << 20, FIELD(limits.output), "a size like 64K"},
    {"limits", "file_size", KEY_SIZE, 4096, 16.0 * (1 << 30), FIELD(limits.file_size), "a size like 1M"},
    {"limits", "open_files", KEY_COUNT, 16, 65536, FIELD(limits.open_files), "a count like 64"},
    {"safety", "timeout", KEY_MS, 1000, 3600 * 1000, FIELD(safety_timeout_ms), "a duration like 30s"},
    {"safety", "slots", KEY_COUNT, 0, 1024, FIELD(safety_slots), "a count like 2 (0: no bound)"},
    {"safety", "output", KEY_SIZE, 4096, 256 << 20, FIELD(safety_output), "a size like 1M"},
    {"audit", "tolerance", KEY_PERCENT, 0, 50, FIELD(audit_tolerance_pct), "a percentage like 10%"},
    {"paths", "snippets", KEY_PATH, 0, 0, FIELD(snippets_dir), "a folder"},
    {"paths", "python", KEY_PROGRAM, 0, 0, FIELD(python), "a path to python3"},
};
#define N_KEYS (sizeof config_keys / sizeof *config_keys)

static const char *const config_sections[] = {"layers", "isolation", "network", "env",
                                              "limits", "safety",    "audit",   "paths"};
#define N_SECTIONS (sizeof config_sections / sizeof *config_sections)

/* ---- reading ---- */

#define MAX_ERRORS 8

struct ini_state {
	struct lab_config *cfg;
	char dir[PATH_MAX]; /* folder of the file, for relative paths */
	/* The reader's cursor. inih asks for one line at a time and calls the
	 * handler before asking for the next, so the handler is always about
	 * line `lineno`, the one the reader handed out last. */
	char *next, *end;
	int lineno;
	char section[64];
	bool section_ok;  /* false after a bad header: its keys say nothing new */
	int seen[N_KEYS]; /* line where each key was given, 0 = not yet */
	char scratch[2][80];
	struct {
		int line;
		char msg[300];
	} errors[MAX_ERRORS];
	int n_errors, n_more;
};

__attribute__((format(printf, 2, 3))) static int config_error(struct ini_state *st, const char *fmt, ...)
{
	if (st->n_errors == MAX_ERRORS) {
		st->n_more++;
		return 0;
	}
	st->errors[st->n_errors].line = st->lineno;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->errors[st->n_errors].msg, sizeof st->errors[0].msg, fmt, ap);
	va_end(ap);
	st->n_errors++;
	return 0;
}

/* A value as quoted in a message: long ones are cut, visibly. */
static const char *shown(struct ini_state *st, int slot, const char *v)
{
	char *out = st->scratch[slot];
	size_t cap = sizeof st->scratch[slot], n = strlen(v);
	if (n < cap)
		return v;
	snprintf(out, cap, "%.40s... (%zu characters)", v, n);
	return out;
}

static char *rstrip(char *s)
{
	char *p = s + strlen(s);
	while (p > s && isspace((unsigned char)p[-1]))
		*--p = '\0';
	return s;
}

static char *lskip(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* inih's own rule: the first of chars, or a ';' after whitespace (an inline
 * comment), or the end. */
static char *find_chars_or_comment(char *s, const char *chars)
{
	bool was_space = false;
	while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

/* How a bound of k's kind is written in a message: 16M, 1h, 4096, 0.01. */
static void fmt_bound(char *out, size_t cap, enum key_kind kind, double b)
{
	if (kind == KEY_SIZE)
		fmt_size_bound(out, cap, (uint64_t)b);
	else if (kind == KEY_MS || kind == KEY_SECONDS)
		fmt_ms_bound(out, cap, (long)b);
	else if (kind == KEY_CORES)
		snprintf(out, cap, "%g", b);
	else if (kind == KEY_PERCENT)
		snprintf(out, cap, "%.0f%%", b);
	else
		snprintf(out, cap, "%.0f", b);
}

/* The numbers (sizes, durations, counts, cores): each parsed as its kind,
 * then refused the same way, as not of that kind or outside the key's
 * range with the bounds written as the kind is. */
static int set_number(struct ini_state *st, const struct config_key *k, const char *v, const char *sv, void *field)
{
	uint64_t n = 0;
	long ms = 0;
	double c = 0;
	const char *end = "";
	bool in_range;
	int rc;
	switch (k->kind) {
	case KEY_SIZE:
		rc = parse_size(v, &n);
		in_range = n >= (uint64_t)k->lo && n <= (uint64_t)k->hi;
		break;
	case KEY_COUNT:
	case KEY_UID:
	case KEY_PERCENT:
		rc = parse_whole(v, &n, &end);
		if (k->kind == KEY_PERCENT && *end == '%')
			end++;
		in_range = n >= (uint64_t)k->lo && n <= (uint64_t)k->hi;
		break;
	case KEY_CORES:
		rc = parse_decimal(v, &c, &end) < 0 ? -EINVAL : 0;
		in_range = c >= k->lo && c <= k->hi;
		break;
	default: /* KEY_MS, KEY_SECONDS */
		rc = parse_duration_ms(v, &ms);
		in_range = ms >= (long)k->lo && ms <= (long)k->hi;
		break;
	}
	if (rc == -EINVAL || *end)
		return config_error(st, "%s = %s: expected %s", k->key, sv, k->expect);
	if (rc < 0 || !in_range) {
		char lo[32], hi[32];
		fmt_bound(lo, sizeof lo, k->kind, k->lo);
		fmt_bound(hi, sizeof hi, k->kind, k->hi);
		return config_error(st, "%s = %s: out of range (%s-%s)", k->key, sv, lo, hi);
	}
	if (k->kind == KEY_SIZE)
		*(uint64_t *)field = n;
	else if (k->kind == KEY_COUNT || k->kind == KEY_UID || k->kind == KEY_PERCENT)
		*(long *)field = (long)n;
	else if (k->kind == KEY_CORES)
		*(double *)field = c;
	else
		*(long *)field = k->kind == KEY_MS ? ms : (ms + 999) / 1000;
	return 1;
}

/* A word or an absolute path kept as written, in a char[k->size]. */
static int set_text(struct ini_state *st, const struct config_key *k, const char *v, const char *sv, void *field)
{
	bool well_formed = k->kind == KEY_HOSTNAME ? *v && !strpbrk(v, " /\t") : v[0] == '/';
	if (!well_formed)
		return config_error(st, "%s = %s: expected %s", k->key, sv, k->expect);
	if (strlen(v) >= k->size)
		return config_error(st, "%s = %s: too long (%zu characters; at most %zu)", k->key, sv, strlen(v),
		                    k->size - 1);
	str_copy(field, k->size, v);
	return 1;
}

/* [env] allow: every name checked before the list replaces the old one. */
static int set_names(struct ini_state *st, const struct config_key *k, const char *v)
{
	const char *key = k->key;
	struct lab_config *cfg = st->cfg;
	int n = 0;
	char *list = strdup(v);
	if (!list)
		return config_error(st, "%s: out of memory", key);
	char names[LAB_ENV_ALLOW_MAX][LAB_ENV_NAME_MAX];
	int ok = 1;
	for (char *save = NULL, *tok = strtok_r(list, " ,\t", &save); tok && ok; tok = strtok_r(NULL, " ,\t", &save)) {
		for (const char *p = tok; *p && ok; p++)
			if (!(isalnum((unsigned char)*p) || *p == '_'))
				ok = config_error(st, "%s: '%s' is not a variable name", key, shown(st, 1, tok));
		if (ok && strlen(tok) >= LAB_ENV_NAME_MAX)
			ok = config_error(st, "%s: '%s' is too long (%zu characters; at most %d)", key,
			                  shown(st, 1, tok), strlen(tok), LAB_ENV_NAME_MAX - 1);
		if (ok && n == LAB_ENV_ALLOW_MAX)
			ok = config_error(st, "%s: more than %d names", key, LAB_ENV_ALLOW_MAX);
		if (ok)
			str_copy(names[n++], LAB_ENV_NAME_MAX, tok);
	}
	free(list);
	if (!ok)
		return 0;
	memcpy(cfg->env_allow, names, sizeof names);
	cfg->n_env_allow = n;
	return 1;
}

/* One host:port of [network] allow: a DNS name (letters, digits, '-', '.')
 * and a port 1-65535. NULL, or why not. */
static const char *bad_hostport(const char *tok)
{
	const char *colon = strrchr(tok, ':');
	if (!colon || colon == tok)
		return "expected host:port";
	for (const char *p = tok; p < colon; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '.'))
			return "a host name holds only letters, digits, '-' and '.'";
	char *end;
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (!isdigit((unsigned char)colon[1]) || *end || errno || port < 1 || port > 65535)
		return "the port must be a number 1-65535";
	if (strlen(tok) >= LAB_NET_HOST_MAX)
		return "too long";
	return NULL;
}

/* A checked pair as the proxy's matcher spells it (config_net_allowed
 * prints "%s:%d"): "api.lab.test:080" must match port 80, not nothing. */
static void hostport_canonical(char out[LAB_NET_HOST_MAX], const char *tok)
{
	const char *colon = strrchr(tok, ':');
	snprintf(out, LAB_NET_HOST_MAX, "%.*s:%ld", (int)(colon - tok), tok, strtol(colon + 1, NULL, 10));
}

/* [network] allow: every pair checked before the list replaces the old one
 * (an empty list is allowed: then the proxy refuses everything). */
static int set_hostports(struct ini_state *st, const struct config_key *k, const char *v)
{
	struct lab_config *cfg = st->cfg;
	char pairs[LAB_NET_ALLOW_MAX][LAB_NET_HOST_MAX];
	int n = 0, ok = 1;
	char *list = strdup(v);
	if (!list)
		return config_error(st, "%s: out of memory", k->key);
	for (char *save = NULL, *tok = strtok_r(list, " ,\t", &save); tok && ok; tok = strtok_r(NULL, " ,\t", &save)) {
		const char *why = bad_hostport(tok);
		if (why)
			ok = config_error(st, "%s: '%s': %s", k->key, shown(st, 1, tok), why);
		else if (n == LAB_NET_ALLOW_MAX)
			ok = config_error(st, "%s: more than %d host:port pairs", k->key, LAB_NET_ALLOW_MAX);
		else
			hostport_canonical(pairs[n++], tok);
	}
	free(list);
	if (!ok)
		return 0;
	memcpy(cfg->net_allow, pairs, sizeof pairs);
	cfg->n_net_allow = n;
	return 1;
}

bool config_net_allowed(const struct lab_config *cfg, const char *host, int port)
{
	char want[LAB_NET_HOST_MAX + 16];
	snprintf(want, sizeof want, "%s:%d", host, port);
	for (int i = 0; i < cfg->n_net_allow; i++)
		if (!strcasecmp(cfg->net_allow[i], want))
			return true;
	return false;
}

void config_net_rule(const struct lab_config *cfg, char *out, size_t cap)
{
	str_copy(out, cap, "allow =");
	for (int i = 0; i < cfg->n_net_allow; i++)
		str_append(out, cap, " %s", cfg->net_allow[i]);
	if (!cfg->n_net_allow)
		str_append(out, cap, " (nothing)");
}

/* A path, relative ones beside the file; a program must be there now. */
static int set_path(struct ini_state *st, const struct config_key *k, const char *v, const char *sv, void *field)
{
	const char *key = k->key;
	char *target = field;
	if (!*v)
		return config_error(st, "%s: empty path", key);
	int rc =
	    v[0] == '/' || !st->dir[0] ? pathf(target, k->size, "%s", v) : pathf(target, k->size, "%s/%s", st->dir, v);
	if (rc < 0)
		return config_error(st, "%s = %s: path too long (at most %zu characters)", key, sv, k->size - 1);
	if (k->kind == KEY_PATH)
		return 1;
	/* checked now, not when the first snippet fails to start */
	struct stat sb;
	const char *why = NULL;
	if (stat(target, &sb) < 0)
		why = errno == ENOENT ? "no such file" : strerror(errno);
	else if (!S_ISREG(sb.st_mode))
		why = "not a regular file";
	else if (access(target, X_OK) < 0)
		why = "not executable";
	if (why && !strcmp(target, v))
		return config_error(st, "%s = %s: %s", key, sv, why);
	if (why) /* relative: say where it was looked for */
		return config_error(st, "%s = %s (%s): %s", key, sv, shown(st, 1, target), why);
	return 1;
}

static int set_value(struct ini_state *st, const struct config_key *k, const char *v)
{
	void *field = (char *)st->cfg + k->offset;
	const char *sv = shown(st, 0, v);
	switch (k->kind) {
	case KEY_LAYER:
		if (parse_bool(v, field) < 0)
			return config_error(st, "%s = %s: expected %s", k->key, sv, k->expect);
		return 1;
	case KEY_SIZE:
	case KEY_MS:
	case KEY_SECONDS:
	case KEY_COUNT:
	case KEY_CORES:
	case KEY_PERCENT:
		return set_number(st, k, v, sv, field);
	case KEY_UID:
		if (!strcmp(v, "auto")) {
			*(long *)field = LAB_OUTSIDE_UID_AUTO;
			return 1;
		}
		return set_number(st, k, v, sv, field);
	case KEY_HOSTNAME:
	case KEY_ABSPATH:
		return set_text(st, k, v, sv, field);
	case KEY_RUNG: {
		int rung = lab_rung_by_key(v);
		if (rung < 0)
			return config_error(st, "%s = %s: expected %s", k->key, sv, k->expect);
		*(enum lab_rung *)field = rung;
		return 1;
	}
	case KEY_NAMES:
		return set_names(st, k, v);
	case KEY_NETMODE: {
		int mode = lab_net_mode_by_key(v);
		if (mode < 0)
			return config_error(st, "%s = %s: expected %s", k->key, sv, k->expect);
		*(enum lab_net_mode *)field = mode;
		return 1;
	}
	case KEY_HOSTPORTS:
		return set_hostports(st, k, v);
	case KEY_PATH:
	case KEY_PROGRAM:
		return set_path(st, k, v, sv, field);
	}
	return config_error(st, "%s: unhandled kind of key", k->key);
}

static void known_keys(char *out, size_t cap, const char *section)
{
	out[0] = '\0';
	for (size_t i = 0; i < N_KEYS; i++)
		if (!strcmp(config_keys[i].section, section))
			str_append(out, cap, "%s%s", out[0] ? ", " : "", config_keys[i].key);
}

static int config_set(struct ini_state *st, const char *name, const char *value)
{
	if (!st->section_ok) /* its header was refused already */
		return 1;
	const char *section = st->section;
	for (size_t i = 0; i < N_KEYS; i++) {
		const struct config_key *k = &config_keys[i];
		if (strcmp(k->section, section) != 0 || strcmp(k->key, name) != 0)
			continue;
		if (st->seen[i])
			return config_error(st, "'%s' given twice (first at line %d)", name, st->seen[i]);
		st->seen[i] = st->lineno;
		return set_value(st, k, value);
	}
	char known[200];
	known_keys(known, sizeof known, section);
	const char *sn = shown(st, 0, name);
	if (!strcmp(section, "layers"))
		return config_error(st, "[layers] unknown layer '%s' (known: %s)", sn, known);
	if (!known[0])
		return config_error(st, "[%s] has no keys: the namespace simply has no interface ('%s')", section, sn);
	return config_error(st, "[%s] unknown key '%s' (known: %s)", section, sn, known);
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	(void)section; /* the reader tracks it, refused headers included */
	if (!name)     /* a header alone, in builds of inih that report them */
		return 1;
	return config_set(user, name, value);
}

/* The reader inih pulls lines through. inih keeps its line buffer (about
 * 200 bytes) compiled in and splits longer lines, which would shift every
 * later line number and parse a tail as a line of its own. So each line is
 * checked here, whole: blank lines and comments of any length reach inih as
 * an empty line; headers and malformed lines are judged here, with their own
 * message and line; a key line that fits is passed as it is, one that does
 * not is split here by inih's rule and goes to the same handler. Lines are
 * handed over left-trimmed, so an indented line is never taken as the
 * continuation of the key above it. */
static char *read_line(char *buf, int num, void *stream)
{
	struct ini_state *st = stream;
	if (st->next >= st->end)
		return NULL;
	char *line = st->next, *nl = memchr(line, '\n', (size_t)(st->end - line));
	if (nl) {
		*nl = '\0';
		st->next = nl + 1;
	} else {
		st->next = st->end; /* the buffer has a NUL after the end */
	}
	st->lineno++;
	if (st->lineno == 1 && !strncmp(line, "\xEF\xBB\xBF", 3))
		line += 3;
	char *s = rstrip(lskip(line));
	snprintf(buf, (size_t)num, "\n");
	if (!*s || *s == ';' || *s == '#')
		return buf;
	if (*s == '[') {
		char *close = find_chars_or_comment(s + 1, "]");
		st->section_ok = false;
		snprintf(st->section, sizeof st->section, "?");
		if (*close != ']') {
			config_error(st, "%s: missing ']' (a section header is [name])", shown(st, 0, s));
			return buf;
		}
		*close = '\0';
		char *rest = lskip(close + 1);
		if (*rest && *rest != ';' && *rest != '#') {
			config_error(st, "[%s]: unexpected text after ']'", shown(st, 0, s + 1));
			return buf;
		}
		for (size_t i = 0; i < N_SECTIONS; i++)
			if (!strcmp(s + 1, config_sections[i])) {
				str_copy(st->section, sizeof st->section, s + 1);
				st->section_ok = true;
				snprintf(buf, (size_t)num, "[%s]\n", s + 1);
				return buf;
			}
		config_error(st, "unknown section [%s] (known: layers, isolation, network, env, limits, safety, paths)",
		             shown(st, 0, s + 1));
		return buf;
	}
	char *eq = find_chars_or_comment(s, "=:");
	if (*eq != '=' && *eq != ':') {
		config_error(st, "'%s': expected key = value or [section]", shown(st, 0, s));
		return buf;
	}
	if (!st->section[0]) {
		*eq = '\0';
		const char *under = NULL;
		for (size_t i = 0; i < N_KEYS && !under; i++)
			if (!strcmp(config_keys[i].key, rstrip(s)))
				under = config_keys[i].section;
		if (under)
			config_error(st, "'%s' is outside any section (it belongs under [%s])", s, under);
		else
			config_error(st, "'%s' is outside any section", shown(st, 0, s));
		return buf;
	}
	if (strlen(s) + 2 <= (size_t)num) {
		snprintf(buf, (size_t)num, "%s\n", s);
		return buf;
	}
	*eq = '\0';
	char *value = eq + 1;
	*find_chars_or_comment(value, NULL) = '\0';
	config_set(st, rstrip(s), rstrip(lskip(value)));
	return buf;
}

enum {
	READ_NAMED = 0,       /* --config FILE: the user's choice */
	READ_FOUND = 1,       /* a place looked in: no file there is no error */
	READ_CHECK_OWNER = 2, /* found where someone else could leave a file */
};

/* A place looked in whose folder the user may not search (sudo -u, setpriv
 * and su without - keep HOME, often a 0700 /root): nothing of ours can be
 * there, so it is skipped, with one line that says so. A file that exists
 * but cannot be read is still an error (stat sees it then). */
static bool folder_closed(const char *path, int open_errno)
{
	struct stat st;
	if (open_errno != EACCES || stat(path, &st) == 0 || errno != EACCES)
		return false;
	fprintf(stderr,
	        "containment-lab: %s: skipped, a folder on the way cannot be searched (%s); set XDG_CONFIG_HOME or "
	        "HOME to your own, or pass --config FILE\n",
	        path, strerror(EACCES));
	return true;
}

/* Opens path without ever blocking (a FIFO, a tty) and reads it whole if it
 * is a regular file of sane size. With READ_CHECK_OWNER it must also be the
 * euid's (or root's) and not writable by group or others. Returns a
 * NUL-terminated buffer, or NULL with err filled; with READ_FOUND, NULL and
 * err empty when there is no such file. */
static char *config_read(const char *path, int how, size_t *len, char *err, size_t errlen)
{
	err[0] = '\0';
	bool trusted = how & READ_CHECK_OWNER;
	int fd cleanup_close = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (!(how & READ_FOUND) || (e != ENOENT && e != ENOTDIR && !folder_closed(path, e)))
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(sb.st_mode)) {
		const char *what = S_ISDIR(sb.st_mode)    ? "a directory"
		                   : S_ISFIFO(sb.st_mode) ? "a FIFO"
		                   : S_ISCHR(sb.st_mode)  ? "a character device"
		                   : S_ISBLK(sb.st_mode)  ? "a block device"
		                   : S_ISSOCK(sb.st_mode) ? "a socket"
		                                          : "not a regular file";
		snprintf(err, errlen, "%s: is %s; a layers.ini must be a regular file", path, what);
		errno = EINVAL;
		return NULL;
	}
	if (trusted && sb.st_uid != geteuid() && sb.st_uid != 0) {
		snprintf(err, errlen,
		         "%s: not used: it belongs to uid %u, neither you (uid %u) nor root, so it may "
		         "not be yours to trust; pass --config %s to use it anyway",
		         path, (unsigned)sb.st_uid, (unsigned)geteuid(), path);
		errno = EPERM;
		return NULL;
	}
	if (trusted && (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen,
		         "%s: not used: it is writable by %s (mode %04o), so others could change it; "
		         "run chmod go-w on it, or pass --config %s to use it anyway",
		         path, (sb.st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(sb.st_mode & 07777), path);
		errno = EPERM;
		return NULL;
	}
	char *buf = malloc(CONFIG_MAX_BYTES + 2);
	size_t n = 0;
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, CONFIG_MAX_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > CONFIG_MAX_BYTES) {
			snprintf(err, errlen, "%s: larger than %zu KiB; a layers.ini is a few hundred bytes", path,
			         CONFIG_MAX_BYTES >> 10);
			free(buf);
			errno = EFBIG;
			return NULL;
		}
	}
	buf[n] = '\0';
	const char *nul = memchr(buf, '\0', n);
	if (nul) {
		int line = 1;
		for (const char *p = buf; p < nul; p++)
			line += *p == '\n';
		snprintf(err, errlen, "%s:%d: contains a NUL byte; a layers.ini is text", path, line);
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	*len = n;
	return buf;
}

/* Every error, first one first, as many whole lines as fit in err. */
static void report_errors(const struct ini_state *st, const char *path, char *err, size_t errlen)
{
	err[0] = '\0';
	int more = st->n_more;
	for (int i = 0; i < st->n_errors; i++) {
		char one[PATH_MAX + 400];
		snprintf(one, sizeof one, "%s%s:%d: %s", i ? "\n" : "", path, st->errors[i].line, st->errors[i].msg);
		if (i && strlen(err) + strlen(one) + 24 >= errlen) {
			more += st->n_errors - i;
			break;
		}
		str_append(err, errlen, "%s", one);
	}
	if (more)
		str_append(err, errlen, "\n(and %d more)", more);
}

/* Where the running binary lives, to find snippets/ and layers.ini beside it. */
static void exe_dir(char *out, size_t cap)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	str_copy(out, cap, buf);
}

static bool readable(const char *p)
{
	return access(p, R_OK) == 0;
}

/* snippets/ beside the config file, beside the binary (or its parent, for
 * build/ binaries), else the installed ones. */
static void default_snippets_dir(struct lab_config *cfg)
{
	char dir[PATH_MAX], cand[PATH_MAX + 16];
	if (cfg->path[0]) {
		str_copy(dir, sizeof dir, cfg->path);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			if (pathf(cand, sizeof cand, "%s/snippets", dir) == 0 && readable(cand)) {
				str_copy(cfg->snippets_dir, sizeof cfg->snippets_dir, cand);
				return;
			}
		}
	}
	exe_dir(dir, sizeof dir);
	if (dir[0] && pathf(cand, sizeof cand, "%s/snippets", dir) == 0 && readable(cand)) {
		str_copy(cfg->snippets_dir, sizeof cfg->snippets_dir, cand);
		return;
	}
	if (dir[0] && pathf(cand, sizeof cand, "%s/../snippets", dir) == 0 && readable(cand)) {
		str_copy(cfg->snippets_dir, sizeof cfg->snippets_dir, cand);
		return;
	}
	snprintf(cfg->snippets_dir, sizeof cfg->snippets_dir, "%s/snippets", LAB_SHAREDIR);
}

static int config_parse(struct lab_config *cfg, const char *path, char *text, size_t len, char *err, size_t errlen)
{
	struct ini_state *st = calloc(1, sizeof *st);
	if (!st) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	st->cfg = cfg;
	st->next = text;
	st->end = text + len;
	char *abs = realpath(path, NULL);
	str_copy(cfg->path, sizeof cfg->path, abs ? abs : path);
	if (abs) {
		char *slash = strrchr(abs, '/');
		if (slash)
			*slash = '\0';
		str_copy(st->dir, sizeof st->dir, abs);
		free(abs);
	}
	int line = ini_parse_stream(read_line, st, on_entry, st);
	if (line > 0 && !st->n_errors) { /* inih saw what the reader did not */
		st->lineno = line;
		config_error(st, "malformed line (expected [section] or key = value)");
	} else if (line < 0 && !st->n_errors) {
		config_error(st, "inih could not parse the file (error %d)", line);
	}
	int rc = st->n_errors ? -1 : 0;
	if (rc < 0)
		report_errors(st, path, err, errlen);
	free(st);
	return rc;
}

int config_load(struct lab_config *cfg, const char *file, char *err, size_t errlen)
{
	config_defaults(cfg);
	err[0] = '\0';
	char path[PATH_MAX] = "";
	char *text = NULL;
	size_t len = 0;
	if (file) {
		str_copy(path, sizeof path, file);
		text = config_read(path, READ_NAMED, &len, err, errlen);
		if (!text)
			return -1;
	} else {
		char dir[PATH_MAX], cand[4][PATH_MAX + 64];
		const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
		snprintf(cand[0], sizeof cand[0], "layers.ini");
		if (xdg && *xdg)
			snprintf(cand[1], sizeof cand[1], "%s/containment-lab/layers.ini", xdg);
		else if (home && *home)
			snprintf(cand[1], sizeof cand[1], "%s/.config/containment-lab/layers.ini", home);
		else
			cand[1][0] = '\0';
		exe_dir(dir, sizeof dir);
		snprintf(cand[2], sizeof cand[2], "%s/layers.ini", dir);
		snprintf(cand[3], sizeof cand[3], "%s/layers.ini", LAB_SHAREDIR);
		/* The first that exists is the one: a broken or untrusted file is
		 * refused, never skipped for the next. ./ and the XDG folder are
		 * where someone else could leave a file for us to find; beside
		 * the binary and PREFIX/share are the installer's. */
		for (int i = 0; i < 4 && !text; i++) {
			if (!cand[i][0])
				continue;
			text = config_read(cand[i], READ_FOUND | (i < 2 ? READ_CHECK_OWNER : 0), &len, err, errlen);
			if (!text && err[0])
				return -1;
			if (text)
				str_copy(path, sizeof path, cand[i]);
		}
	}
	if (text) {
		int rc = config_parse(cfg, path, text, len, err, errlen);
		free(text);
		if (rc < 0)
			return -1;
	}
	if (!cfg->snippets_dir[0])
		default_snippets_dir(cfg);
	if (cfg->limits.timeout_ms >= cfg->safety_timeout_ms)
		cfg->safety_timeout_ms = cfg->limits.timeout_ms + 1000;
	return 0;
}

/* --on/--off lists: any length, read in place, nothing cut. */
int layers_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = LAYERS_ALL;
		return 0;
	}
	if (!strcmp(list, "none") || !*list)
		return 0;
	int item = 1;
	for (const char *p = list;; item++) {
		const char *comma = strchrnul(p, ',');
		size_t n = (size_t)(comma - p);
		int l = -1;
		for (int i = 0; i < LAYER_COUNT && l < 0; i++)
			if (strlen(lab_layers[i].key) == n && !strncmp(p, lab_layers[i].key, n))
				l = i;
		if (n == 0) {
			snprintf(err, errlen,
			         "empty item %d in the layer list '%.40s%s': name layers separated by single "
			         "commas, like isolation,network",
			         item, list, strlen(list) > 40 ? "..." : "");
			return -1;
		}
		if (l < 0) {
			snprintf(err, errlen,
			         "unknown layer '%.*s%s': use isolation, network, env, limits, all or none",
			         n > 40 ? 40 : (int)n, p, n > 40 ? "..." : "");
			return -1;
		}
		*mask |= LAYER_BIT(l);
		if (!*comma)
			return 0;
		p = comma + 1;
	}
}
