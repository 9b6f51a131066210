#!/usr/bin/env bash
# tests/slot_test.sh [BINARY] — [safety] slots, the machine-wide bound on
# runs at once (run_slot.h), as another local process would meet it:
#  - every slot held by one process that never lets go: a run waits the
#    bound (10 safety timeouts: 30 s here, the safety net being the
#    wall clock (2 s) + 1 s) and ends ERROR, saying no slot
#    changed hands, never a layer's verdict;
#  - the slots change hands all the time but none comes free to the run
#    for longer than that bound (a long queue that moves): the run is not
#    ended for it, and runs once a slot is free.
# The holders are this test's own processes, on this machine's
# /run/lock/containment-lab.slot.0 and .1 (shared with other labs that use
# [safety] slots: a `make test-load` at the same time would wait on them).
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-slot.XXXXXX)
chmod 755 "$T"
HOLDERS=()
cleanup() {
	for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
	suite_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM
before=$(leftovers_snapshot)
sed -e 's/^slots = .*/slots = 2/' -e '/^\[safety\]/,/^\[/ s/^timeout = .*/timeout = 1s/' \
	-e '/^\[limits\]/,/^\[/ s/^timeout = .*/timeout = 2s/' layers.ini >"$T/layers.ini"
grep -q '^slots = 2$' "$T/layers.ini" && grep -q '^timeout = 1s$' "$T/layers.ini" && grep -q '^timeout = 2s$' "$T/layers.ini" ||
	{ not_ok "a layers.ini with slots = 2 and a 1 s safety timeout" "$(grep -A6 '^\[safety\]' "$T/layers.ini")"; finish; exit; }

# hold SECONDS ROTATE: both slots held for SECONDS; with ROTATE, slot 0 is
# handed from one process to the next every second (the next one already
# waits on it, blocking, when the last lets go)
hold() {
	$PY - "$1" "$2" <<'PY' &
import fcntl, os, sys, time
secs, rotate = float(sys.argv[1]), sys.argv[2] == "1"
def take(k, block=True):
    fd = os.open(f"/run/lock/containment-lab.slot.{k}", os.O_RDONLY | os.O_CREAT, 0o444)
    fcntl.flock(fd, fcntl.LOCK_EX if block else fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd
one = take(1)
end = time.monotonic() + secs
if not rotate:
    zero = take(0)
    time.sleep(secs)
    sys.exit(0)
r, w = os.pipe()
holder = os.fork()
if holder == 0:
    take(0); os.write(w, b"x"); time.sleep(1); os._exit(0)
os.read(r, 1)
while time.monotonic() < end:
    nxt = os.fork()
    if nxt == 0:
        take(0); os.write(w, b"x"); time.sleep(1); os._exit(0)  # blocks until the last lets go
    os.waitpid(holder, 0)
    os.read(r, 1)
    holder = nxt
os.waitpid(holder, 0)
PY
	HOLDERS+=($!)
}
PY=${PY:-/usr/bin/python3}

# ---- one process holds every slot and never lets go ----
hold 50 0
sleep 1
t0=$SECONDS
out=$("$BIN" --config "$T/layers.ini" run legit 2>&1)
rc=$?
took=$((SECONDS - t0))
expect_contains "every slot held, never handed on: ERROR" "$out" "ERROR"
expect_contains "every slot held: says no slot changed hands" "$out" "no run slot changed hands for 30 s"
expect_eq "every slot held: exit 4 (an error, not a verdict)" "$rc" 4
((took >= 29)) && ok "every slot held: it waited the bound first (${took} s)" ||
	not_ok "every slot held: it waited the bound first" "took ${took} s"
kill "${HOLDERS[@]}" 2>/dev/null
wait "${HOLDERS[@]}" 2>/dev/null
HOLDERS=()

# ---- the slots change hands for 40 s, but not to this run ----
hold 40 1
sleep 1
t0=$SECONDS
out=$("$BIN" --config "$T/layers.ini" run legit --off limits 2>&1)
rc=$?
took=$((SECONDS - t0))
if ((took < 30)); then
	skip "a queue that moves for longer than the bound" "the run took slot 0 in a hand-over after ${took} s (the race the test tries to avoid)"
else
	expect_contains "a queue that moves for ${took} s (bound 30 s): the run is not ended for it" "$out" "RAN OK"
	expect_eq "a queue that moves: exit 0" "$rc" 0
fi
wait "${HOLDERS[@]}" 2>/dev/null
HOLDERS=()
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
