/* layers/env.c — the Clean-env layer (stops secret theft).
 *
 * On: the environment is rebuilt from layers.ini's allow-list (HOME points
 * at a clean folder), no credentials file is mounted, and no descriptor
 * beyond stdio survives execve. Off: what a naive integration does, like
 * `docker run -e ... -v ~/.aws:...`: the whole environment with its
 * secrets, the decoy home with ~/.aws/credentials mounted, and a leaked
 * handle to the credentials open as fd 3. */
#define _GNU_SOURCE
#include "env.h"
#include "layer.h"
#include "system.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

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

void lab_env_build(const struct lab_config *cfg, char *const *source, bool clean, const char *clean_home, char ***envp,
                   int *n)
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

/* The source is the decoy environment a careless agent host would have
 * (a run) or the caller's own (exec). */
static int env_plan(struct run *r, struct lab_evidence *ev)
{
	bool clean = run_on(r, LAYER_ENV);
	if (!r->have_decoys) {
		const char *home = lab_env_get(environ, "HOME");
		lab_env_build(r->cfg, environ, clean, spec_private_root(&r->spec) || !home ? r->cfg->clean_home : home,
		              &r->layer.env.envp, &r->layer.env.n_env);
		return 0;
	}
	char home[PATH_MAX + 8], **naive = NULL;
	if (spec_private_root(&r->spec))
		str_copy(home, sizeof home, "/root");
	else
		snprintf(home, sizeof home, "%s/home", r->inside_dir);
	decoy_naive_env(&r->d, home, &naive);
	lab_env_build(r->cfg, naive, clean, r->cfg->clean_home, &r->layer.env.envp, &r->layer.env.n_env);
	lab_env_free(naive);
	ev->secrets.creds_mounted = !clean;
	return 0;
}

/* Off: the decoy credentials, open as fd 3, as a leaky integration would
 * hand them over. Kept clear of the report pipe's slot. */
static void env_leak_handle(struct run *r)
{
	if (r->rep[1] == 3 && (r->rep[1] = fcntl(3, F_DUPFD_CLOEXEC, 4)) < 0)
		run_fail(r, "move the report pipe", "fd 3", errno);
	const char *creds = spec_private_root(&r->spec) ? "/root/.aws/credentials" : NULL;
	char p[PATH_MAX + 32];
	if (!creds) {
		snprintf(p, sizeof p, "%s/home/.aws/credentials", r->inside_dir);
		creds = p;
	}
	int fd = open(creds, O_RDONLY);
	if (fd >= 0 && fd != 3 && (dup2(fd, 3) < 0 || close(fd) < 0))
		run_fail(r, "hand over the leaked credentials handle", creds, errno);
}

static void env_child(struct run *r, enum run_phase ph)
{
	bool on = run_on(r, LAYER_ENV);
	/* the credentials' mount is in the spec (env_spec), built by rootfs.c */
	if (ph != PHASE_FDS)
		return;
	/* CLOEXEC rather than close, so the report pipe still tells the lab
	 * if execve fails. (The caller's own descriptors never get this far,
	 * see main.) */
	if (on && fds_cloexec_from(3) < 0)
		run_fail(r, "mark descriptors close-on-exec", "3 and up", errno);
	else if (!on && r->have_decoys)
		env_leak_handle(r);
}

static void env_describe(const struct run *r, struct lab_evidence *ev)
{
	if (!run_on(r, LAYER_ENV))
		return;
	mech_add(ev, "env allow-list (%d vars)", r->layer.env.n_env);
	mech_add(ev, "fds > 2 closed");
}

static void env_cleanup(struct run *r)
{
	lab_env_free(r->layer.env.envp);
	r->layer.env.envp = NULL;
	r->layer.env.n_env = 0;
}

/* On: [env] allow and a clean HOME, nothing open beyond stdio. Off: the
 * whole environment and, for a run (a snippet with decoys), the decoy home
 * with the credentials mounted and open as fd 3. */
static void env_spec(struct run_spec *s, const struct lab_config *cfg)
{
	if (spec_on(s, LAYER_ENV)) {
		s->env = SPEC_ENV_ALLOW;
		s->home = cfg->clean_home;
		s->armed[MECH_CLEAN_ENV] = LAYER_ENV;
		return;
	}
	s->env = SPEC_ENV_ALL;
	if (s->setup.exec)
		return; /* exec: the caller's own environment, no decoys */
	s->creds_fd = true;
	spec_fs_add(s, LAYER_ENV, SPEC_FS_HOME, NULL, spec_private_root(s) ? "/root" : NULL);
}

const struct layer_ops layer_env_ops = {
    .plan = env_plan,
    .child = env_child,
    .describe = env_describe,
    .cleanup = env_cleanup,
    .spec = env_spec,
};
