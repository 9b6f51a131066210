#!/usr/bin/env bash
# tests/syscall_test.sh [BINARY] — every syscall on the Isolation layer's deny
# list (src/base/seccomp_filter.c), called for real by build/syscall_probe inside
# `exec --on all` (the filter's exact errno) and `exec --on env,limits` (no
# seccomp filter at all, not Isolation's nor No-network's: the answer is not
# that errno, so the filter is what refused), as root and as uid 65534. The probe
# uses harmless arguments (bubblewrap's try-syscall idea). Run from the repo
# root after `make build/syscall_probe`.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
PROBE=build/syscall_probe

if [[ $(uname -m) != x86_64 ]]; then
	skip "syscall probe" "the probe knows x86_64's harmless arguments only (this is $(uname -m))"
	finish
	exit
fi
if [[ ! -x $PROBE ]]; then
	not_ok "$PROBE is built (make $PROBE)"
	finish
	exit
fi

# the probe covers the whole deny list, read from the filter's source
deny=$(sed -n '/refused\[\] = {/,/^};/p' src/base/seccomp_filter.c | grep -o '"[a-z_0-9]*"' | tr -d '"' | sort)
missing=$(comm -23 <(printf '%s\n' "$deny") <("$PROBE" --list | sort))
if [[ -n $deny && -z $missing ]]; then
	ok "the probe calls all $(wc -l <<<"$deny") syscalls of the deny list"
else
	not_ok "the probe calls every syscall of the deny list" "not probed: ${missing:-(deny list not found in src/base/seccomp_filter.c)}"
fi

# /root may be 0700: stage the lab and the probe where uid 65534 can read
S=$(mktemp -d "$CL_SUITE_TMP/probe.XXXXXX")
trap 'rm -rf "$S"; suite_cleanup' EXIT
cp "$BIN" "$S/lab" && cp "$PROBE" layers.ini "$S/" && chmod -R a+rX "$S" && chmod 755 "$S"

before=$(leftovers_snapshot)
# probe WHO LAYER-ARGS MODE: runs the probe in the staged folder (exec binds
# the current folder read-only inside) and takes over its verdicts
probe() {
	local who=$1 mode=$3 out rc line
	local -a as=()
	read -r -a layers <<<"$2"
	[[ $who == uid65534 ]] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent)
	out=$(cd "$S" && "${as[@]}" ./lab --config layers.ini exec "${layers[@]}" -- "$S/syscall_probe" "$mode" 2>&1)
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$who $2: ${line#ok - }" ;;
		"not ok - "*) not_ok "$who $2: ${line#not ok - }" ;;
		"skip - "*) line=${line#skip - }; skip "$who $2: ${line%%: skipped: *}" "${line#*: skipped: }" ;;
		esac
	done <<<"$out"
	if grep -qE '^[0-9]+ passed, [0-9]+ failed' <<<"$out"; then
		expect_eq "$who $2: the probe exits 0" "$rc" 0
	else
		not_ok "$who $2: the probe ran to its end" "exit $rc" "${out:0:600}"
	fi
}

if [[ $(id -u) == 0 ]]; then
	probe root "--on all" filtered
	probe root "--on env,limits" unfiltered
	probe uid65534 "--on all" filtered
	probe uid65534 "--on env,limits" unfiltered
else
	probe "$(id -un)" "--on all" filtered
	probe "$(id -un)" "--on env,limits" unfiltered
fi
expect_eq "nothing left behind by the probes" "$(leftovers_snapshot)" "$before"
finish
