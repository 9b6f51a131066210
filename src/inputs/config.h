/* config.h — layers.ini: every knob with its built-in default, read strictly
 * (config.c); and a run's setup, the choices made per run on top of it. */
#ifndef CONFIG_H
#define CONFIG_H

#include "names.h" /* enum lab_layer, LAYER_COUNT */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAB_ENV_ALLOW_MAX 32 /* [env] allow: names at most */
#define LAB_ENV_NAME_MAX  64 /* bytes per name, NUL included */
#define LAB_NET_ALLOW_MAX 16 /* [network] allow: host:port pairs at most */
#define LAB_NET_HOST_MAX  80 /* bytes per host:port, NUL included */

struct lab_limits {
	uint64_t memory;    /* bytes: cgroup memory cap and RLIMIT_AS */
	long pids;          /* processes the snippet may have at once */
	double cpu;         /* cores (cgroup CPU quota) */
	long cpu_time;      /* seconds of CPU per process (RLIMIT_CPU) */
	long timeout_ms;    /* wall clock */
	uint64_t output;    /* bytes of output captured */
	uint64_t file_size; /* RLIMIT_FSIZE */
	long open_files;    /* RLIMIT_NOFILE: also bounds memory parked in memfds */
};

#define LAB_OUTSIDE_UID_AUTO (-1L)

struct lab_config {
	char path[PATH_MAX]; /* the file that was read ("" = built-in) */
	bool layer_default[LAYER_COUNT];
	/* isolation */
	uint64_t tmp_size;
	char hostname[64];
	long outside_uid; /* root lab: sandbox root maps to this uid; LAB_OUTSIDE_UID_AUTO: one of the run's own */
	enum lab_rung default_rung;  /* [isolation] rung: how strong Isolation is, unless a run says */
	char guest_kernel[PATH_MAX]; /* microvm rung: the guest's kernel ("" = newest /boot/vmlinuz-*) */
	/* network: No-network's setting and the proxy's allow-list */
	enum lab_net_mode default_net_mode; /* [network] mode, unless a run says */
	char net_allow[LAB_NET_ALLOW_MAX][LAB_NET_HOST_MAX];
	int n_net_allow;
	/* env */
	char env_allow[LAB_ENV_ALLOW_MAX][LAB_ENV_NAME_MAX];
	int n_env_allow;
	char clean_home[128];
	/* limits */
	struct lab_limits limits;
	/* safety net: always on, whatever the layers */
	long safety_timeout_ms;
	long safety_slots; /* runs at once on the whole machine, every lab's (run_slot.h); 0 = no bound */
	uint64_t safety_output;
	/* audit: a wrapper's cap crossed by less than this (percent of the
	 * cap) while its kill is in evidence is the wrapper's limit holding */
	long audit_tolerance_pct;
	/* paths */
	char snippets_dir[PATH_MAX];
	char python[PATH_MAX];
};

/* What one run is, beside what layers.ini says: the choices the command
 * line (--on/--off, --rung, --network-mode, --approve, exec --rw) and the
 * screen's keys make, each run or each screen. Every face of the lab
 * passes it: the run, the spec, the twin, the expected verdict, predict,
 * the matrix and its reports. layers.ini gives only its defaults
 * (lab_setup_default); nothing changes the config to change a run. */
struct lab_setup {
	unsigned layers; /* LAYER_BIT() mask */
	enum lab_rung rung;
	enum lab_net_mode net_mode;
	enum lab_approve approve; /* the tool gate (tools.h): not in layers.ini, never by default */
	bool exec;                /* `exec`: the caller's command and folder, no decoys */
	bool exec_rw;             /* exec --rw: the caller's folder writable */
};

/* The setup layers.ini's defaults make: its [layers], rung and mode; the
 * gate refuses every payment (APPROVE_NEVER); not an exec. */
struct lab_setup lab_setup_default(const struct lab_config *cfg);

/* Fills cfg from FILE (or the first of ./layers.ini, $XDG_CONFIG_HOME/
 * containment-lab/layers.ini, the file beside the binary, PREFIX/share when
 * file is NULL; the first two only when they are the euid's or root's and
 * not writable by others). FILE must be a regular file of at most 64 KiB.
 * Returns 0, or -1 with "FILE:LINE: what is wrong" in err, one line per
 * problem, first problem first. */
int config_load(struct lab_config *cfg, const char *file, char *err, size_t errlen);
void config_defaults(struct lab_config *cfg);
/* Decimal only. 0, -EINVAL when malformed ("12X", "0x10"), -ERANGE when
 * well-formed but too big (a size past 2^64, a duration past 24h). */
int parse_size(const char *s, uint64_t *out);    /* 256M, 64KiB, 1G */
int parse_duration_ms(const char *s, long *out); /* 500ms, 2.5s, 1min, 1h */
/* "isolation,network" | "all" | "none" -> bit mask, any length; -1 + err on
 * an unknown key or an empty item. */
/* Whether host:port is on [network] allow (the host without regard to case). */
bool config_net_allowed(const struct lab_config *cfg, const char *host, int port);
/* "allow = api.lab.test:80 ..." as layers.ini would say it: the rule the
 * proxy quotes when it refuses. */
void config_net_rule(const struct lab_config *cfg, char *out, size_t cap);
int layers_parse(const char *list, unsigned *mask, char *err, size_t errlen);

#endif
