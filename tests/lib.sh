# tests/lib.sh — shared helpers for the shell tests: TAP-like lines, a
# counter, the suite's own temp folder, and the check that a run left
# nothing behind.
# Each test script prints "ok - NAME" / "not ok - NAME" / "skip - NAME: why"
# and ends with "N passed, N failed, N skipped"; tests/run_all.sh adds those
# up. A skipped check is never counted as passed.

PASS=0
FAIL=0
SKIP=0

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

# skip NAME REASON : the check could not be made here; says why
skip() {
	SKIP=$((SKIP + 1))
	echo "skip - $1: skipped: $2"
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
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[[ $FAIL -eq 0 ]]
}

# ---- the suite's own runs -------------------------------------------------
# Another user may run the lab on the same machine while the suite runs
# (a `containment-lab matrix` loop in /tmp, say). The leftover checks judge
# only what is the suite's own:
#  - run folders: the suite gives the lab its own TMPDIR (temp_dir() honours
#    an absolute $TMPDIR), world-accessible so uid 65534's runs can use it;
#  - cgroups (named containment-lab.run-PID-SEQ): ours when PID is a live
#    process of the suite's tree, or a lab that is gone (no live lab owns
#    such a cgroup: it is a leftover whoever made it);
#  - processes: ours when they descend from the suite's first shell, or name
#    the suite's TMPDIR in their command line or environment (a sandbox that
#    outlived its lab is reparented away from the tree).
# run_all.sh sets this up once and each script inherits it; a script run on
# its own sets it up for itself.
if [[ -z ${CL_SUITE_TMP:-} ]]; then
	CL_SUITE_TMP=$(mktemp -d /tmp/cl-suite.XXXXXX) || exit 1
	chmod 1777 "$CL_SUITE_TMP"
	CL_SUITE_ROOT=$$
	CL_SUITE_TMP_OWNED=1
	export CL_SUITE_TMP CL_SUITE_ROOT
fi
export TMPDIR=$CL_SUITE_TMP
# suite_cleanup: call from the script's EXIT trap
suite_cleanup() {
	[[ ${CL_SUITE_TMP_OWNED:-} == 1 ]] && rm -rf "$CL_SUITE_TMP"
	return 0
}
# a script run on its own removes the folder it made however it ends, an
# early exit (a skip) before its own trap included; a script's own EXIT
# trap replaces this one and calls suite_cleanup itself
[[ ${CL_SUITE_TMP_OWNED:-} == 1 ]] && trap suite_cleanup EXIT

# in_suite_tree PID: PID descends from the suite's first shell
in_suite_tree() {
	local p=$1 n=0 st
	while [[ $p -gt 1 && $n -lt 200 ]]; do
		[[ $p == "$CL_SUITE_ROOT" ]] && return 0
		st=$(cat "/proc/$p/stat" 2>/dev/null) || return 1
		st=${st##*) }
		read -r _ p _ <<<"$st"
		n=$((n + 1))
	done
	return 1
}

# suite_owns_run RUN [CGROUP]: RUN is "run-PID-SEQ"; ours unless PID is a
# live process outside the suite's tree, or a dead lab whose temp folder
# (what a SIGKILLed lab leaves beside its cgroups, until the next run
# sweeps both) is in another script's suite folder, not ours, or a dead
# lab with no temp folder in ours whose CGROUP folder is older than our
# suite folder (a stranger's killed lab, swept by the next run of anyone's).
# A dead lab's CGROUP that is gone a moment later was a stranger's run
# ending while we looked (its lab exits as its cgroups go): a loaded
# machine with a matrix loop beside the suite shows such cgroups in
# passing, and they are not ours
suite_owns_run() {
	local pid=${1#run-} f
	pid=${pid%%-*}
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -d /proc/$pid ]] && { in_suite_tree "$pid"; return; }
	for f in "$CL_SUITE_TMP/containment-lab.$pid".*; do
		[[ -e $f ]] && return 0
	done
	for f in /tmp/cl-suite.*/containment-lab."$pid".* /tmp/containment-lab."$pid".*; do
		[[ -e $f ]] && return 1
	done
	[[ -z ${2:-} ]] && return 0
	[[ $2 -ot $CL_SUITE_TMP ]] && return 1
	sleep 1
	[[ -d $2 && ! -d /proc/$pid ]]
}

# suite_owns_pid PID: a process of the suite (see above)
suite_owns_pid() {
	local p=$1
	in_suite_tree "$p" && return 0
	tr '\0' '\n' 2>/dev/null <"/proc/$p/cmdline" | grep -qF -- "$CL_SUITE_TMP/" && return 0
	tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qx -- "CL_SUITE_TMP=$CL_SUITE_TMP"
}

