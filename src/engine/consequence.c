/* consequence.c — an escape's consequence filled from the run's figures
 * (consequence.h). */
#include <stdio.h>
#include <string.h>

#include "consequence.h"
#include "util.h"

/* One field's value, or false when name is not a field. */
static bool field(const char *name, size_t n, const struct lab_evidence *ev, unsigned uid, char *val, size_t cap)
{
	char num[32];

	if (n == 5 && !strncmp(name, "procs", 5)) {
		snprintf(val, cap, "%ld", ev->res.peak_procs);
	} else if (n == 3 && !strncmp(name, "mem", 3)) {
		snprintf(val, cap, "%llu MiB", (unsigned long long)((ev->res.peak_mem + (1u << 19)) >> 20));
	} else if (n == 3 && !strncmp(name, "cpu", 3)) {
		snprintf(val, cap, "%.1f s", ev->res.cpu_s);
	} else if (n == 4 && !strncmp(name, "sent", 4)) {
		fmt_thousands(num, sizeof num, ev->exfil.attacker_bytes);
		snprintf(val, cap, "%s bytes", num);
	} else if (n == 3 && !strncmp(name, "who", 3)) {
		if (uid == 0)
			snprintf(val, cap, "root");
		else
			snprintf(val, cap, "uid %u", uid);
	} else {
		return false;
	}
	return true;
}

/* tmpl[0..n) with its fields filled, appended to out. */
static void fill_span(char *out, size_t cap, const char *t, size_t n, const struct lab_evidence *ev, unsigned uid)
{
	char val[64];
	size_t i = 0;

	while (i < n) {
		const char *close = t[i] == '{' ? memchr(t + i, '}', n - i) : NULL;

		if (close && field(t + i + 1, (size_t)(close - t - i - 1), ev, uid, val, sizeof val)) {
			str_append(out, cap, "%s", val);
			i = (size_t)(close - t) + 1;
			continue;
		}
		str_append(out, cap, "%c", t[i]);
		i++;
	}
}

/* The '}' that closes the brace before s (the fields inside nest one deep),
 * or NULL. */
static const char *closing(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '{')
			depth++;
		else if (*s == '}' && depth-- == 0)
			return s;
	}
	return NULL;
}

void consequence_fill(char *out, size_t cap, const char *tmpl, const struct lab_evidence *ev, unsigned lab_uid)
{
	const char *p = tmpl, *open, *bar, *close;

	if (!cap)
		return;
	out[0] = '\0';
	while ((open = strstr(p, "{root:"))) {
		close = closing(open + 6);
		bar = close ? memchr(open, '|', (size_t)(close - open)) : NULL;
		if (!bar)
			break;
		fill_span(out, cap, p, (size_t)(open - p), ev, lab_uid);
		if (lab_uid == 0)
			fill_span(out, cap, open + 6, (size_t)(bar - open - 6), ev, lab_uid);
		else
			fill_span(out, cap, bar + 1, (size_t)(close - bar - 1), ev, lab_uid);
		p = close + 1;
	}
	fill_span(out, cap, p, strlen(p), ev, lab_uid);
}
