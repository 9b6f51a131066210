/* box_microvm.c — the microvm rung of the isolation ladder (not built yet:
 * a run on it is an honest ERROR, never a container run in disguise). */
#include "box.h"

#include <stdio.h>

static int microvm_start(struct run *r, struct lab_evidence *ev)
{
	(void)r;
	snprintf(ev->error, sizeof ev->error, "the microvm rung is not built yet: run with --rung container");
	return -1;
}

static void microvm_kill(struct run *r, bool hard)
{
	(void)r;
	(void)hard;
}

static void microvm_sample(const struct run *r, bool memory, struct box_sample *out)
{
	(void)r;
	(void)memory;
	*out = (struct box_sample){0};
}

const struct box_ops box_microvm = {
    .name = "microvm",
    .kernel = "?",
    .start = microvm_start,
    .kill = microvm_kill,
    .sample = microvm_sample,
};
