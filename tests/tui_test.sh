#!/usr/bin/env bash
# tests/tui_test.sh — drives the lab screen in a private tmux server, the way
# tmux tests itself: a detached session of a fixed size, send-keys, and
# capture-pane, polling each expectation against a deadline.
#
#   tests/tui_test.sh [--asan] [--card-only] [--quick] [BINARY]   (from the repo root; default ./containment-lab)
#
# --asan: the binary is a sanitizer build: longer deadlines, and any
# AddressSanitizer/UBSan report on its stderr fails the run; the audit card
# is aborted after its first verdicts there.
# --card-only: the parts the --asan run leaves out, for the release binary
# (the suite runs both): start-up, then the audit card run to its end, and
# stop; the screen's matrix and the rest run once, under the sanitizers.
# --quick: `make check`'s tier: everything but the screen's matrix (two
# runs of its 128 cells, most of the time this script takes); `make test`
# runs it whole.
# Prints "ok - NAME" / "not ok - NAME" per check (tests/lib.sh), then
# "N passed, N failed, N skipped";
# exits 1 if anything failed.
set -u

ASAN=0
CARD_ONLY=0
QUICK=0
while [ $# -gt 0 ]; do
	case $1 in
	--asan) ASAN=1 ;;
	--card-only) CARD_ONLY=1 ;;
	--quick) QUICK=1 ;;
	*) break ;;
	esac
	shift
done
BIN=${1:-./containment-lab}
case $BIN in
/*) ;;
*) BIN=$PWD/$BIN ;;
esac

source "$(dirname "$0")/lib.sh"
ERR_SHOWN=
ERRLOG=/dev/null
SCALE=1
[ "$ASAN" = 1 ] && SCALE=4

# tui_not_ok NAME [SESSION]: lib.sh's not_ok, plus the session's screen and
# (once) the lab's stderr so far
tui_not_ok() {
	not_ok "$1"
	if [ -n "${2:-}" ]; then
		echo "# screen of session $2:"
		tmux_ capture-pane -p -t "$2" 2>/dev/null | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' | sed 's/^/#   /'
	fi
	if [ -s "$ERRLOG" ] && [ -z "$ERR_SHOWN" ]; then
		ERR_SHOWN=1
		echo "# the lab's stderr so far:"
		tail -n 40 "$ERRLOG" | sed 's/^/#   /'
	fi
}
check_on() { # NAME SESSION COMMAND...
	local name=$1 s=$2
	shift 2
	if "$@"; then ok "$name"; else tui_not_ok "$name" "$s"; fi
}

if [ ! -x "$BIN" ]; then
	tui_not_ok "binary $BIN exists (run make first)"
	finish
	exit
fi
if ! command -v tmux >/dev/null; then
	tui_not_ok "tmux is installed (apt-get install tmux)"
	finish
	exit
fi

SOCK=cltest-$$
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cltest.XXXXXX")
ERRLOG=$TMP/stderr.log
: >"$ERRLOG"
# the user's own snippets (e) go here, never into a real home; set before
# the tmux server starts, so every session has it
export XDG_DATA_HOME=$TMP/xdg
tmux_() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	local sock
	sock=$(tmux_ display -p '#{socket_path}' 2>/dev/null)
	tmux_ kill-server >/dev/null 2>&1
	[ -n "$sock" ] && rm -f "$sock"
	rm -rf "$TMP"
	suite_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# start SESSION COMMAND [WIDTH HEIGHT] — COMMAND runs under bash; when it ends
# the pane shows EXITED:<status> and stays open so it can be inspected.
start() {
	local s=$1 cmd=$2 w=${3:-100} h=${4:-30}
	tmux_ new-session -d -s "$s" -x "$w" -y "$h" -c "$PWD" \
		"bash -c '$cmd 2>>$ERRLOG; echo EXITED:\$?; stty -a | tr \" ;\" \"\\n\\n\" | grep -x -e echo -e icanon | tr \"\\n\" , | sed s/^/TTY:/; echo; exec sleep 600'"
}
screen() { tmux_ capture-pane -p -t "$1" 2>/dev/null; }
has() { screen "$1" | grep -qF -- "$2"; }
lacks() { ! has "$1" "$2"; }
# wait_for SESSION TEXT [SECONDS]: poll until the screen shows TEXT.
wait_for() {
	local s=$1 text=$2 secs=${3:-10}
	local deadline=$((SECONDS + secs * SCALE))
	local scr
	while [ "$SECONDS" -le "$deadline" ]; do
		scr=$(screen "$s")
		grep -qF -- "$text" <<<"$scr" && return 0
		# the lab is gone: no point in waiting for it
		case $text in EXITED* | TTY*) ;; *) grep -q '^EXITED:' <<<"$scr" && return 1 ;; esac
		sleep 0.1
	done
	return 1
}
wait_gone() {
	local s=$1 text=$2 secs=${3:-10}
	local deadline=$((SECONDS + secs * SCALE))
	while [ "$SECONDS" -le "$deadline" ]; do
		lacks "$s" "$text" && return 0
		sleep 0.1
	done
	return 1
}
keys() {
	local s=$1
	shift
	tmux_ send-keys -t "$s" "$@"
}
# select_snippet SESSION NAME: the box's header shows "NAME.py  TITLE" once
# selected (matched without the border, which is ACS letters in a C locale).
select_snippet() {
	local s=$1 name=$2 i
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do keys "$s" k; done
	for i in $(seq 1 40); do
		screen "$s" | grep -qE " $name\.py  " && return 0
		keys "$s" j
		sleep 0.05
	done
	return 1
}
all_of() { # SESSION TEXT...
	local s=$1 t
	shift
	for t in "$@"; do has "$s" "$t" || { echo "# missing: $t"; return 1; }; done
}

SNIPPETS=(legit resource-bomb secret-theft exfiltration host-takeover)
LAYERS=(Isolation No-network Clean-env Resource-limits)

# --- start-up -------------------------------------------------------------
start main "$BIN"
if wait_for main "SNIPPETS" 10; then ok "start-up draws the lab screen"; else tui_not_ok "start-up draws the lab screen" main; fi
check_on "start-up lists the five snippets" main all_of main "${SNIPPETS[@]}"
check_on "start-up shows the four layer toggles" main \
	all_of main "[1] Isolation ON" "[2] No-network ON" "[3] Clean-env ON" "[4] Resource-limits ON"

# --- exfiltration with No-network off: ESCAPED and its consequence -------
cons=$(sed -n 's/^# lab:consequence: *//p' snippets/exfiltration.py | head -n1)
read -r w1 w2 w3 _ <<<"$cons"
select_snippet main exfiltration
keys main 2
if wait_for main "No-network OFF" 5; then ok "key 2 switches No-network off"; else tui_not_ok "key 2 switches No-network off" main; fi
keys main Enter
if wait_for main "ESCAPED" 20; then ok "exfiltration without No-network: ESCAPED"; else tui_not_ok "exfiltration without No-network: ESCAPED" main; fi
check_on "the escape spells out the consequence" main has main "CONSEQUENCE: $w1 $w2 $w3"
check_on "the escaped sandbox is drawn breached" main has main "SANDBOX BREACHED"

