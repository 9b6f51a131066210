/* lab_fields.h — the one list of a result's fields (lab.h). */
#ifndef LAB_FIELDS_H
#define LAB_FIELDS_H

#include <limits.h>

#include "lab.h"

/* Every field of a result and its evidence, each once, with the range a
 * well-behaved worker can send: the worker's stream (job.c: a value outside
 * it means the stream is not what result_write wrote, and the reader must
 * never index a table or print a verdict from it) and the JSON's "record"
 * (report.c) are written from these lists. X(key, value, min, max) and
 * X(key, string) expand with r (struct lab_result *) and ev (&r->ev) in
 * scope. Beside them: cpu_s (a double), the evidence sentences, the trace's
 * entries, the holders and the output. */
#define BOOL  0, 1
#define COUNT 0, LONG_MAX
/* a cgroup counter: -1 when its file could not be read (the lab reads
 * those with "> 0" and says "unknown" otherwise) */
#define CG_COUNT -1, LONG_MAX
/* one field a line */
/* clang-format off */
#define LAB_INT_FIELDS(X) \
	X("threat", r->threat, 0, THREAT_COUNT - 1)                   \
	X("expected_layer", r->expected_layer, -1, LAYER_COUNT - 1)   \
	X("layers", r->layers, 0, LAYERS_ALL)                         \
	X("verdict", r->verdict, 0, VERDICT_COUNT - 1)                \
	X("caught_by", r->caught_by, -1, LAYER_COUNT - 1)             \
	X("rung", r->rung, 0, RUNG_COUNT - 1)                         \
	X("started", ev->started, BOOL)                               \
	X("exit_code", ev->end.exit_code, -1, 255)                        \
	X("exit_signal", ev->end.exit_signal, 0, 127)                     \
	X("foreign_signal", ev->end.foreign_signal, 0, 127)               \
	X("timed_out", ev->end.timed_out, BOOL)                           \
	X("safety_net", ev->end.safety_net, BOOL)                         \
	X("aborted", ev->end.aborted, BOOL)                               \
	X("duration_ms", ev->end.duration_ms, COUNT)                      \
	X("peak_procs", ev->res.peak_procs, COUNT)                        \
	X("peak_mem", ev->res.peak_mem, 0, LLONG_MAX)                     \
	X("peak_mem_from_cgroup", ev->res.peak_mem_from_cgroup, BOOL)     \
	X("pids_max_events", ev->res.pids_max_events, CG_COUNT)              \
	X("sentry_forks_refused", ev->res.sentry_forks_refused, COUNT) \
	X("mem_failcnt", ev->res.mem_failcnt, CG_COUNT)                      \
	X("oom_kills", ev->res.oom_kills, CG_COUNT)                          \
	X("cpu_throttled", ev->res.cpu_throttled, CG_COUNT)                  \
	X("cgroup_used", ev->res.cgroup_used, BOOL)                       \
	X("out_bytes", ev->res.out_bytes, 0, LLONG_MAX)                   \
	X("snippet_start_ms", ev->end.snippet_start_ms, 0, LLONG_MAX)     \
	X("cpu_proc_max_ms", ev->res.cpu_proc_max_ms, 0, LLONG_MAX)       \
	X("cpu_proc_seen", ev->res.cpu_proc_seen, BOOL)                   \
	X("cpu_main_ms", ev->res.cpu_main_ms, 0, LLONG_MAX)               \
	X("cpu_main_seen", ev->res.cpu_main_seen, BOOL)                   \
	X("outlived", ev->end.outlived, 0, INT_MAX)                       \
	X("dns_queries", ev->exfil.dns_queries, COUNT)                      \
	X("dns_strays", ev->exfil.dns_strays, COUNT)                        \
	X("dns_bytes", ev->exfil.dns_bytes, 0, LLONG_MAX)                   \
	X("dns_got_canary", ev->exfil.dns_got_canary, BOOL)                 \
	X("agent_conns", ev->host.agent_conns, COUNT)                      \
	X("agent_requests", ev->host.agent_requests, COUNT)                \
	X("agent_listed", ev->host.agent_listed, COUNT)                    \
	X("agent_strays", ev->host.agent_strays, COUNT)                    \
	X("out_truncated", ev->res.out_truncated, BOOL)                   \
	X("canaries_planted", ev->secrets.canaries_planted, 0, INT_MAX)       \
	X("canaries_leaked", ev->secrets.canaries_leaked, 0, INT_MAX)         \
	X("secrets_past_cap", ev->secrets.secrets_past_cap, 0, INT_MAX)       \
	X("env_vars", ev->secrets.env_vars, 0, INT_MAX)                       \
	X("creds_mounted", ev->secrets.creds_mounted, BOOL)                   \
	X("attacker_conns", ev->exfil.attacker_conns, COUNT)                \
	X("attacker_bytes", ev->exfil.attacker_bytes, 0, LLONG_MAX)         \
	X("attacker_got_canary", ev->exfil.attacker_got_canary, BOOL)       \
	X("net_probe_errno", ev->exfil.net_probe_errno, -1, 4095)           \
	X("own_netns", ev->exfil.own_netns, BOOL)                           \
	X("host_target_written", ev->host.host_target_written, BOOL)       \
	X("host_target_size", ev->host.host_target_size, 0, LLONG_MAX)     \
	X("host_visible", ev->host.host_visible, BOOL)                     \
	X("host_target_gone", ev->host.host_target_gone, BOOL)             \
	X("expect_found", ev->expect_found, BOOL)                     \
	X("attempt_seen", ev->attempt_seen, BOOL)                     \
	X("snippet_on_host", ev->kernel.snippet_on_host, BOOL)                     \
	X("host_scans", ev->kernel.host_scans, COUNT)                        \
	X("host_procs", ev->kernel.host_procs, COUNT)                        \
	X("peak_mem_sampled", ev->res.peak_mem_sampled, BOOL)             \
	X("peak_vm", ev->res.peak_vm, 0, LLONG_MAX)                       \
	X("mem_cap_killed", ev->res.mem_cap_killed, BOOL)                 \
	X("mem_unseen", ev->res.mem_unseen, 0, INT_MAX)                   \
	X("guest_measured", ev->res.guest_measured, BOOL)                 \
	X("exception_line", ev->end.exception_line, 0, INT_MAX)           \
	X("attacker_from_run", ev->exfil.attacker_from_run, BOOL)           \
	X("attacker_untied_bytes", ev->exfil.attacker_untied_bytes, 0, LLONG_MAX) \
	X("attacker_stranger_bytes", ev->exfil.attacker_stranger_bytes, 0, LLONG_MAX) \
	X("secrets_to_attacker", ev->exfil.secrets_to_attacker, 0, INT_MAX) \
	X("net_mode", ev->egress.net_mode, 0, NET_MODE_COUNT - 1)            \
	X("net_route_errno", ev->egress.net_route_errno, -1, 4095)           \
	X("proxy_allowed", ev->egress.proxy_allowed, COUNT)                  \
	X("proxy_refused", ev->egress.proxy_refused, COUNT)                  \
	X("proxy_bad", ev->egress.proxy_bad, COUNT)                          \
	X("api_bytes", ev->egress.api_bytes, 0, LLONG_MAX)                   \
	X("api_requests", ev->egress.api_requests, COUNT)                    \
	X("api_got_canary", ev->egress.api_got_canary, BOOL)                 \
	X("api_from_run", ev->egress.api_from_run, BOOL)                     \
	X("secrets_to_api", ev->egress.secrets_to_api, 0, INT_MAX)           \
	X("api_payload", ev->egress.api_payload, 0, LLONG_MAX)               \
	X("api_strays", ev->egress.api_strays, COUNT)                        \
	X("proxy_to_attacker", ev->egress.proxy_to_attacker, COUNT)          \
	X("trace_dropped", ev->trace.dropped, COUNT)                  \
	X("escaped", r->escaped, 0, (1u << THREAT_COUNT) - 1)         \
	X("trace_watch_net", ev->trace.watch_net, BOOL)               \
	X("trace_watch_iso", ev->trace.watch_iso, BOOL)               \
	X("net_refused", ev->trace.net_refused, COUNT)                \
	X("iso_refused", ev->trace.iso_refused, COUNT)                \
	X("target_touches", ev->trace.target_touches, COUNT)          \
	X("watch_limits", ev->trace.watch_limits, BOOL)               \
	X("nproc_refused", ev->trace.nproc_refused, COUNT)            \
	X("nproc_tasks", ev->trace.nproc_tasks, COUNT)                \
	X("as_refused", ev->trace.as_refused, COUNT)                  \
	X("as_len", ev->trace.as_len, 0, LLONG_MAX)                   \
	X("as_vm", ev->trace.as_vm, 0, LLONG_MAX)                     \
	X("as_mremap", ev->trace.as_mremap, BOOL)                     \
	X("ends_seen", ev->trace.ends_seen, COUNT)                    \
	X("cpu_kills", ev->trace.cpu_kills, COUNT)                    \
	X("cpu_kill_ms", ev->trace.cpu_kill_ms, COUNT)                \
	X("cpu_kill_sig", ev->trace.cpu_kill_sig, 0, 127)             \
	X("tools_served", ev->tools.tools_served, BOOL)                     \
	X("tool_calls", ev->tools.tool_calls, COUNT)                        \
	X("tool_bytes_in", ev->tools.tool_bytes_in, 0, LLONG_MAX)           \
	X("tool_bytes_out", ev->tools.tool_bytes_out, 0, LLONG_MAX)         \
	X("approve", ev->tools.approve, 0, APPROVE_COUNT - 1)               \
	X("payments_asked", ev->tools.payments_asked, COUNT)                \
	X("payments_made", ev->tools.payments_made, COUNT)                  \
	X("payments_refused", ev->tools.payments_refused, COUNT)            \
	X("gate_waited_ms", ev->tools.gate_waited_ms, COUNT)                \
	X("n_holders", ev->secrets.n_holders, 0, 8)                           \
	X("inproc_on", r->inproc.on, BOOL)                            \
	X("inproc_toggles", r->inproc.toggles, 0, LAYERS_ALL)         \
	X("inproc_planned", r->inproc.planned, BOOL)                  \
	X("inproc_token_in_output", r->inproc.token_in_output, BOOL)  \
	X("inproc_token_at_attacker", r->inproc.token_at_attacker, BOOL)

