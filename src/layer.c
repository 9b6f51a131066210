/* layer.c — the table of the four defense layers: one row each, naming the
 * layer, the threat it stops, in one line the mechanisms it applies (this
 * text feeds --help, the screen and the docs), and its hooks, which live in
 * src/layers/NAME.c. Also the engine's walk over the hooks. */
#define _GNU_SOURCE
#include "layer.h"
#include "lab.h"

#include <sched.h>
#include <string.h>

const struct layer_info lab_layers[LAYER_COUNT] = {
    [LAYER_ISOLATION] = {LAYER_ISOLATION, "isolation", "Isolation", "host takeover", THREAT_TAKEOVER,
                         "namespaces, pivot_root, no caps, seccomp", &layer_isolation_ops},
    [LAYER_NETWORK] = {LAYER_NETWORK, "network", "No-network", "data exfiltration", THREAT_EXFIL,
                       "own empty network namespace", &layer_network_ops},
    [LAYER_ENV] = {LAYER_ENV, "env", "Clean-env", "secret theft", THREAT_SECRETS,
                   "allow-listed env, no credentials, no fds", &layer_env_ops},
    [LAYER_LIMITS] = {LAYER_LIMITS, "limits", "Resource-limits", "resource bombs", THREAT_RESOURCE,
                      "cgroups/rlimits, timeout, output cap", &layer_limits_ops},
};

static const char *const rung_keys[RUNG_COUNT] = {"container", "gvisor", "microvm", "in-process"};

enum lab_rung lab_rung_next(enum lab_rung r)
{
	static const enum lab_rung ladder[] = {RUNG_INPROCESS, RUNG_CONTAINER, RUNG_GVISOR, RUNG_MICROVM};
	size_t n = sizeof ladder / sizeof *ladder;

	for (size_t i = 0; i < n; i++)
		if (ladder[i] == r)
			return ladder[(i + 1) % n];
	return RUNG_CONTAINER;
}

const char *lab_rung_key(enum lab_rung r)
{
	return (int)r >= 0 && r < RUNG_COUNT ? rung_keys[r] : "?";
}

int lab_rung_by_key(const char *key)
{
	for (int i = 0; i < RUNG_COUNT; i++)
		if (!strcmp(key, rung_keys[i]))
			return i;
	return -1;
}

static const char *const net_mode_keys[NET_MODE_COUNT] = {"none", "allowlist"};

const char *lab_net_mode_key(enum lab_net_mode m)
{
	return (int)m >= 0 && m < NET_MODE_COUNT ? net_mode_keys[m] : "?";
}

int lab_net_mode_by_key(const char *key)
{
	for (int i = 0; i < NET_MODE_COUNT; i++)
		if (!strcmp(key, net_mode_keys[i]))
			return i;
	return -1;
}

int layer_by_key(const char *key)
{
	for (int i = 0; i < LAYER_COUNT; i++)
		if (!strcmp(key, lab_layers[i].key))
			return i;
	return -1;
}

unsigned layers_for_column(int col)
{
	unsigned mask = 0;
	for (int l = 0; l < LAYER_COUNT; l++)
		if (!(col & (1 << (LAYER_COUNT - 1 - l))))
			mask |= LAYER_BIT(l);
	return mask;
}

#define EACH_HOOK(hook)                                                                                                \
	for (int i = 0; i < LAYER_COUNT; i++)                                                                          \
		if (lab_layers[i].ops->hook)

/* The spec first: every hook after this reads what the layers asked for
 * from it, and the box renders it. */
int run_layers_plan(struct run *r, struct lab_evidence *ev)
{
	spec_build(&r->spec, r->cfg,
	           &(struct lab_setup){.layers = r->layers,
	                               .rung = (enum lab_rung)r->cfg->rung,
	                               .net_mode = (enum lab_net_mode)r->cfg->net_mode,
	                               .exec = r->exec_mode,
	                               .exec_rw = r->rw});
	spec_host_probe(&r->host);
	EACH_HOOK(plan) if (lab_layers[i].ops->plan(r, ev) < 0) return -1;
	return 0;
}

int run_layers_place(struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(place) if (lab_layers[i].ops->place(r, ev) < 0) return -1;
	return 0;
}

int run_layers_prepare(struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(prepare) if (lab_layers[i].ops->prepare(r, ev) < 0) return -1;
	return 0;
}

void run_layers_child(struct run *r, enum run_phase ph)
{
	EACH_HOOK(child) lab_layers[i].ops->child(r, ph);
}

void run_layers_gather(struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(gather) lab_layers[i].ops->gather(r, ev);
}

void run_layers_describe(const struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(describe) lab_layers[i].ops->describe(r, ev);
}

void run_layers_cleanup(struct run *r)
{
	EACH_HOOK(cleanup) lab_layers[i].ops->cleanup(r);
}

unsigned long run_layers_clone_flags(const struct run *r)
{
	unsigned long f = 0;
	for (int i = 0; i < LAYER_COUNT; i++)
		if (run_on(r, (enum lab_layer)i))
			f |= lab_layers[i].ops->clone_flags;
	/* No-network off: a network namespace of the run's own all the same,
	 * where the lab's small internet listens (egress.h) */
	if (r->eg.inside)
		f |= CLONE_NEWNET;
	return f;
}
