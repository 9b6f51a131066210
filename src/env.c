/* env.c — the Clean-env layer's environment: rebuilt from an allow-list, or
 * (layer off) passed whole, the way a naive integration would. The other two
 * mechanisms of the layer live where they act: no credentials mount in
 * sandbox.c's build_root, fds above 2 closed in snippet_exec. */
#define _GNU_SOURCE
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lab_env_add(char ***envp, int *n, char *kv)
{
	char **g = realloc(*envp, sizeof **envp * (size_t)(*n + 2));
	if (!g || !kv)
		abort();
	g[(*n)++] = kv;
	g[*n] = NULL;
	*envp = g;
}

const char *lab_env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (char *const *e = env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

void lab_env_build(const struct lab_config *cfg, char *const *source, bool clean, const char *clean_home,
		   char ***envp, int *n)
{
	if (!clean) {
		for (char *const *e = source; e && *e; e++)
			lab_env_add(envp, n, strdup(*e));
		return;
	}
	for (int i = 0; i < cfg->n_env_allow; i++) {
		const char *name = cfg->env_allow[i], *v = lab_env_get(source, name);
		char *kv;
		if (!v || !strcmp(name, "HOME"))
			continue; /* HOME is always the clean one */
		if (asprintf(&kv, "%s=%s", name, v) < 0)
			abort();
		lab_env_add(envp, n, kv);
	}
	char *kv;
	if (asprintf(&kv, "HOME=%s", clean_home) < 0)
		abort();
	lab_env_add(envp, n, kv);
}

void lab_env_free(char **envp)
{
	for (char **e = envp; e && *e; e++)
		free(*e);
	free(envp);
}