#define LAB_STR_FIELDS(X)                                                                                                  \
	X("snippet", r->snippet)                                                                                       \
	X("consequence", r->consequence)                                                                               \
	X("headline", r->headline)                                                                                     \
	X("error", ev->error)                                                                                          \
	X("foreign", ev->end.foreign)                                                                                      \
	X("leaked", ev->secrets.leaked)                                                                                        \
	X("leak_places", ev->secrets.leak_places)                                                                              \
	X("measured_by", ev->res.measured_by)                                                                              \
	X("host_target", ev->host.host_target)                                                                              \
	X("host_planted", ev->host.host_planted)                                                                            \
	X("host_changed", ev->host.host_changed)                                                                            \
	X("host_seen", ev->host.host_seen)                                                                                  \
	X("work_planted", ev->host.work_planted)                                                                            \
	X("outlived_what", ev->end.outlived_what)                                                                          \
	X("mechanisms", ev->mechanisms)                                                                                \
	X("exception", ev->end.exception)                 \
	X("kernel_release", ev->kernel.kernel_release)       \
	X("kernel_boot_id", ev->kernel.kernel_boot_id)       \
	X("host_release", ev->kernel.host_release)           \
	X("host_boot_id", ev->kernel.host_boot_id)           \
	X("proxy_refusal", ev->egress.proxy_refusal)         \
	X("proxy_log", ev->egress.proxy_log)                 \
	X("trace_note", ev->trace.note)               \
	X("exception_path", ev->end.exception_path)       \
	X("tool_log", ev->tools.tool_log)                   \
	X("payment_call", ev->tools.payment_call)           \
	X("gate_said", ev->tools.gate_said)
/* clang-format on */

#endif
