/* layers/env.h — Clean-env's environment, built apart from the run so the
 * unit tests can check it: the allow-list applied, or the naive pass-through
 * an integration without the layer does. */
#ifndef LAB_LAYERS_ENV_H
#define LAB_LAYERS_ENV_H

#include "lab.h"

/* Clean: only cfg's allow-listed names from source, then HOME=clean_home.
 * Not clean: source whole, as a naive integration passes it. Appends to
 * *envp (NULL-terminated, malloc'd), count in *n. */
void lab_env_build(const struct lab_config *cfg, char *const *source, bool clean, const char *clean_home, char ***envp,
                   int *n);
void lab_env_add(char ***envp, int *n, char *kv);
const char *lab_env_get(char *const *env, const char *name);
void lab_env_free(char **envp);

#endif
