/* trace.h — the run's trace (struct lab_trace in lab.h): the calls that
 * mattered and what answered them, recorded by the lab from outside.
 *
 * Life cycle within a run (run.c's event loop):
 *   trace_take_listener (the child sent Isolation's listener over the sync
 *   socket) -> trace_answer for each notification (log, answer the rule's
 *   errno) -> trace_after_run (forks refused, the signal or clock that
 *   ended it, from the lab's counters) -> trace_close. */
#ifndef LAB_TRACE_H
#define LAB_TRACE_H

#include "run.h"

#include <poll.h>

/* Whether the trace is on: LAB_TRACE unset or anything but "0". */
bool trace_wanted(void);
/* Adds one entry, or counts it on an identical one, or past the cap in
 * t->dropped. Every text is made printable ASCII first. */
void trace_add(struct lab_trace *t, const char *call, const char *answer, const char *by);
/* The argument shape of syscall nr as the trace decodes it ("ssx": two
 * strings, a number), NULL when it shows no arguments. */
const char *trace_call_shape(int nr);
/* A refusal another kernel's listener answered (the microvm guest's init):
 * nr, its arguments and the strings read for the shape's 's' arguments
 * (their bytes, then "." when whole or "+" when cut; "-" NULL, "?"
 * unreadable), err the errno answered, count how often. Logged like the
 * container's own, and counted in iso_refused. */
void trace_add_refused(struct lab_trace *t, int nr, const unsigned long long args[6], const char *const strs[6],
                       int err, long count, const char *by);
/* count refusals of nr that listener could not list (its table was full):
 * counted in dropped and, as trace_add_refused does, in iso_refused. */
void trace_add_refused_unlisted(struct lab_trace *t, int nr, long count);
/* The child's message on the sync socket: its filter's listener. 0 with
 * r->tr.notify_fd set, 1 when the socket closed without one, -1 on error. */
int trace_take_listener(struct run *r);
/* Takes up to max pending notifications from r->tr.notify_fd without ever
 * blocking, logs each call with its decoded arguments and refuses it with
 * the errno its rule gives. Returns how many it answered, -1 when the
 * listener is dead (closed here). */
int trace_answer(struct run *r, struct lab_trace *t, int max);
/* Lets a stopped caller's call go on, for the kernel to answer
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE); false when it had gone. */
bool trace_continue(struct run *r, unsigned long long id);
/* The connect() calls the lab made that are done: the caller is answered
 * with the kernel's result, and each is logged. final: the run is over,
 * stop the calls still waiting (joining their threads) and log what is
 * left as unfinished. Returns how many. */
int trace_connects_ready(struct run *r, struct lab_trace *t, bool final);
/* What the event loop polls for them (the threads' wake pipe, the
 * non-blocking handshakes watched); any event: trace_connects_ready. */
int trace_connect_poll(const struct run *r, struct pollfd *pfd, int max);
/* After the run: what the lab's own counters say was refused or ended it. */
void trace_after_run(const struct run *r, struct lab_evidence *ev);
/* Stops and joins the connect() threads, closes the listener and frees
 * the buffers; safe to call twice. No thread of the run outlives it. */
void trace_close(struct run *r);

#endif
