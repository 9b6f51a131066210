/* inprocess.c — the rung below the container: the snippet exec()'d inside
 * an app server of the lab's (inprocess.h). The app server's source is
 * src/engine/run/app_server.py, built into the binary below, so the lab never runs a
 * copy someone could have changed beside it. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "inprocess.h"
#include "layers/env.h"
#include "system.h"
#include "util.h"

/* src/engine/run/app_server.py, NUL-terminated (the path is the build's: make runs
 * from the repository's top) */
__asm__(".section .rodata\n"
        ".global inprocess_app_source\n"
        "inprocess_app_source:\n"
        ".incbin \"src/engine/run/app_server.py\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char inprocess_app_source[];

bool inprocess_setup(const struct lab_setup *setup, struct lab_setup *own)
{
	if (setup->rung != RUNG_INPROCESS)
		return false;
	*own = *setup;
	own->rung = RUNG_CONTAINER;
	own->layers = 0;
	return true;
}

/* A fresh token for this run only: "sess-" and 32 hex digits. */
static void new_token(char *out, size_t cap)
{
	unsigned char raw[16];

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		for (size_t i = 0; i < sizeof raw; i++)
			raw[i] = (unsigned char)(monotonic_ms() * 131 + (long)i * 7 + getpid());
	str_copy(out, cap, "sess-");
	for (size_t i = 0; i < sizeof raw; i++)
		str_append(out, cap, "%02x", raw[i]);
}

int inprocess_plan(struct run *r, struct lab_evidence *ev)
{
	char host_path[PATH_MAX + 32], kv[96];
	int e;

	if (pathf(host_path, sizeof host_path, "%s/app_server.py", r->d.work) < 0 ||
	    pathf(r->app_path, sizeof r->app_path, "%s/app_server.py", r->workdir) < 0) {
		snprintf(ev->error, sizeof ev->error, "the app server's path is too long under %.200s", r->d.work);
		return -1;
	}
	if ((e = write_file(host_path, inprocess_app_source, 0644)) < 0) {
		snprintf(ev->error, sizeof ev->error, "cannot write the app server %.200s: %s", host_path,
		         strerror(-e));
		return -1;
	}
	new_token(r->app_token, sizeof r->app_token);
	snprintf(kv, sizeof kv, "LAB_APP_SESSION=%s", r->app_token);
	lab_env_add(&r->layer.env.envp, &r->layer.env.n_env, strdup(kv));
	ev->secrets.env_vars = r->layer.env.n_env;
	/* python3 -u app_server.py SNIPPET: plan_snippet made argv[2] the snippet */
	r->argv[3] = r->argv[2];
	r->argv[2] = r->app_path;
	r->argv[4] = NULL;
	return 0;
}

void inprocess_gather(const struct run *r, const struct strbuf *output, unsigned toggles, struct lab_result *res)
{
	size_t n = strlen(r->app_token);

	res->inproc.on = true;
	res->inproc.toggles = toggles;
	res->inproc.planned = n > 0;
	if (n) {
		res->inproc.token_in_output = output->s && memmem(output->s, output->len, r->app_token, n);
		res->inproc.token_at_attacker =
		    r->d.received && memmem(r->d.received, r->d.received_len, r->app_token, n);
	}
	/* "in-process: ..." first in the mechanisms line: what did not apply,
	 * and why, before what the range did */
	char lbl[REPORT_LABEL_MAX], was[sizeof res->ev.mechanisms];
	report_layers_label(toggles, true, lbl);
	str_copy(was, sizeof was, res->ev.mechanisms);
	snprintf(res->ev.mechanisms, sizeof res->ev.mechanisms,
	         "in-process: no layer (toggles %s n/a): exec() runs the snippet in the app server's own process, "
	         "with no boundary for namespaces, seccomp, an env allow-list or limits to apply at",
	         lbl);
	if (was[0])
		str_append(res->ev.mechanisms, sizeof res->ev.mechanisms, "; %s", was);
}
