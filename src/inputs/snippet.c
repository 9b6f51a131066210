/* snippet.c — snippets are plain files in snippets/ with a header of
 * `# lab:KEY: value` comment lines; they are discovered at run time so a
 * teacher can add one without rebuilding. A teacher's file is input from
 * outside: it is opened without blocking, must be a regular file of
 * bounded size, and every header value is stored sanitised and refused
 * (never cut) when it does not fit. */
#define _GNU_SOURCE
#include "snippet.h"
#include "config.h"
#include "names.h"
#include "text.h" /* sanitize_output */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const threat_keys[THREAT_COUNT] = {"legit",    "resource", "secrets",     "exfil",
                                                      "takeover", "kernel",   "irreversible"};
static const char *const threat_names[THREAT_COUNT] = {"legitimate task",    "resource bomb", "secret theft",
                                                       "data exfiltration",  "host takeover", "kernel exploit",
                                                       "irreversible action"};

const char *threat_key(enum lab_threat t)
{
	return t < THREAT_COUNT ? threat_keys[t] : "?";
}
const char *threat_name(enum lab_threat t)
{
	return t < THREAT_COUNT ? threat_names[t] : "?";
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* src made inert (sanitize_output) into dst. 0, or -1 when it does not fit
 * (dst is then cut at a character boundary, still valid UTF-8). */
static int copy_inert(char *dst, size_t cap, const char *src)
{
	char *clean = sanitize_output(src, strlen(src), 0);
	/* a name or a message is one line: a newline (from a file name) is
	 * shown as ^J, never starts a line of its own */
	if (clean && strchr(clean, '\n')) {
		struct strbuf b = {0};
		for (const char *p = clean; *p; p++)
			sb_add(&b, *p == '\n' ? "^J" : p, *p == '\n' ? 2 : 1);
		free(clean);
		clean = b.s;
	}
	if (!clean) {
		dst[0] = '\0';
		return -1;
	}
	size_t n = strlen(clean);
	int rc = 0;
	if (n >= cap) {
		n = cap - 1;
		while (n && ((unsigned char)clean[n] & 0xc0) == 0x80)
			n--;
		rc = -1;
	}
	memcpy(dst, clean, n);
	dst[n] = '\0';
	free(clean);
	return rc;
}

/* Messages name the file and quote header values: inert too. */
static void make_err_inert(char *err, size_t errlen)
{
	if (!errlen)
		return;
	char *raw = strdup(err);
	if (!raw)
		return;
	copy_inert(err, errlen, raw);
	free(raw);
}

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a folder"
	       : S_ISFIFO(m) ? "a named pipe (FIFO)"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	                     : "not a regular file";
}

/* The whole file, or NULL with err. O_NONBLOCK: opening a FIFO must not
 * wait for a writer; O_NOCTTY: a terminal device must not become ours. */
static char *read_snippet(const char *path, size_t *len_out, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot read snippet: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: cannot read snippet: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s, not a regular file: a snippet must be a plain .py file", path,
		         file_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	struct strbuf b = {0};
	bool too_big = st.st_size > SNIPPET_MAX_BYTES;
	while (!too_big) {
		char tmp[65536];
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot read snippet: %s", path, strerror(errno));
			close(fd);
			sb_free(&b);
			return NULL;
		}
		if (r == 0)
			break;
		sb_add(&b, tmp, (size_t)r);
		too_big = b.len > SNIPPET_MAX_BYTES; /* it may grow while we read */
	}
	close(fd);
	if (too_big) {
		snprintf(err, errlen, "%s: larger than %d bytes (1 MiB), the most a snippet may be", path,
		         SNIPPET_MAX_BYTES);
		sb_free(&b);
		return NULL;
	}
	sb_add(&b, "", 0);
	*len_out = b.len;
	return b.s;
}

void snippet_free(struct snippet *s)
{
	free(s->code);
	s->code = NULL;
}

#define FAIL(...)                                                                                                      \
	do {                                                                                                           \
		snprintf(err, errlen, __VA_ARGS__);                                                                    \
		goto fail;                                                                                             \
	} while (0)

/* One header value, sanitised, into a fixed field: refused if it does not fit. */
#define SET_FIELD(field, what)                                                                                         \
	do {                                                                                                           \
		if (copy_inert(field, sizeof(field), val) < 0)                                                         \
			FAIL("%s:%d: %s longer than %zu bytes", path, lineno, what, sizeof(field) - 1);                \
	} while (0)

/* The header as a whole: the three keys there, and a threat, a layer and
 * the lines that go with them that agree with each other and the table. */
