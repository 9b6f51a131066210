/* hostfs.h — the run's decoy host folder as evidence: what it held when the
 * run began, what changed in it while the run lived (inotify, served by the
 * watch loop through the decoys' descriptors), and what differs after. Any
 * file, folder or link created, changed or removed there is the host
 * written. The lab never follows a symlink in the folder: it walks it one
 * component at a time, O_NOFOLLOW, from its own handle.
 *
 * Life cycle: hostfs_watch_start (before the snippet runs) -> hostfs_event
 * whenever hostfs_fd is readable -> hostfs_finish (after the run's last
 * process) -> hostfs_free. */
#ifndef LAB_HOSTFS_H
#define LAB_HOSTFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define HOSTFS_ENTRIES 4096 /* the walk's bounds, as the setuid sweep's */
#define HOSTFS_DEPTH   16
#define HOSTFS_WATCHES 256 /* folders inotify follows */

struct hostfs_entry {
	char *path; /* relative to the host folder */
	struct stat st;
};

struct hostfs_snap {
	struct hostfs_entry *e;
	int n, cap;
	const char *cut; /* why the walk could not see everything, or NULL */
};

struct hostfs_watch {
	int fd;   /* inotify, -1 when not watching */
	int root; /* the lab's own handle on the host folder */
	struct {
		int wd;
		char *path; /* "" for the host folder itself */
	} w[HOSTFS_WATCHES];
	int n_w, n_start; /* folders watched, of them at the start */
	bool unwatched;   /* a new folder the lab could not watch */
	bool overflow;    /* the kernel's queue overflowed: events lost */
	long events;      /* changes seen */
	char why_not[96]; /* why there is no watch ("" when there is) */
	char *target;     /* the host target, relative */
	bool target_seen; /* an event named the target's path */
	uint32_t cookie;  /* a folder's move, from */
	char *moved_from;
	char seen[320]; /* what the events named, bounded */
	int n_seen;
	long seen_more;
	struct hostfs_snap before;
	struct stat root_before; /* the host folder itself, before (st_ino 0: unknown) */
	char *xattrs_before;     /* its extended attributes, names and values (root_xattrs) */
	bool root_seen;          /* a change of its own seen while the run lived */
};

/* What hostfs_finish found. */
struct hostfs_result {
	bool target_there;      /* the target exists, reached without a symlink */
	uint64_t target_size;   /* then its size */
	bool target_seen;       /* an event named it while the run lived */
	bool changed;           /* anything in the folder differs, or was seen to change */
	char changed_text[320]; /* "created etc/cron.d/x (file, 37 bytes), changed etc/hostname" */
	char seen_text[320];    /* how it was watched and what that saw */
};

/* Snapshots the folder host_fd (dup'd: the caller keeps its own) and
 * watches it and each folder in it; target is the path the takeover aims
 * at, relative to the folder. 0, or -errno with why_not said (the
 * snapshot is still taken: the after-look compares with it). */
int hostfs_watch_start(struct hostfs_watch *hw, int host_fd, const char *target);
/* The descriptor to poll, or -1. */
int hostfs_fd(const struct hostfs_watch *hw);
/* Reads what is queued: names what changed, watches new folders. */
void hostfs_event(struct hostfs_watch *hw);
/* Reads the rest, stops watching, walks the folder again (opening up a
 * folder the run made unreadable, when the lab owns it) and compares. */
void hostfs_finish(struct hostfs_watch *hw, struct hostfs_result *out);
void hostfs_free(struct hostfs_watch *hw);
/* The entry at rel below dirfd, reached one folder at a time without
 * following a symlink (the last component is not followed either):
 * 0 and *st, or -errno (-ELOOP or -ENOTDIR where a symlink stood). */
int hostfs_stat_beneath(int dirfd, const char *rel, struct stat *st);

#endif
