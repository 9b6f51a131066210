#!/usr/bin/env bash
# tests/matrix_test.sh [BINARY] — the 128-cell proof (container rung, 8
# snippets), with No-network's mode none and allowlist, as root and as an
# unprivileged user (uid 65534 via setpriv), each cell's verdict checked
# against the truth table from the JSON, and nothing left behind.
# Run as an ordinary user it runs the matrix once, as that user.
# CL_MATRIX_PART=cells: only the four JSON matrices (root, uid 65534; both
# modes); =faces: only the text and markdown faces and the root JSON's
# trace; unset: all of it. run_all.sh gives the release build the cells and
# the ASan build the faces (two whole matrices, and the allow-list's and the
# markdown face on two snippets each), so the suite runs 6 whole matrices.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")

check_matrix() { # NAME JSON-FILE [MODE]
	local name=$1 file=$2 mode=${3:-none}
	local summary
	summary=$($PY - "$file" "$mode" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mode = sys.argv[2]
cells = d["cells"]
bad = [c for c in cells if c["verdict"] != c["expected"]]
if d.get("network_mode") != mode:
    bad.append({"snippet": "(header)", "layers": {}, "expected": mode, "verdict": d.get("network_mode"), "headline": ""})
# the truth table, restated here from the spec rather than trusted from the lab
layer = {"legit": None, "legit-api": None, "resource-bomb": "limits", "secret-theft": "env",
         "exfil-allowed": "network", "exfiltration": "network", "host-takeover": "isolation",
         "kernel-exploit": "isolation"}
for c in cells:
    l = layer.get(c["snippet"], "?")
    want = "RAN OK" if l is None else ("CONTAINED" if c["layers"][l] else "ESCAPED")
    if c["snippet"] == "kernel-exploit":  # the container rung: the host kernel served it, always
        want = "ESCAPED"
    # the two that go through api.lab.test: No-network with mode none stops
    # them both (the task FAILS: the price of no network); its allow-list
    # (api.lab.test:80 listed) lets both through
    if c["snippet"] == "legit-api" and c["layers"]["network"]:
        want = "RAN OK" if mode == "allowlist" else "FAILED"
    if c["snippet"] == "exfil-allowed" and c["layers"]["network"]:
        want = "ESCAPED" if mode == "allowlist" else "CONTAINED"
    if l != "?" and c["expected"] != want:
        bad.append(c)
    if c["verdict"] == "CONTAINED" and l and c["caught_by"] != l:
        bad.append(c)
print(len(cells), len(cells) - len(bad), d["limits_mechanism"])
for c in bad[:10]:
    print("#", c["snippet"], c["layers"], "expected", c["expected"], "got", c["verdict"], c["headline"])
PY
)
	local total good mech
	read -r total good mech <<<"$(head -1 <<<"$summary")"
	if [[ "$total" == 128 && "$good" == 128 ]]; then
		ok "$name: 128/128 cells as expected (network mode: $mode, limits: $mech)"
	else
		not_ok "$name: $good/$total cells as expected" "$(tail -n +2 <<<"$summary")"
	fi
}

# The trace crossed each worker's stream: every host-takeover cell with
# Isolation on names a call its filter refused with EPERM; no cell with
# Isolation off names one.
check_trace() { # NAME JSON-FILE
	local got
	got=$($PY - "$2" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
refused = lambda c: [l for l in c["trace"] if "= -1 EPERM  seccomp (Isolation)" in l]
ht = [c for c in cells if c["snippet"] == "host-takeover" and c["layers"]["isolation"]]
bad = [c for c in ht if not refused(c)] + [c for c in cells if not c["layers"]["isolation"] and refused(c)]
print(len(ht), len(bad), bad[0]["snippet"] if bad else "")
PY
)
	if [[ $got == "8 0 " ]]; then
		ok "$1: the trace of all 8 host-takeover cells with Isolation on names a call refused with EPERM; none with it off"
	else
		not_ok "$1: the trace names EPERM refusals exactly with Isolation on" "got: $got"
	fi
}