# --- and with it back on: CONTAINED, by No-network, unreachable ----------
keys main 2
wait_for main "No-network ON" 5
keys main Enter
if wait_for main "caught by No-network" 20; then ok "exfiltration with No-network: CONTAINED, caught by No-network"; else tui_not_ok "exfiltration with No-network: CONTAINED, caught by No-network" main; fi
check_on "the contained result shows CONTAINED" main has main "CONTAINED"
check_on "the evidence says Network is unreachable" main has main "Network is unreachable"
check_on "the closed sandbox is drawn closed" main has main "SANDBOX CLOSED"

# --- n: No-network's allowlist; a result names its mode in the box's title,
# which fits at 80 columns where the [n] label beside the toggles does not --
keys main n
check_on "n: the screen says No-network's mode is now allowlist" main wait_for main "No-network's mode: allowlist" 5
check_on "n: the shown result (mode none) is marked as the last run's" main has main "SANDBOX CLOSED  last run: I N E L "
keys main Enter
if wait_for main "egress proxy refused attacker.lab.test" 20; then ok "exfiltration under the allow-list: the proxy's refusal is the headline"; else tui_not_ok "exfiltration under the allow-list: the proxy's refusal is the headline" main; fi
check_on "the result's box says which mode it ran with" main has main "SANDBOX CLOSED  layers I N E L [net: allowlist]"
keys main n
check_on "n again: the shown result is marked as the last run's, with its mode" main \
	wait_for main "SANDBOX CLOSED  last run: I N E L [net: allowlist]" 5

# --- a mouse click on a toggle (xterm X10 report: press, release) ---------
# [3] Clean-env sits at column 38 of row 1 (0-based); X10 adds 33 to each.
keys main -l $'\e[M G"'
keys main -l $'\e[M#G"'
if wait_for main "Clean-env OFF" 5; then ok "a mouse click switches a toggle"; else tui_not_ok "a mouse click switches a toggle" main; fi
keys main 3
wait_for main "Clean-env ON" 5

# --- help overlay: every key of the table ---------------------------------
keys main '?'
if wait_for main "HELP" 5; then ok "? opens the help"; else tui_not_ok "? opens the help" main; fi
# the help scrolls (it is longer than the screen): its top, then its end
help_text=$(screen main)
keys main G
sleep 0.3
help_text="$help_text
$(screen main)"
help_has() { local t; for t in "$@"; do grep -qF -- "$t" <<<"$help_text" || { echo "# missing: $t"; return 1; }; done; }
check_on "the help lists every key (scrolled)" main help_has "Up/Down j/k" "Left/Right h/l" "1-4" "Enter" \
	"m  " "d  " "docker twin" "a  " "PgUp/PgDn" "Home/End" "click" "?  " "Esc" "Ctrl-L" "q  " "abort" "quit" \
	"Tab" "z  " "zoom the focused pane" "p  " "predict mode" "c/e o/f" "e  " "your own attack" "> <" \
	"Cells: + CONTAINED" "[4] Resource-limits"
keys main Escape
if wait_gone main "HELP:" 5; then ok "Esc closes the help"; else tui_not_ok "Esc closes the help" main; fi

# --- 80x24 and below -------------------------------------------------------
tmux_ resize-window -t main -x 80 -y 24
sleep 0.3
if wait_for main "Resource-limits ON" 5 && all_of main "${SNIPPETS[@]}" "${LAYERS[@]}"; then
	ok "at 80x24 the layers and snippets are drawn"
else
	tui_not_ok "at 80x24 the layers and snippets are drawn" main
fi
check_on "at 80x24 the result is still there" main has main "CONTAINED"
# d: the docker twin of the toggles, over the screen
keys main d
if wait_for main "DOCKER TWIN" 5; then ok "d opens the docker twin at 80x24"; else tui_not_ok "d opens the docker twin at 80x24" main; fi
check_on "the twin at 80x24: the command, No-network's and Isolation's flags" main all_of main "docker run --rm -i" \
	"--network none" "--cap-drop ALL" "--read-only" "Esc/q/d closes"
keys main b
check_on "b in the twin: the bwrap one" main wait_for main "BWRAP TWIN" 5
keys main d
if wait_gone main "TWIN" 5; then ok "d closes the twin"; else tui_not_ok "d closes the twin" main; fi
keys main 2
wait_for main "No-network OFF" 5
keys main d
check_on "No-network off: the twin has no --network none" main wait_for main "DOCKER TWIN" 5
check_on "No-network off: the twin has no --network none (checked)" main lacks main "--network none"
keys main q
if wait_gone main "TWIN" 5; then ok "q closes the twin (and does not quit)"; else tui_not_ok "q closes the twin (and does not quit)" main; fi
keys main 2
wait_for main "No-network ON" 5
tmux_ resize-window -t main -x 70 -y 20
if wait_for main "terminal too small: need at least 80x24" 5; then ok "below 80x24 it says the terminal is too small"; else tui_not_ok "below 80x24 it says the terminal is too small" main; fi
tmux_ resize-window -t main -x 100 -y 30
if wait_for main "[4] Resource-limits ON" 5; then ok "growing back redraws the lab"; else tui_not_ok "growing back redraws the lab" main; fi

