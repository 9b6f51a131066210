#!/usr/bin/env bash
# tests/tui_test.sh — drives the lab screen in a private tmux server, the way
# tmux tests itself: a detached session of a fixed size, send-keys, and
# capture-pane, polling each expectation against a deadline.
#
#   tests/tui_test.sh [--asan] [BINARY]      (from the repo root; default ./containment-lab)
#
# --asan: the binary is a sanitizer build: longer deadlines, and any
# AddressSanitizer/UBSan report on its stderr fails the run.
# Prints "ok - NAME" / "not ok - NAME" per check (tests/lib.sh), then
# "N passed, N failed, N skipped";
# exits 1 if anything failed.
set -u

ASAN=0
if [ "${1:-}" = "--asan" ]; then
	ASAN=1
	shift
fi
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
check_on "the help lists every key" main all_of main "Up/Down j/k" "Left/Right h/l" "1-4" "Enter" \
	"m  " "d  " "docker twin" "a  " "PgUp/PgDn" "Home/End" "click" "?  " "Esc" "Ctrl-L" "q  " "abort" "quit"
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

# --- the matrix --------------------------------------------------------------
n=$("$BIN" list 2>/dev/null | grep -c .)
total=$((n * 16))
keys main m
if wait_for main "MATRIX" 5; then ok "m opens the matrix"; else tui_not_ok "m opens the matrix" main; fi
if wait_for main "$total/$total as expected" 180; then
	ok "the matrix completes with $total/$total as expected"
else
	tui_not_ok "the matrix completes with $total/$total as expected" main
fi
check_on "the matrix legend: + CONTAINED, X ESCAPED, . RAN OK" main has main "X ESCAPED"
check_on "the matrix cells: host-takeover contained with all on (+)" main has main "host-takeover     +"
keys main m
check_on "m goes back to the lab" main wait_for main "SNIPPETS" 5

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

# --- sanitizers ----------------------------------------------------------------
if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$ERRLOG"; then
	tui_not_ok "no sanitizer reports"
	sed 's/^/#   /' "$ERRLOG" | head -n 60
else
	ok "no sanitizer reports on stderr"
fi

finish