before=$(leftovers_snapshot)
T=$(mktemp -d /tmp/cl-matrix.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT

PART=${CL_MATRIX_PART:-all}
cells() { [[ $PART != faces ]]; }
faces() { [[ $PART != cells ]]; }
if [[ $(id -u) == 0 ]]; then
	"$BIN" --config layers.ini matrix --json >"$T/root.json"
	check_matrix "matrix as root" "$T/root.json"
	faces && check_trace "matrix as root" "$T/root.json"
	if cells; then
		"$BIN" --config layers.ini --network-mode allowlist matrix --json >"$T/root-allow.json"
		check_matrix "matrix --network-mode allowlist as root" "$T/root-allow.json" allowlist
	fi
fi
if [[ $(id -u) == 0 ]] && faces; then
	# text and markdown faces agree (three rows: the JSON matrix above
	# already judged every cell under the sanitizers; this is the face)
	out=$("$BIN" --config layers.ini matrix --jobs 3 --snippet legit-api,host-takeover,secret-theft); rc=$?
	expect_eq "matrix text: exit 0" "$rc" 0
	expect_contains "matrix text summary" "$out" "48/48 cells as expected"
	expect_contains "matrix text: a legend of the marks" "$out" "cells: + CONTAINED  X ESCAPED  . RAN OK  F FAILED"
	# every cell is one of the marks, never a layer letter (I N E L) or a digit
	bad=$(awk '/^(legit|legit-api|resource-bomb|secret-theft|exfil-allowed|exfiltration|host-takeover|kernel-exploit) / && NF == 17 {
		for (i = 2; i <= NF; i++) if ($i !~ /^[+X.F!B][*]?$/) print $1, $i }' <<<"$out")
	expect_eq "matrix text: cells show only + X . F ! B" "$bad" ""
	expect_contains "matrix text: host-takeover's row, contained then escaped" "$out" "host-takeover     +    +"
	expect_contains "matrix text: legit-api FAILS under No-network (mode none)" "$out" "legit-api         F    F    F    F    .    ."
	# the allow-list's own face: the two snippets whose rows it changes (the
	# cells part checks every cell of the allowlist matrix)
	out=$("$BIN" --config layers.ini matrix --network-mode allowlist --jobs 3 --snippet exfil-allowed,exfiltration); rc=$?
	expect_eq "matrix --network-mode allowlist text: exit 0" "$rc" 0
	expect_contains "matrix allowlist text: says its mode" "$out" "network mode: allowlist"
	expect_contains "matrix allowlist text: exfil-allowed ESCAPED in every column" "$out" \
		"exfil-allowed     X    X    X    X    X    X    X    X    X    X    X    X    X    X    X    X"
	expect_contains "matrix allowlist text: exfiltration still contained by No-network" "$out" \
		"exfiltration      +    +    +    +    X    X    X    X    +    +"
fi
if [[ $(id -u) == 0 ]] && cells; then
	# /root may be 0700: stage what the unprivileged run needs where it can read
	mkdir "$T/lab"
	cp "$BIN" "$T/lab/containment-lab"
	cp -r snippets layers.ini "$T/lab/"
	chmod -R a+rX "$T"
	(cd "$T/lab" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u XDG_CONFIG_HOME HOME=/nonexistent ./containment-lab matrix --json >"$T/nobody.json")
	check_matrix "matrix as uid 65534" "$T/nobody.json"
	(cd "$T/lab" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u XDG_CONFIG_HOME HOME=/nonexistent ./containment-lab --network-mode allowlist matrix --json >"$T/nobody-allow.json")
	check_matrix "matrix --network-mode allowlist as uid 65534" "$T/nobody-allow.json" allowlist
	check_trace "matrix as uid 65534" "$T/nobody.json"
	out=$(cd "$T/lab" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME=/nonexistent ./containment-lab run resource-bomb --on all)
	expect_contains "rootless limits say which mechanism" "$out" "rlimits-only"
	expect_contains "rootless run says rootless" "$out" "rootless"
fi
if [[ $(id -u) != 0 ]]; then
	"$BIN" --config layers.ini matrix --json >"$T/user.json"
	check_matrix "matrix as $(id -un)" "$T/user.json"
fi
if faces; then
	# the markdown face of two rows (the renderer is the same for every row)
	md=$("$BIN" --config layers.ini matrix --markdown --snippet legit,host-takeover)
	expect_contains "matrix --markdown is a table, all layers on first" "$md" "| snippet | INEL | INE- |"
	expect_contains "matrix --markdown: a legend of the marks" "$md" "cells: + CONTAINED  X ESCAPED  . RAN OK"
	expect_contains "matrix --markdown: a cell gives its mark and name" "$md" "| legit | \`.\` RAN OK |"
fi
sleep 0.2
expect_eq "nothing left behind after the matrices" "$(leftovers_snapshot)" "$before"
json_schema_check "the matrices' JSON" "$T"/*.json
finish
