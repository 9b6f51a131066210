/* tui_tour.c — t (and `containment-lab tour`): the lesson in order, for a
 * student alone at a terminal. Each step sets the snippet, the toggles,
 * Isolation's rung and No-network's mode, then the student predicts and
 * the lab runs it for real, as anywhere else on the screen; the step's
 * explanation shows beside the verdict the lab gave. The score counts a
 * step's first scored run (predict mode's rules: an ERROR or an abort
 * says nothing). Progress (step and score) is kept in
 * $XDG_STATE_HOME/containment-lab/tour (~/.local/state/... without it),
 * so a student can quit and resume. Actions and rows only: the result pane
 * (tui_pane.c) draws them. */
#define _GNU_SOURCE
#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "tui_look.h"
#include "tui_predict.h"
#include "tui_rows.h"
#include "tui_state.h"
#include "tui_tour.h"
#include "util.h"
#include "verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALL    ((1u << LAYER_COUNT) - 1)
#define BUT(l) (ALL & ~LAYER_BIT(l))

struct tour_step {
	const char *title;
	const char *snippet;
	unsigned layers;
	enum lab_rung rung;
	enum lab_net_mode net;
	const char *intro; /* before the run: what is set, what to predict */
	const char *why;   /* after the verdict: what it shows */
};

static const struct tour_step steps[] = {
    {"Real work first", "legit", ALL, RUNG_CONTAINER, NET_MODE_NONE,
     "The agent's code does a real job: a sales report from a CSV. All four layers are on.",
     "The layers take away what the report never needed: the host, the network, your secrets, an "
     "unbounded machine. The answer is still checked and right."},
    {"Real work, no layers", "legit", 0, RUNG_CONTAINER, NET_MODE_NONE, "The same job with every layer off.",
     "It works either way: a sandbox costs this task nothing. Every step from here is an attack."},
    {"All layers on", "exfiltration", ALL, RUNG_CONTAINER, NET_MODE_NONE,
     "An attack: upload the customer file to a server the attacker runs. All four layers are on.",
     "No-network left the sandbox with no interface at all: the upload had nowhere to go."},
    {"Exercise 1: the resource bomb", "resource-bomb", BUT(LAYER_LIMITS), RUNG_CONTAINER, NET_MODE_NONE,
     "Resource-limits off, the other three on. The code forks and allocates as fast as it can.",
     "Namespaces hide the host but do not ration it: only cgroups and rlimits cap processes, memory "
     "and time."},
    {"Exercise 1: secret theft", "secret-theft", BUT(LAYER_ENV), RUNG_CONTAINER, NET_MODE_NONE,
     "Clean-env off: the sandbox inherits the environment and home of whoever started it (decoy keys "
     "here).",
     "Keys in the environment or in ~/.aws are the agent's to lose: start the sandbox from an empty "
     "environment and a fresh home."},
    {"Exercise 1: exfiltration", "exfiltration", BUT(LAYER_NETWORK), RUNG_CONTAINER, NET_MODE_NONE,
     "No-network off, the other three on.",
     "With a network the data leaves in one request; the other layers have no say over it."},
    {"Exercise 1: host takeover", "host-takeover", BUT(LAYER_ISOLATION), RUNG_CONTAINER, NET_MODE_NONE,
     "Isolation off: the code runs in the host's own file system and process tree.",
     "Without Isolation the code reaches the host's files and plants what the host will run later."},
    {"Exercise 2: exec() inside your server", "secret-theft", ALL, RUNG_INPROCESS, NET_MODE_NONE,
     "A teammate runs the agent's code with exec() inside the app server. With no process boundary no "
     "layer can apply: the toggles read n/a.",
     "exec() in your own process hands the code all the server holds: its keys, its memory, its "
     "connections. No flag makes that safe."},
    {"Exercise 3: the floor, on the container rung", "kernel-exploit", ALL, RUNG_CONTAINER, NET_MODE_NONE,
     "The code knocks, harmlessly, on kernel interfaces real container escapes used. All layers on, on "
     "the container rung.",
     "A container shares the host's kernel: one kernel bug is the way out. Code from strangers needs a "
     "higher rung."},
    {"Exercise 3: gVisor", "kernel-exploit", ALL, RUNG_GVISOR, NET_MODE_NONE,
     "The same knock, one rung up: gVisor's Sentry, a kernel in user space, answers the calls.",
     "The host kernel never saw the calls: the Sentry answered them. The price is a slower start."},
    {"Exercise 3: a microVM", "kernel-exploit", ALL, RUNG_MICROVM, NET_MODE_NONE,
     "The top rung: the code gets a kernel of its own in a QEMU microvm.",
     "A kernel bug now breaks the guest's kernel, not the host's. The price: a boot per run."},
    {"Tools called as code", "tool-chain", ALL, RUNG_CONTAINER, NET_MODE_NONE,
     "The code calls the host's tools as functions (search, read) through one door, and totals the "
     "results inside the sandbox.",
     "What the tools returned stayed in the sandbox; only the answer came out. Those are the bytes a "
     "model would otherwise have had to read."},
    {"The gate", "tool-injection", ALL, RUNG_CONTAINER, NET_MODE_NONE,
     "A document the code reads tells it to pay the attacker. send_payment is a gated tool.",
     "The call came through the one channel the sandbox must allow: no layer can tell a good call from "
     "a bad one. Irreversible actions need a gate outside the code."},
    {"The allow-list's caveat", "exfil-allowed", ALL, RUNG_CONTAINER, NET_MODE_ALLOWLIST,
     "No-network as an allow-list: the one door is the lab's proxy, which lets out api.lab.test. The "
     "attacker posts the data to that allowed host.",
     "An allowed host is a way out for data too: an allow-list limits where the code can connect, not "
     "what it sends there."},
};
#define N_STEPS ((int)(sizeof steps / sizeof steps[0]))