static int check_header(const struct snippet *s, const char *path, bool have_title, int layer_line, int threat_line,
                        char *err, size_t errlen)
{
	if (!have_title || s->threat == THREAT_COUNT || s->layer == -2)
		FAIL("%s: missing snippet header: needs '# lab:title:', '# lab:threat:' and '# lab:layer:' lines at "
		     "the top",
		     path);
	if (s->threat == THREAT_LEGIT) {
		if (s->layer != -1)
			FAIL("%s:%d: a legit snippet needs '# lab:layer: none'", path, layer_line);
		if (s->n_expect == 0)
			FAIL("%s: a legit snippet needs at least one '# lab:expect:' line", path);
	} else if (s->threat == THREAT_IRREVERSIBLE) {
		/* the gate, not a layer, stops it (tools.h) */
		if (s->layer != -1)
			FAIL("%s:%d: no layer stops an irreversible action (the gate does): '# lab:layer: none'", path,
			     layer_line);
		if (!s->tools)
			FAIL("%s: an irreversible action goes through the lab's tools: '# lab:tools: yes'", path);
		if (!s->consequence[0])
			FAIL("%s: an attack needs a '# lab:consequence:' line", path);
	} else {
		if (s->layer < 0)
			FAIL("%s:%d: an attack needs '# lab:layer:' naming the layer that should catch it", path,
			     layer_line);
		/* A layer credited with a threat it does not stop would make the
		 * truth table lie: the matrix would call the wrong cells right. */
		/* (a kernel exploit is Isolation's too: its upper rungs) */
		int right = s->threat == THREAT_KERNEL ? LAYER_ISOLATION : -1;
		for (int l = 0; l < LAYER_COUNT && right < 0; l++)
			if (lab_layers[l].threat == s->threat)
				right = l;
		if (right >= 0 && s->layer != right) {
			FAIL("%s:%d: layer '%s' does not stop %s (lab:threat: %s on line %d); %s does: '# lab:layer: "
			     "%s'",
			     path, layer_line, lab_layers[s->layer].key, threat_name(s->threat), threat_key(s->threat),
			     threat_line, lab_layers[right].name, lab_layers[right].key);
		}
		if (!s->consequence[0])
			FAIL("%s: an attack needs a '# lab:consequence:' line", path);
	}
	return 0;
fail:
	return -1;
}

/* Is this line (up to its end) a `# lab:danger` mark? */
static bool is_danger_mark(const char *line, size_t n)
{
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	if (!n || *line != '#')
		return false;
	line++, n--;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	return n >= 10 && !strncmp(line, "lab:danger", 10) &&
	       (n == 10 || line[10] == ':' || line[10] == ' ' || line[10] == '\r' || line[10] == '\t');
}

/* Each `# lab:danger` comment marks the first non-blank line after it
 * that is not a mark itself: the screen shows it with a marker. */
static int find_danger(struct snippet *s, const char *code)
{
	bool armed = false;
	int lineno = 0;
	for (const char *line = code, *next; line && *line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);
		if (next)
			next++;
		if (is_danger_mark(line, n)) {
			armed = true;
			continue;
		}
		if (!armed || strspn(line, " \t\r") >= n)
			continue;
		if (s->n_danger >= SNIPPET_MAX_DANGER)
			return -1;
		s->danger[s->n_danger++] = lineno;
		armed = false;
	}
	return 0;
}

