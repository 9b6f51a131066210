/* run_uid.c — a uid of its own for a root lab's sandbox (run_uid.h says
 * which block, what makes a uid free and how it is claimed). */
#define _GNU_SOURCE
#include "run_uid.h"
#include "system.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SEEN_MAX  4096 /* ids of the block some process runs as: far more than a machine has */
#define TRIES_MAX 256  /* candidates tried before giving up */

struct taken {
	long id[SEEN_MAX];
	int n;
};

static bool in_block(long id)
{
	return id >= RUN_UID_FIRST && id <= RUN_UID_LAST;
}

static bool has(const struct taken *t, long id)
{
	for (int i = 0; i < t->n; i++)
		if (t->id[i] == id)
			return true;
	return false;
}

static void add(struct taken *t, long id)
{
	if (in_block(id) && t->n < SEEN_MAX && !has(t, id))
		t->id[t->n++] = id;
}

/* Every id of the block that a process runs as: the four uids and gids of
 * /proc/PID/status. -errno when /proc cannot be read (then nothing is
 * known, and nothing is claimed). */
static int scan_processes(struct taken *t)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	for (struct dirent *e; (e = readdir(d));) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		char p[64];
		snprintf(p, sizeof p, "/proc/%.20s/status", e->d_name);
		char *s = read_file(p, NULL, 1 << 14);
		for (int k = 0; k < 2 && s; k++) {
			const char *l = strstr(s, k ? "\nGid:" : "\nUid:");
			long v[4];
			if (l && sscanf(l + 5, "%ld %ld %ld %ld", &v[0], &v[1], &v[2], &v[3]) == 4)
				for (int i = 0; i < 4; i++)
					add(t, v[i]);
		}
		free(s);
	}
	closedir(d);
	return 0;
}

/* /etc/passwd's or /etc/group's third field, for every line. */
static void scan_db(const char *path, struct taken *t)
{
	char *s = read_file(path, NULL, 16 << 20);
	for (char *l = s, *next; l && *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		const char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2 && isdigit((unsigned char)c2[1]))
			add(t, strtol(c2 + 1, NULL, 10));
	}
	free(s);
}

/* The first range of /etc/subuid or /etc/subgid ("name:start:count")
 * that holds id, written into why; false when none does. */
static bool in_subids(const char *path, long id, char *why, size_t cap)
{
	char *s = read_file(path, NULL, 16 << 20);
	bool found = false;
	for (char *l = s, *next; l && *l && !found; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		char name[64];
		long long start, count;
		if (sscanf(l, "%63[^:]:%lld:%lld", name, &start, &count) == 3 && id >= start && id < start + count) {
			snprintf(why, cap, "%s holds it (%s's range %lld+%lld)", path, name, start, count);
			found = true;
		}
	}
	free(s);
	return found;
}

/* A user or group of that number known to NSS (files, LDAP, systemd...). */
static bool known_to_nss(long id, char *why, size_t cap)
{
	char buf[4096];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;
	if (getpwuid_r((uid_t)id, &pw, buf, sizeof buf, &pwp) == 0 && pwp) {
		snprintf(why, cap, "it is user %.64s's", pw.pw_name);
		return true;
	}
	if (getgrgid_r((gid_t)id, &gr, buf, sizeof buf, &grp) == 0 && grp) {
		snprintf(why, cap, "it is group %.64s's", gr.gr_name);
		return true;
	}
	return false;
}

static bool taken_by(const struct taken *dbs, const struct taken *procs, long id, char *why, size_t cap)
{
	why[0] = '\0';
	if (has(dbs, id))
		snprintf(why, cap, "/etc/passwd or /etc/group has it");
	else if (has(procs, id))
		snprintf(why, cap, "a process runs as it");
	else if (!in_subids("/etc/subuid", id, why, cap) && !in_subids("/etc/subgid", id, why, cap))
		known_to_nss(id, why, cap);
	return why[0] != '\0';
}

static int gather(struct taken *dbs, struct taken *procs)
{
	dbs->n = procs->n = 0;
	scan_db("/etc/passwd", dbs);
	scan_db("/etc/group", dbs);
	return scan_processes(procs);
}

void run_uid_why_taken(long id, char *why, size_t cap)
{
	static struct taken dbs, procs; /* a test's call, never concurrent */
	why[0] = '\0';
	if (!in_block(id))
		snprintf(why, cap, "not in the lab's block %ld-%ld", RUN_UID_FIRST, RUN_UID_LAST);
	else if (gather(&dbs, &procs) < 0)
		snprintf(why, cap, "/proc cannot be read: %s", strerror(errno));
	else
		taken_by(&dbs, &procs, id, why, cap);
}

/* The claim: an abstract socket's name, which the kernel gives once. */
static int bind_claim(long id)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "containment-lab/uid/%ld", id);
	if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int run_uid_claim(struct run_uid *c, char *err, size_t cap)
{
	/* two labs started together must not walk the block in step */
	unsigned long span = (unsigned long)(RUN_UID_LAST - RUN_UID_FIRST + 1), start = 0;
	if (getrandom(&start, sizeof start, 0) != (ssize_t)sizeof start)
		start = (unsigned long)getpid() * 2654435761u;
	struct taken *dbs = malloc(sizeof *dbs), *procs = malloc(sizeof *procs);
	int e = dbs && procs ? gather(dbs, procs) : -ENOMEM;
	char why[160] = "";
	c->uid = -1;
	c->fd = -1;
	for (int i = 0; e == 0 && i < TRIES_MAX && c->fd < 0; i++) {
		long id = RUN_UID_FIRST + (long)((start + (unsigned long)i) % span);
		if (taken_by(dbs, procs, id, why, sizeof why))
			continue;
		int fd = bind_claim(id);
		if (fd >= 0) {
			c->uid = id;
			c->fd = fd;
		} else if (fd != -EADDRINUSE) {
			e = fd;
		} else {
			snprintf(why, sizeof why, "another run claims it");
		}
	}
	free(dbs);
	free(procs);
	if (c->fd >= 0)
		return 0;
	if (e < 0)
		snprintf(err, cap, "cannot pick a uid of its own for the sandbox (%ld-%ld): %s", RUN_UID_FIRST,
		         RUN_UID_LAST, strerror(-e));
	else
		snprintf(err, cap,
		         "no free uid for the sandbox in %ld-%ld after %d tries (the last: %s): set [isolation] "
		         "outside_uid in layers.ini",
		         RUN_UID_FIRST, RUN_UID_LAST, TRIES_MAX, why);
	return -1;
}

void run_uid_release(struct run_uid *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->uid = -1;
}
