/* decoy.h — what the lab plants for every run: fresh random canaries that
 * only the sandboxed snippet could leak, and the attacker it could reach. */
#ifndef LAB_DECOY_H
#define LAB_DECOY_H
#include "agent.h"
#include "hostfs.h"
#include "lab.h"
#include "resolver.h"
#include <stdbool.h>
#include <stdint.h>

#define DECOY_SECRETS  12
#define ATTACKER_CONNS 4
#define DECOY_VARIANTS 8
/* the attacker's listener, its connections, the DNS zone, the agent
 * socket (decoy_poll_fds) */
/* socket, and the host folder's watch (hostfs.h) */
#define DECOY_POLL_MAX (ATTACKER_CONNS + 3 + AGENT_POLL_MAX)

struct attacker_conn {
	int fd;
	char *buf;
	size_t len, cap;
	bool answered;
	bool from_run; /* its request carried the run's token */
	int origin;    /* enum decoy_origin: whose connection it is */
};

/* Whose connection reached the attacker, known by where the listener is. */
enum decoy_origin {
	DECOY_ORIGIN_UNTIED,   /* on the lab's 127.0.0.1: anyone's, unless its bytes carry the run's marks */
	DECOY_ORIGIN_RUN,      /* in the run's own network namespace: only the run can connect there */
	DECOY_ORIGIN_STRANGER, /* not used any more: kept so the evidence keeps its shape */
};

struct lab_decoys {
	char dir[PATH_MAX];         /* /tmp/containment-lab.PID.XXXXXX, removed at the end */
	char work[PATH_MAX];        /* sales.csv + the snippet, /work inside */
	char home[PATH_MAX];        /* decoy home: .aws/credentials, .ssh/id_ed25519, .git-credentials,
	                               projects/billing-api/.env */
	char host[PATH_MAX];        /* the "host" folder */
	char host_target[PATH_MAX]; /* what the takeover tries to create */
	char root[PATH_MAX];        /* mount point for the sandbox's new root */
	char snippet_file[PATH_MAX];
	char creds[PATH_MAX]; /* the decoy ~/.aws/credentials */
	char csv[PATH_MAX];
	char csv_canary[48];
	char run_token[24]; /* in the attacker's URL: bytes that carry it came from this run */
	char csv_variant[DECOY_VARIANTS][112];
	int n_csv_variant;
	struct {
		char name[40];
		/* where the lab put it: "" for the environment a naive
		 * integration hands over, else a file of the decoy home
		 * ("~/.ssh/id_ed25519"); every source has its own canaries, so
		 * a leak names the place it came from */
		char file[48];
		char value[160];
		char token[64]; /* the random part we look for */
		/* the same token as it would appear base64- or hex-encoded in a
		 * longer output (a thief need not print it plainly) */
		char variant[DECOY_VARIANTS][112];
		int n_variant;
	} secret[DECOY_SECRETS];
	int n_secret;
	int lock_fd; /* dir, flock()ed while the run lives (run.c's sweep of stale runs) */
	/* attacker */
	int listen_fd;
	int port;
	/* No-network off: the listener is in the run's own network namespace
	 * (the init made it, egress.h), so every connection is the run's */
	bool inside;
	struct attacker_conn conn[ATTACKER_CONNS];
	long conns;
	long conns_from_run; /* of those, the ones whose request carried run_token */
	uint64_t bytes;
	char *received; /* first bytes received, for the canary search */
	size_t received_len;
	/* when set (allow-list mode), a connection it refuses is shut at once
	 * and not counted: only the lab's proxy may reach the attacker then */
	bool (*accept_ok)(void *ctx, int fd);
	void *accept_ctx;
	uint64_t bytes_by_origin[3]; /* what each kind of connection sent */
	long conns_by_origin[3];
	struct lab_resolver dns; /* an audit's: the attacker's DNS zone (fd -1 otherwise) */
	struct lab_agent agent;  /* an audit's: the host agent's socket in the decoy home (fd -1 otherwise) */
	/* the range's host folder (Isolation off), watched from before the
	 * snippet starts to after its last process (NULL otherwise) */
	struct hostfs_watch *host_watch;
};

/* Creates the run folder and plants everything. 0 or -errno (msg in err). */
int decoy_plant(struct lab_decoys *d, const struct lab_config *cfg, const struct snippet *s, char *err, size_t errlen);
/* The decoy "host" files (etc/hostname, the empty etc/cron.d the takeover
 * aims at) under host, a folder that exists. 0 or -errno. The range also
 * plants them in its own tmpfs (rootfs.c). */
int decoy_plant_host(const char *host);
/* The first setuid/setgid file or device node under the folder host_fd,
 * as a line ("etc/x: setuid owner (uid 0), mode 4755"); "" if none. A
 * folder too wide, too deep or unreadable to search is said as such: what
 * the lab did not see it does not rule out. */
void decoy_host_planted(int host_fd, char *out, size_t cap);
/* Starts watching the range's host folder host_fd (the lab's handle):
 * its snapshot, then inotify, served with the attacker's descriptors. */
void decoy_watch_host(struct lab_decoys *d, int host_fd);
int decoy_listen(struct lab_decoys *d);
/* Accept/read what is ready on fd (the listener or a connection). */
void decoy_attacker_event(struct lab_decoys *d, int fd);
int decoy_poll_fds(const struct lab_decoys *d, int *fds, int max);
/* The naive environment a careless integration would pass (with secrets). */
/* Which of the planted secrets live in the environment (file ""). */
bool decoy_secret_in_env(const struct lab_decoys *d, int i);
void decoy_naive_env(const struct lab_decoys *d, const char *home, char ***envp);
void decoy_remove(struct lab_decoys *d);
/* Whether what reached the attacker came from this run: any byte at a
 * listener inside the run's network namespace; on the lab's 127.0.0.1
 * (which another run can reach too) bytes that carry the run's token, its
 * canary row or one of its secrets. secrets[] is set for the secrets found
 * there. */
bool decoy_attacker_from_run(const struct lab_decoys *d, bool secrets[DECOY_SECRETS]);
/* This run's marks in any bytes that left the sandbox (what api.lab.test
 * received, say): *canary_row for the customer data's canary row (plain,
 * base64 or hex), and the number of planted secrets found. */
int decoy_marks_in(const struct lab_decoys *d, const char *buf, size_t len, bool *canary_row);
/* Did the attacker receive the canary row (plain, base64 or hex)? */
bool decoy_attacker_got_canary(const struct lab_decoys *d);
/* An audit's DNS zone got the canary row in its names. */
bool decoy_dns_got_canary(const struct lab_decoys *d);
/* Looks for every planted secret and the canary row in a stream, plain or
 * encoded, including across read boundaries: found[i] is set for secret i,
 * canary_row for the row. Whole streams of any length, in pieces. */
struct decoy_scanner {
	char tail[128]; /* longer than any canary or encoded variant */
	size_t tail_len;
	char ntail[128]; /* the same, with everything but letters and digits dropped */
	size_t ntail_len;
	bool found[DECOY_SECRETS];
	bool canary_row; /* the customer data's canary row (plain or encoded) */
};
void decoy_scan(const struct lab_decoys *d, struct decoy_scanner *sc, const char *data, size_t n);
/* Fills a canary's encoded variants (exposed for the unit tests). */
void decoy_encode_variants(const char *token, char variant[][112], int *n);
#endif
