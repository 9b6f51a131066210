/* spec.h — a run's sandbox as data: what the layers (and the range, always
 * on) ask for, before any box builds anything.
 *
 * spec_build() starts from the range's part and lets each layer add its own,
 * on or off (the `spec` hook of layer_ops, in src/layers/NAME.c). The boxes
 * render it: the container walks the file-system steps (rootfs.c), gvisor
 * writes them as its OCI config.json, microvm as the guest init's lines,
 * and `twin` prints them as docker or bwrap flags, so what the twin shows is
 * what runs. A box that cannot render a part of the spec refuses it with the
 * reason; none re-implements a layer.
 *
 * Pure data: building a spec reads only the config and the setup, never the
 * host, so every layer set, rung and mode renders the same anywhere (the unit
 * suite compares them with tests/spec/). What depends on the host (is /bin a
 * symlink here?) is decided by the renderer, from a struct spec_host. */
#ifndef LAB_SPEC_H
#define LAB_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h" /* struct lab_setup */
#include "lab.h"

/* One step of the file-system view, in the order it is built. */
enum spec_fs_kind {
	SPEC_FS_ROOT,     /* a fresh tmpfs as the root (size), read-only once built */
	SPEC_FS_HOSTVIEW, /* the range (Isolation off): the host's own view, read-only and locked */
	SPEC_FS_BIND,     /* src at dst (ro or not); skipped where the host has no src */
	SPEC_FS_HOST_TOP, /* dst as the host has it: its symlink (merged /usr) or a read-only bind */
	SPEC_FS_DIR,      /* an empty folder (mode) */
	SPEC_FS_FILE,     /* a small file of the lab's (text) */
	SPEC_FS_PROC,     /* a fresh /proc of the run's PID namespace, the key lists hidden */
	SPEC_FS_DEV,      /* a minimal read-only /dev: null, zero, full, random, urandom, fd links */
	SPEC_FS_TMPFS,    /* a private tmpfs (size, mode) */
	SPEC_FS_WORK,     /* the run's copy of the task's folder (data, snippet), read-only */
	SPEC_FS_CWD,      /* exec: the caller's folder at its own path, read-only unless --rw */
	SPEC_FS_HOSTDIR,  /* the range: the run's decoy host folder, the one writable place */
	SPEC_FS_HOME,     /* Clean-env off: the naive integration's home with the credentials, read-only */
};

#define SPEC_FS_MAX   32
#define SPEC_TEXT_MAX 160

struct spec_fs_op {
	enum spec_fs_kind kind;
	int by; /* the layer (enum lab_layer) that asked for it, or SPEC_BY_RANGE */
	const char *src, *dst;
	uint64_t size;            /* ROOT, TMPFS: bytes */
	unsigned mode;            /* DIR, TMPFS */
	bool ro;                  /* BIND, CWD */
	char text[SPEC_TEXT_MAX]; /* FILE */
};
#define SPEC_BY_RANGE (-1)

/* The descriptors' and the environment's part (Clean-env). */
enum spec_env_kind {
	SPEC_ENV_ALL,   /* the whole environment handed on, secrets and all */
	SPEC_ENV_ALLOW, /* rebuilt from [env] allow; HOME reset */
};

enum spec_net_kind {
	SPEC_NET_HOST,   /* the range's own namespace, its loopback the small internet: the attacker and api.lab.test */
	SPEC_NET_SHARED, /* exec, No-network off: the host's own network */
	SPEC_NET_NONE,   /* an empty network namespace: loopback only */
	SPEC_NET_ALLOWLIST, /* an empty one plus the lab's egress proxy, the one door */
};

#define SPEC_RLIMITS_MAX 8
struct spec_rlimit {
	int resource;       /* RLIMIT_* */
	const char *name;   /* "RLIMIT_AS": the OCI spelling */
	const char *ulimit; /* docker --ulimit and prlimit's name, or NULL (not offered there) */
	unsigned long long soft, hard;
};

/* Namespaces beyond the range's own user, PID and mount namespaces (its
 * IPC namespace is the range's too, always: SPEC_NS_IPC is set for every
 * run). */
