/* progress.c — the progress line (progress.h): its words, and its redraw
 * on a terminal with a carriage return and an erase to the end of line, so
 * it stays one line however often it changes. */
#include "progress.h"
#include "system.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define SGR_COUNT  "\033[1;36m"
#define SGR_DIFFER "\033[1;31m"
#define SGR_OFF    "\033[0m"

void progress_format(char *out, size_t len, const char *what, const char *unit, int done, int total, int differ,
                     long elapsed_ms, const char *now, bool color, int width)
{
	long s = elapsed_ms / 1000;
	char left[48] = "";
	/* the time left from the pace so far: nothing to say before one is in */
	if (done > 0 && done < total)
		snprintf(left, sizeof left, ", ~%ld s left", (elapsed_ms * (total - done) / done + 999) / 1000);
	char plain[256], diff[32] = "";
	if (differ > 0)
		snprintf(diff, sizeof diff, ", %d differ", differ);
	snprintf(plain, sizeof plain, "%s: %d/%d %s%s, %ld s%s%s%s%s", what, done, total, unit, diff, s, left,
	         now && *now ? " (" : "", now && *now ? now : "", now && *now ? ")" : "");
	/* cut to the terminal's width: a line that wraps cannot be redrawn */
	if (width > 1 && strlen(plain) > (size_t)width - 1)
		plain[width - 1] = '\0';
	if (!color) {
		snprintf(out, len, "%s", plain);
		return;
	}
	/* the same words, the count and the differences coloured */
	size_t head = strlen(what) + 2;
	char count[32];
	snprintf(count, sizeof count, "%d/%d", done, total);
	if (strlen(plain) < head + strlen(count)) {
		snprintf(out, len, "%s", plain);
		return;
	}
	struct strbuf b = {0};
	sb_add(&b, plain, head);
	sb_printf(&b, SGR_COUNT "%s" SGR_OFF, count);
	const char *rest = plain + head + strlen(count);
	const char *d = diff[0] ? strstr(rest, diff + 2) : NULL;
	if (d) {
		sb_add(&b, rest, (size_t)(d - rest));
		size_t dl = strlen(diff + 2);
		size_t avail = strlen(d);
		sb_puts(&b, SGR_DIFFER);
		sb_add(&b, d, dl < avail ? dl : avail);
		sb_puts(&b, SGR_OFF);
		rest = d + (dl < avail ? dl : avail);
	}
	sb_puts(&b, rest);
	snprintf(out, len, "%s", b.s);
	sb_free(&b);
}

void progress_start(struct progress *p, FILE *f, bool on, const char *what, const char *unit)
{
	memset(p, 0, sizeof *p);
	p->done = -1;
	if (!on || !f || !isatty(fileno(f)))
		return;
	const char *term = getenv("TERM");
	p->f = f;
	p->what = what;
	p->unit = unit;
	p->erase = !(term && !strcmp(term, "dumb"));
	p->color = p->erase && !getenv("NO_COLOR");
	p->t0_ms = monotonic_ms();
}

static int term_width(FILE *f)
{
	struct winsize ws;
	return ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

void progress_update(struct progress *p, int done, int total, int differ, const char *now)
{
	if (!p->f)
		return;
	long t = monotonic_ms();
	if (done == p->done && t - p->drawn_ms < 1000)
		return;
	char line[512];
	int w = term_width(p->f);
	progress_format(line, sizeof line, p->what, p->unit, done, total, differ, t - p->t0_ms, now, p->color, w);
	/* TERM=dumb knows no erase: spaces over the old line instead */
	if (p->erase)
		fprintf(p->f, "\r%s\033[K", line);
	else
		fprintf(p->f, "\r%-*s", w > 1 ? w - 1 : 79, line);
	fflush(p->f);
	p->done = done;
	p->drawn_ms = t;
	p->shown = true;
}

void progress_end(struct progress *p)
{
	if (p->f && p->shown) {
		int w = term_width(p->f);
		fprintf(p->f, "\r%*s\r", w > 1 ? w - 1 : 79, "");
		fflush(p->f);
	}
	p->shown = false;
	p->f = NULL;
}
