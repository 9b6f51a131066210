# tests/lib.sh — shared helpers for the shell tests: TAP-like lines, a
# counter, and the check that a run left nothing behind.
# Each test script prints "ok - NAME" / "not ok - NAME" and ends with
# "N passed, N failed"; tests/run_all.sh adds those up.

PASS=0
FAIL=0

ok() {
	PASS=$((PASS + 1))
	echo "ok - $1"
}

not_ok() {
	FAIL=$((FAIL + 1))
	echo "not ok - $1"
	shift
	for line in "$@"; do printf '#   %s\n' "$line"; done
}

# check NAME CMD... : ok when CMD succeeds
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "command failed: $*"; fi
}

# expect_contains NAME HAYSTACK NEEDLE
expect_contains() {
	if [[ "$2" == *"$3"* ]]; then ok "$1"; else not_ok "$1" "expected to find: $3" "in: ${2:0:600}"; fi
}

expect_not_contains() {
	if [[ "$2" != *"$3"* ]]; then ok "$1"; else not_ok "$1" "did not expect: $3"; fi
}

expect_eq() {
	if [[ "$2" == "$3" ]]; then ok "$1"; else not_ok "$1" "expected '$3', got '$2'"; fi
}

finish() {
	echo "$PASS passed, $FAIL failed"
	[[ $FAIL -eq 0 ]]
}

# What a run may leave behind: temp folders, cgroups, processes, mounts.
leftovers_snapshot() {
	{
		ls -d "${TMPDIR:-/tmp}"/containment-lab.* 2>/dev/null
		ls -d /sys/fs/cgroup/*/containment-lab* /sys/fs/cgroup/containment-lab* 2>/dev/null
		# processes still running a lab snippet or worker
		pgrep -a -f 'snippet\.py|containment-lab (run|matrix|exec)' 2>/dev/null | grep -v pgrep
		echo "mounts: $(wc -l </proc/self/mountinfo)"
	} | sort
}

# python3 that is Debian's, not a shim
PY=/usr/bin/python3