static int find_snippet(const struct tui_state *st, const char *name)
{
	for (int i = 0; i < st->n_snips; i++)
		if (!strcmp(st->snips[i].name, name))
			return i;
	return -1;
}

static void progress_path(struct tui_tour *t)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	t->path[0] = '\0';
	if (xdg && xdg[0] == '/')
		pathf(t->path, sizeof t->path, "%s/containment-lab/tour", xdg);
	else if (home && home[0] == '/')
		pathf(t->path, sizeof t->path, "%s/.local/state/containment-lab/tour", home);
}

/* "step N\nright R\ntotal T\ncounted C\n" (C: step N's run is in the
 * score already, so a student who quits after it cannot score it twice);
 * anything else starts the tour over. */
static void progress_load(struct tui_tour *t)
{
	t->step = t->right = t->total = 0;
	t->counted = false;
	FILE *f = t->path[0] ? fopen(t->path, "re") : NULL;
	if (!f)
		return;
	int s, r, n, c = 0;
	int got = fscanf(f, "step %d right %d total %d counted %d", &s, &r, &n, &c);
	if (got >= 3 && s >= 0 && s <= N_STEPS && r >= 0 && n >= r && n <= N_STEPS) {
		t->step = s;
		t->right = r;
		t->total = n;
		t->counted = got == 4 && c == 1;
	}
	fclose(f);
}

/* Each folder of the path made 0700 if missing; the file written whole
 * beside itself and renamed over the old one. */
static void progress_save(struct tui_state *st)
{
	struct tui_tour *t = &st->tour;
	char dir[PATH_MAX], tmp[PATH_MAX + 8];
	if (!t->path[0])
		return;
	str_copy(dir, sizeof dir, t->path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			break;
		*p = '/';
	}
	snprintf(tmp, sizeof tmp, "%s.new", t->path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		tui_message(st, "the tour's progress cannot be kept (%s: %s)", tmp, strerror(errno));
		return;
	}
	bool ok = dprintf(fd, "step %d\nright %d\ntotal %d\ncounted %d\n", t->step, t->right, t->total, t->counted) > 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, t->path) < 0) {
		tui_message(st, "the tour's progress cannot be kept (%s: %s)", t->path, strerror(errno));
		unlink(tmp);
	}
}

/* The step's cell on the screen: its snippet selected, its toggles, rung
 * and mode set; t->why says what keeps it from running here. */
static void apply_step(struct tui_state *st)
{
	struct tui_tour *t = &st->tour;
	t->counted = false;
	t->why[0] = '\0';
	st->asking = false;
	if (t->step >= N_STEPS)
		return;
	const struct tour_step *s = &steps[t->step];
	int i = find_snippet(st, s->snippet);
	if (i < 0) {
		snprintf(t->why, sizeof t->why, "this lab has no snippet named %s: t moves on", s->snippet);
		return;
	}
	char why[LAB_LINE];
	if (!lab_rung_ready(st->cfg, s->rung, why, sizeof why) && s->rung != RUNG_INPROCESS) {
		snprintf(t->why, sizeof t->why, "the %s rung does not run here (%.200s): t moves on",
		         lab_rung_key(s->rung), why);
		return;
	}
	if (tui_set_rung_mode(st, s->rung, s->net) < 0) {
		snprintf(t->why, sizeof t->why, "out of memory: t moves on");
		return;
	}
	st->sel = i;
	st->setup.layers = s->layers;
	st->predict = true;
	st->code_view = (struct tui_view_pos){.top = TUI_TOP_START};
	st->res_view = (struct tui_view_pos){0};
	st->focus = TUI_FOCUS_LIST;
	st->zoom = false;
	/* an answer from before this step (this cell, another visit) is not
	 * this step's: the result pane shows the step's own run only */
	tui_run_forget(st, i);
}

