/* util.h — small pure helpers shared by every room: a growable buffer,
 * bounded string copies, JSON escaping, human-readable numbers. Nothing here
 * touches a file or the system: that is system.h. */
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

/* An absolute path made plain in place, by its text alone: repeated and
 * trailing slashes, "." and ".." go ("/a//b/./c/../d/" -> "/a/b/d"). No
 * link is followed: the path may be another mount namespace's. */
void path_lexical(char *path);
/* dir is path itself or one of its parents (both plain and absolute). */
int path_is_or_holds(const char *dir, const char *path);

/* Human sizes: "256 MiB", "1,204 bytes". */
void fmt_bytes(char *out, size_t cap, uint64_t n);
void fmt_thousands(char *out, size_t cap, uint64_t n);
/* A size in the largest of G, M, K (units spells them: "GMK", "gmk") that
 * divides it exactly, followed by suffix ("16M", "256MiB"); else the bytes
 * followed by plain ("1000 bytes"). */
void fmt_size_exact(char *out, size_t cap, uint64_t n, const char *units, const char *suffix, const char *plain);

#endif