# --- a: an audit preset's card beside the lab's own layers -----------------
# Clean-env off: the lab's column lets the secrets out, the lab preset
# (exec --on all) holds them; each column is a real audit of its own
keys main 3
wait_for main "Clean-env OFF" 5
keys main a
check_on "a (idle) opens the audit card, the lesson-like preset first" main wait_for main "AUDIT bwrap beside the lab (I N - L)" 5
check_on "the card lists the threats people ask about" main all_of main "dns-exfil" "persist-hooks" "daemon" "agent-socket"
keys main Left
check_on "Left: the previous preset, wrapping to the lab's own" main wait_for main "AUDIT lab beside the lab (I N - L)" 5
keys main Enter
if [ "$ASAN" = 1 ]; then
	# under the sanitizer: the first verdicts, then a abort the rest
	check_on "Enter runs the card: the legit task RAN OK in both columns" main wait_for main "RAN OK           RAN OK" 60
	keys main a
	check_on "a while the card runs: aborting, then closable" main wait_for main "Esc closes" 60
else
	# the preset's column finishes last (each snippet's two runs go in turn)
	check_on "Enter runs the card: every row of both columns, the preset's: nothing missing" main \
		wait_for main "preset lab missing: none: no attack got out" 240
	check_on "the lab's column without Clean-env: Clean-env missing" main has main "layers I N - L missing: Clean-env missing"
	check_on "the lab's column without Clean-env: secret-theft ESCAPED, the preset's CONTAINED" main \
		has main "secret-theft    ESCAPED          CONTAINED"
	keys main j j
	check_on "j: the selected row's headlines below" main wait_for main "planted secrets came out through the wrapper" 5
fi
keys main Escape
if wait_gone main "AUDIT " 5; then ok "Esc closes the audit card"; else tui_not_ok "Esc closes the audit card" main; fi
if [ "$CARD_ONLY" = 1 ]; then
	keys main q
	wait_for main "EXITED:0" 15 && ok "main session quits" || tui_not_ok "main session quits" main
	finish
	exit
fi
keys main 3
wait_for main "Clean-env ON" 5

# --- the matrix --------------------------------------------------------------
if [ "$QUICK" = 1 ]; then
	skip "the screen's matrix" "make check's quick tier (make test runs it)"
else
n=$("$BIN" list 2>/dev/null | grep -c .)
total=$((n * 16))
keys main m
if wait_for main "MATRIX" 5; then ok "m opens the matrix"; else tui_not_ok "m opens the matrix" main; fi
# the deadlines below are generous on purpose: a loaded 2-core machine
# takes minutes for 128 cells, and the test is about what the cells say
if wait_for main "$total/$total as expected" 900; then
	ok "the matrix completes with $total/$total as expected"
else
	tui_not_ok "the matrix completes with $total/$total as expected" main
fi
check_on "the matrix legend: + CONTAINED, X ESCAPED, . RAN OK" main has main "X ESCAPED"
check_on "the matrix cells: host-takeover contained with all on (+)" main has main "host-takeover     +"
# predict mode in the matrix: the student predicts the selected row
# (exfiltration) first; "contained" everywhere is right exactly in the 8
# columns where No-network is on
keys main p
check_on "predict, matrix: p asks for the row" main wait_for main "PREDICT exfiltration: c/e (legit o/f) per cell, 16 to go" 5
keys main Home
for i in $(seq 1 16); do keys main c; done
check_on "predict, matrix: the row predicted, Enter runs it" main wait_for main "row exfiltration predicted: Enter runs it" 5
check_on "predict, matrix: the row's earlier verdicts are hidden until it runs again" main \
	has main "exfiltration      c  c  c  c  c  c  c  c  c  c  c  c  c  c  c  c"
keys main Enter
# the old run's "as expected" is on screen until the new run has begun:
# wait for the row's first scored cell (only a run after the guesses
# scores), then for the end
wait_for main "your row exfiltration:" 900
if wait_for main "$total/$total as expected" 900; then ok "predict, matrix: the matrix runs again, as expected"; else tui_not_ok "predict, matrix: the matrix runs again, as expected" main; fi
check_on "predict, matrix: the row is scored from the new run's verdicts (8/16)" main has main "your row exfiltration: 8/16 right"
keys main p
keys main m
check_on "m goes back to the lab" main wait_for main "SNIPPETS" 5
fi

# --- q quits and gives the terminal back -------------------------------------
keys main q
if wait_for main "EXITED:0" 15; then ok "q quits with status 0"; else tui_not_ok "q quits with status 0" main; fi
check_on "after q the lab screen is gone" main lacks main "SNIPPETS"
check_on "after q the terminal is back in cooked mode (echo, icanon)" main wait_for main "TTY:icanon,echo," 5

# --- a snippet that prints escape sequences and floods ----------------------
mkdir -p "$TMP/snips"
cat >"$TMP/snips/evil.py" <<'EOF'
# lab:title: Prints terminal escape sequences
# lab:threat: legit
# lab:layer: none
# lab:expect: flood line 4999
import sys
EVIL = "\x1b[2J\x1b]0;pwned\x07\x1b[31mRED\x1b[?1049l\x1b[H\x9b2J\n"
sys.stdout.write(EVIL)
for i in range(5000):
    sys.stdout.write("flood line %d \x1b[5m\r\n" % i)
