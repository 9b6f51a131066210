/* names.h — what the lab's words name: the four layers, the rungs of the
 * isolation ladder, No-network's modes and the payment gate's settings,
 * each with its key as layers.ini, the command line and the JSON spell it.
 * Data only; what a layer does is the engine's (layer.h). */
#ifndef LAB_NAMES_H
#define LAB_NAMES_H

#include <stdbool.h>

#include "snippet.h" /* enum lab_threat */

enum lab_layer { LAYER_ISOLATION, LAYER_NETWORK, LAYER_ENV, LAYER_LIMITS, LAYER_COUNT };
#define LAYER_BIT(l) (1u << (l))
#define LAYERS_ALL   ((1u << LAYER_COUNT) - 1)

/* How strong the Isolation layer is: the rung of the isolation ladder
 * (docs/threat-model.md, "The isolation ladder"). It matters only when
 * Isolation is on. */
enum lab_rung {
	RUNG_CONTAINER, /* namespaces + seccomp + capabilities: the host kernel serves the snippet */
	RUNG_GVISOR,    /* gVisor's runsc: a user-space kernel answers its system calls */
	RUNG_MICROVM,   /* a QEMU microvm: the snippet runs on its own guest kernel */
	/* below the container: the snippet is exec()'d inside an app server of
	 * the lab's (inprocess.h), where no layer has a process boundary to
	 * apply at. Last in value so that every "rung != RUNG_CONTAINER" of the
	 * boxes stays about the upper rungs: the engine runs this rung as a
	 * container run with no layer (inprocess_setup) and never sees it. */
	RUNG_INPROCESS,
	RUNG_COUNT
};
const char *lab_rung_key(enum lab_rung r); /* "container" */
/* The ladder from the bottom: in-process, container, gvisor, microvm. */
enum lab_rung lab_rung_next(enum lab_rung r);

/* What No-network leaves open when it is on (its setting): nothing, or one
 * door, the lab's egress proxy (egress.h), that lets out only the host:port
 * pairs of layers.ini's [network] allow. Off, the layer leaves the host's
 * network whatever the mode. */
enum lab_net_mode {
	NET_MODE_NONE,      /* a network namespace with no interface up */
	NET_MODE_ALLOWLIST, /* the same, plus lo and the lab's proxy on 127.0.0.1:EGRESS_PORT in it */
	NET_MODE_COUNT
};
const char *lab_net_mode_key(enum lab_net_mode m); /* "none" */

/* The gate of the one irreversible tool, send_payment (tools.h): not a
 * layer, the lesson's "discrete gated tool" outside the code. */
enum lab_approve {
	APPROVE_NEVER,  /* every payment refused */
	APPROVE_ALWAYS, /* every payment made */
	APPROVE_ASK,    /* a human decides each one: the screen's prompt, or the terminal */
	APPROVE_COUNT
};
const char *lab_approve_key(int a);       /* "never" (tools.c) */
int lab_approve_by_key(const char *key);  /* -1 if unknown */
int lab_net_mode_by_key(const char *key); /* -1 if unknown */
int lab_rung_by_key(const char *key);     /* -1 if unknown */

/* ---- the four layers' names: the engine's hooks are layer.h's ---- */
struct layer_info {
	enum lab_layer id;
	const char *key;   /* "isolation" */
	const char *name;  /* "Isolation" */
	const char *stops; /* "host takeover" */
	enum lab_threat threat;
	const char *how; /* one line: mechanisms it applies */
};
extern const struct layer_info lab_layers[LAYER_COUNT];
int layer_by_key(const char *key); /* -1 if unknown */
/* The matrix's column order, shared by the screen and the command line:
 * column 0 has every layer on, column 15 none (Isolation changes slowest). */
unsigned layers_for_column(int col);

/* A layer's letter: I N E L (the first of its key, upper case). */
char report_layer_letter(int layer);

#define REPORT_LABEL_MAX (LAYER_COUNT * 2)
/* Which layers are on, a letter each, '-' when off: "IN-L", or spaced
 * "I N - L" (spaced = true). out has REPORT_LABEL_MAX bytes. */
void report_layers_label(unsigned layers, bool spaced, char out[REPORT_LABEL_MAX]);

#endif
