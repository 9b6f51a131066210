#!/usr/bin/env bash
# tests/run_all.sh — the whole suite (`make test`): unit tests, the command
# line, the 128-cell matrix as root and as uid 65534, and the TUI through
# tmux, against the ASan+UBSan build where it can run, plus the release
# binary once, a few scripts at a time (CL_TEST_JOBS, below). Ends with one line "N passed, N failed, N skipped" (skipped
# checks say why; they never count as passed).
set -u
cd "$(dirname "$0")/.." || exit 1
SAN=build/containment-lab-san
REL=./containment-lab
export LC_ALL=C.UTF-8

# Sanitizer reports go to files; any file there is a failure.
SANLOG=$(mktemp -d /tmp/cl-sanlog.XXXXXX)
chmod 1777 "$SANLOG"
export ASAN_OPTIONS="log_path=$SANLOG/asan:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$SANLOG/ubsan:print_stacktrace=1:halt_on_error=1"
# the suite's own TMPDIR and process tree, shared by every script (lib.sh)
source tests/lib.sh
trap 'rm -rf "$SANLOG" "${RES:-}"; suite_cleanup' EXIT
# stopped (Ctrl-C, a CI timeout's SIGTERM): the EXIT traps still run, here
# and in each script's subshell, so no suite folder stays in /tmp
trap 'exit 130' INT
trap 'exit 143' TERM

total_pass=0
total_fail=0
total_skip=0
SUMMARY='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'

