/* layer.h — what a defense layer is to the engine: one row of hooks.
 *
 * Every hook is called for every layer, on or off, so that a layer's whole
 * meaning lives in its own file (src/layers/NAME.c): what it applies when
 * it is on, and what the naive integration does when it is off (Clean-env
 * off mounts the credentials, for instance). A hook a layer does not need
 * is NULL. A new layer is one new file plus one row in layer.c. */
#ifndef LAB_LAYER_H
#define LAB_LAYER_H

#include "run.h"
#include "spec.h"

struct layer_ops {
	/* clone() flags the layer adds when it is on (the range's user, PID
	 * and mount namespaces are always there) */
	unsigned long clone_flags;
	/* parent, before the box starts: ids, environment, what to plant */
	int (*plan)(struct run *r, struct lab_evidence *ev);
	/* parent, just before the container box's clone(): where the child
	 * is to be born (the run's cgroup, for CLONE_INTO_CGROUP) */
	int (*place)(struct run *r, struct lab_evidence *ev);
	/* parent, after clone() while the child builds its root: slow work
	 * whose result "go" carries (filters) */
	int (*prepare)(struct run *r, struct lab_evidence *ev);
	/* child: one phase of the list of steps; failures through run_fail */
	void (*child)(struct run *r, enum run_phase ph);
	/* parent, after the run: evidence only this layer can read */
	void (*gather)(struct run *r, struct lab_evidence *ev);
	/* the mechanisms really used, for the record */
	void (*describe)(const struct run *r, struct lab_evidence *ev);
	void (*cleanup)(struct run *r);
	/* the run spec (spec.h): what this layer asks for, on or off, as
	 * data; no run and no host needed */
	void (*spec)(struct run_spec *s, const struct lab_config *cfg);
};

extern const struct layer_ops layer_isolation_ops, layer_network_ops, layer_env_ops, layer_limits_ops;
/* The rows, by enum lab_layer; the layers' names are names.h's lab_layers. */
extern const struct layer_ops *const lab_layer_ops[LAYER_COUNT];

#endif
