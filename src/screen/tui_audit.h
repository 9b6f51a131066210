/* tui_audit.h — a: an audit preset's card beside the lab's own layers
 * (tui_audit.c). a opens it (idle), and it holds the keys while open. */
#ifndef TUI_AUDIT_H
#define TUI_AUDIT_H

#include "tui_state.h"

void tui_audit_open(struct tui_state *st);
int tui_audit_key(struct tui_state *st, int ch);
void tui_audit_draw(struct tui_state *st);
/* The running step's descriptor (-1 none), and its data arrived. */
int tui_audit_fd(const struct tui_state *st);
void tui_audit_ready(struct tui_state *st);
void tui_audit_abort(struct tui_state *st);
/* Stops and reaps the running step, frees everything (the screen ends). */
void tui_audit_free(struct tui_state *st);

#endif
