/* snippet.c — snippets are plain files in snippets/ with a header of
 * `# lab:KEY: value` comment lines; they are discovered at run time so a
 * teacher can add one without rebuilding. */
#define _GNU_SOURCE
#include "lab.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const threat_keys[THREAT_COUNT] = {"legit", "resource", "secrets", "exfil", "takeover"};
static const char *const threat_names[THREAT_COUNT] = {
	"legitimate task", "resource bomb", "secret theft", "data exfiltration", "host takeover"};

const char *threat_key(enum lab_threat t) { return t < THREAT_COUNT ? threat_keys[t] : "?"; }
const char *threat_name(enum lab_threat t) { return t < THREAT_COUNT ? threat_names[t] : "?"; }

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

void snippet_free(struct snippet *s)
{
	free(s->code);
	s->code = NULL;
}

int snippet_load(struct snippet *s, const char *path, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->layer = -2;
	s->threat = THREAT_COUNT;
	size_t len;
	char *code = read_file(path, &len, 1 << 20);
	if (!code) {
		snprintf(err, errlen, "%s: cannot read snippet: %s", path, strerror(errno));
		return -1;
	}
	if (memchr(code, '\0', len)) {
		snprintf(err, errlen, "%s: not a text file", path);
		free(code);
		return -1;
	}
	str_copy(s->path, sizeof s->path, path);
	const char *base = strrchr(path, '/');
	str_copy(s->name, sizeof s->name, base ? base + 1 : path);
	char *dot = strrchr(s->name, '.');
	if (dot && dot != s->name)
		*dot = '\0';

	int lineno = 0;
	bool have_title = false;
	for (char *line = code, *next; line && *line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);
		if (next)
			next++;
		char buf[512];
		if (n >= sizeof buf)
			n = sizeof buf - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		char *l = trim(buf);
		if (!strncmp(l, "#!", 2) || !*l)
			continue;
		if (l[0] != '#')
			break; /* the header ends at the first line of code */
		char *body = trim(l + 1);
		if (strncmp(body, "lab:", 4))
			continue;
		char *colon = strchr(body + 4, ':');
		if (!colon) {
			snprintf(err, errlen, "%s:%d: malformed header line (expected '# lab:KEY: value')", path, lineno);
			goto fail;
		}
		*colon = '\0';
		char *key = trim(body + 4), *val = trim(colon + 1);
		if (!*val) {
			snprintf(err, errlen, "%s:%d: lab:%s has no value", path, lineno, key);
			goto fail;
		}
		if (!strcmp(key, "title")) {
			str_copy(s->title, sizeof s->title, val);
			have_title = true;
		} else if (!strcmp(key, "threat")) {
			s->threat = THREAT_COUNT;
			for (int t = 0; t < THREAT_COUNT; t++)
				if (!strcmp(val, threat_keys[t]))
					s->threat = (enum lab_threat)t;
			if (s->threat == THREAT_COUNT) {
				snprintf(err, errlen, "%s:%d: unknown threat '%s' (legit, resource, secrets, exfil, takeover)",
					 path, lineno, val);
				goto fail;
			}
		} else if (!strcmp(key, "layer")) {
			s->layer = strcmp(val, "none") ? layer_by_key(val) : -1;
			if (s->layer == -2 || (strcmp(val, "none") && s->layer < 0)) {
				snprintf(err, errlen, "%s:%d: unknown layer '%s' (isolation, network, env, limits, none)",
					 path, lineno, val);
				goto fail;
			}
		} else if (!strcmp(key, "consequence")) {
			str_copy(s->consequence, sizeof s->consequence, val);
		} else if (!strcmp(key, "expect")) {
			if (s->n_expect >= 8) {
				snprintf(err, errlen, "%s:%d: at most 8 lab:expect lines", path, lineno);
				goto fail;
			}
			str_copy(s->expect[s->n_expect++], sizeof s->expect[0], val);
		} else {
			snprintf(err, errlen, "%s:%d: unknown header key lab:%s (title, threat, layer, consequence, expect)",
				 path, lineno, key);
			goto fail;
		}
	}
	if (!have_title || s->threat == THREAT_COUNT || s->layer == -2) {
		snprintf(err, errlen, "%s: missing snippet header: needs '# lab:title:', '# lab:threat:' and '# lab:layer:' lines at the top",
			 path);
		goto fail;
	}
	if (s->threat == THREAT_LEGIT) {
		if (s->layer != -1 || s->n_expect == 0) {
			snprintf(err, errlen, "%s: a legit snippet needs '# lab:layer: none' and at least one '# lab:expect:' line", path);
			goto fail;
		}
	} else {
		if (s->layer < 0) {
			snprintf(err, errlen, "%s: an attack needs '# lab:layer:' naming the layer that should catch it", path);
			goto fail;
		}
		if (!s->consequence[0]) {
			snprintf(err, errlen, "%s: an attack needs a '# lab:consequence:' line", path);
			goto fail;
		}
	}
	s->code = code;
	return 0;
fail:
	free(code);
	return -1;
}

void snippets_free(struct snippet *list, int n)
{
	for (int i = 0; i < n; i++)
		snippet_free(&list[i]);
	free(list);
}

static int snippet_order(const struct snippet *s)
{
	if (s->threat == THREAT_LEGIT)
		return 0;
	static const int by_layer[LAYER_COUNT] = {
		[LAYER_LIMITS] = 1, [LAYER_ENV] = 2, [LAYER_NETWORK] = 3, [LAYER_ISOLATION] = 4};
	return s->layer >= 0 && s->layer < LAYER_COUNT ? by_layer[s->layer] : 5;
}

static int snippet_cmp(const void *a, const void *b)
{
	const struct snippet *x = a, *y = b;
	int ox = snippet_order(x), oy = snippet_order(y);
	if (ox != oy)
		return ox - oy;
	return strcmp(x->name, y->name);
}

int snippet_discover(const char *dir, struct snippet **out, char *err, size_t errlen)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: cannot open snippets folder: %s (set [paths] snippets in layers.ini)",
			 dir, strerror(errno));
		return -1;
	}
	struct snippet *list = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".py") || e->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct snippet s;
		if (snippet_load(&s, path, err, errlen) < 0) {
			closedir(d);
			snippets_free(list, n);
			return -1;
		}
		struct snippet *grown = realloc(list, sizeof *list * (size_t)(n + 1));
		if (!grown)
			abort();
		list = grown;
		list[n++] = s;
	}
	closedir(d);
	if (n == 0) {
		snprintf(err, errlen, "%s: no snippets (*.py with a '# lab:' header) found", dir);
		free(list);
		return -1;
	}
	qsort(list, (size_t)n, sizeof *list, snippet_cmp);
	*out = list;
	return n;
}

int snippet_resolve(const struct lab_config *cfg, const char *arg, struct snippet *s, char *err, size_t errlen)
{
	size_t len = strlen(arg);
	if (strchr(arg, '/') || (len > 3 && !strcmp(arg + len - 3, ".py")))
		return snippet_load(s, arg, err, errlen);
	char path[PATH_MAX];
	pathf(path, sizeof path, "%s/%s.py", cfg->snippets_dir, arg);
	struct stat st;
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "no snippet named '%s' in %s (see 'containment-lab list')", arg,
			 cfg->snippets_dir);
		return -1;
	}
	return snippet_load(s, path, err, errlen);
}
