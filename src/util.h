/* util.h — small pure helpers shared by every room: a growable buffer,
 * cleanup attributes, JSON escaping, random canaries. */
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

struct strbuf {
	char *s;
	size_t len, cap;
};
void sb_add(struct strbuf *b, const char *data, size_t n);
void sb_puts(struct strbuf *b, const char *str);
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_json_str(struct strbuf *b, const char *str); /* "..." with escapes */
void sb_json_mem(struct strbuf *b, const char *data, size_t n);
void sb_free(struct strbuf *b);

/* Appends to a fixed buffer, always NUL-terminated, never overflows. */
void str_append(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void str_copy(char *dst, size_t cap, const char *src);
/* snprintf for paths and other fixed buffers: truncation is a bug we want to
 * see, so the result is left empty and -1 returned instead. */
int pathf(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline void cleanup_freep(void *p)
{
	free(*(void **)p);
}
static inline void cleanup_closep(const int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define cleanup_free  __attribute__((cleanup(cleanup_freep)))
#define cleanup_close __attribute__((cleanup(cleanup_closep)))

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
/* Marks every descriptor from `from` up close-on-exec: close_range, then
 * /proc/self/fd, then one by one up to RLIMIT_NOFILE. 0 or -errno. */
int fds_cloexec_from(int from);
/* Human sizes: "256 MiB", "1,204 bytes". */
void fmt_bytes(char *out, size_t cap, uint64_t n);
void fmt_thousands(char *out, size_t cap, uint64_t n);
/* Recursively removes path (no symlink following). */
int remove_tree(const char *path);
/* $TMPDIR when it is an absolute path, else /tmp: where run folders live. */
const char *temp_dir(void);

#endif