# What a run may leave behind: temp folders, cgroups, processes, mounts.
leftovers_snapshot() {
	{
		ls -d "$CL_SUITE_TMP"/containment-lab.* 2>/dev/null
		local cg name pid args p st
		for cg in /sys/fs/cgroup/*/containment-lab.* /sys/fs/cgroup/containment-lab.*; do
			[[ -d $cg ]] || continue
			name=${cg##*/containment-lab.}
			suite_owns_run "$name" "$cg" && echo "$cg"
		done
		# processes still running a lab snippet or worker. The snapshot's
		# own shell, its ancestors (the test scripts, whose command lines
		# name the lab binary) and their forked subshells are not leftovers.
		local -A mine=()
		p=$BASHPID
		while [[ $p -gt 1 ]]; do
			mine["x$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")"]=1
			st=$(cat "/proc/$p/stat" 2>/dev/null) || break
			st=${st##*) }
			read -r _ p _ <<<"$st"
		done
		while read -r pid args; do
			[[ -d /proc/$pid ]] || continue
			[[ -n ${mine["x$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"]:-} ]] && continue
			suite_owns_pid "$pid" && echo "$pid $args"
		done < <(pgrep -a -f 'snippet\.py|containment-lab' 2>/dev/null | grep -v -e '^[0-9]* pgrep ')
		# mounts a run could leave in the host's mount namespace: in the
		# suite's folder or the lab's name on them (another program's, a
		# firejail's /run/firejail say, are not the suite's to judge)
		echo "mounts: $(awk -v t="$CL_SUITE_TMP/" 'index($5, t) == 1 || $5 ~ /containment-lab/' /proc/self/mountinfo | wc -l)"
	} | sort
}

# python3 that is Debian's, not a shim
PY=/usr/bin/python3

# field EXPR < json : prints EXPR of the document (d is it), the one
# helper every suite reads a run's JSON with
field() { $PY -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# ---- the lab under test ---------------------------------------------------
# lab ARGS... : the lab with the script's layers.ini, the one way every
# suite calls it; lab_with CONFIG ARGS... : the same with another one.
# Each script sets, before its first call:
#   BIN           the binary under test (every script's first argument)
#   LAB_CONFIG    the layers.ini lab() passes as --config
#   LAB_BIN       a binary other than $BIN (range_test runs a copy of it)
#   LAB_WRAP=()   a command the lab runs under: env VAR=VALUE, timeout N,
#                 unshare ... sh -c '...; exec "$@"' sh
#   LAB_JSON_DIR  a folder: each run given --json also keeps what it printed
#                 in a file of its own there (for a schema check at the end)
LAB_WRAP=()
lab() { lab_with "${LAB_CONFIG:?lab(): the script sets LAB_CONFIG}" "$@"; }
lab_with() {
	local conf=$1
	shift
	local cmd=(${LAB_WRAP[@]+"${LAB_WRAP[@]}"} "${LAB_BIN:-${BIN:?lab(): the script sets BIN}}" --config "$conf" "$@")
	if [[ -n ${LAB_JSON_DIR:-} && " $* " == *" --json "* ]]; then
		"${cmd[@]}" | tee "$(mktemp "$LAB_JSON_DIR/XXXXXX")"
		return "${PIPESTATUS[0]}"
	fi
	"${cmd[@]}"
}

# ---- the JSON schema (docs/containment-lab.schema.json, docs/json.md) ----
# json_schema_check NAME FILE...: every FILE holds exactly one JSON document
# the lab wrote, valid against the schema (python3-jsonschema, Draft
# 2020-12); skipped, saying why, where that module is missing. An empty
# file is a failure: with --json the lab always answers in JSON.
JSON_SCHEMA=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/docs/containment-lab.schema.json
json_schema_check() {
	local name=$1 out
	shift
	if ! $PY -c 'import jsonschema' 2>/dev/null; then
		skip "$name" "python3-jsonschema is not installed (apt-get install python3-jsonschema)"
		return
	fi
	if (($# == 0)); then
		not_ok "$name: no JSON to check"
		return
	fi
	if out=$($PY - "$JSON_SCHEMA" "$@" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema)
kinds, bad = {}, []
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8").read()
    try:
        doc = json.loads(text)
    except ValueError as e:
        bad.append("%s: not one JSON document (%s): %r" % (path, e, text[:120]))
        continue
    errs = sorted(v.iter_errors(doc), key=lambda e: len(list(e.path)))
    if errs:
        # the deepest reason under oneOf: which branch fits best
        best = jsonschema.exceptions.best_match(errs)
        bad.append("%s: %s at %s" % (path, best.message[:300], "/".join(map(str, best.absolute_path))))
        continue
    kind = next(k for k in ("snippets", "cells", "ladder", "results", "skipped", "verdict", "error") if k in doc)
    kind = {"snippets": "list", "cells": "matrix", "results": "audit", "skipped": "audit-skipped", "verdict": "run"}.get(kind, kind)
    kinds[kind] = kinds.get(kind, 0) + 1
print(" ".join("%s:%d" % kv for kv in sorted(kinds.items())))
for b in bad[:8]:
    print(b)
sys.exit(1 if bad else 0)
PY
	); then
		ok "$name: $# JSON documents valid against the schema ($out)"
	else
		not_ok "$name: JSON valid against the schema" "$out"
	fi
}
