/* box_gvisor.c — the gvisor rung of the isolation ladder (not built yet:
 * a run on it is an honest ERROR, never a container run in disguise). */
#include "box.h"

#include <stdio.h>

static int gvisor_start(struct run *r, struct lab_evidence *ev)
{
	(void)r;
	snprintf(ev->error, sizeof ev->error, "the gvisor rung is not built yet: run with --rung container");
	return -1;
}

static void gvisor_kill(struct run *r, bool hard)
{
	(void)r;
	(void)hard;
}

static void gvisor_sample(const struct run *r, bool memory, struct box_sample *out)
{
	(void)r;
	(void)memory;
	*out = (struct box_sample){0};
}

const struct box_ops box_gvisor = {
    .name = "gvisor",
    .kernel = "?",
    .start = gvisor_start,
    .kill = gvisor_kill,
    .sample = gvisor_sample,
};
