/* snippet.h — what a snippet file is: a Python file in snippets/ whose
 * header of `# lab:KEY: value` lines names its title, its threat class, the
 * layer that should catch it, what escaping costs and, for the legit task,
 * what its output must hold.
 *
 * Everything in a header is text from outside the lab: it is stored
 * sanitised (no ESC, C0, C1 or bidi control, valid UTF-8), so every face of
 * the lab — `run`, `list`, --json, the screen — can show it as it is. */
#ifndef SNIPPET_H
#define SNIPPET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

enum lab_threat {
	THREAT_LEGIT,
	THREAT_RESOURCE,
	THREAT_SECRETS,
	THREAT_EXFIL,
	THREAT_TAKEOVER,
	THREAT_KERNEL, /* the kernel's own attack surface: only an upper rung of Isolation stops it */
	/* an irreversible real-world action through an allowed tool (tools.h):
	 * no layer stops it, only the gate outside the code */
	THREAT_IRREVERSIBLE,
	THREAT_COUNT
};

/* A snippet file larger than this is refused, not cut. */
#define SNIPPET_MAX_BYTES  (1 << 20)
#define SNIPPET_MAX_EXPECT 8
#define SNIPPET_MAX_DANGER 16

struct lab_config;

struct snippet {
	char name[64];       /* file name without .py, sanitised */
	char path[PATH_MAX]; /* the file as opened (raw: it names the real file) */
	char title[128];
	enum lab_threat threat;
	int layer; /* enum lab_layer, -1 for legit */
	char consequence[256];
	char expect[SNIPPET_MAX_EXPECT][128]; /* legit: text the output must contain */
	int n_expect;
	/* lab:uses: the one host:port its work (or its leak) goes through: the
	 * truth table then follows No-network's setting (verdict_expected) */
	char uses[80];
	/* lab:tools: yes: the run serves the lab's tool door (tools.h) */
	bool tools;
	/* lines (1-based) a `# lab:danger` comment marks: the line(s) that do
	 * the damage, each the first non-blank line after the comment */
	int danger[SNIPPET_MAX_DANGER];
	int n_danger;
	bool yours;      /* from the user's own folder (snippet_user_dir) */
	char *code;      /* whole file, owned; NULL when broken */
	char error[512]; /* snippet_scan's broken entries: why ("" = fine) */
};

const char *threat_key(enum lab_threat t);  /* legit | resource | ... */
const char *threat_name(enum lab_threat t); /* "data exfiltration" */

/* Reads one snippet file: a regular *.py file of at most SNIPPET_MAX_BYTES,
 * opened without blocking (a FIFO or a device is refused, never waited on).
 * Returns 0, or -1 with "FILE:LINE: what is wrong" (sanitised) in err. */
int snippet_load(struct snippet *s, const char *path, char *err, size_t errlen);
void snippet_free(struct snippet *s);

/* Every *.py in dir: the good ones in *good (legit first, then the attacks
 * in layer order, then others by name); the ones that cannot be loaded in
 * *broken (when broken is not NULL), each with name, path and error, by
 * name. One broken file never hides the others. Returns the number of good
 * snippets (0 is not an error), or -1 with err when dir cannot be read.
 * Both lists are malloc'd: free them with snippets_free. */
int snippet_scan(const char *dir, struct snippet **good, struct snippet **broken, int *n_broken, char *err,
                 size_t errlen);
/* snippet_scan without the broken ones; no good snippet at all is an error
 * (-1, err naming the folder and the first broken file's reason). */
int snippet_discover(const char *dir, struct snippet **out, char *err, size_t errlen);
void snippets_free(struct snippet *list, int n);
/* The user's own snippets: $XDG_DATA_HOME/containment-lab/snippets, or
 * ~/.local/share/containment-lab/snippets. 0, or -1 when neither
 * XDG_DATA_HOME (absolute) nor HOME is set. */
int snippet_user_dir(char *buf, size_t len);
/* The good snippets of the user's folder, each marked yours. A folder that
 * does not exist holds none (0). Like layers.ini, the folder and each file
 * must be the user's (or root's) and writable by nobody else: otherwise
 * someone else could put code in the lab's list. The folder refused: -1
 * with err; a file refused: left out, and err names it (the return counts
 * the rest). Free with snippets_free. */
int snippet_scan_user(const char *dir, struct snippet **out, char *err, size_t errlen);
/* The user's folder opened to write into (e: copy, then edit), made
 * (0700) where missing. The same trust as listing, along the whole way:
 * each folder is the user's or root's, and writable by nobody else unless
 * sticky (/tmp); the last one not even then. Symlinks of the part that
 * exists are resolved first (canon gets the result: give that to an
 * editor, not dir), and the walk opens each part with O_NOFOLLOW, so a
 * symlink planted meanwhile is refused, not followed. An O_PATH folder
 * descriptor, or -1 with why ("FOLDER: what is wrong"). */
int snippet_user_dir_open(const char *dir, char *canon, size_t canon_len, char *why, size_t why_len);

/* NAME from the list, or a path (contains '/' or ends in .py). */
int snippet_resolve(const struct lab_config *cfg, const char *name_or_path, struct snippet *s, char *err,
                    size_t errlen);

#endif
