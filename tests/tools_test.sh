#!/usr/bin/env bash
# tests/tools_test.sh [BINARY] — tools called as code through the lab's one
# door, and the gate for send_payment (issue 22 items 2 and 3): tool-chain
# RAN OK with its measured figures; tool-injection CONTAINED by the gate
# with --approve never and ESCAPED with always, the call in the log; bad
# --approve values refused; --approve ask answered y and n at a terminal
# and on the screen (its result pane asks; n is the answer there, not
# No-network's mode), driven through tmux; matrix --tools by the approve mode; as root and as
# uid 65534 (a staged world-readable copy); nothing left behind.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
PY=${PY:-/usr/bin/python3}

before=$(leftovers_snapshot)
T=$(mktemp -d /tmp/cl-tools.XXXXXX)
# the tool door and the gate are judged here, not the machine's speed:
# 167 tool calls under ASan as uid 65534 on a loaded machine outran the
# 5 s wall clock once, and on the gvisor rung at load 45 even 20 s, so
# these runs get 90 s, and the safety net 180 s
CFG=$T/layers.ini
sed -e '/^\[limits\]/,/^\[/ s/^timeout = .*/timeout = 90s/' -e '/^\[safety\]/,/^\[/ s/^timeout = .*/timeout = 180s/' \
	layers.ini >"$CFG"
chmod 755 "$T"
SOCK=cltools-$$
tmux_() { tmux -u -L "$SOCK-$answer" -f /dev/null "$@"; }
answer=y
cleanup() {
	for answer in y n screen; do tmux_ kill-server >/dev/null 2>&1; rm -f "/tmp/tmux-$(id -u)/$SOCK-$answer"; done
	rm -rf "$T"
	suite_cleanup
}
trap cleanup EXIT

# check_runs WHO CMD...: the three runs through CMD (the lab, as someone)
check_runs() {
	local who=$1 out rc
	shift
	out=$("$@" run tool-chain --json)
	rc=$?
	expect_eq "$who: run tool-chain exits 0" "$rc" 0
	expect_eq "$who: tool-chain RAN OK" "$($PY -c 'import json,sys; print(json.load(sys.stdin)["verdict"])' <<<"$out")" "RAN OK"
	expect_contains "$who: tool-chain's figures, measured" "$out" "bytes came back from the tools and stayed in the sandbox"
	# the figure's numbers agree with the evidence fields they come from
	printf '%s' "$out" >"$T/chain.json"
	check "$who: N calls, X bytes in, Y bytes out, Z% less as the lab counted them" $PY - "$T/chain.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
line = next(l for l in d["evidence"] if "tool calls;" in l)
m = re.search(r"(\d+) tool calls; ([\d,]+) bytes came back .*; ([\d,]+) bytes came out .*: ([\d.]+)% less", line)
n, x, y, z = int(m[1]), int(m[2].replace(",", "")), int(m[3].replace(",", "")), float(m[4])
assert n >= 20 and x > 10 * y > 0, line
assert abs(z - 100 * (x - y) / x) < 0.1, line
t = d["tools"]  # the door's own record: the same figures, and the gate idle
assert t["served"] and t["calls"] == n and t["bytes_out"] == x and t["log"], t
assert t["gate"]["asked"] == 0 and t["gate"]["call"] is None, t["gate"]
PY
	out=$("$@" run tool-injection)
	rc=$?
	expect_eq "$who: tool-injection --approve never (the default): exit 0 (CONTAINED)" "$rc" 0
	expect_contains "$who: CONTAINED by the gate" "$out" "CONTAINED by the gate: send_payment(to='attacker', amount=5000) refused"
	expect_contains "$who: the call in the tool log" "$out" "tool log: send_payment(to='attacker', amount=5000) -> REFUSED by the gate (--approve never)"
	expect_contains "$who: the tool door's log, a section of its own" "$out" "tool door log (the lab's, outside the sandbox):"
	expect_contains "$who: ... the refused call in it" "$out" "  > send_payment(to='attacker', amount=5000) -> REFUSED by the gate (--approve never)"
	got=$("$@" run tool-injection --json | $PY -c 'import json,sys; g=json.load(sys.stdin)["tools"]["gate"]; print(g["approve"], g["asked"], g["made"], g["refused"], g["call"])')
	expect_eq "$who: tool-injection --json: the gate's record (approve, asked, made, refused, call)" "$got" \
		"never 1 0 1 send_payment(to='attacker', amount=5000)"
	out=$("$@" run tool-injection --approve always --off all)
	rc=$?
	expect_eq "$who: tool-injection --approve always: exit 1 (ESCAPED)" "$rc" 1
	expect_contains "$who: the payment went out" "$out" "The payment went out: irreversible"
	expect_contains "$who: the call in the tool log" "$out" "tool log: send_payment(to='attacker', amount=5000) -> PAID by the gate (--approve always)"
}

