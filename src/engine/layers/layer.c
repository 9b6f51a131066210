/* layer.c — each layer's row of hooks (they live in layers/NAME.c; the
 * layers' names are names.c's) and the engine's walk over them. */
#define _GNU_SOURCE
#include "layer.h"
#include "lab.h"

#include <sched.h>
#include <string.h>

const struct layer_ops *const lab_layer_ops[LAYER_COUNT] = {
    [LAYER_ISOLATION] = &layer_isolation_ops,
    [LAYER_NETWORK] = &layer_network_ops,
    [LAYER_ENV] = &layer_env_ops,
    [LAYER_LIMITS] = &layer_limits_ops,
};

#define EACH_HOOK(hook)                                                                                                \
	for (int i = 0; i < LAYER_COUNT; i++)                                                                          \
		if (lab_layer_ops[i]->hook)

/* After the spec (run.c builds it first): every hook reads what the
 * layers asked for from it, and the box renders it. */
int run_layers_plan(struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(plan) if (lab_layer_ops[i]->plan(r, ev) < 0) return -1;
	return 0;
}

int run_layers_place(struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(place) if (lab_layer_ops[i]->place(r, ev) < 0) return -1;
	return 0;
}

int run_layers_prepare(struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(prepare) if (lab_layer_ops[i]->prepare(r, ev) < 0) return -1;
	return 0;
}

void run_layers_child(struct run *r, enum run_phase ph)
{
	EACH_HOOK(child) lab_layer_ops[i]->child(r, ph);
}

void run_layers_gather(struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(gather) lab_layer_ops[i]->gather(r, ev);
}

void run_layers_describe(const struct run *r, struct lab_evidence *ev)
{
	EACH_HOOK(describe) lab_layer_ops[i]->describe(r, ev);
}

void run_layers_cleanup(struct run *r)
{
	EACH_HOOK(cleanup) lab_layer_ops[i]->cleanup(r);
}

unsigned long run_layers_clone_flags(const struct run *r)
{
	unsigned long f = 0;
	for (int i = 0; i < LAYER_COUNT; i++)
		if (run_on(r, (enum lab_layer)i))
			f |= lab_layer_ops[i]->clone_flags;
	/* No-network off: a network namespace of the run's own all the same,
	 * where the lab's small internet listens (egress.h) */
	if (r->eg.inside)
		f |= CLONE_NEWNET;
	return f;
}