int snippet_load(struct snippet *s, const char *path, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->layer = -2;
	s->threat = THREAT_COUNT;
	char *code = NULL, *line_copy = NULL;
	size_t len, plen = strlen(path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t blen = strlen(base);
	if (blen < 4 || strcmp(base + blen - 3, ".py") != 0)
		FAIL("%s: not a snippet: snippets are Python files whose name ends in .py", path);
	if (plen >= sizeof s->path)
		FAIL("%s: path longer than %zu bytes", path, sizeof s->path - 1);
	memcpy(s->path, path, plen + 1);
	char name[PATH_MAX];
	snprintf(name, sizeof name, "%.*s", (int)(blen - 3), base);
	if (copy_inert(s->name, sizeof s->name, name) < 0)
		FAIL("%s: file name longer than %zu bytes (without .py)", path, sizeof s->name - 1);

	code = read_snippet(path, &len, err, errlen);
	if (!code)
		goto fail;
	if (memchr(code, '\0', len))
		FAIL("%s: not a text file (it holds a NUL byte)", path);

	int lineno = 0, layer_line = 0, threat_line = 0;
	bool have_title = false;
	for (const char *line = code, *next; line && *line; line = next) {
		lineno++;
		next = strchr(line, '\n');
		size_t n = next ? (size_t)(next - line) : strlen(line);
		if (next)
			next++;
		free(line_copy);
		line_copy = strndup(line, n);
		if (!line_copy)
			FAIL("%s: out of memory", path);
		char *l = line_copy;
		if (lineno == 1 && !strncmp(l, "\xef\xbb\xbf", 3))
			l += 3; /* a UTF-8 byte order mark: what some editors write first */
		l = trim(l);
		if (!strncmp(l, "#!", 2) || !*l)
			continue;
		if (l[0] != '#')
			break; /* the header ends at the first line of code */
		char *body = trim(l + 1);
		if (strncmp(body, "lab:", 4) != 0 || !strncmp(body, "lab:danger", 10))
			continue; /* a danger mark is not part of the header (find_danger) */
		char *colon = strchr(body + 4, ':');
		if (!colon)
			FAIL("%s:%d: malformed header line (expected '# lab:KEY: value')", path, lineno);
		*colon = '\0';
		char *key = trim(body + 4), *val = trim(colon + 1);
		if (!*val)
			FAIL("%s:%d: lab:%s has no value", path, lineno, key);
		if (!strcmp(key, "title")) {
			SET_FIELD(s->title, "title");
			have_title = true;
		} else if (!strcmp(key, "threat")) {
			s->threat = THREAT_COUNT;
			for (int t = 0; t < THREAT_COUNT; t++)
				if (!strcmp(val, threat_keys[t]))
					s->threat = (enum lab_threat)t;
			if (s->threat == THREAT_COUNT)
				FAIL("%s:%d: unknown threat '%s' (legit, resource, secrets, exfil, takeover, kernel, "
				     "irreversible)",
				     path, lineno, val);
			threat_line = lineno;
		} else if (!strcmp(key, "layer")) {
			s->layer = strcmp(val, "none") ? layer_by_key(val) : -1;
			if (s->layer == -2 || (strcmp(val, "none") != 0 && s->layer < 0))
				FAIL("%s:%d: unknown layer '%s' (isolation, network, env, limits, none)", path, lineno,
				     val);
			layer_line = lineno;
		} else if (!strcmp(key, "consequence")) {
			SET_FIELD(s->consequence, "consequence");
		} else if (!strcmp(key, "expect")) {
			if (s->n_expect >= SNIPPET_MAX_EXPECT)
				FAIL("%s:%d: at most %d lab:expect lines", path, lineno, SNIPPET_MAX_EXPECT);
			SET_FIELD(s->expect[s->n_expect], "expect line");
			s->n_expect++;
		} else if (!strcmp(key, "uses")) {
			const char *port = strrchr(val, ':');
			if (!port || port == val || !port[1] || strspn(port + 1, "0123456789") != strlen(port + 1) ||
			    strpbrk(val, " \t/"))
				FAIL("%s:%d: lab:uses needs one host:port, like api.lab.test:80", path, lineno);
			SET_FIELD(s->uses, "uses");
		} else if (!strcmp(key, "tools")) {
			if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
				FAIL("%s:%d: lab:tools is yes or no", path, lineno);
			s->tools = !strcmp(val, "yes");
		} else {
			FAIL("%s:%d: unknown header key lab:%s (title, threat, layer, consequence, expect, uses, "
			     "tools)",
			     path, lineno, key);
		}
	}
	if (check_header(s, path, have_title, layer_line, threat_line, err, errlen) < 0)
		goto fail;
	if (find_danger(s, code) < 0)
		FAIL("%s: more than %d '# lab:danger' marks", path, SNIPPET_MAX_DANGER);
	free(line_copy);
	s->code = code;
	return 0;
fail:
	make_err_inert(err, errlen);
	free(line_copy);
	free(code);
	return -1;
}

void snippets_free(struct snippet *list, int n)
{
	for (int i = 0; list && i < n; i++)
		snippet_free(&list[i]);
	free(list);
}

/* The legit tasks, then the attacks by the layer that stops them, then
 * the tool snippets (matrix --tools; no layer decides them): at 80x24 the
 * screen's list shows the lesson's eight before they need a scroll. */
static int snippet_order(const struct snippet *s)
{
	if (s->tools)
		return 6;
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

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct snippet *)a)->name, ((const struct snippet *)b)->name);
}

