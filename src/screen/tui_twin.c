/* tui_twin.c — d: the docker (b: bwrap) twin of the toggles, flag by
 * flag, in an overlay over the screen (twin.c writes the text; this file
 * wraps, scrolls and draws it). The overlay holds the keys while open. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <stdio.h>
#include <string.h>

#include "tui_look.h"
#include "tui_twin.h"
#include "twin.h"
#include "util.h"

#define KEY_ESC 27

/* The twin's overlay holds the keys while it is open: it scrolls, b swaps
 * docker and bwrap, Esc, q and d close it; every other key is ignored. */
int tui_twin_key(struct tui_state *st, int ch)
{
	int page = st->twin_page > 1 ? st->twin_page - 1 : 1;

	switch (ch) {
	case KEY_ESC:
	case 'q':
	case 'Q':
	case 'd':
		st->twin = false;
		break;
	case 'b':
		st->twin_bwrap = !st->twin_bwrap;
		st->twin_top = 0;
		break;
	case KEY_UP:
	case 'k':
		st->twin_top = st->twin_top > 0 ? st->twin_top - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		st->twin_top++; /* the drawing clamps it */
		break;
	case KEY_PPAGE:
	case '[':
		st->twin_top = st->twin_top > page ? st->twin_top - page : 0;
		break;
	case KEY_NPAGE:
	case ']':
	case ' ':
		st->twin_top += page;
		break;
	case KEY_HOME:
	case 'g':
		st->twin_top = 0;
		break;
	case KEY_END:
	case 'G':
		st->twin_top = 1 << 20; /* the drawing clamps it */
		break;
	case KEY_MOUSE: {
		MEVENT ev;

		getmouse(&ev);
		return TUI_HANDLED;
	}
	default:
		return TUI_HANDLED;
	}
	return TUI_REDRAW;
}

/* Appends line (len bytes) to out wrapped at width columns at spaces, each
 * continuation indented two more than the line. */
static void wrap_line(struct strbuf *out, const char *line, size_t len, size_t width)
{
	size_t indent = 0, cut, pad = 0, room;

	while (indent < len && line[indent] == ' ')
		indent++;
	indent += 2;
	if (indent > width / 2)
		indent = 0;
	for (;;) {
		room = width - pad;
		sb_printf(out, "%*s", (int)pad, "");
		if (len <= room) {
			sb_add(out, line, len);
			sb_puts(out, "\n");
			return;
		}
		for (cut = room; cut > 0 && line[cut] != ' '; cut--)
			;
		if (cut == 0)
			cut = room;
		sb_add(out, line, cut);
		sb_puts(out, "\n");
		while (cut < len && line[cut] == ' ')
			cut++;
		line += cut;
		len -= cut;
		pad = indent;
		if (!len)
			return;
	}
}

void tui_draw_twin(struct tui_state *st)
{
	struct strbuf raw = {0}, b = {0};
	int x = 0, y = 1, w = COLS, h = LINES - 2, rows = h - 2, n = 0, row;
	const char *line, *nl;
	char title[160];

	if (w < 40 || rows < 3)
		return;
	twin_text(st->cfg, &st->setup, st->twin_bwrap ? TWIN_BWRAP : TWIN_DOCKER, &raw);
	if (st->snips[st->sel].tools)
		twin_tools_text(st->twin_bwrap ? TWIN_BWRAP : TWIN_DOCKER, &raw);
	for (line = raw.s; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		wrap_line(&b, line, nl ? (size_t)(nl - line) : strlen(line), (size_t)(w - 4));
		if (!nl)
			break;
	}
	sb_free(&raw);
	for (line = b.s; line && *line; line = nl + 1, n++)
		if (!(nl = strchr(line, '\n')))
			break;
	st->twin_page = rows;
	if (st->twin_top > n - rows)
		st->twin_top = n - rows;
	if (st->twin_top < 0)
		st->twin_top = 0;
	for (row = 0; row < h; row++)
		tui_fill(y + row, x, w, A_NORMAL);
	tui_frame(y, x, h, w, A_BOLD);
	snprintf(title, sizeof title, " %s TWIN %d-%d/%d  b: %s  j/k [ ] scroll  Esc/q/d closes ",
	         st->twin_bwrap ? "BWRAP" : "DOCKER", st->twin_top + 1,
	         st->twin_top + rows < n ? st->twin_top + rows : n, n, st->twin_bwrap ? "docker" : "bwrap");
	tui_put(y, x + 2, w - 4, title, A_BOLD);
	row = 0;
	for (line = b.s; line && *line && row < st->twin_top + rows; row++) {
		char buf[512];
		size_t len;

		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		if (row >= st->twin_top) {
			snprintf(buf, sizeof buf, "%.*s", (int)len, line);
			tui_put(y + 1 + row - st->twin_top, x + 2, w - 4, buf,
			        buf[0] == ' ' && strstr(buf, "# ") ? A_NORMAL : A_BOLD);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	sb_free(&b);
}
