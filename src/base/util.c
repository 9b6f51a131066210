/* util.c — pure helpers (buffers, bounded strings, JSON, formatting). No I/O
 * and no sandbox logic here: files and the system are system.c. */
#define _GNU_SOURCE
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_add(struct strbuf *b, const char *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s)
			abort();
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_puts(struct strbuf *b, const char *str)
{
	sb_add(b, str, strlen(str));
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *tmp = NULL;
	int n = vasprintf(&tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	sb_add(b, tmp, (size_t)n);
	free(tmp);
}

/* The length of the well-formed UTF-8 character at p (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF), or 0. */
static size_t utf8_char_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	if (p[0] < 0xc2 || p[0] > 0xf4 || n < len)
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) || (p[0] == 0xf0 && p[1] < 0x90) ||
	    (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

/* A JSON string is UTF-8: a byte that is not part of a well-formed
 * character is written as the text report shows it, \xHH (the four
 * characters), so a name the snippet chose never makes the document one a
 * strict reader refuses. */
void sb_json_mem(struct strbuf *b, const char *data, size_t n)
{
	sb_add(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)data[i];
		char esc[8];
		switch (c) {
		case '"':
			sb_add(b, "\\\"", 2);
			break;
		case '\\':
			sb_add(b, "\\\\", 2);
			break;
		case '\n':
			sb_add(b, "\\n", 2);
			break;
		case '\r':
			sb_add(b, "\\r", 2);
			break;
		case '\t':
			sb_add(b, "\\t", 2);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				snprintf(esc, sizeof esc, "\\u%04x", c);
				sb_add(b, esc, 6);
			} else if (c < 0x80) {
				sb_add(b, (const char *)&data[i], 1);
			} else {
				size_t len = utf8_char_len((const unsigned char *)data + i, n - i);
				if (len) {
					sb_add(b, data + i, len);
					i += len - 1;
				} else {
					snprintf(esc, sizeof esc, "\\\\x%02x", c);
					sb_add(b, esc, 5);
				}
			}
		}
	}
	sb_add(b, "\"", 1);
}

void sb_json_str(struct strbuf *b, const char *str)
{
	if (!str)
		sb_puts(b, "null");
	else
		sb_json_mem(b, str, strlen(str));
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void str_append(char *dst, size_t cap, const char *fmt, ...)
{
	size_t len = strnlen(dst, cap);
	if (len + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst + len, cap - len, fmt, ap);
	va_end(ap);
}

void str_copy(char *dst, size_t cap, const char *src)
{
	if (!cap)
		return;
	snprintf(dst, cap, "%s", src ? src : "");
}

int pathf(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap) {
		if (cap)
			dst[0] = '\0';
		return -1;
	}
	return 0;
}

void fmt_thousands(char *out, size_t cap, uint64_t n)
{
	char digits[32];
	snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	size_t len = strlen(digits), o = 0;
	char tmp[48];
	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			tmp[o++] = ',';
		tmp[o++] = digits[i];
	}
	tmp[o] = '\0';
	str_copy(out, cap, tmp);
}

void fmt_bytes(char *out, size_t cap, uint64_t n)
{
	if (n >= (1ull << 20))
		snprintf(out, cap, "%.0f MiB", (double)n / (1 << 20));
	else if (n >= 10ull * 1024)
		snprintf(out, cap, "%.0f KiB", (double)n / 1024);
	else {
		char t[32];
		fmt_thousands(t, sizeof t, n);
		snprintf(out, cap, "%s bytes", t);
	}
}

void fmt_size_exact(char *out, size_t cap, uint64_t n, const char *units, const char *suffix, const char *plain)
{
	for (int i = 0; i < 3; i++) {
		uint64_t u = 1ULL << (10 * (3 - i));
		if (n >= u && n % u == 0) {
			snprintf(out, cap, "%llu%c%s", (unsigned long long)(n / u), units[i], suffix);
			return;
		}
	}
	snprintf(out, cap, "%llu%s", (unsigned long long)n, plain);
}

void path_lexical(char *path)
{
	if (path[0] != '/')
		return;
	size_t w = 0; /* path[0..w) is done: "" or "/a/b" */
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (w > 0 && path[w - 1] != '/')
				w--;
			if (w > 0)
				w--; /* the slash before it */
		} else {
			/* w <= p - path - 1: the part moves left or stays */
			path[w++] = '/';
			memmove(path + w, p, n);
			w += n;
		}
		p += n;
	}
	if (w == 0)
		path[w++] = '/';
	path[w] = '\0';
}

int path_is_or_holds(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}