#define SPEC_NS_IPC    0x1u
#define SPEC_NS_UTS    0x2u
#define SPEC_NS_CGROUP 0x4u
#define SPEC_NS_NET    0x8u /* No-network's own empty one (the range's small internet has another) */

struct run_spec {
	struct lab_setup setup;
	/* the box that renders it: the rung Isolation asks for when it is on,
	 * else the container (the range on the host's kernel) */
	enum lab_rung rung;
	bool in_process; /* no process boundary: nothing below applies (the in-process rung) */
	unsigned ns;     /* SPEC_NS_* */
	/* the file-system view */
	struct spec_fs_op fs[SPEC_FS_MAX];
	int n_fs;
	/* Isolation's restrictions on the process */
	bool caps_dropped, no_new_privs, seccomp;
	long outside_uid; /* root lab: the host uid of the sandbox's root; LAB_OUTSIDE_UID_AUTO: one of its own */
	const char *hostname;
	/* Clean-env */
	enum spec_env_kind env;
	const char *home; /* SPEC_ENV_ALLOW: HOME inside */
	bool creds_fd;    /* the credentials left open as fd 3 (Clean-env off, a run with decoys) */
	/* No-network */
	enum spec_net_kind net;
	/* Resource-limits */
	bool cgroup;        /* a cgroup with the caps below */
	uint64_t cg_memory; /* memory.max (and no swap beyond it) */
	long cg_pids;       /* pids.max */
	double cg_cpu;      /* cores: cpu.max */
	struct spec_rlimit rl[SPEC_RLIMITS_MAX];
	int n_rl;
	long timeout_ms; /* the layer's wall clock (0: only the safety net's) */
	uint64_t output; /* the layer's output cap (0: only the safety net's) */
	/* the range, always */
	long safety_timeout_ms;
	uint64_t safety_output;
	/* who armed each mechanism the judge credits (enum lab_mech): the
	 * layer's own hook says so; MECH_UNARMED where none did */
	short armed[MECH_COUNT];
};

/* The top-level folders a merged-/usr host has as symlinks into /usr:
 * Isolation's view names each (SPEC_FS_HOST_TOP), spec_host_probe reads
 * what this host has at each. */
#define SPEC_TOP_DIRS 6
extern const char *const spec_top_dirs[SPEC_TOP_DIRS];

/* The host facts a renderer needs: which top-level folders are symlinks
 * into /usr (merged /usr), which exist at all. spec_host_probe() reads
 * this machine; the unit suite passes a fixed one. */
struct spec_host {
	struct {
		const char *path;
		bool exists;
		char link[64]; /* its symlink's target, "" when a real folder */
	} top[SPEC_TOP_DIRS];
	int n_top;
};

void spec_host_probe(struct spec_host *h);
/* What the host has at a top-level folder the spec names: false when it has
 * nothing there (or h does not know it); *link is "" for a real folder. */
bool spec_host_top(const struct spec_host *h, const char *path, const char **link);

/* What a renderer asks of a spec, so that no box names a layer:
 * a private root (Isolation's) rather than the range's host view; a step
 * of that kind anywhere (SPEC_FS_HOME: the naive integration's home); no
 * network but loopback and perhaps the proxy's door (No-network's). */
bool spec_private_root(const struct run_spec *s);
bool spec_has_step(const struct run_spec *s, enum spec_fs_kind kind);
bool spec_net_closed(const struct run_spec *s);

/* For the layers' hooks (src/layers/NAME.c). Returns the new step, or NULL
 * when the list is full (a programming error: spec_build aborts). */
struct spec_fs_op *spec_fs_add(struct run_spec *s, int by, enum spec_fs_kind kind, const char *src, const char *dst);
void spec_rlimit_add(struct run_spec *s, int resource, const char *name, const char *ulimit, unsigned long long soft,
                     unsigned long long hard);
static inline bool spec_on(const struct run_spec *s, enum lab_layer l)
{
	return (s->setup.layers & LAYER_BIT(l)) != 0;
}

/* The spec in words, one line per part and per step: for the unit suite's
 * snapshots (tests/spec/) and for a reader who wants to see what runs. */
struct strbuf;
void spec_text(const struct run_spec *s, const struct spec_host *h, struct strbuf *b);

#endif
