#!/usr/bin/env bash
# tests/reports_test.sh [BINARY] — the reports a CI reads: matrix and audit
# as JUnit XML (--junit FILE), validated with xmllint against
# tests/junit.xsd (the structure Jenkins' JUnit schema requires) and
# re-read with python's xml.etree, counts checked against the cases, and
# as TAP (--tap) read by `prove`. A snippet whose header names the wrong
# layer (in a folder of the test's own) must show as failures there, an
# audit attack that got out as a failure, one that never ran as an error,
# a preset that cannot run here as skipped. Nothing left behind.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
XSD=$PWD/tests/junit.xsd
T=$(mktemp -d /tmp/cl-reports.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
LAB_CONFIG=$T/layers.ini # lab() (lib.sh)

before=$(leftovers_snapshot)

# The test's own folder: the legit task and an exfiltration whose header
# claims it is a secret theft that Clean-env stops (threat and layer agree,
# so the lab loads it; the layer is the wrong one for what it does).
mkdir "$T/snippets"
cp snippets/legit.py snippets/sales.csv "$T/snippets/"
sed -e 's/^# lab:threat: exfil$/# lab:threat: secrets/' -e 's/^# lab:layer: network$/# lab:layer: env/' \
	-e 's/^# lab:title: .*/# lab:title: Exfiltration under the wrong header/' \
	snippets/exfiltration.py >"$T/snippets/wrong-layer.py"
sed "s|^\[paths\]|[paths]\nsnippets = $T/snippets|" layers.ini >"$T/layers.ini"
expect_contains "the wrong-layer snippet loads, claiming Clean-env" "$(lab list)" "wrong-layer      secret theft       Clean-env"

# junit_check NAME FILE: the schema, then the counts against the cases.
junit_check() {
	local out
	if out=$(xmllint --noout --schema "$XSD" "$2" 2>&1); then
		ok "$1: valid against the JUnit schema (xmllint)"
	else
		not_ok "$1: valid against the JUnit schema (xmllint)" "$out"
	fi
	out=$($PY - "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 1, len(suites)
s = suites[0]
cases = s.findall("testcase")
count = lambda tag: sum(1 for c in cases if c.find(tag) is not None)
for tag, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
    assert int(s.get(attr)) == count(tag), (attr, s.get(attr), count(tag))
assert int(s.get("tests")) == len(cases) == int(root.get("tests"))
for c in cases:
    assert c.get("name") and c.get("classname"), c.attrib
    outcomes = [t for t in ("failure", "error", "skipped") if c.find(t) is not None]
    assert len(outcomes) <= 1, (c.get("name"), outcomes)
    for t in outcomes:
        assert c.find(t).get("message"), (c.get("name"), t)
names = [c.get("name") for c in cases]
assert len(set(names)) == len(names), "names not unique"
print(len(cases), count("failure"), count("error"), count("skipped"))
PY
	)
	if [[ $? == 0 ]]; then ok "$1: counts agree with the cases ($out)"; else not_ok "$1: counts agree with the cases" "$out"; fi
	JUNIT_COUNTS=$out
}

# ---- the matrix with a broken cell ----
lab matrix --snippet legit,wrong-layer --junit "$T/broken.xml" --tap >"$T/broken.tap" 2>"$T/broken.err"
rc=$?
expect_eq "matrix with the wrong-layer snippet: exit 1 (cells differ)" "$rc" 1
junit_check "matrix --junit (broken cell)" "$T/broken.xml"
read -r n_cases n_fail n_err n_skip <<<"$JUNIT_COUNTS"
expect_eq "matrix --junit: one case per cell (2 snippets x 16)" "$n_cases" 32
got=$($PY - "$T/broken.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().find("testsuite").findall("testcase")
bad = []
for c in cases:
    name, f = c.get("name"), c.find("failure")
    snippet, label = name.split(" ")[0], name.split("[")[1].split("]")[0]
    # Clean-env on, No-network off: the header expects CONTAINED by Clean-env,
    # the exfiltration got out: these cells must be failures, saying so
    if snippet == "wrong-layer" and label[2] == "E" and label[1] == "-":
        if f is None or not f.get("message").startswith("expected CONTAINED by Clean-env (the snippet's lab:layer), got ESCAPED"):
            bad.append(name)
    if snippet == "legit" and (f is not None or c.find("error") is not None):
        bad.append(name)
    if not name.endswith(" container/none"):
        bad.append(name)
print(" ".join(bad) or "none")
PY
)
expect_eq "matrix --junit: every Clean-env-on, No-network-off cell of the wrong header is a failure that says why; legit passes" "$got" none
expect_contains "matrix --junit: a failure holds the evidence" "$(cat "$T/broken.xml")" "evidence: also out, data exfiltration"
# prove reads the TAP and fails exactly those cells
out=$(prove -e cat "$T/broken.tap" 2>&1); rc=$?
expect_eq "matrix --tap (broken cell): prove fails" "$rc" 1
expect_contains "matrix --tap: prove counts 32 tests" "$out" "Tests: 32 Failed: $n_fail)"
expect_eq "matrix --tap: not ok lines = JUnit failures" "$(grep -c '^not ok ' "$T/broken.tap")" "$n_fail"
expect_contains "matrix --tap: a YAML block says what was expected" "$(cat "$T/broken.tap")" '  expected: "CONTAINED"'
expect_eq "matrix --tap: stderr has no progress line (not a terminal)" "$(cat "$T/broken.err")" ""

# ---- all as expected: JSON on stdout, JUnit beside it ----
lab matrix --snippet legit --json --junit "$T/legit.xml" >"$T/legit.json"
rc=$?
expect_eq "matrix --snippet legit --json --junit: exit 0" "$rc" 0
junit_check "matrix --junit (all as expected)" "$T/legit.xml"
expect_eq "matrix --junit (all as expected): 16 cases, none failed" "$JUNIT_COUNTS" "16 0 0 0"
got=$($PY - "$T/legit.json" "$T/legit.xml" <<'PY'
import json, sys, xml.etree.ElementTree as ET
cells = json.load(open(sys.argv[1]))["cells"]
cases = ET.parse(sys.argv[2]).getroot().find("testsuite").findall("testcase")
print(len(cells), sorted(c["snippet"] for c in cells) == sorted(c.get("name").split(" ")[0] for c in cases))
PY
)
expect_eq "matrix: the JSON's cells are the JUnit's cases" "$got" "16 True"
lab matrix --snippet legit --tap >"$T/legit.tap"
out=$(prove -e cat "$T/legit.tap" 2>&1); rc=$?
expect_eq "matrix --tap (all as expected): prove passes" "$rc" 0
expect_contains "matrix --tap: prove says PASS" "$out" "Result: PASS"

# ---- audit ----
audit() { "$BIN" --config "$PWD/layers.ini" audit "$@"; }
audit --snippet legit --snippet secret-theft --junit "$T/audit.xml" --tap -- /usr/bin/env >"$T/audit.tap"
rc=$?
expect_eq "audit through no sandbox at all (env): exit 1" "$rc" 1
junit_check "audit --junit" "$T/audit.xml"
expect_eq "audit --junit: legit passes, secret-theft fails" "$JUNIT_COUNTS" "2 1 0 0"
# how many secrets are planted is the decoys' business: the message names them came out
expect_contains "audit --junit: the failure names what came out" \
	"$(grep -o 'message="expected CONTAINED, got ESCAPED: [0-9]* of [0-9]* planted secrets came out' "$T/audit.xml")" \
	'message="expected CONTAINED, got ESCAPED: '
out=$(prove -e cat "$T/audit.tap" 2>&1); rc=$?
expect_eq "audit --tap: prove fails the escaped attack" "$rc" 1
expect_contains "audit --tap: test 2 failed" "$out" "Failed test:  2"
audit --snippet secret-theft --junit "$T/false.xml" --tap -- /bin/false >"$T/false.tap"
rc=$?
expect_eq "audit -- /bin/false: exit 4" "$rc" 4
junit_check "audit --junit (an attack that never ran)" "$T/false.xml"
expect_eq "audit --junit: an attack that never ran is an error" "$JUNIT_COUNTS" "1 0 1 0"
expect_contains "audit --tap: an ERROR is not ok" "$(cat "$T/false.tap")" "not ok 1 - audit custom: secret-theft: ERROR"
skipped=""
for p in srt firejail bwrap runsc; do
	command -v "$p" >/dev/null || { skipped=$p; break; }
done
if [[ -n $skipped ]]; then
	audit --preset "$skipped" --junit "$T/skip.xml" --tap >"$T/skip.tap"
	rc=$?
	expect_eq "audit --preset $skipped (not installed): exit 4" "$rc" 4
	junit_check "audit --junit (a preset that cannot run here)" "$T/skip.xml"
	expect_eq "audit --junit: the preset is one skipped case" "$JUNIT_COUNTS" "1 0 0 1"
	expect_contains "audit --junit: skipped with the reason" "$(cat "$T/skip.xml")" "<skipped message=\"$skipped is not installed"
	out=$(prove -e cat "$T/skip.tap" 2>&1); rc=$?
	expect_eq "audit --tap (preset skipped): prove passes a skipped plan" "$rc" 0
	expect_contains "audit --tap: prove says skipped" "$out" "skipped: $skipped is not installed"
else
	skip "audit --preset not installed: skipped case" "every preset's tool is installed here"
fi

# ---- refused: two stdout formats, a report file that cannot be written ----
err=$(lab matrix --tap --json 2>&1); rc=$?
expect_eq "matrix --tap --json: refused, exit 2" "$rc" 2
expect_contains "matrix --tap --json: says why" "$err" "--tap and --json cannot be combined"
err=$(audit --preset lab --markdown --tap 2>&1); rc=$?
expect_eq "audit --markdown --tap: refused, exit 2" "$rc" 2
err=$(lab matrix --junit "$T/no/such/dir/x.xml" 2>&1); rc=$?
expect_eq "matrix --junit into a missing folder: exit 2 before anything runs" "$rc" 2
expect_contains "matrix --junit into a missing folder: names the path" "$err" "--junit $T/no/such/dir/x.xml: cannot write"
err=$(audit --junit "$T/x.xml" --preset nosuch 2>&1); rc=$?
expect_eq "audit --junit with an unknown preset: exit 2" "$rc" 2
check "audit --junit with an unknown preset: no report file left" test ! -e "$T/x.xml"

sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
