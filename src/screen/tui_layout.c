/* tui_layout.c — where the main screen's parts are: the layer toggles'
 * columns and the snippet list's rows. The drawing (tui_draw.c) places them
 * so, and a click (tui_keys.c) is mapped back through the same sums. */
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <string.h>

#include "tui_layout.h"

static int toggle_width(int l)
{
	return 4 + (int)strlen(lab_layers[l].name) + 4; /* "[1] Name OFF" */
}

int tui_toggle_x(int l)
{
	int x = 1, i;

	for (i = 0; i < l; i++)
		x += toggle_width(i) + 1;
	return x;
}

int tui_toggle_at(int y, int x)
{
	int l, x0;

	if (y != 1)
		return -1;
	for (l = 0; l < LAYER_COUNT; l++) {
		x0 = tui_toggle_x(l);
		if (x >= x0 && x < x0 + toggle_width(l))
			return l;
	}
	return -1;
}

static int list_rows(void)
{
	return LINES - 3; /* rows 2 .. LINES-2 */
}

/* Rows the list itself may use (a legend of the layers goes below it). */
int tui_list_capacity(const struct tui_state *st)
{
	int rows = list_rows() - 1, legend = LAYER_COUNT + 2;

	if (rows - legend >= 2 * st->n_snips || rows - legend >= 8)
		rows -= legend;
	return rows / 2;
}

int tui_snippet_at(const struct tui_state *st, int y, int x)
{
	int i;

	if (x < 0 || x >= TUI_LIST_W - 1 || y < 3)
		return -1;
	i = st->list_top + (y - 3) / 2;
	if ((y - 3) / 2 >= tui_list_capacity(st) || i >= st->n_snips)
		return -1;
	return i;
}
