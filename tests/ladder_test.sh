#!/usr/bin/env bash
# tests/ladder_test.sh [BINARY] — `matrix --rung all`: the same snippets on
# every rung of the ladder in one report. Two rungs' tools are taken away
# (runsc masked in a mount namespace of the test's own, the guest kernel
# pointed at a path that does not exist), so the in-process and container
# rungs run and the gvisor and microvm rungs must say "skipped" with what
# to install, in the text, the JSON (against the schema), JUnit (against
# the XSD, a <testsuite> per rung), TAP (prove) and the HTML page — never
# as passed. A rung with its tools runs on the real ladder when they are
# here. Then the refusals, and nothing left behind.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
XSD=$PWD/tests/junit.xsd
T=$(mktemp -d /tmp/cl-ladder.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT

if [[ $(id -u) != 0 ]]; then
	skip "the ladder with two rungs' tools taken away" "masking runsc needs root (a mount namespace)"
	finish
	exit
fi
before=$(leftovers_snapshot)

# the guest kernel: a path that is not there (the microvm rung's own
# readiness check must catch it before any cell is tried)
sed "s|^\[isolation\]|[isolation]\nkernel = $T/no-such-vmlinuz|" layers.ini >"$T/layers.ini"
# lab() and lab_with CONFIG ARGS... (lib.sh): the lab in a mount namespace
# where runsc is not executable (the gvisor rung skipped: the checks below
# are about the others)
LAB_CONFIG=$T/layers.ini
LAB_WRAP=(unshare -m --propagation private sh -c 'mount --bind /dev/null "$(command -v runsc || echo /usr/bin/runsc)" 2>/dev/null; exec "$@"' sh)
snips=legit,host-takeover

# ---- text ----
out=$(lab matrix --rung all --snippet $snips 2>&1)
rc=$?
expect_eq "text: exit 0 (every cell of the rungs that ran as expected)" "$rc" 0
for r in in-process container gvisor microvm; do
	expect_contains "text: the $r rung has its heading" "$out" "== the $r rung"
done
expect_contains "text: in-process ran, 32 cells" "$out" "32/32 cells as expected (0 differ, 0 errors) as root on the in-process rung"
expect_contains "text: container ran, 32 cells" "$out" "32/32 cells as expected (0 differ, 0 errors) as root on the container rung"
expect_contains "text: gvisor skipped, saying what to install" "$out" "skipped: runsc is not installed (apt-get install runsc)"
expect_contains "text: microvm skipped, naming the missing kernel" "$out" "skipped: no guest kernel readable at $T/no-such-vmlinuz"
expect_contains "text: the ladder's line counts only what ran, and names the skipped rungs" "$out" \
	"the ladder: 64/64 cells as expected (0 differ, 0 errors) on 2 of 4 rungs"
expect_contains "text: ... the skipped rungs named" "$out" "; skipped: gvisor, microvm"
expect_not_contains "text: no gvisor grid (a skipped rung has no cells)" "$out" "on the gvisor rung in"

# ---- JSON, JUnit, TAP and HTML from one run ----
lab matrix --rung all --snippet $snips --json --junit "$T/ladder.xml" --html "$T/ladder.html" >"$T/ladder.json" 2>"$T/err"
expect_eq "json: exit 0" "$?" 0
got=$($PY - "$T/ladder.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = d["ladder"]
print([e["rung"] for e in l], [("cells" in e, e.get("skipped", "")[:24]) for e in l],
      d["rungs_run"], d["rungs_skipped"], d["cells_total"], d["as_expected"],
      sorted({c["verdict"] for e in l if "cells" in e for c in e["cells"]}))
PY
)
expect_eq "json: four rungs from the bottom, two ran (cells), two skipped (why), counts over what ran" "$got" \
	"['in-process', 'container', 'gvisor', 'microvm'] [(True, ''), (True, ''), (False, 'runsc is not installed ('), (False, 'no guest kernel readable')] 2 2 64 64 ['CONTAINED', 'ESCAPED', 'RAN OK']"
json_schema_check "json: the ladder document" "$T/ladder.json"

if out=$(xmllint --noout --schema "$XSD" "$T/ladder.xml" 2>&1); then
	ok "junit: valid against the JUnit schema (xmllint)"
else
	not_ok "junit: valid against the JUnit schema (xmllint)" "$out"
fi
got=$($PY - "$T/ladder.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
out = []
for s in root.findall("testsuite"):
    cases = s.findall("testcase")
    sk = [c for c in cases if c.find("skipped") is not None]
    out.append((len(cases), int(s.get("skipped")), len(sk), sk[0].find("skipped").get("message")[:20] if sk else ""))
print(root.get("tests"), out)
PY
)
expect_eq "junit: a testsuite per rung; each skipped rung one skipped case saying why" "$got" \
	"66 [(32, 0, 0, ''), (32, 0, 0, ''), (1, 1, 1, 'runsc is not install'), (1, 1, 1, 'no guest kernel read')]"

lab matrix --rung all --snippet $snips --tap >"$T/ladder.tap" 2>/dev/null
out=$(prove -e cat "$T/ladder.tap" 2>&1)
rc=$?
expect_eq "tap: prove passes" "$rc" 0
expect_contains "tap: prove counts 66 tests" "$out" "Tests=66"
expect_eq "tap: the skipped rungs as SKIP, with why" "$(grep -c '^ok [0-9]* - matrix on the .* rung # SKIP' "$T/ladder.tap")" 2

got=$($PY - "$T/ladder.html" <<'PY'
import sys, re
h = open(sys.argv[1]).read()
ids = re.findall(r'id="([^"]+)"', h)
hrefs = set(re.findall(r'href="#([^"]+)"', h))
print(re.findall(r"<h2 id=\"([a-z-]+)\">", h), len(ids) == len(set(ids)), hrefs <= set(ids), len(hrefs),
      "skipped: runsc is not installed" in h, "http" in h.replace("http-equiv", ""))
PY
)
expect_eq "html: a heading per rung, unique anchors, every link lands, 64 cells linked, the skip said, nothing fetched" \
	"$got" "['in-process', 'container', 'gvisor', 'microvm'] True True 64 True False"

# ---- the real ladder: a rung with its tools runs (legit only, to keep it short) ----
if command -v runsc >/dev/null && command -v qemu-system-x86_64 >/dev/null && ls /boot/vmlinuz-* >/dev/null 2>&1; then
	# clocks a loaded machine cannot reach: runsc's sandbox and the guest's
	# boot count against them, and this check is about the verdicts
	sed -e 's/^timeout = 5s/timeout = 120s/' -e 's/^timeout = 30s/timeout = 300s/' layers.ini >"$T/slow.ini"
	j=$("$BIN" --config "$T/slow.ini" matrix --rung all --snippet host-takeover --json 2>"$T/err2")
	got=$($PY -c 'import json,sys; d=json.load(sys.stdin); print(d["rungs_run"], [e["rung"] for e in d["ladder"] if "cells" in e], d["cells_total"])' <<<"$j" 2>&1)
	expect_eq "every tool here: all four rungs run (16 cells each)" "$got" "4 ['in-process', 'container', 'gvisor', 'microvm'] 64"
	got=$($PY -c 'import json,sys; d=json.load(sys.stdin); print(d["as_expected"] == d["cells_total"] or [(e["rung"], c["layers"], c["verdict"], c["headline"]) for e in d["ladder"] for c in e.get("cells", []) if c["verdict"] != c["expected"]])' <<<"$j" 2>&1)
	expect_eq "every tool here: host-takeover as the truth table says on every rung" "$got" "True"
else
	skip "every tool here: all four rungs run" "runsc, qemu-system-x86_64 or a guest kernel is missing"
fi

# ---- a runsc that is not gVisor ----
mkdir -p "$T/fake" "$T/stub"
printf '#!/bin/sh\necho "runsc: broken" >&2\nexit 1\n' >"$T/fake/runsc"
cp /bin/true "$T/stub/runsc"
chmod 755 "$T/fake/runsc" "$T/stub/runsc"
# (the lab itself here, not lab(): that masks the first runsc on PATH)
out=$(PATH=$T/fake:$PATH "$BIN" --config "$T/layers.ini" matrix --rung all --snippet host-takeover 2>&1)
expect_contains "a runsc whose --version fails: the gvisor rung skipped, saying so" "$out" \
	"skipped: $T/fake/runsc --version exited non-zero: it is not a working gVisor"
# one that answers --version but starts nothing: the rung runs, and no cell
# with Isolation on may pass for contained (nothing ever ran)
j=$(PATH=$T/stub:$PATH "$BIN" --config "$T/layers.ini" matrix --rung all --snippet host-takeover --json 2>/dev/null)
rc=$?
got=$($PY -c '
import json,sys
d=json.load(sys.stdin)
g=[e for e in d["ladder"] if e["rung"]=="gvisor"][0]
print(sorted({c["verdict"] for c in g["cells"] if c["layers"]["isolation"]}), sorted({c["verdict"] for c in g["cells"] if not c["layers"]["isolation"]}))' <<<"$j" 2>&1)
expect_eq "a runsc stub (/bin/true): host-takeover with Isolation on is ERROR, never CONTAINED; off, the range as ever" \
	"$got" "['ERROR'] ['ESCAPED']"
expect_eq "a runsc stub: exit 1 (cells differ)" "$rc" 1
out=$(PATH=$T/stub:$PATH "$BIN" --config layers.ini run host-takeover --on isolation --rung gvisor 2>&1)
expect_eq "run on the gvisor rung with a runsc stub: exit 4 (ERROR)" "$?" 4
expect_contains "... saying runsc never started a sandbox" "$out" "runsc never started a sandbox the lab could see"

# ---- stopped: Ctrl-C proves nothing, and says so ----
mkdir "$T/snips"
printf '# lab:title: Sleeps\n# lab:threat: legit\n# lab:layer: none\n# lab:expect: done\nimport time\ntime.sleep(20)\nprint("done")\n' >"$T/snips/sleeper.py"
cp snippets/sales.csv "$T/snips/"
sed "s|^\[paths\]|[paths]\nsnippets = $T/snips|" "$T/layers.ini" >"$T/sleep.ini"
"$BIN" --config "$T/sleep.ini" matrix --rung all --json --junit "$T/stop.xml" >"$T/stop.json" 2>/dev/null &
lp=$!
sleep 3
kill -INT "$lp"
wait "$lp"
expect_eq "Ctrl-C during the ladder: exit 130, whatever the cells said" "$?" 130
got=$($PY -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(d["stopped"], [(e["rung"], e.get("stopped")) for e in d["ladder"][1:]])' "$T/stop.json" 2>&1)
expect_eq "Ctrl-C: the JSON says stopped, the later rungs stopped, not missing a tool" "$got" \
	"True [('container', True), ('gvisor', True), ('microvm', True)]"
got=$($PY -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
print([c.get("name") for c in r.iter("testcase") if c.find("error") is not None and "rung" in c.get("name")])' "$T/stop.xml" 2>&1)
expect_eq "Ctrl-C: JUnit shows the rungs not run as errors, not skips CI would pass" "$got" \
	"['matrix on the container rung', 'matrix on the gvisor rung', 'matrix on the microvm rung']"

# ---- what the config may hold ----
sed "s|^\[isolation\]|[isolation]\nkernel = $T/k\x1b[31mRED|" layers.ini >"$T/esc.ini"
out=$(lab_with "$T/esc.ini" matrix --rung all --snippet legit 2>/dev/null | grep -a "skipped: no guest kernel")
expect_contains "a kernel path with an escape sequence: the microvm rung skipped for it" "$out" "skipped: no guest kernel"
expect_not_contains "a kernel path with an escape sequence: the skip line carries no raw ESC" "$out" $'\033'
expect_contains "... and shows it inert" "$out" "^[[31mRED"
sed "s|^python = .*|python = /usr/..$T/py3|" layers.ini >"$T/pyout.ini"
cp "$(realpath /usr/bin/python3)" "$T/py3"
out=$(lab_with "$T/pyout.ini" matrix --rung all --snippet legit 2>/dev/null | grep -a -A1 "== the microvm rung")
expect_contains "python at /usr/../elsewhere: the microvm rung skipped (the guest sees only /usr)" "$out" "is not under /usr"
out=$(lab --network-mode allowlist matrix --rung all --snippet legit 2>&1)
expect_contains "allowlist mode: the container rung ran" "$out" "as root on the container rung"
expect_not_contains "allowlist mode: no rung is skipped for it (it is built on all three)" "$out" \
	"allowlist mode is built on"

# ---- refused ----
err=$("$BIN" --config layers.ini matrix --rung all --snippet , 2>&1)
expect_eq "matrix --snippet , (no name): exit 2, never the whole matrix" "$?" 2
expect_contains "... saying a name is needed" "$err" "--snippet needs a snippet name"
err=$("$BIN" --config layers.ini run legit --rung all 2>&1)
expect_eq "run --rung all: refused, exit 2" "$?" 2
expect_contains "run --rung all: says it is for matrix" "$err" "--rung all is for matrix"
err=$("$BIN" --config layers.ini --rung all exec --on all -- /bin/true 2>&1)
expect_eq "exec --rung all: refused, exit 2" "$?" 2
err=$("$BIN" --config layers.ini matrix --rung everything 2>&1)
expect_eq "matrix --rung everything: exit 2" "$?" 2
expect_contains "matrix --rung everything: names the choices" "$err" "in-process, container, gvisor, microvm or all"

sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
