#!/usr/bin/env bash
# tests/fuzz_test.sh [BINARY] — the fuzz smoke test (issue 11): with a fixed
# seed, a few hundred mutated layers.ini files and a few hundred mutated
# snippet headers and names, each run under `timeout 10`
# (tests/fuzz_mutate.py makes the cases and judges each run: no hang, a
# documented exit status, a refusal is one prefixed message, no raw control
# bytes). Meant for the ASan+UBSan build. Under run_all.sh the sanitizer
# reports go to its log_path and are judged there; run on its own, this
# script gives them a folder of its own and judges them itself.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-build/containment-lab-san}")
T=$(mktemp -d /tmp/cl-fuzz.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
OWN_LOG=
if [[ ${ASAN_OPTIONS:-} != *log_path=* ]]; then
	OWN_LOG=$T/sanlog
	mkdir "$OWN_LOG"
	export ASAN_OPTIONS="log_path=$OWN_LOG/asan:detect_leaks=1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$OWN_LOG/ubsan:print_stacktrace=1:halt_on_error=1"
fi

out=$($PY tests/fuzz_mutate.py "$BIN" "$T/cases" "${FUZZ_SEED:-11}")
rc=$?
printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed'
read -r p _ f _ <<<"$(printf '%s\n' "$out" | tail -1)"
PASS=$((PASS + ${p:-0}))
FAIL=$((FAIL + ${f:-1}))
[[ $rc -ne 0 && ${f:-0} -eq 0 ]] && not_ok "fuzz_mutate.py exited $rc"

if [[ -n $OWN_LOG ]]; then
	if compgen -G "$OWN_LOG/*" >/dev/null; then
		not_ok "no sanitizer report from the fuzzed runs" "$(head -20 "$OWN_LOG"/*)"
	else
		ok "no sanitizer report from the fuzzed runs"
	fi
fi
finish