sys.stdout.write(EVIL)
EOF
cp snippets/sales.csv "$TMP/snips/" 2>/dev/null
sed -n '/^\[paths\]/q;p' layers.ini >"$TMP/layers.ini" 2>/dev/null
printf '[paths]\nsnippets = %s\npython = /usr/bin/python3\n' "$TMP/snips" >>"$TMP/layers.ini"
start evil "$BIN --config $TMP/layers.ini"
wait_for evil "evil" 10
keys evil 4     # Resource-limits off: the whole flood is kept (safety net cap)
wait_for evil "Resource-limits OFF" 5
keys evil Enter
wait_for evil "RAN OK" 20
keys evil Tab Tab G # the result pane, its end: the output's last lines
if wait_for evil "| flood line 4999 ^[[5m^M" 20; then ok "a flooding snippet's last lines are shown"; else tui_not_ok "a flooding snippet's last lines are shown" evil; fi
check_on "escape sequences are shown inert as ^[" evil has evil "| ^[[2J^[]0;pwned^G^[[31mRED^[[?1049l^[[H"
check_on "the title line survives the escape sequences" evil has evil "containment-lab $("$BIN" --version | awk '{print $2}')"
check_on "the toggles survive the escape sequences" evil has evil "[1] Isolation ON"
title=$(tmux_ display -p -t evil '#{pane_title}')
if [ "$title" != pwned ]; then ok "the snippet could not set the window title"; else tui_not_ok "the snippet could not set the window title" evil; fi
keys evil q
wait_for evil "EXITED:0" 15 || tui_not_ok "evil session quits" evil

# --- Ctrl-C during a run: terminal restored, no sandbox left ---------------
# every process below PID (the lab's workers, sandboxes, snippets)
descendants() {
	ps -eo pid=,ppid= | awk -v r="$1" '{ p[$1] = $2 }
		END { for (k in p) { x = k; n = 0
			while ((x in p) && x != r && x > 1 && n++ < 64) x = p[x]
			if (x == r && k != r) print k } }'
}
start sigint "$BIN"
wait_for sigint "SNIPPETS" 10
select_snippet sigint resource-bomb
keys sigint 4       # limits off: the bomb runs longest
keys sigint Enter
wait_for sigint "RUNNING" 5
sleep 0.3
shell=$(tmux_ display -p -t sigint '#{pane_pid}')
tree=$(descendants "$shell" | tr '\n' ' ')
keys sigint C-c
if wait_for sigint "EXITED:130" 15; then ok "Ctrl-C during a run quits (status 130)"; else tui_not_ok "Ctrl-C during a run quits (status 130)" sigint; fi
check_on "after Ctrl-C the terminal is back in cooked mode" sigint wait_for sigint "TTY:icanon,echo," 5
left=""
for pid in $tree; do
	# the pane's own stty/sleep are not the lab's
	[ -d "/proc/$pid" ] || continue
	case $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) in
	"sleep 600"* | "stty"* | "tr "* | "grep"* | "sed"*) continue ;;
	esac
	left="$left $pid"
done
if [ -n "$tree" ] && [ -z "$left" ]; then
	ok "after Ctrl-C no process of the run is left"
else
	tui_not_ok "after Ctrl-C no process of the run is left (tree: ${tree:-none}; left:${left:- none})"
fi

# --- NO_COLOR: monochrome, verdicts still readable --------------------------
start mono "NO_COLOR=1 $BIN"
wait_for mono "SNIPPETS" 10
select_snippet mono exfiltration
keys mono Enter
if wait_for mono "CONTAINED" 20; then ok "NO_COLOR=1 still shows the verdict word"; else tui_not_ok "NO_COLOR=1 still shows the verdict word" mono; fi
if tmux_ capture-pane -e -p -t mono | grep -qE $'\e\\[(3[0-7]|9[0-7]|38;)'; then
	tui_not_ok "NO_COLOR=1 draws no colour" mono
else
	ok "NO_COLOR=1 draws no colour"
fi
keys mono q
wait_for mono "EXITED:0" 15 || tui_not_ok "mono session quits" mono

# --- a terminal that is not UTF-8 (issue 7.14) ----------------------------
# LC_ALL=C: the headline's em dash is drawn as "--", not as '???'.
start ascii "LC_ALL=C $BIN"
wait_for ascii "SNIPPETS" 10
select_snippet ascii exfiltration
keys ascii Enter
if wait_for ascii "Network is unreachable" 20; then ok "LC_ALL=C: the run's result is drawn"; else tui_not_ok "LC_ALL=C: the run's result is drawn" ascii; fi
check_on "LC_ALL=C: the headline's em dash is drawn as --" ascii has ascii "Network is unreachable -- the sandbox"
check_on "LC_ALL=C: no '???' where a dash belongs" ascii lacks ascii "???"
keys ascii q
wait_for ascii "EXITED:0" 15 || tui_not_ok "LC_ALL=C session quits" ascii

# --- not a terminal ----------------------------------------------------------
out=$("$BIN" </dev/null 2>&1 >/dev/null)
rc=$?
if [ "$rc" -eq 2 ] && [[ $out == *"needs a terminal"* ]]; then ok "without a terminal it says so and exits 2"; else tui_not_ok "without a terminal it says so and exits 2 (got $rc: $out)"; fi

