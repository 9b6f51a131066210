#!/usr/bin/env bash
# tests/run_all.sh — the whole suite (`make test`): unit tests, the command
# line, the 80-cell matrix as root and as uid 65534, and the TUI through
# tmux, against the ASan+UBSan build where it can run, plus the release
# binary once. Ends with one line "N passed, N failed, N skipped" (skipped
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
trap 'rm -rf "$SANLOG"; suite_cleanup' EXIT

total_pass=0
total_fail=0
total_skip=0
SUMMARY='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'
run() { # NAME CMD...
	local name=$1
	shift
	echo "== $name"
	local out t0=$SECONDS
	out=$("$@" 2>&1)
	local rc=$?
	printf '%s\n' "$out" | grep -v '^ok - ' | grep -v -E "$SUMMARY"
	local line p f s
	line=$(printf '%s\n' "$out" | grep -E "$SUMMARY" | tail -1)
	if [[ -z "$line" ]]; then
		p=0 f=1 s=0
		echo "not ok - $name did not finish (exit $rc)"
	else
		read -r p _ f _ s _ <<<"$line"
		s=${s:-0}
		[[ $rc -ne 0 && $f -eq 0 ]] && f=1 && echo "not ok - $name exited $rc"
	fi
	echo "   $p passed, $f failed, $s skipped ($((SECONDS - t0)) s)"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
}

run "unit tests (ASan+UBSan)" ./build/unit
run "command line (ASan+UBSan)" tests/cli_test.sh "$SAN"
run "exec leaves the caller's terminal as it found it, root and uid 65534 (ASan+UBSan)" tests/exectty_test.sh "$SAN"
run "twin: the docker and bwrap command for all 16 layer sets (ASan+UBSan)" tests/twin_test.sh "$SAN"
run "layers.ini and layer lists (ASan+UBSan)" tests/config_test.sh "$SAN"
run "a host without usable user namespaces: one line, exit 4, root and uid 65534 (ASan+UBSan)" tests/hostcheck_test.sh "$SAN"
run "snippet files and workers (ASan+UBSan)" tests/snippet_test.sh "$SAN"
run "fuzz smoke test: mutated layers.ini and snippet headers (ASan+UBSan)" tests/fuzz_test.sh "$SAN"
run "syscall probe, root and uid 65534 (ASan+UBSan)" tests/syscall_test.sh "$SAN"
run "the trace: refused calls, connect(), what ended a run, root and uid 65534 (ASan+UBSan)" tests/trace_test.sh "$SAN"
run "No-network, Isolation off: a datagram socketpair reaches no host socket, root and uid 65534 (ASan+UBSan)" tests/unixdgram_test.sh "$SAN"
run "the range and honest verdicts, root and uid 65534 (ASan+UBSan)" tests/range_test.sh "$SAN"
run "the red team against the range: exec --rw, /run, keys, the host folder's sweep, a forged signal, memory (ASan+UBSan)" tests/red16_test.sh "$SAN"
run "host diff: the hostile corpus in all 16 layer sets leaves the host as it was, root and uid 65534 (ASan+UBSan)" tests/hostdiff_test.sh "$SAN"
run "another uid against the run's evidence: crowding, forging, hidden and parked sockets, root and rootless (ASan+UBSan)" tests/multiuser_test.sh "$SAN"
run "egress by allow-list: the proxy, hostile requests, legit-api and exfil-allowed, root and uid 65534 (ASan+UBSan)" tests/egress_test.sh "$SAN"
run "the red team's corpus: every threat judged, credit only for an attempt met, root and uid 65534 (ASan+UBSan)" tests/adversary_test.sh "$SAN"
run "matrix, root and uid 65534 (ASan+UBSan)" tests/matrix_test.sh "$SAN"
run "matrix, release build" tests/matrix_test.sh "$REL"
run "the gvisor rung: runsc, kernel-exploit, a few cells, nothing left behind" tests/gvisor_test.sh "$REL"
run "audit: the attacks through other sandboxes (lab exec, bwrap, firejail, srt), nothing left behind" tests/audit_test.sh "$REL"
run "the microvm rung: its own guest kernel in QEMU (ASan+UBSan)" tests/microvm_test.sh "$SAN"
if command -v tmux >/dev/null; then
	run "TUI in tmux" tests/tui_test.sh "$REL"
	run "TUI in tmux (ASan+UBSan)" tests/tui_test.sh --asan "$SAN"
else
	echo "not ok - tmux is not installed (apt-get install tmux)"
	total_fail=$((total_fail + 1))
fi

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