static void list_add(struct snippet **list, int *n, const struct snippet *s)
{
	struct snippet *grown = realloc(*list, sizeof **list * (size_t)(*n + 1));
	if (!grown)
		abort();
	*list = grown;
	(*list)[(*n)++] = *s;
}

int snippet_scan(const char *dir, struct snippet **good, struct snippet **broken, int *n_broken, char *err,
                 size_t errlen)
{
	*good = NULL;
	if (broken) {
		*broken = NULL;
		*n_broken = 0;
	}
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: cannot open snippets folder: %s (set [paths] snippets in layers.ini)", dir,
		         strerror(errno));
		make_err_inert(err, errlen);
		return -1;
	}
	struct snippet *list = NULL, *bad = NULL;
	int n = 0, n_bad = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".py") != 0 || e->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		struct snippet s;
		char why[sizeof s.error];
		int rc;
		if (pathf(path, sizeof path, "%s/%s", dir, e->d_name) < 0) {
			memset(&s, 0, sizeof s);
			snprintf(why, sizeof why, "%s/%s: path longer than %d bytes", dir, e->d_name, PATH_MAX - 1);
			make_err_inert(why, sizeof why);
			rc = -1;
		} else {
			rc = snippet_load(&s, path, why, sizeof why);
		}
		if (rc == 0) {
			list_add(&list, &n, &s);
			continue;
		}
		if (!broken)
			continue;
		/* what a list needs to show it: its name, where, and why */
		memset(&s, 0, sizeof s);
		s.threat = THREAT_COUNT;
		s.layer = -1;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(len - 3), e->d_name);
		copy_inert(s.name, sizeof s.name, name);
		str_copy(s.path, sizeof s.path, path);
		str_copy(s.error, sizeof s.error, why);
		list_add(&bad, &n_bad, &s);
	}
	closedir(d);
	if (n)
		qsort(list, (size_t)n, sizeof *list, snippet_cmp);
	if (n_bad)
		qsort(bad, (size_t)n_bad, sizeof *bad, name_cmp);
	*good = list;
	if (broken) {
		*broken = bad;
		*n_broken = n_bad;
	}
	return n;
}

int snippet_discover(const char *dir, struct snippet **out, char *err, size_t errlen)
{
	struct snippet *broken;
	int n_broken;
	int n = snippet_scan(dir, out, &broken, &n_broken, err, errlen);
	if (n == 0) {
		if (n_broken)
			snprintf(err, errlen, "%s: no snippet that can run: %d broken, e.g. %s", dir, n_broken,
			         broken[0].error);
		else
			snprintf(err, errlen, "%s: no snippets (*.py with a '# lab:' header) found", dir);
		make_err_inert(err, errlen);
		free(*out);
		*out = NULL;
		n = -1;
	}
	snippets_free(broken, n_broken);
	return n;
}

int snippet_user_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		return pathf(buf, len, "%s/containment-lab/snippets", xdg);
	if (home && home[0] == '/')
		return pathf(buf, len, "%s/.local/share/containment-lab/snippets", home);
	if (len)
		buf[0] = '\0';
	return -1;
}

/* The user's or root's, and writable by nobody else: NULL, or what is wrong. */
static const char *untrusted(const struct stat *st)
{
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return "another user owns it";
	if (st->st_mode & S_IWOTH)
		return "others may write to it";
	if (st->st_mode & S_IWGRP)
		return "its group may write to it";
	return NULL;
}

int snippet_scan_user(const char *dir, struct snippet **out, char *err, size_t errlen)
{
	struct stat st;
	const char *why = NULL;
	*out = NULL;
	err[0] = '\0';
	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode) || (why = untrusted(&st))) {
		snprintf(err, errlen, "your snippets are not listed (%s): chmod go-w %s", why ? why : "not a folder",
		         dir);
		make_err_inert(err, errlen);
		return -1;
	}
	struct snippet *list;
	int n = snippet_scan(dir, &list, NULL, NULL, err, errlen);
	if (n < 0)
		return -1;
	int kept = 0;
	for (int i = 0; i < n; i++) {
		if (lstat(list[i].path, &st) == 0 && (why = untrusted(&st))) {
			snprintf(err, errlen, "%s: not listed: %s; run chmod go-w on it", list[i].path, why);
			make_err_inert(err, errlen);
			snippet_free(&list[i]);
			continue;
		}
		list[i].yours = true;
		list[kept++] = list[i];
	}
	*out = list;
	return kept;
}

/* A folder on the way to the user's own: the user's or root's, and if
 * others may write to it, sticky (/tmp): then they cannot rename or
 * replace what we made in it. NULL, or what is wrong. */
