/* layer.c — the table of the four defense layers. Each row names the layer,
 * the threat it stops and, in one line, the mechanisms it really applies.
 * The mechanisms themselves live in sandbox.c (namespaces, mounts), seccomp_filter.c,
 * cgroup.c and decoy.c; their order is explained there. */
#include "lab.h"

#include <string.h>

const struct layer_info lab_layers[LAYER_COUNT] = {
	[LAYER_ISOLATION] = {LAYER_ISOLATION, "isolation", "Isolation", "host takeover", THREAT_TAKEOVER,
			     "user+mount+pid+uts+ipc+cgroup namespaces, pivot_root, caps dropped, no_new_privs, seccomp"},
	[LAYER_NETWORK] = {LAYER_NETWORK, "network", "No-network", "data exfiltration", THREAT_EXFIL,
			   "own network namespace with no interface up"},
	[LAYER_ENV] = {LAYER_ENV, "env", "Clean-env", "secret theft", THREAT_SECRETS,
		       "allow-listed environment, no credentials mounted, no inherited fds"},
	[LAYER_LIMITS] = {LAYER_LIMITS, "limits", "Resource-limits", "resource bombs", THREAT_RESOURCE,
			  "cgroup memory/pids/cpu caps, rlimits, wall-clock timeout, output cap"},
};

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
