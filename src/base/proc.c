/* proc.c — process-tree walking over /proc (no CONFIG_PROC_CHILDREN needed). */
#define _GNU_SOURCE
#include "proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

struct pp {
	pid_t pid, ppid;
	bool in, zombie;
};

static int read_ppid(pid_t pid, pid_t *ppid, char *state)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: parse after the last ')' */
	char *p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2])
		return -1;
	int pp;
	if (sscanf(p + 2, "%c %d", state, &pp) != 2)
		return -1;
	*ppid = pp;
	return 0;
}

int proc_descendants(pid_t root, pid_t *out, int max, bool alive_only)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct pp *all = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)atoi(e->d_name), ppid;
		char state;
		if (read_ppid(pid, &ppid, &state) < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			struct pp *g = realloc(all, cap * sizeof *all);
			if (!g)
				break;
			all = g;
		}
		all[n++] = (struct pp){pid, ppid, false, state == 'Z' || state == 'X'};
	}
	closedir(d);
	/* Mark descendants: repeat passes until nothing new joins. The set of
	 * members is kept apart so each test is against it, not all of /proc. */
	pid_t *set = malloc((n + 1) * sizeof *set);
	size_t k = 0;
	if (!set) {
		free(all);
		return 0;
	}
	set[k++] = root;
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			if (all[i].in)
				continue;
			for (size_t j = 0; j < k; j++)
				if (set[j] == all[i].ppid) {
					all[i].in = true;
					set[k++] = all[i].pid;
					changed = true;
					break;
				}
		}
	}
	free(set);
	int count = 0;
	for (size_t i = 0; i < n; i++)
		if (all[i].in && !(alive_only && all[i].zombie)) {
			if (count < max)
				out[count] = all[i].pid;
			count++;
		}
	free(all);
	return count;
}

bool proc_runs_exe(pid_t pid, const char *exe)
{
	char p[64], got[PATH_MAX];
	snprintf(p, sizeof p, "/proc/%d/exe", pid);
	ssize_t k = readlink(p, got, sizeof got - 1);
	if (k <= 0)
		return false;
	got[k] = '\0';
	return !strcmp(got, exe);
}

static bool has_arg(pid_t pid, const char *arg)
{
	char p[64], buf[8192];
	snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *a = buf; a < buf + n; a += strlen(a) + 1)
		if (!strcmp(a, arg))
			return true;
	return false;
}

bool proc_descends_via(pid_t pid, pid_t root, const char *exe, const char *arg)
{
	bool via = false;
	char state;
	for (int depth = 0; pid > 1 && depth < 256; depth++) {
		if (pid == root)
			return via;
		via |= proc_runs_exe(pid, exe) && has_arg(pid, arg);
		if (read_ppid(pid, &pid, &state) < 0)
			return false;
	}
	return false;
}