check_runs "root" "$BIN" --config "$CFG"

# --- bad values ------------------------------------------------------------
out=$("$BIN" run tool-injection --approve maybe 2>&1)
rc=$?
expect_eq "--approve maybe: exit 2" "$rc" 2
expect_contains "--approve maybe: the choices named" "$out" "--approve maybe: expected never, always or ask"
out=$("$BIN" run tool-injection --approve 2>&1)
expect_contains "--approve without a value: said" "$out" "--approve needs one of never, always or ask"
out=$("$BIN" run tool-injection --approve ask </dev/null 2>&1 | cat)
expect_contains "--approve ask without a terminal: said, and what to do" "$out" "use --approve never or always"
out=$("$BIN" matrix --approve ask 2>&1)
expect_contains "matrix --approve ask: refused, saying why" "$out" "--approve ask is one human answer per payment"

# --- the truth table: the approve mode, not the layers -----------------------
for mode in never always; do
	want=$([[ $mode == never ]] && echo CONTAINED || echo ESCAPED)
	"$BIN" --config "$CFG" matrix --tools --approve $mode --snippet tool-injection,tool-chain --json --html "$T/m-$mode.html" >"$T/m-$mode.json"
	expect_eq "matrix --html, --approve $mode: every cell carries the tool door's log (32 cells)" \
		"$(grep -c "tool door log (the lab" "$T/m-$mode.html")" 32
	check "matrix --tools --approve $mode: tool-injection $want in all 16 layer sets, tool-chain RAN OK" $PY - "$T/m-$mode.json" "$want" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
assert len(cells) == 32, len(cells)
for c in cells:
    want = sys.argv[2] if c["snippet"] == "tool-injection" else "RAN OK"
    assert c["expected"] == want and c["verdict"] == want, (c["snippet"], c["layers"], c["verdict"], c["headline"])
PY
done
n=$("$BIN" --config "$CFG" matrix --json --snippet legit | $PY -c 'import json,sys; print(len(json.load(sys.stdin)["cells"]))')
expect_eq "matrix --snippet legit: 16 cells (a subset still works)" "$n" 16

# --- --approve ask at a terminal, answered through tmux --------------------
for answer in y n; do
	tmux_ new-session -d -x 120 -y 40 -s ask "cd '$PWD' && '$BIN' --config '$CFG' run tool-injection --approve ask >'$T/ask-$answer.txt' 2>&1; echo \$? >'$T/ask-$answer.rc'; sleep 600"
	seen=""
	for _ in $(seq 1 600); do
		if tmux_ capture-pane -p -t ask 2>/dev/null | grep -q "approve send_payment(to='attacker', amount=5000)? y/n"; then
			seen=yes
			break
		fi
		sleep 0.2
	done
	expect_eq "--approve ask: the terminal shows the exact call (approve send_payment(to='attacker', amount=5000)? y/n)" "$seen" yes
	tmux_ send-keys -t ask "$answer" Enter
	for _ in $(seq 1 600); do [[ -s $T/ask-$answer.rc ]] && break; sleep 0.2; done
	rc=$(cat "$T/ask-$answer.rc" 2>/dev/null)
	if [[ $answer == y ]]; then
		expect_eq "--approve ask, y: exit 1 (ESCAPED)" "$rc" 1
		expect_contains "--approve ask, y: paid, as the human said" "$(cat "$T/ask-y.txt")" "PAID by the gate (--approve ask: the human said y)"
	else
		expect_eq "--approve ask, n: exit 0 (CONTAINED by the gate)" "$rc" 0
		expect_contains "--approve ask, n: refused, as the human said" "$(cat "$T/ask-n.txt")" "REFUSED by the gate (--approve ask: the human said no)"
	fi
	expect_contains "--approve ask: the human's time is not the run's" "$(cat "$T/ask-$answer.txt")" "the run's clocks stood still meanwhile"
	tmux_ kill-server >/dev/null 2>&1
done

# --- the twin: the tools as an agent's tool definitions, the gate outside --
out=$("$BIN" --config "$CFG" twin --tools 2>&1)
expect_contains "twin --tools: send_payment as a tool definition" "$out" '{"name": "send_payment", "description": "Pay a supplier. Irreversible.",'
expect_contains "twin --tools: the door as docker has it" "$out" "-v /run/agent-tools.sock:/run/tools.sock"
expect_contains "twin --tools: why no layer replaces the gate" "$out" "No flag above replaces the gate."
out=$("$BIN" --config "$CFG" twin --tools --bwrap 2>&1)
expect_contains "twin --tools --bwrap: the door as bwrap has it" "$out" "--bind /run/agent-tools.sock /run/tools.sock"
out=$("$BIN" --config "$CFG" twin 2>&1)
expect_contains "twin without --tools: the twin is printed" "$out" "docker run --rm"
expect_not_contains "twin without --tools: no tool section" "$out" "tool definitions"

# --- --approve ask on the screen: the result pane asks --------------------
answer=screen
scr() { tmux_ capture-pane -p -t gate 2>/dev/null; }
# wait_scr TEXT: up to 120 s (a loaded machine; the gate itself waits 120 s)
wait_scr() {
	local i
	for i in $(seq 1 600); do
		scr | grep -qF -- "$1" && return 0
		sleep 0.2
	done
	return 1
}
# the red team's gate snippets (tests/adversary/gate-*.py) on the screen:
# a folder of the shipped snippets and them
mkdir "$T/snips"
cp -r snippets/. "$T/snips/"
cp tests/adversary/gate-spoof.py tests/adversary/gate-two-in-one.py "$T/snips/"
CFG2=$T/layers-gate.ini
sed "/^\[paths\]/a snippets = $T/snips" "$CFG" >"$CFG2"
tmux_ new-session -d -x 120 -y 40 -s gate "cd '$PWD' && '$BIN' --config '$CFG2' --approve ask; echo EXITED: \$?; sleep 600"
wait_scr "SNIPPETS" || true
# pick NAME: select the snippet NAME on the list
pick() {
	local i
	for i in $(seq 1 24); do tmux_ send-keys -t gate k; done
	for i in $(seq 1 40); do
		scr | grep -qE " $1\.py  " && return 0
		tmux_ send-keys -t gate j
		sleep 0.05
	done
	return 1
}
# its output pushes a look-alike question (acme-widgets, 120) to the end
# of the pane, which follows the output: the real call (mallory, 999999)
# must stay in sight, at the pane's top and in the footer
pick gate-spoof
tmux_ send-keys -t gate Enter
wait_scr "y approve send_payment(to='mallory'" || true
expect_contains "the screen, a look-alike question in the output: the footer names the real call" "$(scr | tail -n 1)" "y approve send_payment(to='mallory', amount=999999)"
expect_contains "the screen, a look-alike question in the output: the real question in the pane" "$(scr)" "THE GATE: approve send_payment(to='mallory', amount=999999)?"
tmux_ send-keys -t gate n
wait_scr "CONTAINED by the gate" || true
expect_contains "the screen, the look-alike refused: CONTAINED, the real call named" "$(scr)" "CONTAINED by the gate: send_payment(to='mallory', amount=999999) refused"
# two payments in one write: the second waited, unserved, for a read
# that never came (the run hung to the wall clock); refused then paid,
# the verdict named the refused one
pick gate-two-in-one
tmux_ send-keys -t gate Enter
wait_scr "THE GATE: approve send_payment(to='acme-widgets', amount=120)?" || true
tmux_ send-keys -t gate n
if wait_scr "THE GATE: approve send_payment(to='mallory', amount=999999)?"; then seen=yes; else seen=no; fi
expect_eq "the screen, two payments in one write: the second is asked after the first's answer" "$seen" yes
tmux_ send-keys -t gate y
wait_scr "The payment went out" || true
expect_contains "the screen, the second paid: ESCAPED names the payment that went out" "$(scr)" "The payment went out: irreversible (send_payment(to='mallory', amount=999999))"
# a human who takes 14 s: the lab's own sampling in the sandbox spent
# the snippet's RLIMIT_CPU meanwhile, and the run was killed after ~10 s
pick tool-injection
tmux_ send-keys -t gate Enter
wait_scr "THE GATE: approve send_payment(to='attacker', amount=5000)?" || true
sleep 14
tmux_ send-keys -t gate y
wait_scr "The payment went out" || true
expect_contains "the screen, a human who takes 14 s: the answer still counts (ESCAPED, paid)" "$(scr)" "PAID by the gate (--approve ask: the"
expect_not_contains "the screen, a human who takes 14 s: no kill blamed on a limit" "$(scr)" "killed by"
for answer_key in n y; do
	tmux_ send-keys -t gate Enter
	if wait_scr "THE GATE: approve send_payment(to='attacker', amount=5000)?"; then seen=yes; else seen=no; fi
	expect_eq "the screen, --approve ask: the result pane asks about the exact call" "$seen" yes
	expect_contains "the screen, --approve ask: the footer names the call and the answers" "$(scr | tail -n 1)" "y approve send_payment(to='attacker', amount=5000)  n refuse"
	tmux_ send-keys -t gate "$answer_key"
	if [[ $answer_key == n ]]; then
		wait_scr "CONTAINED by the gate" || true
		expect_contains "the screen, n: CONTAINED by the gate" "$(scr)" "CONTAINED by the gate: send_payment(to='attacker', amount=5000) refused"
		expect_contains "the screen, n: refused as the human said" "$(scr)" "REFUSED by the gate (--approve ask: the"
		expect_contains "the screen, n: the answer, not No-network's mode (still none)" "$(scr)" "[n] net: none"
	else
		wait_scr "The payment went out" || true
		expect_contains "the screen, y: ESCAPED, the payment went out" "$(scr)" "The payment went out: irreversible"
		expect_contains "the screen, y: paid as the human said" "$(scr)" "PAID by the gate (--approve ask: the"
	fi
done
# keys typed before the question approve nothing (the red team's "fast
# keys"): y y y with Enter, then the question, then n
tmux_ send-keys -t gate Enter y y y y y
if wait_scr "THE GATE: approve send_payment(to='attacker', amount=5000)?"; then seen=yes; else seen=no; fi
expect_eq "the screen, y typed before the question: the question is still asked" "$seen" yes
tmux_ send-keys -t gate n y y
wait_scr "CONTAINED by the gate" || true
expect_contains "the screen, y before the question and after the n: refused, nothing paid" "$(scr)" "CONTAINED by the gate: send_payment(to='attacker', amount=5000) refused, no payment made"
# a while the gate waits: the run is aborted, no payment goes out
tmux_ send-keys -t gate Enter
wait_scr "THE GATE: approve send_payment(to='attacker', amount=5000)?" || true
tmux_ send-keys -t gate a
wait_scr "Aborted: the run was stopped" || true
expect_contains "the screen, a while the gate waits: ERROR, aborted" "$(scr)" "Aborted: the run was stopped and cleaned up"
expect_not_contains "the screen, a while the gate waits: nothing paid" "$(scr)" "The payment went out"
# d on a tool snippet: the twin has its tool definitions
tmux_ send-keys -t gate d
tmux_ send-keys -t gate G
wait_scr "the shape of the Messages API" || true
expect_contains "the screen, d on tool-injection: the tools as tool definitions" "$(scr)" "The lab's tools, as tool definitions"
tmux_ send-keys -t gate d
# the screen's matrix cannot ask one human per cell: its gates refuse,
# and the cell says why (the cursor starts on the selected row)
tmux_ send-keys -t gate m
wait_scr "as expected" || true
wait_scr "nobody can be asked" || true
expect_contains "the screen's matrix, --approve ask: tool-injection refused, nobody to ask" "$(scr)" "REFUSED by the gate (--approve ask, and nobody can be asked"
tmux_ send-keys -t gate m
tmux_ send-keys -t gate q
wait_scr "EXITED: 0" || true
expect_contains "the screen, --approve ask: q quits, exit 0" "$(scr)" "EXITED: 0"
tmux_ kill-server >/dev/null 2>&1

# --- as uid 65534, from a staged world-readable copy -----------------------
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
	mkdir "$T/lab"
	cp "$BIN" "$T/lab/containment-lab"
	cp -r snippets "$T/lab/"
	cp "$CFG" "$T/lab/layers.ini"
	chmod -R a+rX "$T/lab"
	nobody() { (cd "$T/lab" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u XDG_CONFIG_HOME HOME=/nonexistent ./containment-lab --config layers.ini "$@"); }
	check_runs "uid 65534" nobody
	if command -v runsc >/dev/null; then
		check_runs "uid 65534, gvisor rung" nobody --rung gvisor
	else
		skip "uid 65534, gvisor rung: the tool door through runsc" "runsc is not installed (see the README's ladder)"
	fi
else
	skip "the runs as uid 65534" "needs root and setpriv"
fi

# --- the upper rungs: gvisor's door is a socket runsc's gofer reaches ---------
if command -v runsc >/dev/null; then
	check_runs "root, gvisor rung" "$BIN" --config "$CFG" --rung gvisor
	out=$("$BIN" --config "$CFG" --rung gvisor run tool-chain 2>&1)
	expect_contains "gvisor rung: the mechanisms name the door runsc was given" "$out" \
		"tool door: a socket of the lab's bound in at /run/lab-tools.sock (runsc --host-uds=open)"
	"$BIN" --config "$CFG" --rung gvisor matrix --tools --approve never --snippet tool-injection,tool-chain --json >"$T/gv.json"
	check "gvisor rung, matrix --tools: tool-injection CONTAINED by the gate in all 16 sets, tool-chain RAN OK" \
		$PY - "$T/gv.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [(c["snippet"], c["layers"], c["verdict"]) for c in d["cells"] if c["verdict"] != c["expected"]]
assert len(d["cells"]) == 32 and not bad, bad
PY
else
	skip "gvisor rung: the tool door through runsc" "runsc is not installed (see the README's ladder)"
fi
out=$("$BIN" --config "$CFG" --rung microvm run tool-chain 2>&1)
expect_eq "microvm rung: a tool snippet is not tried there: exit 4 (ERROR)" "$?" 4
expect_contains "microvm rung: ... saying why and where it runs" "$out" "run tool-chain on the in-process, container or gvisor rung"

expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
