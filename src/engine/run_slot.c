/* run_slot.c — the machine-wide bound on runs at once (run_slot.h). */
#define _GNU_SOURCE
#include "run_slot.h"
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* How often a waiter tries the slots again: the longer it has waited, the
 * more often (50 ms at first, 2 ms after 48 s), so that the oldest waiter
 * takes a slot that comes free, not a newcomer: a waiter among sixty that
 * tried every 20 ms lost every race for 300 s about once in a thousand
 * runs (tests/load_test.sh). */
static int retry_ms(long waited_ms)
{
	long ms = 50 - waited_ms / 1000;
	return ms < 2 ? 2 : (int)ms;
}

/* Slot k, locked, or -1. Opened read-only (any user may flock a file it
 * can read) and never followed through a symlink. */
static int try_slot(long k)
{
	char p[96];
	snprintf(p, sizeof p, "%s/containment-lab.slot.%ld", RUN_SLOT_DIR, k);
	int fd = open(p, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0444);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0777) != 0444)
		fchmod(fd, 0444); /* whatever our umask: every lab must be able to open it */
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || flock(fd, LOCK_EX | LOCK_NB) < 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Who holds the slots now, as one number: the flock()s /proc/locks lists
 * on the slot files' inodes, each (holder pid, inode) mixed in, order
 * free. It changes whenever a slot changes hands; 0 when nothing can be
 * read (then the wait is bounded from its start, as before). */
static unsigned long long holders_print(long n)
{
	unsigned long inos[64];
	long m = 0;
	for (long k = 0; k < n && m < (long)(sizeof inos / sizeof *inos); k++) {
		char p[96];
		struct stat st;
		snprintf(p, sizeof p, "%s/containment-lab.slot.%ld", RUN_SLOT_DIR, k);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			inos[m++] = (unsigned long)st.st_ino;
	}
	FILE *f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	unsigned long long print = 0;
	char line[256];
	while (fgets(line, sizeof line, f)) {
		int pid;
		unsigned maj, min;
		unsigned long ino;
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &pid, &maj, &min, &ino) != 4)
			continue;
		for (long k = 0; k < m; k++)
			if (inos[k] == ino) {
				unsigned long long h =
				    ((unsigned long long)(unsigned)pid << 32 | ino) * 0x9E3779B97F4A7C15ULL;
				print += h ^ (h >> 29);
			}
	}
	fclose(f);
	return print;
}

int run_slot_take(const struct lab_config *cfg, int abort_fd, bool *aborted, char *err, size_t cap)
{
	long n = cfg->safety_slots;
	if (n <= 0)
		return -1;
	unsigned start = 0;
	if (getrandom(&start, sizeof start, 0) != (ssize_t)sizeof start)
		start = (unsigned)getpid();
	long bound = RUN_SLOT_WAIT_FACTOR * cfg->safety_timeout_ms;
	long t0 = monotonic_ms(), moved = t0, looked = t0;
	unsigned long long print = holders_print(n);
	for (;;) {
		for (long i = 0; i < n; i++) {
			int fd = try_slot((long)((start + (unsigned long)i) % (unsigned long)n));
			if (fd >= 0)
				return fd;
		}
		/* the wait ends in ERROR only when no slot has changed hands for
		 * the bound (a stuck run, or a local user holding every slot):
		 * a long queue that moves is not that. Measured under load: 60
		 * waiters for 4 slots, runs slowed by other work, kept some
		 * waiters out past 300 s though every slot changed hands every
		 * few seconds. */
		long now = monotonic_ms();
		if (now - looked >= 1000) {
			unsigned long long p = holders_print(n);
			if (p != print && p != 0)
				moved = now;
			print = p;
			looked = now;
		}
		if (now - moved >= bound) {
			snprintf(
			    err, cap,
			    "no run slot changed hands for %ld s (%ld slots in %s/containment-lab.slot.*, [safety] "
			    "slots of layers.ini): a stuck run or another user holds them all",
			    bound / 1000, n, RUN_SLOT_DIR);
			return -2;
		}
		struct pollfd p = {abort_fd, POLLIN, 0};
		int ms = retry_ms(monotonic_ms() - t0);
		if (abort_fd >= 0 && poll(&p, 1, ms) > 0) {
			*aborted = true;
			snprintf(err, cap, "aborted while waiting for a run slot");
			return -2;
		}
		if (abort_fd < 0)
			poll(NULL, 0, ms);
	}
}
