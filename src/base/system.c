/* system.c — helpers with side effects: whole files in and out, folders made
 * and removed, descriptors marked close-on-exec, random canaries, the clock.
 * The pure helpers (buffers, formatting) are in util.c. */
#define _GNU_SOURCE
#include "system.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

long monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void random_token(char *out, size_t n)
{
	static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char raw[256];
	if (n > sizeof raw)
		n = sizeof raw;
	size_t got = 0;
	while (got < n) {
		ssize_t r = getrandom(raw + got, n - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			abort(); /* no randomness: never plant guessable canaries */
		}
		got += (size_t)r;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = alpha[raw[i] % (sizeof alpha - 1)];
	out[n] = '\0';
}

int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

char *read_file(const char *path, size_t *len_out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct strbuf b = {0};
	char tmp[8192];
	for (;;) {
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			sb_free(&b);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		sb_add(&b, tmp, (size_t)r);
		if (max && b.len > max) {
			close(fd);
			sb_free(&b);
			errno = EFBIG;
			return NULL;
		}
	}
	close(fd);
	if (!b.s)
		sb_add(&b, "", 0);
	if (len_out)
		*len_out = b.len;
	return b.s;
}

int write_file(const char *path, const char *data, int mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, data, strlen(data));
	if (fchmod(fd, (mode_t)mode) < 0 && !r)
		r = -errno;
	close(fd);
	return r;
}

#define RM_DEPTH 64 /* deeper folders are moved up to the top first */

/* Empties the folder open as dirfd: by descriptor, so no path ever grows
 * past PATH_MAX (a snippet may nest folders deeper than that), never
 * following a symlink, never crossing into another mount. A folder more
 * than RM_DEPTH down is renamed into the top folder and emptied from there,
 * so the depth of the recursion stays bounded whatever the tree. */
static int rm_contents(int dirfd, int topfd, int depth, dev_t dev)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return -1;
	}
	int rc = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(dirfd, e->d_name, 0) < 0 && errno != ENOENT)
				rc = -1;
			continue;
		}
		if (st.st_dev != dev) {
			rc = -1; /* a mount point: not ours to walk */
			continue;
		}
		if (depth >= RM_DEPTH) {
			char up[48];
			snprintf(up, sizeof up, ".rm-%llx", (unsigned long long)st.st_ino);
			if (renameat(dirfd, e->d_name, topfd, up) < 0)
				rc = -1;
			continue; /* the top's own walk meets it again */
		}
		int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || rm_contents(sub, topfd, depth + 1, dev) < 0)
			rc = -1;
		if (unlinkat(dirfd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	/* folders moved up to the top make the top's walk miss nothing only
	 * when it is walked again: a few passes empty any tree */
	for (int pass = 0; pass < 1000; pass++) {
		int top = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (top < 0)
			return -1;
		int again = dup(top);
		if (again < 0) {
			close(top);
			return -1;
		}
		rm_contents(again, top, 0, st.st_dev);
		close(top);
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return -1;
	}
	return -1;
}

const char *temp_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp && *tmp == '/' ? tmp : "/tmp";
}

int file_put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, text, strlen(text));
	close(fd);
	if (r < 0)
		errno = -r;
	return r;
}

int mkdirs(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	if (strlen(path) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -errno;
	}
	str_copy(tmp, sizeof tmp, path);
	for (char *p = tmp + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		struct stat st;
		if (stat(tmp, &st) < 0 && mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}

int fds_cloexec_from(int from)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)from, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0)
		return 0;
#endif
	/* older kernels: the descriptors that exist, from /proc */
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		int self = dirfd(d);
		for (struct dirent *e; (e = readdir(d));) {
			int fd = atoi(e->d_name);
			if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd >= from && fd != self &&
			    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 && errno != EBADF) {
				int err = errno;
				closedir(d);
				return -err;
			}
		}
		closedir(d);
		return 0;
	}
	/* no /proc: every possible descriptor */
	struct rlimit rl;
	long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;
	for (long fd = from; fd < max; fd++)
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0 && errno != EBADF)
			return -errno;
	return 0;
}

int dir_lock(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

bool dir_in_use(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool busy = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

/* fd_send's message, where fd_send_at puts it */
struct fd_msg {
	struct msghdr msg; /* first: its address is the one given */
	struct iovec iov;
	char tag;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
};
_Static_assert(sizeof(struct fd_msg) <= FD_SEND_AT_SIZE, "fd_send_at's room");

int fd_send_at(int sock, int fd, char tag, void *room)
{
	struct fd_msg *m = room;
	memset(m, 0, sizeof *m);
	m->tag = tag;
	m->iov = (struct iovec){&m->tag, 1};
	m->msg = (struct msghdr){
	    .msg_iov = &m->iov, .msg_iovlen = 1, .msg_control = m->u.buf, .msg_controllen = sizeof m->u.buf};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m->msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(sock, &m->msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int fd_send(int sock, int fd, char tag)
{
	struct fd_msg m;
	return fd_send_at(sock, fd, tag, &m);
}

int fd_recv(int sock, char *tag)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {tag, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
	ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;
	struct cmsghdr *c = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
	int fd = -1;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}
