/* names.c — the table of the four layers (key, name, the threat each
 * stops, its mechanisms in a line: the text --help, the screen and the docs
 * share), the rungs' and modes' keys, and a set of layers as letters. */
#include "names.h"

#include <ctype.h>
#include <string.h>

const struct layer_info lab_layers[LAYER_COUNT] = {
    [LAYER_ISOLATION] = {LAYER_ISOLATION, "isolation", "Isolation", "host takeover", THREAT_TAKEOVER,
                         "namespaces, pivot_root, no caps, seccomp"},
    [LAYER_NETWORK] = {LAYER_NETWORK, "network", "No-network", "data exfiltration", THREAT_EXFIL,
                       "own empty network namespace"},
    [LAYER_ENV] = {LAYER_ENV, "env", "Clean-env", "secret theft", THREAT_SECRETS,
                   "allow-listed env, no credentials, no fds"},
    [LAYER_LIMITS] = {LAYER_LIMITS, "limits", "Resource-limits", "resource bombs", THREAT_RESOURCE,
                      "cgroups/rlimits, timeout, output cap"},
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

static const char *const approve_keys[APPROVE_COUNT] = {"never", "always", "ask"};

const char *lab_approve_key(int a)
{
	return a >= 0 && a < APPROVE_COUNT ? approve_keys[a] : "?";
}

int lab_approve_by_key(const char *key)
{
	for (int a = 0; a < APPROVE_COUNT; a++)
		if (!strcmp(key, approve_keys[a]))
			return a;
	return -1;
}

char report_layer_letter(int layer)
{
	return (char)toupper((unsigned char)lab_layers[layer].key[0]);
}

void report_layers_label(unsigned layers, bool spaced, char out[REPORT_LABEL_MAX])
{
	int n = 0;
	for (int l = 0; l < LAYER_COUNT; l++) {
		if (spaced && l)
			out[n++] = ' ';
		out[n++] = layers & LAYER_BIT(l) ? report_layer_letter(l) : '-';
	}
	out[n] = '\0';
}
