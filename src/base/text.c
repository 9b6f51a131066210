/* text.c — the one place where text from outside the lab (a snippet's
 * output, a header, a path) is made inert for a terminal, and the lab's own
 * punctuation spelled in ASCII where the locale is not UTF-8. */
#define _GNU_SOURCE
#include "text.h"
#include "util.h"

#include <langinfo.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Length of a valid UTF-8 sequence at p (1..4) that is not a C1 control,
 * or 0 when the bytes are not valid UTF-8. */
static int utf8_len(const unsigned char *p, size_t left)
{
	if (p[0] < 0x80)
		return 1;
	int n = (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (!n || (size_t)n > left)
		return 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	uint32_t cp = n == 2   ? (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f)
	              : n == 3 ? (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f)
	                       : (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
	                             (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0; /* overlong or out of range */
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)
		return 0; /* C1 controls (CSI is 0x9b) */
	return n;
}

/* Characters that change how the text around them is drawn or read
 * without showing themselves: bidi overrides and isolates (a "Trojan
 * Source" trick), zero-width characters, line/paragraph separators, BOM.
 * p points at a valid 3-byte UTF-8 sequence. */
static bool invisible_control(const unsigned char *p)
{
	uint32_t cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0xfeff;
}

char *sanitize_output(const char *buf, size_t len, size_t max_bytes)
{
	struct strbuf b = {0};
	sb_add(&b, "", 0);
	if (!buf)
		return b.s;
	if (max_bytes && len > max_bytes)
		len = max_bytes;
	const unsigned char *p = (const unsigned char *)buf;
	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];
		if (c == '\n') {
			sb_add(&b, "\n", 1);
			i++;
		} else if (c == '\t') {
			sb_add(&b, "    ", 4);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			char t[3] = {'^', c == 0x7f ? '?' : (char)(c + '@'), 0};
			sb_add(&b, t, 2);
			i++;
		} else {
			int n = utf8_len(p + i, len - i);
			if (n == 0) {
				char t[8];
				snprintf(t, sizeof t, "\\x%02x", c);
				sb_puts(&b, t);
				i++;
			} else if (n == 3 && invisible_control(p + i)) {
				char t[16];
				snprintf(t, sizeof t, "\\u%02x%02x",
				         (unsigned)((p[i] & 0x0f) << 4 | (p[i + 1] & 0x3c) >> 2),
				         (unsigned)((p[i + 1] & 0x03) << 6 | (p[i + 2] & 0x3f)));
				sb_puts(&b, t);
				i += 3;
			} else {
				sb_add(&b, (const char *)p + i, (size_t)n);
				i += (size_t)n;
			}
		}
	}
	return b.s;
}

void text_one_line(char *s, size_t cap)
{
	if (!cap || !strpbrk(s, "\n\r"))
		return;
	char *tmp = malloc(cap);
	size_t o = 0;
	for (size_t i = 0; i < cap && s[i] && o + 1 < cap; i++) {
		bool nl = s[i] == '\n' || s[i] == '\r';
		if (!tmp) { /* no memory: a blank, still one line */
			s[i] = nl ? ' ' : s[i];
			continue;
		}
		if (nl && o + 2 >= cap)
			break;
		if (nl)
			tmp[o++] = '\\';
		tmp[o++] = s[i] == '\n' ? 'n' : s[i] == '\r' ? 'r' : s[i];
	}
	if (!tmp)
		return;
	tmp[o] = '\0';
	memcpy(s, tmp, o + 1);
	free(tmp);
}

/* ---- text for a terminal that is not UTF-8 ---- */

bool report_utf8(void)
{
	/* Asked of the environment (LC_ALL, LC_CTYPE, LANG) without changing
	 * the process's own locale: the command line never calls setlocale. */
	static int utf8 = -1;
	if (utf8 < 0) {
		locale_t loc = newlocale(LC_CTYPE_MASK, "", (locale_t)0);
		const char *cs = loc ? nl_langinfo_l(CODESET, loc) : "ANSI_X3.4-1968";
		utf8 = strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "UTF8") == 0;
		if (loc)
			freelocale(loc);
	}
	return utf8 == 1;
}

/* The lab's own punctuation and what it becomes in ASCII. */
static const struct {
	uint32_t cp;
	const char *ascii;
} ascii_table[] = {
    {0x00a0, " "},  {0x00ab, "<<"}, {0x00b1, "+/-"}, {0x00b7, "."},   {0x00bb, ">>"}, {0x00d7, "x"},   {0x2010, "-"},
    {0x2011, "-"},  {0x2012, "-"},  {0x2013, "-"},   {0x2014, "--"},  {0x2015, "--"}, {0x2018, "'"},   {0x2019, "'"},
    {0x201a, ","},  {0x201c, "\""}, {0x201d, "\""},  {0x201e, "\""},  {0x2022, "*"},  {0x2026, "..."}, {0x2009, " "},
    {0x202f, " "},  {0x2190, "<-"}, {0x2192, "->"},  {0x2194, "<->"}, {0x21d2, "=>"}, {0x2212, "-"},   {0x2248, "~"},
    {0x2260, "!="}, {0x2264, "<="}, {0x2265, ">="},  {0x2500, "-"},   {0x2502, "|"},  {0x250c, "+"},   {0x2510, "+"},
    {0x2514, "+"},  {0x2518, "+"},  {0x251c, "+"},   {0x2524, "+"},   {0x2588, "#"},  {0x2713, "ok"},  {0x2717, "x"},
};

char *report_to_ascii(const char *s)
{
	struct strbuf b = {0};
	sb_add(&b, "", 0);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p);
	for (size_t i = 0; i < len;) {
		if (p[i] < 0x80) {
			size_t n = 1;
			while (i + n < len && p[i + n] < 0x80)
				n++;
			sb_add(&b, (const char *)p + i, n);
			i += n;
			continue;
		}
		int n = utf8_len(p + i, len - i);
		if (n == 0) { /* not UTF-8 (or a C1 control): its byte, inert */
			sb_printf(&b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		uint32_t cp = n == 2 ? (uint32_t)(p[i] & 0x1f) << 6 | (p[i + 1] & 0x3f)
		              : n == 3
		                  ? (uint32_t)(p[i] & 0x0f) << 12 | (uint32_t)(p[i + 1] & 0x3f) << 6 | (p[i + 2] & 0x3f)
		                  : (uint32_t)(p[i] & 0x07) << 18 | (uint32_t)(p[i + 1] & 0x3f) << 12 |
		                        (uint32_t)(p[i + 2] & 0x3f) << 6 | (p[i + 3] & 0x3f);
		const char *a = NULL;
		for (size_t k = 0; !a && k < sizeof ascii_table / sizeof ascii_table[0]; k++)
			if (ascii_table[k].cp == cp)
				a = ascii_table[k].ascii;
		if (a)
			sb_puts(&b, a);
		else if (cp <= 0xffff)
			sb_printf(&b, "\\u%04x", (unsigned)cp);
		else
			sb_printf(&b, "\\U%08x", (unsigned)cp);
		i += (size_t)n;
	}
	return b.s;
}

char *report_ascii_text(const char *s)
{
	if (report_utf8())
		return strdup(s ? s : "");
	return report_to_ascii(s);
}

int report_fputs(const char *s, FILE *f)
{
	if (report_utf8())
		return fputs(s, f);
	char *a = report_to_ascii(s);
	int rc = a ? fputs(a, f) : EOF;
	free(a);
	return rc;
}
