/* config.c — layers.ini, read strictly with inih. Every knob has a built-in
 * default; a file may only override known keys with well-formed values, and
 * the first problem is reported as FILE:LINE: what is wrong. */
#define _GNU_SOURCE
#include "lab.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef LAB_SHAREDIR
#define LAB_SHAREDIR "/usr/local/share/containment-lab"
#endif

void config_defaults(struct lab_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	for (int i = 0; i < LAYER_COUNT; i++)
		cfg->layer_default[i] = true;
	cfg->tmp_size = 64ull << 20;
	str_copy(cfg->hostname, sizeof cfg->hostname, "sandbox");
	cfg->outside_uid = 65534;
	const char *allow[] = {"PATH", "LANG", "LC_ALL", "TZ"};
	for (size_t i = 0; i < sizeof allow / sizeof *allow; i++)
		str_copy(cfg->env_allow[cfg->n_env_allow++], 64, allow[i]);
	str_copy(cfg->clean_home, sizeof cfg->clean_home, "/tmp");
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
	str_copy(cfg->python, sizeof cfg->python, "/usr/bin/python3");
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	uint64_t mul = 1;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mul = 1ull << 10; break;
		case 'M': mul = 1ull << 20; break;
		case 'G': mul = 1ull << 30; break;
		default: return -1;
		}
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -1;
	}
	if (v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

int parse_duration_ms(const char *s, long *out)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	double v = strtod(s, &end);
	if (errno || v < 0 || !isfinite(v))
		return -1;
	double mul = 1000; /* bare numbers are seconds */
	if (!strcmp(end, "ms"))
		mul = 1;
	else if (!strcmp(end, "s") || !*end)
		mul = 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60000;
	else
		return -1;
	if (v * mul > 24.0 * 3600 * 1000)
		return -1;
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

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

struct ini_state {
	struct lab_config *cfg;
	char msg[256];
	char dir[PATH_MAX]; /* folder of the file, for relative paths */
	bool env_allow_set;
};

#define FAIL(...)                                                  \
	do {                                                       \
		if (!st->msg[0])                                   \
			snprintf(st->msg, sizeof st->msg, __VA_ARGS__); \
		return 0;                                          \
	} while (0)

static int on_size(struct ini_state *st, const char *key, const char *v, uint64_t lo,
		   uint64_t hi, uint64_t *out)
{
	uint64_t n;
	if (parse_size(v, &n) < 0)
		FAIL("%s = %s: expected a size like 256M", key, v);
	if (n < lo || n > hi)
		FAIL("%s = %s: out of range (%llu to %llu bytes)", key, v,
		     (unsigned long long)lo, (unsigned long long)hi);
	*out = n;
	return 1;
}

static int on_duration(struct ini_state *st, const char *key, const char *v, long lo, long hi,
		       long *out)
{
	long ms;
	if (parse_duration_ms(v, &ms) < 0)
		FAIL("%s = %s: expected a duration like 5s or 500ms", key, v);
	if (ms < lo || ms > hi)
		FAIL("%s = %s: out of range (%ldms to %lds)", key, v, lo, hi / 1000);
	*out = ms;
	return 1;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct ini_state *st = user;
	struct lab_config *cfg = st->cfg;
	if (!name) /* a section header alone */
		goto check_section;
	if (!strcmp(section, "layers")) {
		int l = layer_by_key(name);
		if (l < 0)
			FAIL("[layers] unknown layer '%s' (known: isolation, network, env, limits)", name);
		if (parse_bool(value, &cfg->layer_default[l]) < 0)
			FAIL("%s = %s: expected on or off", name, value);
		return 1;
	}
	if (!strcmp(section, "isolation")) {
		if (!strcmp(name, "tmp_size"))
			return on_size(st, name, value, 1 << 20, 16ull << 30, &cfg->tmp_size);
		if (!strcmp(name, "hostname")) {
			if (!*value || strlen(value) >= sizeof cfg->hostname || strpbrk(value, " /\t"))
				FAIL("hostname = %s: expected a short name without spaces", value);
			str_copy(cfg->hostname, sizeof cfg->hostname, value);
			return 1;
		}
		if (!strcmp(name, "outside_uid")) {
			if (parse_long(value, 1, 4294967294L, &cfg->outside_uid) < 0)
				FAIL("outside_uid = %s: expected an unprivileged uid (1 or more)", value);
			return 1;
		}
		FAIL("[isolation] unknown key '%s' (known: tmp_size, hostname, outside_uid)", name);
	}
	if (!strcmp(section, "network"))
		FAIL("[network] has no keys: the namespace simply has no interface ('%s')", name);
	if (!strcmp(section, "env")) {
		if (!strcmp(name, "allow")) {
			cfg->n_env_allow = 0;
			char buf[1024];
			str_copy(buf, sizeof buf, value);
			for (char *save = NULL, *tok = strtok_r(buf, " ,\t", &save); tok;
			     tok = strtok_r(NULL, " ,\t", &save)) {
				for (const char *p = tok; *p; p++)
					if (!(isalnum((unsigned char)*p) || *p == '_'))
						FAIL("allow: '%s' is not a variable name", tok);
				if (cfg->n_env_allow >= 32)
					FAIL("allow: at most 32 names");
				str_copy(cfg->env_allow[cfg->n_env_allow++], 64, tok);
			}
			return 1;
		}
		if (!strcmp(name, "home")) {
			if (value[0] != '/' || strlen(value) >= sizeof cfg->clean_home)
				FAIL("home = %s: expected an absolute path", value);
			str_copy(cfg->clean_home, sizeof cfg->clean_home, value);
			return 1;
		}
		FAIL("[env] unknown key '%s' (known: allow, home)", name);
	}
	if (!strcmp(section, "limits")) {
		struct lab_limits *l = &cfg->limits;
		if (!strcmp(name, "memory"))
			return on_size(st, name, value, 16ull << 20, 64ull << 30, &l->memory);
		if (!strcmp(name, "pids")) {
			if (parse_long(value, 1, 4096, &l->pids) < 0)
				FAIL("pids = %s: expected a count from 1 to 4096", value);
			return 1;
		}
		if (!strcmp(name, "cpu")) {
			char *end;
			errno = 0;
			double c = strtod(value, &end);
			if (errno || end == value || *end || !(c >= 0.01 && c <= 1024))
				FAIL("cpu = %s: expected cores as a number like 0.5", value);
			l->cpu = c;
			return 1;
		}
		if (!strcmp(name, "cpu_time")) {
			long ms;
			if (on_duration(st, name, value, 1000, 3600 * 1000, &ms) == 0)
				return 0;
			l->cpu_time = (ms + 999) / 1000;
			return 1;
		}
		if (!strcmp(name, "timeout"))
			return on_duration(st, name, value, 100, 3600 * 1000, &l->timeout_ms);
		if (!strcmp(name, "output"))
			return on_size(st, name, value, 1024, 64ull << 20, &l->output);
		if (!strcmp(name, "file_size"))
			return on_size(st, name, value, 4096, 16ull << 30, &l->file_size);
		if (!strcmp(name, "open_files")) {
			if (parse_long(value, 16, 65536, &l->open_files) < 0)
				FAIL("open_files = %s: expected a count from 16 to 65536", value);
			return 1;
		}
		FAIL("[limits] unknown key '%s' (known: memory, pids, cpu, cpu_time, timeout, output, file_size, "
		     "open_files)", name);
	}
	if (!strcmp(section, "safety")) {
		if (!strcmp(name, "timeout"))
			return on_duration(st, name, value, 1000, 3600 * 1000, &cfg->safety_timeout_ms);
		if (!strcmp(name, "output"))
			return on_size(st, name, value, 4096, 256ull << 20, &cfg->safety_output);
		FAIL("[safety] unknown key '%s' (known: timeout, output)", name);
	}
	if (!strcmp(section, "paths")) {
		char *target = NULL;
		size_t cap = 0;
		if (!strcmp(name, "snippets"))
			target = cfg->snippets_dir, cap = sizeof cfg->snippets_dir;
		else if (!strcmp(name, "python"))
			target = cfg->python, cap = sizeof cfg->python;
		else
			FAIL("[paths] unknown key '%s' (known: snippets, python)", name);
		if (!*value)
			FAIL("%s: empty path", name);
		if (value[0] == '/' || !st->dir[0])
			snprintf(target, cap, "%s", value);
		else
			pathf(target, cap, "%s/%s", st->dir, value);
		return 1;
	}
check_section:
	if (!strcmp(section, "layers") || !strcmp(section, "isolation") || !strcmp(section, "network") ||
	    !strcmp(section, "env") || !strcmp(section, "limits") || !strcmp(section, "safety") ||
	    !strcmp(section, "paths"))
		return 1;
	if (!*section)
		FAIL("'%s' is outside any section", name ? name : "");
	FAIL("unknown section [%s] (known: layers, isolation, network, env, limits, safety, paths)", section);
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

static bool readable(const char *p) { return access(p, R_OK) == 0; }

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

int config_load(struct lab_config *cfg, const char *file, char *err, size_t errlen)
{
	config_defaults(cfg);
	char path[PATH_MAX] = "";
	if (file) {
		str_copy(path, sizeof path, file);
		if (!readable(path)) {
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
			return -1;
		}
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
		for (int i = 0; i < 4; i++)
			if (cand[i][0] && readable(cand[i])) {
				str_copy(path, sizeof path, cand[i]);
				break;
			}
	}
	if (path[0]) {
		struct ini_state st = {.cfg = cfg};
		char *abs = realpath(path, NULL);
		str_copy(cfg->path, sizeof cfg->path, abs ? abs : path);
		if (abs) {
			char *slash = strrchr(abs, '/');
			if (slash)
				*slash = '\0';
			str_copy(st.dir, sizeof st.dir, abs);
			free(abs);
		}
		int line = ini_parse(path, on_entry, &st);
		if (line == -1) {
			snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
			return -1;
		}
		if (line != 0) {
			snprintf(err, errlen, "%s:%d: %s", path, line,
				 st.msg[0] ? st.msg : "malformed line (expected [section] or key = value)");
			return -1;
		}
	}
	if (!cfg->snippets_dir[0])
		default_snippets_dir(cfg);
	if (cfg->limits.timeout_ms >= cfg->safety_timeout_ms)
		cfg->safety_timeout_ms = cfg->limits.timeout_ms + 1000;
	return 0;
}

int layers_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = LAYERS_ALL;
		return 0;
	}
	if (!strcmp(list, "none") || !*list)
		return 0;
	char buf[256];
	str_copy(buf, sizeof buf, list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int l = layer_by_key(tok);
		if (l < 0) {
			snprintf(err, errlen,
				 "unknown layer '%s': use isolation, network, env, limits, all or none", tok);
			return -1;
		}
		*mask |= LAYER_BIT(l);
	}
	return 0;
}
