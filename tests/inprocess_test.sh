#!/usr/bin/env bash
# tests/inprocess_test.sh [BINARY] — the rung below the container (issue 22
# item 1, the lesson's exercise 2): the snippet exec()'d inside the lab's
# app server, where no layer can apply. The matrix on this rung against its
# own truth table (every attack ESCAPED in all 16 layer sets, legit RAN OK)
# as root and as uid 65534; what the app holds reaching the snippet; the
# screen's r, n/a toggles and why line at 80x24; nothing left behind.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
PY=${PY:-/usr/bin/python3}

# check_matrix NAME JSON: every cell as the truth table restated here
check_matrix() {
	local summary total good
	summary=$($PY - "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = d["cells"]
legit = {"legit", "legit-api"}
bad = []
for c in cells:
    want = "RAN OK" if c["snippet"] in legit else "ESCAPED"
    if c["expected"] != want or c["verdict"] != want or d.get("rung") != "in-process":
        bad.append(c)
print(len(cells), len(cells) - len(bad))
for c in bad[:8]:
    print("#", c["snippet"], c["layers"], "expected", c["expected"], "got", c["verdict"], d.get("rung"), c["headline"][:120])
PY
)
	read -r total good <<<"$(head -1 <<<"$summary")"
	if [[ $total == 128 && $good == 128 ]]; then
		ok "$1: 128/128 cells as the in-process truth table says (attacks ESCAPED, legit RAN OK)"
	else
		not_ok "$1: $good/$total cells as the in-process truth table says" "$(tail -n +2 <<<"$summary")"
	fi
}

before=$(leftovers_snapshot)
T=$(mktemp -d /tmp/cl-inproc.XXXXXX)
chmod 755 "$T"
SOCK=clinproc-$$
tmux_() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	tmux_ kill-server >/dev/null 2>&1
	rm -rf "$T"
	suite_cleanup
}
trap cleanup EXIT