# --- issue 9: readable panes at 80x24 --------------------------------------
# pane_text SESSION: every row of the zoomed, focused pane from its top to
# its end, read row by row (j) until the position indicator says the end,
# borders stripped, whitespace collapsed: what a reader can reach.
pane_text() {
	local s=$1 i k scr pos prev last total
	keys "$s" g
	sleep 0.3
	scr=$(screen "$s")
	# an 80x24 screen: line 4 is the zoomed pane's header (its position,
	# "12-29/84"), lines 5-22 its rows
	pane_rows 5 22 <<<"$scr" >"$TMP/pane.txt"
	for i in $(seq 1 300); do
		pos=$(sed -n 4p <<<"$scr" | grep -oE '[0-9]+-[0-9]+/[0-9]+' | tail -n1)
		last=${pos#*-}
		last=${last%/*}
		total=${pos#*/}
		[ -z "$pos" ] || [ "$last" -ge "$total" ] && break
		prev=$pos
		keys "$s" j
		for k in $(seq 1 40); do # until the view has moved one row
			scr=$(screen "$s")
			[ "$(sed -n 4p <<<"$scr" | grep -oE '[0-9]+-[0-9]+/[0-9]+' | tail -n1)" != "$prev" ] && break
			sleep 0.05
		done
		pane_rows 22 22 <<<"$scr" >>"$TMP/pane.txt"
	done
	tr -s ' \n' '  ' <"$TMP/pane.txt"
}
# pane_rows FIRST LAST < SCREEN: those rows (1-based), columns 3-78 (inside
# the zoomed box's border), read as UTF-8 whatever the locale
pane_rows() {
	/usr/bin/python3 -c '
import sys
rows = sys.stdin.buffer.read().decode("utf-8", "replace").split("\n")
for r in rows[int(sys.argv[1]) - 1:int(sys.argv[2])]:
    print(r[2:78])' "$1" "$2"
}
json_field() { # FIELD (python expression on d) < JSON
	/usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"
}

start pz "$BIN" 80 24
wait_for pz "SNIPPETS" 10
select_snippet pz host-takeover
keys pz Enter
if wait_for pz "SANDBOX CLOSED" 20; then ok "80x24: host-takeover with every layer on runs"; else tui_not_ok "80x24: host-takeover with every layer on runs" pz; fi
keys pz Tab
check_on "Tab moves the focus to the code pane (marked >)" pz wait_for pz "> host-takeover.py" 5
check_on "the code pane opens past the header" pz lacks pz "# lab:title:"
dline=$(grep -n '# lab:danger' snippets/host-takeover.py | head -n1 | cut -d: -f1)
check_on "the code pane opens on the first danger line (line $dline, >>)" pz has pz " ${dline}>> "
keys pz '>'
dline2=$(grep -n '# lab:danger' snippets/host-takeover.py | sed -n 2p | cut -d: -f1)
check_on "> jumps to the next danger line (line $dline2)" pz wait_for pz " ${dline2}>> " 5
keys pz '<'
check_on "< goes back to the previous one (line $dline)" pz wait_for pz " ${dline}>> " 5
keys pz Tab
check_on "Tab again: the result pane has the focus" pz wait_for pz "> RESULT" 5
keys pz z
check_on "z zooms the result pane to the whole screen" pz wait_gone pz "SNIPPETS" 5
j=$("$BIN" run host-takeover --json 2>/dev/null)
text=$(pane_text pz)
mech=$(json_field 'd["mechanisms"]' <<<"$j")
lastev=$(json_field 'd["evidence"][-1].split(" after ")[0]' <<<"$j")
expect_contains "zoomed and scrolled: the last evidence line is reachable at 80x24" "$text" "- $lastev after"
# each run of a root lab has a uid of its own: the screen's run and this
# one name different numbers
uidn() { sed -E 's/uid [0-9]+ outside/uid N outside/g'; }
expect_contains "zoomed and scrolled: the whole mechanisms line, wrapped, not cut" "$(uidn <<<"$text")" \
	"mechanisms: $(uidn <<<"$mech")"
expect_contains "zoomed and scrolled: the output's probes are reachable" "$text" "| probes (look only):"
expect_contains "zoomed and scrolled: the output's last line is reachable" "$text" "| takeover failed"
# the trace: the calls the Isolation filter refused, as the lab answered them
expect_contains "zoomed and scrolled: the trace section is drawn" "$text" "trace (calls that mattered, and what answered them):"
if grep -qE '[a-z_0-9]+\([^)]*\) = -1 EPERM seccomp \(Isolation\)' <<<"$text"; then
	ok "the trace names a call refused with EPERM by seccomp (Isolation) at 80x24"
else
	tui_not_ok "the trace names a call refused with EPERM by seccomp (Isolation) at 80x24 (got: ${text:0:300})" pz
fi
keys pz z
check_on "z again: back to the list and the panes" pz wait_for pz "SNIPPETS" 5
# the lines docs/lesson.md reads aloud: secret-theft's FOUND ...KEY= lines
keys pz Tab # focus back to the list
wait_for pz "> SNIPPETS" 5
select_snippet pz secret-theft
keys pz 3
wait_for pz "Clean-env OFF" 5
keys pz Enter
wait_for pz "SANDBOX BREACHED" 20
keys pz Tab Tab z
wait_for pz "> RESULT" 5
text=$(pane_text pz)
if grep -qE '\| FOUND [A-Z_]*KEY=' <<<"$text"; then ok "secret-theft's FOUND ...KEY= lines are reachable at 80x24"; else tui_not_ok "secret-theft's FOUND ...KEY= lines are reachable at 80x24 (got: ${text:0:300})" pz; fi
keys pz z Tab
keys pz 3
wait_for pz "Clean-env ON" 5

# --- issue 22 item 5: a class can read it at 80x24 ----------------------------
check_on "80x24: the footer always has q quit" pz has pz "q quit"
keys pz '?'
wait_for pz "HELP" 5
check_on "80x24: the help's edge says how to scroll and quit" pz has pz "j/k [ ] scroll  Esc closes  q quit"
keys pz G
check_on "80x24: the help scrolls to the legend and the layers" pz wait_for pz "[4] Resource-limits  stops resource bombs" 5
check_on "80x24: the help's legend is reachable" pz has pz "Cells: + CONTAINED"
screen pz >"$TMP/help-80x24.txt"
keys pz Escape
wait_gone pz "HELP:" 5
# CONTAINED drawn in block letters, as ESCAPED is (a row of blocks, then the word)
select_snippet pz exfiltration
keys pz Enter
wait_for pz "SANDBOX CLOSED" 20
if screen pz | grep -qE '█ █.*  CONTAINED'; then ok "80x24: CONTAINED is drawn in block letters"; else tui_not_ok "80x24: CONTAINED is drawn in block letters" pz; fi
xline=$(grep -n '# lab:danger' snippets/exfiltration.py | head -n1 | cut -d: -f1)
check_on "80x24: exfiltration's code opens on its danger line ($xline)" pz has pz " ${xline}>> "
# the one line that says why "all layers on" is not all held
select_snippet pz kernel-exploit
keys pz Enter
wait_for pz "SANDBOX BREACHED" 30
check_on "80x24: kernel-exploit with every layer on says why (the shared kernel, r)" pz \
	has pz "why: the container rung shares the host kernel"
select_snippet pz legit-api
keys pz Enter
wait_for pz "FAILED" 30
check_on "80x24: legit-api under No-network says the price, and n" pz has pz "why: the price of No-network"
# the resource bomb's consequence quotes the evidence's own figures
select_snippet pz resource-bomb
keys pz 4
wait_for pz "Resource-limits OFF" 5
keys pz Enter
wait_for pz "SANDBOX BREACHED" 40
keys pz Tab Tab z
wait_for pz "> RESULT" 5
text=$(pane_text pz)
procs=$(grep -oE -- '- peak processes: [0-9]+' <<<"$text" | grep -oE '[0-9]+$' | head -n1)
if [ -n "$procs" ] && grep -qF "CONSEQUENCE: $procs processes at once" <<<"$text"; then
	ok "the bomb's consequence names the processes the lab counted ($procs)"
else
	tui_not_ok "the bomb's consequence names the processes the lab counted (${procs:-none}; got: ${text:0:400})" pz
fi
keys pz z Tab
keys pz 4
wait_for pz "Resource-limits ON" 5

# --- issue 9: predict, then run (p) --------------------------------------------
keys pz p
check_on "p switches predict mode on (the footer keeps the score)" pz wait_for pz "PREDICT score 0/0" 5
keys pz Escape
select_snippet pz exfiltration
keys pz Enter
if wait_for pz "Is the attack contained or does it escape?" 5; then ok "predict: Enter asks contained or escaped? first"; else tui_not_ok "predict: Enter asks contained or escaped? first" pz; fi
check_on "predict: the question names the rung" pz has pz "on the container rung"
check_on "predict: nothing runs before the answer" pz lacks pz "RUNNING"
keys pz Tab g # the code pane, from its top: the header
check_on "predict: the header's layer line is hidden" pz wait_for pz "(hidden in predict mode" 5
check_on "predict: 'lab:layer: network' is not on screen" pz lacks pz "lab:layer: network"
keys pz c
if wait_for pz "you predicted CONTAINED: RIGHT" 20; then ok "predict: c with every layer on scores RIGHT"; else tui_not_ok "predict: c with every layer on scores RIGHT" pz; fi
check_on "predict: the score is 1/1" pz has pz "score 1/1"
check_on "predict: after the reveal the layer line is shown" pz wait_for pz "lab:layer: network" 5
keys pz 2
wait_for pz "No-network OFF" 5
keys pz Enter
wait_for pz "Is the attack contained or does it escape?" 5
keys pz c
if wait_for pz "you predicted CONTAINED: WRONG" 20; then ok "predict: c with No-network off scores WRONG"; else tui_not_ok "predict: c with No-network off scores WRONG" pz; fi
check_on "predict: the score is 1/2" pz has pz "score 1/2"
check_on "predict: the lab still shows its own verdict, ESCAPED" pz has pz "SANDBOX BREACHED"
keys pz 2
keys pz q
wait_for pz "EXITED:0" 15 || tui_not_ok "80x24 session quits" pz

# --predict starts the screen in predict mode; the legit task asks o/f
start pp "$BIN --predict" 80 24
wait_for pp "SNIPPETS" 10
check_on "--predict starts in predict mode" pp has pp "PREDICT score 0/0"
select_snippet pp legit
keys pp Enter
check_on "--predict: the legit task asks ran ok or failed?" pp wait_for pp "ran ok or failed?" 5
keys pp o
if wait_for pp "you predicted RAN OK: RIGHT" 20; then ok "--predict: o for the legit task scores RIGHT"; else tui_not_ok "--predict: o for the legit task scores RIGHT" pp; fi
# the matrix: a whole row is predicted before it runs
keys pp m
check_on "predict, matrix: the row is asked for first" pp wait_for pp "PREDICT legit: c/e (legit o/f) per cell, 16 to go" 5
keys pp Enter
check_on "predict, matrix: Enter before the row is predicted says so" pp wait_for pp "predict the row first" 5
keys pp o o o
check_on "predict, matrix: each answer fills a cell (13 to go)" pp wait_for pp "13 to go" 5
keys pp q
wait_for pp "EXITED:0" 15 || tui_not_ok "--predict session quits" pp

# --- issue 9: streamed output ---------------------------------------------------
cat >"$TMP/snips/slow.py" <<'EOF'
# lab:title: Prints a line, sleeps, prints another
# lab:threat: legit
# lab:layer: none
# lab:expect: second line
import time
print("first line", flush=True)
time.sleep(3)
print("second line", flush=True)
EOF
start slow "$BIN --config $TMP/layers.ini" 80 24
wait_for slow "SNIPPETS" 10
select_snippet slow slow
keys slow Enter
if wait_for slow "| first line" 2; then
	scr=$(screen slow)
	if grep -qF "RUNNING" <<<"$scr" && ! grep -qF "| second line" <<<"$scr"; then
		ok "a slow snippet's first line streams in before it ends"
	else
		tui_not_ok "a slow snippet's first line streams in before it ends (the run was over)" slow
	fi
else
	tui_not_ok "a slow snippet's first line streams in before it ends" slow
fi
check_on "the streamed view shows the elapsed time" slow has slow "RUNNING slow"
if wait_for slow "RAN OK" 15; then ok "the slow snippet then ends RAN OK"; else tui_not_ok "the slow snippet then ends RAN OK" slow; fi
keys slow q
wait_for slow "EXITED:0" 15 || tui_not_ok "slow session quits" slow
rm -f "$TMP/snips/slow.py"

# --- predict: aborting buys no second guess (red team finding 7) -------------
# The exfiltration snippet, slowed: it says what it is about to do, then
# waits 3 s. Answer e, read the streamed output, abort: not scored. The
# guess stays locked to the cell: Enter reruns it without asking, says so,
# and the verdict then scores that guess (CONTAINED: WRONG, 0/1), not a
# second answer. After that verdict the cell asks again.
{
	sed -n '/^# lab:/p' snippets/exfiltration.py
	echo 'import time; print("about to upload the customer data", flush=True); time.sleep(3)'
	sed '/^# lab:/d' snippets/exfiltration.py
} >"$TMP/snips/slowx.py"
start pa "$BIN --config $TMP/layers.ini --predict" 100 30
wait_for pa "SNIPPETS" 10
select_snippet pa slowx
keys pa Enter
wait_for pa "Is the attack contained or does it escape?" 5
keys pa e
check_on "predict, abort: the run streams first" pa wait_for pa "| about to upload the customer data" 10
keys pa a
check_on "predict, abort: the aborted run is not scored" pa wait_for pa "you predicted ESCAPED: not scored" 15
check_on "predict, abort: the score stays 0/0" pa wait_for pa "PREDICT score 0/0" 8
keys pa Enter
check_on "predict, abort: Enter reruns the cell with the locked guess, and says so" pa wait_for pa "your guess stays: ESCAPED" 5
check_on "predict, abort: no second question" pa lacks pa "Is the attack contained or does it escape?"
keys pa c # a second answer, were it asked, would be RIGHT: it must not count
check_on "predict, abort: the verdict scores the first guess (WRONG, 0/1)" pa wait_for pa "you predicted ESCAPED: WRONG" 25
check_on "predict, abort: the score is 0/1" pa has pa "score 0/1"
# a lock survives a detour through other toggles, and goes with its verdict
keys pa Enter
check_on "predict, abort: after the verdict, the cell asks again" pa wait_for pa "Is the attack contained or does it escape?" 5
keys pa e
wait_for pa "| about to upload the customer data" 10
keys pa a
wait_for pa "not scored" 15
keys pa 2
wait_for pa "No-network OFF" 5
keys pa 2
wait_for pa "No-network ON" 5
keys pa Enter
check_on "predict, abort: toggling away and back keeps the lock" pa wait_for pa "your guess stays: ESCAPED" 5
keys pa a
wait_for pa "not scored" 15
# predict mode off: the run still answers the locked guess
keys pa p
keys pa Enter
check_on "predict, abort: with predict mode off, the verdict scores the locked guess (0/2)" pa wait_for pa "you predicted ESCAPED: WRONG  (score 0/2)" 25
keys pa q
wait_for pa "EXITED:0" 15 || tui_not_ok "predict-abort session quits" pa
rm -f "$TMP/snips/slowx.py"

# --- issue 9: your own attack (e) --------------------------------------------
cat >"$TMP/editor.sh" <<'EOF'
#!/bin/sh
# a student's edit: one more line of output before the task ends
sed -i 's/^    sys.exit(main())$/    print("EDITED BY THE STUDENT", flush=True)\n    sys.exit(main())/' "$1"
EOF
chmod +x "$TMP/editor.sh"
start ed "EDITOR=$TMP/editor.sh $BIN" 80 24
wait_for ed "SNIPPETS" 10
select_snippet ed legit
keys ed e
if wait_for ed "yours: legitimate" 10; then ok "e: the copy is listed as yours"; else tui_not_ok "e: the copy is listed as yours" ed; fi
mine=$XDG_DATA_HOME/containment-lab/snippets/legit.py
if [ -f "$mine" ] && grep -q "EDITED BY THE STUDENT" "$mine"; then ok "e: the copy is in the XDG data folder, edited by \$EDITOR"; else tui_not_ok "e: the copy is in the XDG data folder, edited by \$EDITOR"; fi
expect_eq "e: the copy is private (0600)" "$(stat -c %a "$mine" 2>/dev/null)" "600"
cmp -s <(grep -v "EDITED BY THE STUDENT" "$mine") snippets/legit.py && ok "e: the shipped snippet was copied, not changed" || tui_not_ok "e: the shipped snippet was copied, not changed"
if wait_for ed "RAN OK" 20; then ok "e: the edited copy runs on return"; else tui_not_ok "e: the edited copy runs on return" ed; fi
check_on "e: the screen survives the editor (toggles and title redrawn)" ed all_of ed "[1] Isolation ON" "containment-lab" "legit.py (yours)"
keys ed Tab Tab z
wait_for ed "> RESULT" 5
text=$(pane_text ed)
expect_contains "e: the run of the edited copy shows the edit's output" "$text" "| EDITED BY THE STUDENT"
keys ed q
wait_for ed "EXITED:0" 15 || tui_not_ok "e session quits" ed
# a folder others may write to is refused, like layers.ini
chmod g+w "$XDG_DATA_HOME/containment-lab/snippets"
start edbad "$BIN" 100 30
check_on "a group-writable snippets folder is refused, with why and what to do" edbad wait_for edbad "chmod go-w" 10
check_on "a refused folder's snippets are not listed" edbad lacks edbad "yours:"
keys edbad q
wait_for edbad "EXITED:0" 15 || tui_not_ok "edbad session quits" edbad
# --- e never follows what someone else planted (red team finding 6) -----------
# A copy's place must be the user's: a symlink planted where the copy goes,
# or a folder on the way that another user owns or others may write to,
# is refused with why on screen, and no editor is opened.
# the marker and the victim are writable by anyone: uid 65534's editor
# would leave its mark too
mkdir -m 1777 "$TMP/marks"
printf '#!/bin/sh\necho "editor opened $1" >>"%s/marks/marker.log"\necho "# EDITED THROUGH THE PLANT" >>"$1"\n' "$TMP" >"$TMP/marker.sh"
chmod 755 "$TMP/marker.sh"
echo "the victim's own words" >"$TMP/victim.txt"
chmod 666 "$TMP/victim.txt"
# edit_refused NAME XDG WHY [PREFIX LAB]: e on legit with XDG_DATA_HOME=XDG
# (run as PREFIX LAB) is refused with WHY on screen; no editor ran and the
# victim is as it was
PLANTS=0
edit_refused() {
	local name=$1 xdg=$2 why=$3 prefix=${4:-} lab=${5:-$BIN} plant
	PLANTS=$((PLANTS + 1))
	plant=plant$PLANTS
	rm -f "$TMP/marks/marker.log"
	start "$plant" "$prefix env XDG_DATA_HOME=$xdg EDITOR=$TMP/marker.sh $lab" 200 30
	wait_for "$plant" "SNIPPETS" 10
	select_snippet "$plant" legit
	keys "$plant" e
	check_on "$name: refused, with why and what to do" "$plant" wait_for "$plant" "not edited ($why); use a folder of your own" 10
	if [ ! -e "$TMP/marks/marker.log" ]; then ok "$name: no editor was opened"; else tui_not_ok "$name: no editor was opened ($(cat "$TMP/marks/marker.log"))"; fi
	expect_eq "$name: the symlink's target is unchanged" "$(cat "$TMP/victim.txt")" "the victim's own words"
	keys "$plant" q
	wait_for "$plant" "EXITED:0" 15 || tui_not_ok "$name: session quits" "$plant"
}
# the user's own folder, a symlink where the copy goes
mkdir -p "$TMP/own/containment-lab/snippets"
chmod 700 "$TMP/own/containment-lab/snippets"
ln -s "$TMP/victim.txt" "$TMP/own/containment-lab/snippets/legit.py"
edit_refused "e: a symlink where the copy goes" "$TMP/own" "legit.py: a symlink is there"
# the red team's repro: the folder is another user's (uid 65534's), with
# others allowed to write to it, and a symlink in it
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	mkdir -m 1777 "$TMP/shared"
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "mkdir -p $TMP/shared/containment-lab/snippets &&
		chmod 777 $TMP/shared/containment-lab $TMP/shared/containment-lab/snippets &&
		ln -s $TMP/victim.txt $TMP/shared/containment-lab/snippets/legit.py"
	edit_refused "e as root in uid 65534's folder" "$TMP/shared" "$TMP/shared/containment-lab: another user owns it"
else
	skip "e as root in another user's folder" "needs root and setpriv to plant as uid 65534"
fi
# a folder of the user's own that others may write to: nothing is copied
mkdir -p "$TMP/gw/containment-lab/snippets"
chmod 777 "$TMP/gw/containment-lab/snippets"
edit_refused "e: a folder others may write to" "$TMP/gw" "$TMP/gw/containment-lab/snippets: others may write to it"
check_on "e: nothing was copied into that folder" "" test ! -e "$TMP/gw/containment-lab/snippets/legit.py"

# --- issue 9 as uid 65534: predict, stream and e, rootless ---------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# /root may be 0700: stage what the unprivileged run needs where it can read
	ST=$TMP/stage
	mkdir -p "$ST/lab"
	cp "$BIN" "$ST/lab/containment-lab"
	cp -r snippets layers.ini "$ST/lab/"
	cp "$TMP/editor.sh" "$ST/editor.sh"
	chmod -R a+rX "$ST"
	chmod 755 "$TMP"
	mkdir "$ST/xdg" && chown 65534:65534 "$ST/xdg"
	# e as uid 65534 in a folder root left writable to all, with a symlink
	mkdir -p "$ST/xdg2/containment-lab/snippets"
	chmod 777 "$ST/xdg2/containment-lab/snippets"
	ln -s "$TMP/victim.txt" "$ST/xdg2/containment-lab/snippets/legit.py"
	edit_refused "uid 65534: e in a folder others may write to" "$ST/xdg2" \
		"$ST/xdg2/containment-lab/snippets: others may write to it" \
		"cd $ST/lab && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent" ./containment-lab
	start nob "cd $ST/lab && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent XDG_DATA_HOME=$ST/xdg EDITOR=$ST/editor.sh ./containment-lab --predict" 80 24
	wait_for nob "SNIPPETS" 10
	select_snippet nob legit
	keys nob e
	if wait_for nob "ran ok or failed?" 10; then ok "uid 65534: e lists the copy, and predict mode asks before its run"; else tui_not_ok "uid 65534: e lists the copy, and predict mode asks before its run" nob; fi
	keys nob o
	if wait_for nob "you predicted RAN OK: RIGHT" 20; then ok "uid 65534: the edited copy runs rootless and the guess is scored"; else tui_not_ok "uid 65534: the edited copy runs rootless and the guess is scored" nob; fi
	check_on "uid 65534: the copy is the user's own" nob test "$(stat -c %u "$ST/xdg/containment-lab/snippets/legit.py" 2>/dev/null)" = 65534
	keys nob Tab Tab z
	wait_for nob "> RESULT" 5
	text=$(pane_text nob)
	expect_contains "uid 65534: the run of the edited copy shows the edit's output" "$text" "| EDITED BY THE STUDENT"
	expect_contains "uid 65534: the mechanisms say the run was rootless" "$text" "rlimits-only (rootless: cgroup-v1 is not delegated to uid 65534"
	keys nob q
	wait_for nob "EXITED:0" 15 || tui_not_ok "uid 65534 session quits" nob
else
	skip "uid 65534: predict, stream and e" "needs root and setpriv to drop to uid 65534"
fi

# --- sanitizers ----------------------------------------------------------------
if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$ERRLOG"; then
	tui_not_ok "no sanitizer reports"
	sed 's/^/#   /' "$ERRLOG" | head -n 60
else
	ok "no sanitizer reports on stderr"
fi

finish
