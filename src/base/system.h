/* system.h — helpers with side effects (files, folders, descriptors,
 * randomness, the clock), kept apart from util.h's pure ones as minijail
 * keeps system.c apart from util.c. Errors come back as -errno unless said
 * otherwise. */
#ifndef LAB_SYSTEM_H
#define LAB_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

static inline void cleanup_closep(const int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
/* int fd cleanup_close = open(...): closed on every way out of the scope. */
#define cleanup_close __attribute__((cleanup(cleanup_closep)))

/* Milliseconds of CLOCK_MONOTONIC: every deadline and duration of the lab. */
long monotonic_ms(void);
/* n random characters from [A-Za-z0-9] (getrandom), NUL-terminated. */
void random_token(char *out, size_t n);
int write_all(int fd, const void *buf, size_t n);
/* Whole file into a malloc'd NUL-terminated buffer; NULL + errno on failure. */
char *read_file(const char *path, size_t *len_out, size_t max);
int write_file(const char *path, const char *data, int mode);
/* Writes text into an existing file (/proc, /sys): 0 or -errno. */
int file_put(const char *path, const char *text);
/* mkdir -p: 0, or -errno (errno set too). */
int mkdirs(const char *path, mode_t mode);
/* Recursively removes path (no symlink following). */
int remove_tree(const char *path);
/* Marks every descriptor from `from` up close-on-exec: close_range, then
 * /proc/self/fd, then one by one up to RLIMIT_NOFILE. 0 or -errno. */
int fds_cloexec_from(int from);
/* Hands fd over a unix socket (SCM_RIGHTS) with a one-byte tag: 0 or
 * -errno. The sender still owns its copy. */
int fd_send(int sock, int fd, char tag);
/* fd_send with its struct msghdr built at room (FD_SEND_AT_SIZE bytes,
 * the header first): a seccomp rule can tell that one sendmsg() by its
 * address (seccomp_filter.c, lab_seccomp_watch_sends). */
#define FD_SEND_AT_SIZE 256
int fd_send_at(int sock, int fd, char tag, void *room);
/* Takes one descriptor (close-on-exec) sent by fd_send, without waiting:
 * the descriptor, -1 when none came with the message (tag still set when
 * a byte came), or -EAGAIN when nothing is there yet. */
int fd_recv(int sock, char *tag);
/* $TMPDIR when it is an absolute path, else /tmp: where run folders live. */
const char *temp_dir(void);

/* A run folder's owner holds an exclusive flock on it for as long as it
 * lives (a lock survives pid namespaces, which a pid does not). dir_lock
 * returns the locked descriptor (close it to let go), or -1. dir_in_use
 * says whether a live process holds that lock. */
int dir_lock(const char *path);
bool dir_in_use(const char *path);
#endif