static const char *untrusted_on_way(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return "it is not a folder";
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return "another user owns it";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return "others may write to it";
	return NULL;
}

/* dir with the symlinks of the part that exists resolved: realpath() of
 * the longest prefix that exists, then the rest as written. */
static int canonical_dir(const char *dir, char *out, size_t len)
{
	char head[PATH_MAX], real[PATH_MAX];
	str_copy(head, sizeof head, dir);
	for (;;) {
		if (realpath(head, real)) {
			const char *rest = dir + strlen(head);
			while (*rest == '/')
				rest++;
			if (!*rest)
				return pathf(out, len, "%s", real);
			return pathf(out, len, "%s/%s", strcmp(real, "/") ? real : "", rest);
		}
		char *slash = strrchr(head, '/');
		if (errno != ENOENT || !slash)
			return -1;
		*(slash == head ? slash + 1 : slash) = '\0'; /* "/x" -> "/" */
	}
}

/* Opens the next folder on the way (making it, 0700, when missing).
 * O_NOFOLLOW: the path was resolved before the walk, so a symlink here now
 * is one planted since: refuse it rather than follow. -1 + *bad. */
static int open_on_way(int fd, const char *part, const char **bad)
{
	/* O_PATH: a folder on the way need only be searchable, not readable */
	int next = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next < 0 && errno == ENOENT && mkdirat(fd, part, 0700) == 0)
		next = openat(fd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next < 0)
		*bad = errno == ELOOP || errno == ENOTDIR ? "it is a symlink or not a folder" : strerror(errno);
	return next;
}

int snippet_user_dir_open(const char *dir, char *canon, size_t canon_len, char *why, size_t why_len)
{
	char walk[PATH_MAX], at[PATH_MAX] = "/", *save = NULL;
	const char *bad = NULL;
	struct stat st;

	errno = 0;
	if (canonical_dir(dir, canon, canon_len) < 0 || canon[0] != '/') {
		snprintf(why, why_len, "%s: cannot resolve it (%s)", dir, strerror(errno ? errno : ENAMETOOLONG));
		make_err_inert(why, why_len);
		return -1;
	}
	str_copy(walk, sizeof walk, canon);
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		bad = strerror(errno);
	/* each folder is checked before we step into it, by its descriptor:
	 * what we check is what we use */
	for (char *part = strtok_r(walk, "/", &save); fd >= 0; part = strtok_r(NULL, "/", &save)) {
		if (fstat(fd, &st) < 0) {
			bad = strerror(errno);
			break;
		}
		if ((bad = untrusted_on_way(&st)) != NULL)
			break;
		if (!part) {
			/* the snippets folder itself: writable by nobody else */
			if (st.st_mode & (S_IWGRP | S_IWOTH))
				bad = "others may write to it";
			break;
		}
		/* the folder checked next (or refused), for the message */
		snprintf(at, sizeof at, "%.*s", (int)(part - walk + (ptrdiff_t)strlen(part)), canon);
		int next = open_on_way(fd, part, &bad);
		close(fd);
		fd = next;
	}
	if (bad) {
		snprintf(why, why_len, "%s: %s", at, bad);
		make_err_inert(why, why_len);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int snippet_resolve(const struct lab_config *cfg, const char *arg, struct snippet *s, char *err, size_t errlen)
{
	size_t len = strlen(arg);
	/* a path, or a file here that is not a snippet (x.sh): load it, so the
	 * refusal says why instead of "no snippet named" */
	if (strchr(arg, '/') || (len > 3 && !strcmp(arg + len - 3, ".py")) ||
	    (strchr(arg, '.') && access(arg, F_OK) == 0))
		return snippet_load(s, arg, err, errlen);
	char path[PATH_MAX];
	struct stat st;
	/* the folder's own, else audit's (snippets/audit/: the threats people
	 * ask of a sandbox they choose, which the lab's own matrix leaves out) */
	if ((pathf(path, sizeof path, "%s/%s.py", cfg->snippets_dir, arg) < 0 || stat(path, &st) < 0) &&
	    (pathf(path, sizeof path, "%s/audit/%s.py", cfg->snippets_dir, arg) < 0 || stat(path, &st) < 0)) {
		memset(s, 0, sizeof *s);
		snprintf(err, errlen, "no snippet named '%s' in %s (see 'containment-lab list')", arg,
		         cfg->snippets_dir);
		make_err_inert(err, errlen);
		return -1;
	}
	return snippet_load(s, path, err, errlen);
}