# The scripts run CL_TEST_JOBS at a time (3 by default: most of a run is
# waiting, on python's start, on a wall clock, on the screen), the longest
# first. Each has a suite folder and process tree of its own (lib.sh's
# CL_SUITE_TMP and CL_SUITE_ROOT), so its "nothing left behind" judges its
# own runs only, never a neighbour's still running. Each one's report is
# printed whole when it ends.
JOBS=${CL_TEST_JOBS:-3}
RES=$(mktemp -d /tmp/cl-results.XXXXXX)
NAMES=()
CMDS=()
run() { # NAME CMD... : queued, run by run_queue (CL_TEST_ONLY=REGEX: only the names it matches)
	[[ -n ${CL_TEST_ONLY:-} && ! $1 =~ $CL_TEST_ONLY ]] && return
	NAMES+=("$1")
	shift
	CMDS+=("$(printf '%q ' "$@")")
}
run_one() { # I
	local i=$1 t0=$SECONDS
	(
		CL_SUITE_TMP=$(mktemp -d /tmp/cl-suite.XXXXXX) || exit 1
		trap 'rm -rf "$CL_SUITE_TMP"' EXIT
		trap 'exit 143' TERM
		trap 'exit 130' INT
		chmod 1777 "$CL_SUITE_TMP"
		CL_SUITE_ROOT=$BASHPID
		TMPDIR=$CL_SUITE_TMP
		export CL_SUITE_TMP CL_SUITE_ROOT TMPDIR
		eval "${CMDS[i]}" </dev/null
		rc=$?
		rm -rf "$CL_SUITE_TMP"
		exit $rc
	) >"$RES/$i.out" 2>&1
	echo "$? $((SECONDS - t0))" >"$RES/$i.rc"
}
report() { # I
	local i=$1 out rc secs line p f s
	out=$(<"$RES/$i.out")
	read -r rc secs <"$RES/$i.rc"
	echo "== ${NAMES[i]}"
	printf '%s\n' "$out" | grep -v '^ok - ' | grep -v -E "$SUMMARY"
	line=$(printf '%s\n' "$out" | grep -E "$SUMMARY" | tail -1)
	if [[ -z "$line" ]]; then
		p=0 f=1 s=0
		echo "not ok - ${NAMES[i]} did not finish (exit $rc)"
	else
		read -r p _ f _ s _ <<<"$line"
		s=${s:-0}
		[[ $rc -ne 0 && $f -eq 0 ]] && f=1 && echo "not ok - ${NAMES[i]} exited $rc"
	fi
	echo "   $p passed, $f failed, $s skipped ($secs s)"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
}
run_queue() {
	local i next=0 done_n=0 n=${#NAMES[@]}
	local -A running=() reported=()
	while ((done_n < n)); do
		while ((next < n && ${#running[@]} < JOBS)); do
			run_one "$next" &
			running[$next]=$!
			next=$((next + 1))
		done
		wait -n 2>/dev/null
		for i in "${!running[@]}"; do
			if [[ -f $RES/$i.rc ]] && ! kill -0 "${running[$i]}" 2>/dev/null; then
				wait "${running[$i]}" 2>/dev/null
				unset "running[$i]"
				report "$i"
				done_n=$((done_n + 1))
			fi
		done
	done
}

run "matrix faces: text, markdown and the trace, as root (ASan+UBSan)" env CL_MATRIX_PART=faces tests/matrix_test.sh "$SAN"
run "matrix: all 128 cells, root and uid 65534, both network modes (release build)" env CL_MATRIX_PART=cells tests/matrix_test.sh "$REL"
run "CI reports: JUnit (against the schema) and TAP (prove), a wrong header failing, audit's cards (ASan+UBSan)" tests/reports_test.sh "$SAN"
run "matrix --rung all: every rung in one report, a rung without its tools skipped, never passed (ASan+UBSan)" tests/ladder_test.sh "$SAN"
run "the JSON schema: every kind of document the lab writes, format 1, docs/json.md complete (ASan+UBSan)" tests/schema_test.sh "$SAN"
run "matrix --html: a self-contained page, screenshotted in headless chromium (ASan+UBSan)" tests/html_test.sh "$SAN"
if command -v tmux >/dev/null; then
	# CL_TUI_QUICK=1 (make check): all but the screen's matrix
	run "TUI in tmux (ASan+UBSan)" tests/tui_test.sh --asan ${CL_TUI_QUICK:+--quick} "$SAN"
	run "TUI in tmux: the audit card run whole (release build)" tests/tui_test.sh --card-only "$REL"
	run "the progress line of matrix and audit at a terminal, NO_COLOR, --quiet (tmux)" tests/progress_test.sh "$REL"
	run "the guided tour at 80x24 (tmux)" tests/tour_test.sh "$REL"
	run "bash and zsh completion, typed in tmux" tests/completion_test.sh "$REL"
else
	echo "not ok - tmux is not installed (apt-get install tmux)"
	total_fail=$((total_fail + 1))
fi
run "host diff: the hostile corpus in all 16 layer sets leaves the host as it was, root and uid 65534 (ASan+UBSan)" tests/hostdiff_test.sh "$SAN"
run "command line (ASan+UBSan)" tests/cli_test.sh "$SAN"
run "fuzz smoke test: mutated layers.ini and snippet headers (ASan+UBSan)" tests/fuzz_test.sh "$SAN"
run "another uid against the run's evidence: crowding, forging, hidden and parked sockets, root and rootless (ASan+UBSan)" tests/multiuser_test.sh "$SAN"
run "many users, one machine: a uid of the run's own, runs killed from outside named, plants changing no verdict, root and rootless (ASan+UBSan)" tests/manyusers_test.sh "$SAN"
run "[safety] slots: every slot held is an ERROR after the bound, a queue that moves is not (another process holds them)" tests/slot_test.sh "$REL"
run "the trace: refused calls, connect(), what ended a run, root and uid 65534 (ASan+UBSan)" tests/trace_test.sh "$SAN"
run "exec leaves the caller's terminal as it found it, root and uid 65534 (ASan+UBSan)" tests/exectty_test.sh "$SAN"
run "the range and honest verdicts, root and uid 65534 (ASan+UBSan)" tests/range_test.sh "$SAN"
run "tools as code through the lab's one door, the gate for send_payment (never, always, ask in tmux), root and uid 65534 (ASan+UBSan)" tests/tools_test.sh "$SAN"
run "egress by allow-list: the proxy, hostile requests, legit-api and exfil-allowed, root and uid 65534 (ASan+UBSan)" tests/egress_test.sh "$SAN"
run "the red team's corpus: every threat judged, credit only for an attempt met, root and uid 65534 (ASan+UBSan)" tests/adversary_test.sh "$SAN"
run "the microvm rung: its own guest kernel in QEMU (ASan+UBSan)" tests/microvm_test.sh "$SAN"
run "the red team against the range: exec --rw, /run, keys, the host folder's sweep, a forged signal, memory (ASan+UBSan)" tests/red16_test.sh "$SAN"
run "audit: the attacks through other sandboxes (lab exec, bwrap, firejail, srt), nothing left behind" tests/audit_test.sh "$REL"
run "the gvisor rung: runsc, kernel-exploit, a few cells, nothing left behind" tests/gvisor_test.sh "$REL"
run "unit tests (ASan+UBSan)" ./build/unit
run "the layout: folders as levels, no module cycle, no layer or box calling another (objects and #includes)" tests/layout_test.sh
run "twin: the docker and bwrap command for all 16 layer sets (ASan+UBSan)" tests/twin_test.sh "$SAN"
run "layers.ini and layer lists (ASan+UBSan)" tests/config_test.sh "$SAN"
run "a host without usable user namespaces: one line, exit 4, root and uid 65534 (ASan+UBSan)" tests/hostcheck_test.sh "$SAN"
run "snippet files and workers (ASan+UBSan)" tests/snippet_test.sh "$SAN"
run "syscall probe, root and uid 65534 (ASan+UBSan)" tests/syscall_test.sh "$SAN"
run "No-network, Isolation off: a datagram socketpair reaches no host socket, root and uid 65534 (ASan+UBSan)" tests/unixdgram_test.sh "$SAN"
run_queue
rm -rf "$RES"

echo "== sanitizer reports"
if compgen -G "$SANLOG/*" >/dev/null; then
	echo "not ok - sanitizer reports:"
	head -40 "$SANLOG"/*
	total_fail=$((total_fail + 1))
else
	echo "ok - no ASan/UBSan report from any run"
	total_pass=$((total_pass + 1))
fi
echo
echo "the whole suite: $SECONDS s"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[[ $total_fail -eq 0 ]]
