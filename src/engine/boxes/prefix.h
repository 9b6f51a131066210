/* prefix.h — a sandbox's command prefix for `audit`: the shipped presets,
 * the user's own, and its placeholders filled in for one run. */
#ifndef LAB_PREFIX_H
#define LAB_PREFIX_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* The prefix with its placeholders filled in, as a new NULL-terminated argv:
 * an argument "{cmd}" becomes the snippet's command line (cmd, one argument
 * each), except right after "-c", where it is a shell's command string and
 * becomes one word, each argument single-quoted; "{cmd}" inside a longer
 * argument becomes that quoted line too;
 * "{dir}" the run's work folder (the snippet and its data); "{NAME}" the
 * value of NAME in env (the environment handed to the wrapper, e.g.
 * {LAB_DATA}, {HOME}). Without "{cmd}" anywhere, cmd is appended. */
char **audit_expand(char *const *tmpl, char *const *cmd, const char *dir, char *const *env);
void audit_argv_free(char **argv);

/* A shipped, tested prefix: 0 and *argv (free with audit_argv_free), or 1
 * when its tool is missing or cannot run here (why says so), or -1 when
 * there is no such preset. note: what the card should say about how the
 * preset runs under setup's No-network mode ("" if nothing); *outside_range when the wrapper cannot run
 * inside the range's PID namespace. */
int audit_preset(const char *name, const struct lab_config *cfg, const struct lab_setup *setup, char ***argv,
                 bool *outside_range, char *why, size_t whylen, char *note, size_t notelen);
extern const char *const audit_preset_names[]; /* NULL-terminated */
/* The snippets a card holds unless --snippet names others, NULL-terminated. */
extern const char *const audit_default_names[];
/* The lab's own layers as a wrapper: this binary's `exec --on LAYERS`,
 * handed the task's inputs explicitly (Clean-env lets only layers.ini's
 * allow-list through); the "lab" preset is it with every layer on. 0 and
 * *argv, or 1 with why. */
int audit_lab_wrapper(const struct lab_config *cfg, unsigned layers, char ***argv, char *why, size_t whylen);
/* A prefix of the caller's own, resolved: run as its preset would be. A
 * firejail anywhere before {cmd} runs outside the range (*outside_range,
 * note says why), or cannot run at all, rootless: 1 with why; else 0. */
int audit_custom(char *const *wrapper, bool *outside_range, char *why, size_t whylen, char *note, size_t notelen);

/* The wrapper's command, wrapper[0], resolved before any run (the wrapper
 * starts in the run's work folder): a path becomes absolute, a name its
 * place on PATH. 0, or -1 with err saying why (nothing found). */
int audit_resolve_wrapper(char **wrapper, char *err, size_t errlen);

#endif
