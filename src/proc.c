/* proc.c — process-tree walking over /proc (no CONFIG_PROC_CHILDREN needed). */
#define _GNU_SOURCE
#include "proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* One /proc/net/tcp{,6} line: local and remote "ADDR:PORT" and the inode. */
static bool tcp_line_matches(const char *line, const char *local, const char *remote, unsigned long *inode)
{
	char l[64], r[64];
	unsigned long ino;
	/* sl local rem st tx:rx tr:when retr uid timeout inode */
	if (sscanf(line, " %*s %63s %63s %*s %*s %*s %*s %*s %*s %lu", l, r, &ino) != 3)
		return false;
	size_t ll = strlen(l), rl = strlen(r), kl = strlen(local), kr = strlen(remote);
	/* tcp6 holds a v4 peer as ::ffff:127.0.0.1, the v4 part last */
	if (ll < kl || rl < kr || strcmp(l + ll - kl, local) || strcmp(r + rl - kr, remote))
		return false;
	if (ll > kl && strncmp(l, "0000000000000000FFFF0000", ll - kl))
		return false;
	*inode = ino;
	return true;
}

long proc_tcp_inode(unsigned lport, unsigned rport)
{
	char local[32], remote[32], line[512];
	/* 127.0.0.1 as the kernel prints it: host byte order, in hex */
	snprintf(local, sizeof local, "0100007F:%04X", lport);
	snprintf(remote, sizeof remote, "0100007F:%04X", rport);
	static const char *const tables[] = {"/proc/self/net/tcp", "/proc/self/net/tcp6"};
	for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
		FILE *f = fopen(tables[t], "re");
		if (!f)
			continue;
		unsigned long ino = 0;
		bool found = false;
		while (!found && fgets(line, sizeof line, f))
			found = tcp_line_matches(line, local, remote, &ino);
		fclose(f);
		if (found)
			return (long)ino;
	}
	return -1;
}

/* Whether pid holds the socket: its fds, at most PROC_FDS_MAX of them. */
#define PROC_FDS_MAX 4096
static bool holds_socket(pid_t pid, const char *want)
{
	char dir[64], path[64 + 256 + 2], link[64];
	snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	for (int n = 0; !found && n < PROC_FDS_MAX && (e = readdir(d)); n++) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		ssize_t k = readlink(path, link, sizeof link - 1);
		if (k <= 0)
			continue;
		link[k] = '\0';
		found = !strcmp(link, want);
	}
	closedir(d);
	return found;
}

#define PROC_TREE_MAX 512
bool proc_tree_holds_socket(pid_t root, unsigned long inode)
{
	char want[48];
	snprintf(want, sizeof want, "socket:[%lu]", inode);
	if (holds_socket(root, want))
		return true;
	pid_t *kids = malloc(PROC_TREE_MAX * sizeof *kids);
	if (!kids)
		return false;
	int n = proc_descendants(root, kids, PROC_TREE_MAX, true);
	bool found = false;
	for (int i = 0; i < n && i < PROC_TREE_MAX && !found; i++)
		found = holds_socket(kids[i], want);
	free(kids);
	return found;
}
