/* box.c — which box contains a run (box.h): the Isolation layer's rung
 * when it is on, the container box (the range without Isolation) when it
 * is off; and whether a rung's tools are here. */
#include "box.h"

const struct box_ops *box_for(const struct run_spec *s)
{
	static const struct box_ops *const rungs[RUNG_COUNT] = {&box_container, &box_gvisor, &box_microvm};
	if ((int)s->rung < 0 || s->rung >= RUNG_COUNT || !rungs[s->rung])
		return &box_container;
	return rungs[s->rung];
}

bool lab_rung_ready(const struct lab_config *cfg, enum lab_rung rung, char *why, size_t cap)
{
	if (rung == RUNG_GVISOR)
		return gvisor_ready(why, cap);
	if (rung == RUNG_MICROVM)
		return microvm_ready(cfg, why, cap);
	if (cap)
		why[0] = '\0';
	return true;
}