# --- one run: the app server, its decoys, and why no layer applied -------
j=$("$BIN" --config layers.ini run secret-theft --on all --rung in-process --json)
rc=$?
expect_eq "run secret-theft --on all --rung in-process: exit 1 (ESCAPED)" "$rc" 1
field() { $PY -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$j"; }
expect_eq "the result names the rung in-process" "$(field 'd["rung"]')" "in-process"
expect_contains "the mechanisms line says why no layer applied" "$(field 'd["mechanisms"]')" \
	"in-process: no layer (toggles I N E L n/a): exec() runs the snippet in the app server's own process"
expect_contains "the first evidence line says it ran inside the app server" "$(field 'd["evidence"][0]')" \
	"in-process: the snippet ran by exec() inside the lab's app server"
expect_contains "the secrets the app holds came out" "$(field 'd["headline"]')" "planted secrets came out"

out=$("$BIN" --config layers.ini run legit --on all --rung in-process)
rc=$?
expect_eq "legit on the in-process rung: exit 0 (RAN OK)" "$rc" 0
expect_contains "legit: the app server ended with the snippet, exit 0" "$out" "the app server ended with the snippet (exit status 0)"
expect_contains "legit: the app's token was not seen (this snippet did not look)" "$out" "session token (a module global only) was not seen"

# a snippet that reads what exec() handed it: the app's own globals
cat >"$T/globals.py" <<'EOF'
# lab:title: Reads the app's globals
# lab:threat: legit
# lab:layer: none
# lab:expect: customers:
print("customers:", len(CUSTOMERS))
print("api client:", API.host, API.port)
print("session:", SESSION_TOKEN)
EOF
cp snippets/sales.csv "$T/" 2>/dev/null
out=$("$BIN" --config layers.ini run "$T/globals.py" --rung in-process)
rc=$?
expect_eq "a legit-looking snippet that prints the app's session token: exit 1 (ESCAPED)" "$rc" 1
expect_contains "the token is found in the output, a module global only" "$out" \
	"the app's session token, a module global only (the app popped it from its environment), came out in the output"
expect_contains "exec() handed it the app's loaded CSV" "$out" "| customers: 4"
expect_contains "and the app's client for api.lab.test" "$out" "| api client: 127.0.0.1"
out=$("$BIN" --config layers.ini run "$T/globals.py" --rung container 2>&1)
expect_contains "on the container rung the same code has no app to read (NameError)" "$out" "NameError"

out=$("$BIN" --config layers.ini exec --rung in-process -- /bin/true 2>&1)
rc=$?
expect_eq "exec refuses the in-process rung: exit 2" "$rc" 2
expect_contains "exec says why and what to use" "$out" "use --rung container, gvisor or microvm"

out=$("$BIN" --config layers.ini --rung in-process twin)
expect_contains "the twin says there is no flag for exec()" "$out" "the in-process rung has no docker twin"

# --- the matrix on this rung, as root and as uid 65534 ----------------------
"$BIN" --config layers.ini matrix --rung in-process --json >"$T/root.json"
check_matrix "matrix --rung in-process as $(id -un)" "$T/root.json"
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
	mkdir "$T/lab"
	cp "$BIN" "$T/lab/containment-lab"
	cp -r snippets layers.ini "$T/lab/"
	chmod -R a+rX "$T"
	(cd "$T/lab" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u XDG_CONFIG_HOME HOME=/nonexistent ./containment-lab matrix --rung in-process --json >"$T/nobody.json")
	check_matrix "matrix --rung in-process as uid 65534" "$T/nobody.json"
	out=$(cd "$T/lab" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME=/nonexistent ./containment-lab run host-takeover --rung in-process)
	expect_contains "uid 65534: the takeover's consequence is the lab's uid's, not root's" "$out" \
		"consequence: A cron entry of uid 65534's now sits in the host's folder"
	expect_not_contains "uid 65534: no root cron job is claimed" "$out" "A root cron job"
else
	skip "matrix --rung in-process as uid 65534" "needs root and setpriv"
fi

# --- the screen at 80x24: r to in-process, n/a, the why line ---------------
if command -v tmux >/dev/null; then
	tmux_ new-session -d -s ip -x 80 -y 24 -c "$PWD" "bash -c '$BIN; echo EXITED:\$?; exec sleep 600'"
	screen() { tmux_ capture-pane -p -t ip 2>/dev/null; }
	wait_for() { # TEXT SECONDS
		local deadline=$((SECONDS + $2))
		while [[ $SECONDS -le $deadline ]]; do
			screen | grep -qF -- "$1" && return 0
			sleep 0.1
		done
		return 1
	}
	wait_for "SNIPPETS" 10
	# the ladder from the container: gvisor, microvm, then in-process
	tmux_ send-keys -t ip r r r
	if wait_for "[1] Isolation n/a" 5; then ok "80x24: r to in-process shows the toggles as n/a"; else not_ok "80x24: r to in-process shows the toggles as n/a" "$(screen)"; fi
	expect_contains "80x24: the box says there is no sandbox" "$(screen)" "NO SANDBOX  exec() in the app: layers n/a"
	for i in 1 2 3 4 5 6 7 8 9 10; do tmux_ send-keys -t ip k; done
	for i in $(seq 1 12); do
		screen | grep -qE " secret-theft\.py  " && break
		tmux_ send-keys -t ip j
		sleep 0.05
	done
	tmux_ send-keys -t ip Enter
	if wait_for "SANDBOX BREACHED" 40; then ok "80x24: secret-theft in-process ESCAPES with every toggle on"; else not_ok "80x24: secret-theft in-process ESCAPES with every toggle on" "$(screen)"; fi
	screen >"$T/screen.txt"
	expect_contains "80x24: the why line says no layer has a boundary to apply at" "$(cat "$T/screen.txt")" \
		"why: in-process, exec() runs the snippet inside the"
	tmux_ send-keys -t ip r
	if wait_for "[1] Isolation ON" 5; then ok "80x24: r again climbs back to the container rung"; else not_ok "80x24: r again climbs back to the container rung" "$(screen)"; fi
	tmux_ send-keys -t ip q
	wait_for "EXITED:0" 15 || not_ok "the screen quits" "$(screen)"
	[[ -n ${CAPTURE_DIR:-} ]] && cp "$T/screen.txt" "$CAPTURE_DIR/inprocess-secret-theft-80x24.txt"
else
	skip "the screen at 80x24" "tmux is not installed"
fi

tmux_ kill-server >/dev/null 2>&1
sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
