/* config.h — layers.ini: every knob with its built-in default, read strictly
 * (config.c). Included by lab.h after enum lab_layer, which it needs; a file
 * may include either header first. */
#ifndef CONFIG_H
#define CONFIG_H

#include "lab.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lab_limits {
	uint64_t memory;      /* bytes: cgroup memory cap and RLIMIT_AS */
	long pids;            /* processes the snippet may have at once */
	double cpu;           /* cores (cgroup CPU quota) */
	long cpu_time;        /* seconds of CPU per process (RLIMIT_CPU) */
	long timeout_ms;      /* wall clock */
	uint64_t output;      /* bytes of output captured */
	uint64_t file_size;   /* RLIMIT_FSIZE */
	long open_files;      /* RLIMIT_NOFILE: also bounds memory parked in memfds */
};

struct lab_config {
	char path[PATH_MAX];          /* the file that was read ("" = built-in) */
	bool layer_default[LAYER_COUNT];
	/* isolation */
	uint64_t tmp_size;
	char hostname[64];
	long outside_uid;             /* root lab: sandbox root maps to this uid */
	/* env */
	char env_allow[32][64];
	int n_env_allow;
	char clean_home[128];
	/* limits */
	struct lab_limits limits;
	/* safety net: always on, whatever the layers */
	long safety_timeout_ms;
	uint64_t safety_output;
	/* paths */
	char snippets_dir[PATH_MAX];
	char python[PATH_MAX];
};

/* Fills cfg from FILE (or the first of ./layers.ini, $XDG_CONFIG_HOME/
 * containment-lab/layers.ini, the file beside the binary, PREFIX/share when
 * file is NULL). Returns 0, or -1 with "FILE:LINE: what is wrong" in err. */
int config_load(struct lab_config *cfg, const char *file, char *err, size_t errlen);
void config_defaults(struct lab_config *cfg);
int parse_size(const char *s, uint64_t *out);
int parse_duration_ms(const char *s, long *out);
/* "isolation,network" | "all" | "none" -> bit mask; -1 + err on unknown key. */
int layers_parse(const char *list, unsigned *mask, char *err, size_t errlen);

#endif