void tui_tour_start(struct tui_state *st)
{
	if (tui_busy(st)) {
		tui_message(st, "a run is going: wait, or press a to abort it, then start the tour");
		return;
	}
	struct tui_tour *t = &st->tour;
	t->on = true;
	progress_path(t);
	progress_load(t);
	bool counted = t->counted;
	if (t->step >= N_STEPS) {
		t->step = t->right = t->total = 0; /* finished before: from the top */
		counted = false;
	}
	apply_step(st);
	t->counted = counted;
	progress_save(st);
	tui_message(st, "the tour: step %d of %d (t: next step, T: leave; your place is kept)", t->step + 1, N_STEPS);
}

int tui_tour_key(struct tui_state *st, int ch)
{
	struct tui_tour *t = &st->tour;
	if (!t->on) {
		if (ch == 't')
			tui_tour_start(st);
		return TUI_REDRAW;
	}
	if (ch == 'T') {
		t->on = false;
		tui_message(st, "left the tour at step %d of %d; t resumes it", t->step + 1, N_STEPS);
		return TUI_REDRAW;
	}
	if (tui_busy(st)) {
		tui_message(st, "a run is going: wait, or press a to abort it, then go on");
		return TUI_REDRAW;
	}
	if (t->step >= N_STEPS) {
		t->step = t->right = t->total = 0;
	} else {
		t->step++;
	}
	apply_step(st);
	progress_save(st);
	return TUI_REDRAW;
}

bool tui_tour_cell(const struct tui_state *st, const struct tui_cell *c)
{
	const struct tui_tour *t = &st->tour;
	if (!t->on || t->step >= N_STEPS || t->why[0])
		return false;
	const struct tour_step *s = &steps[t->step];
	int i = find_snippet(st, s->snippet);
	return i >= 0 && !strcmp(c->path, st->snips[i].path) && c->setup.layers == s->layers &&
	       c->setup.rung == s->rung && c->setup.net_mode == s->net;
}

void tui_tour_settled(struct tui_state *st, const struct tui_cell *c, const struct tui_run *r)
{
	struct tui_tour *t = &st->tour;
	if (!tui_tour_cell(st, c) || t->counted || !r->scored)
		return;
	t->counted = true;
	t->total++;
	t->right += r->right;
	progress_save(st);
}

/* The rows the result pane shows first while the tour is on: the step,
 * the score, what is set (before the run) or what it showed (after). */
void tui_tour_rows(const struct tui_state *st, struct tui_rows *L, bool after)
{
	const struct tui_tour *t = &st->tour;
	attr_t key = tui_attr(st, TUI_LOOK_KEY);
	if (!t->on)
		return;
	if (t->step >= N_STEPS) {
		tui_rows_printf(L, A_BOLD, "TOUR done: %d of %d predictions right.", t->right, t->total);
		tui_rows_add(L, "  t  ", "     ", key, "start the tour again (T leaves it)", A_NORMAL);
		return;
	}
	const struct tour_step *s = &steps[t->step];
	tui_rows_printf(L, A_BOLD, "TOUR %d/%d: %s   score %d/%d", t->step + 1, N_STEPS, s->title, t->right, t->total);
	if (t->why[0]) {
		tui_rows_add(L, "", "  ", A_NORMAL, t->why, tui_attr(st, TUI_LOOK_WARN));
		return;
	}
	struct tui_cell here;
	tui_cell_selected(st, &here);
	if (!tui_tour_cell(st, &here)) {
		char line[LAB_LINE];
		snprintf(line, sizeof line,
		         "This step is %s with its own toggles, rung and mode: the screen shows something else now. "
		         "t goes on to the next step, T leaves the tour.",
		         s->snippet);
		tui_rows_add(L, "", "  ", A_NORMAL, line, tui_attr(st, TUI_LOOK_WARN));
		return;
	}
	if (!after) {
		tui_rows_add(L, "", "  ", A_NORMAL, s->intro, A_NORMAL);
		tui_rows_add(L, "  Enter  ", "         ", key, "predict, then the lab runs it for real", A_NORMAL);
		return;
	}
	const struct snippet *sn = &st->snips[st->sel];
	const struct tui_run *r = &st->runs[st->sel];
	enum lab_verdict want = verdict_expected(sn, st->cfg, &st->setup);
	if (r->have && r->res.verdict != want)
		tui_rows_printf(L, tui_attr(st, TUI_LOOK_WARN),
		                "Usually this is %s; this run the lab saw %s: read its evidence below.",
		                verdict_name(want), verdict_name(r->res.verdict));
	tui_rows_add(L, "why: ", "     ", A_BOLD, s->why, A_NORMAL);
	tui_rows_add(L, "  t  ", "     ", key, t->step + 1 < N_STEPS ? "next step" : "the tour's score", A_NORMAL);
}

int tui_tour_steps(void)
{
	return N_STEPS;
}
