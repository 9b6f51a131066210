/* proc.c — process-tree walking over /proc (no CONFIG_PROC_CHILDREN needed). */
#define _GNU_SOURCE
#include "proc.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* One exact lookup through sock_diag (the kernel finds the socket by its
 * four-tuple: no walk of the whole TCP table, which /proc/net/tcp costs
 * ~8 ms here). family AF_INET, or AF_INET6 for a v4-mapped peer. */
static long diag_inode(int family, unsigned lport, unsigned rport)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -2;
	struct timeval tv = {.tv_usec = 200000}; /* the kernel answers at once; never hang the lab */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
	    .nlh = {.nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST},
	    .r = {.sdiag_family = (__u8)family,
	          .sdiag_protocol = IPPROTO_TCP,
	          .idiag_states = ~0U,
	          .id = {.idiag_sport = htons((uint16_t)lport),
	                 .idiag_dport = htons((uint16_t)rport),
	                 .idiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}}},
	};
	if (family == AF_INET) {
		req.r.id.idiag_src[0] = req.r.id.idiag_dst[0] = htonl(INADDR_LOOPBACK);
	} else { /* ::ffff:127.0.0.1 */
		req.r.id.idiag_src[2] = req.r.id.idiag_dst[2] = htonl(0xffff);
		req.r.id.idiag_src[3] = req.r.id.idiag_dst[3] = htonl(INADDR_LOOPBACK);
	}
	long inode = -1;
	char buf[8192];
	ssize_t n = send(fd, &req, sizeof req, 0) == (ssize_t)sizeof req ? recv(fd, buf, sizeof buf, 0) : -1;
	if (n < 0)
		inode = -2;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n))
		if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
			inode = (long)((struct inet_diag_msg *)NLMSG_DATA(h))->idiag_inode;
			break;
		}
	close(fd);
	return inode;
}

long proc_tcp_inode(unsigned lport, unsigned rport)
{
	long inode = diag_inode(AF_INET, lport, rport);
	if (inode < 0)
		inode = diag_inode(AF_INET6, lport, rport);
	return inode < 0 ? -1 : inode;
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
