/* range.c — the run spec from its contributors: the range, always on, then
 * each layer, on or off, through its spec hook (layer.h). */
#include "range.h"
#include "layer.h"

/* The range, whatever the layers: its own user, PID, mount (implied) and
 * IPC namespaces, a network namespace with the small internet (a run's;
 * exec keeps the host's network), the safety net's clock and output cap. */
static void range_spec(struct run_spec *s, const struct lab_config *cfg)
{
	s->rung = RUNG_CONTAINER; /* the host's kernel, unless Isolation asks for a rung */
	s->ns = SPEC_NS_IPC;      /* no SysV segment or mqueue outlives the run or reaches the host's */
	s->net = s->setup.exec ? SPEC_NET_SHARED : SPEC_NET_HOST;
	s->env = SPEC_ENV_ALL;
	s->outside_uid = cfg->outside_uid;
	s->hostname = cfg->hostname;
	s->safety_timeout_ms = cfg->safety_timeout_ms;
	s->safety_output = cfg->safety_output;
	for (int m = 0; m < MECH_COUNT; m++)
		s->armed[m] = MECH_UNARMED; /* the safety net is no layer's: it takes no credit */
}

void spec_build(struct run_spec *s, const struct lab_config *cfg, const struct lab_setup *setup)
{
	*s = (struct run_spec){.setup = *setup};
	/* in-process: exec() in the app's own process, no boundary to apply a
	 * layer at; the app itself runs in the range (the container box with
	 * every layer off): that is its spec, the toggles kept for the record */
	if (setup->rung == RUNG_INPROCESS) {
		s->setup.layers = 0;
		s->setup.rung = RUNG_CONTAINER;
	}
	range_spec(s, cfg);
	for (int l = 0; l < LAYER_COUNT; l++)
		if (lab_layer_ops[l]->spec)
			lab_layer_ops[l]->spec(s, cfg);
	if (setup->rung == RUNG_INPROCESS) {
		s->setup = *setup;
		s->in_process = true;
	}
}
