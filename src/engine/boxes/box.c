/* box.c — which box contains a run (box.h): the Isolation layer's rung
 * when it is on, the container box (the range without Isolation) when it
 * is off; and whether a rung's tools are here. */
#include "box.h"

const struct box_ops *box_for(const struct lab_config *cfg, unsigned layers)
{
	static const struct box_ops *const rungs[RUNG_COUNT] = {&box_container, &box_gvisor, &box_microvm};
	if (!(layers & LAYER_BIT(LAYER_ISOLATION)) || cfg->rung < 0 || cfg->rung >= RUNG_COUNT)
		return &box_container;
	return rungs[cfg->rung];
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
