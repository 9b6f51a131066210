#!/usr/bin/env bash
# tests/snippet_test.sh [BINARY] — a teacher's snippets folder, from outside:
# special files never block, oversized and wrongly-typed files are refused
# with the limit, a BOM is fine, a threat on the wrong layer is refused with
# FILE:LINE, a broken file is listed and skipped while the rest still works,
# header text and file names never reach a terminal raw nor make JSON
# invalid, and quitting a matrix of chatty snippets is prompt and leaves no
# process. Each case runs in a private folder named by a private layers.ini.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-snip.XXXXXX)
chmod 755 "$T"
SOCK=clsnip-$$
tmux_() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	tmux_ kill-server >/dev/null 2>&1
	# where tmux -L puts its socket: it outlives the server
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	rm -rf "$T"
	suite_cleanup
}
trap cleanup EXIT

# folder NAME: a snippets folder with the shipped CSV and its layers.ini
folder() {
	mkdir -p "$T/$1/sn"
	cp snippets/sales.csv "$T/$1/sn/"
	printf '[paths]\nsnippets = sn\npython = /usr/bin/python3\n' >"$T/$1/layers.ini"
}
# lab_with "$T/FOLDER/layers.ini" ARGS... (lib.sh): the lab on a folder's
# own layers.ini, never longer than 20 s
LAB_WRAP=(timeout 20)
attack_header() { # TITLE THREAT LAYER CONSEQUENCE
	printf '# lab:title: %s\n# lab:threat: %s\n# lab:layer: %s\n# lab:consequence: %s\n' "$@"
}
utf8_json() { $PY -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))'; }
raw_control() { # true when stdin holds ESC, a raw C1 byte, C1 as UTF-8, or a bidi control
	LC_ALL=C grep -qaP '\x1b|\x9b|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]'
}

# ---- special files (issue 11.2) ----
folder special
cp snippets/legit.py snippets/exfiltration.py "$T/special/sn/"
mkfifo "$T/special/sn/fifo.py"
mkdir "$T/special/sn/folder.py"
{
	attack_header "Too big" exfil network "c"
	head -c 1100000 /dev/zero | tr '\0' '#'
	echo
} >"$T/special/sn/huge.py"
out=$(lab_with "$T/special/layers.ini" list 2>&1); rc=$?
expect_eq "a FIFO named x.py does not hang list (exit 0)" "$rc" 0
expect_contains "list names the FIFO as broken" "$out" "fifo             BROKEN: $T/special/sn/fifo.py: a named pipe (FIFO), not a regular file"
expect_contains "list names the folder as broken" "$out" "folder           BROKEN: $T/special/sn/folder.py: a folder, not a regular file"
expect_contains "an oversized snippet is refused with the cap" "$out" "huge.py: larger than 1048576 bytes (1 MiB)"
expect_contains "the good ones are still listed (legit)" "$out" "legit            legitimate task"
expect_contains "the good ones are still listed (exfiltration)" "$out" "exfiltration     data exfiltration"
err=$(lab_with "$T/special/layers.ini" run fifo 2>&1); rc=$?
expect_eq "run FIFO by name: refused, exit 2" "$rc" 2
expect_contains "run FIFO by name: says why" "$err" "a named pipe (FIFO), not a regular file"
err=$(lab_with "$T/special/layers.ini" run "$T/special/sn/fifo.py" 2>&1); rc=$?
expect_eq "run FIFO by path: refused, exit 2" "$rc" 2
err=$(lab_with "$T/special/layers.ini" run /dev/zero.py 2>&1); rc=$?
expect_eq "run a missing path: exit 2" "$rc" 2
ln -s /dev/zero "$T/special/zero.py"
err=$(lab_with "$T/special/layers.ini" run "$T/special/zero.py" 2>&1); rc=$?
expect_contains "a symlink to a device is refused" "$err" "a character device, not a regular file"
check "list --json with broken files is valid JSON, broken ones say why" \
	$PY -c 'import json,sys; d=json.load(sys.stdin)["snippets"]; b={x["name"]:x["broken"] for x in d}; assert b["legit"] is None and "FIFO" in b["fifo"] and len(d)==5, d' < <(lab_with "$T/special/layers.ini" list --json)

# ---- forgiving headers, strict about danger (issue 7.8/7.13) ----
folder hdr
printf '\xef\xbb\xbf' >"$T/hdr/sn/bom.py"
attack_header "Starts with a BOM" exfil network "gone" >>"$T/hdr/sn/bom.py"
echo 'print("hi")' >>"$T/hdr/sn/bom.py"
attack_header "Wrong layer" exfil env "gone" >"$T/hdr/sn/mismatch.py"
attack_header "A shell script" exfil network "gone" >"$T/hdr/sn/shell.sh"
echo 'touch '"$T"'/shell-ran' >>"$T/hdr/sn/shell.sh"
out=$(lab_with "$T/hdr/layers.ini" list 2>&1); rc=$?
expect_contains "a UTF-8 BOM is fine" "$out" "bom              data exfiltration  No-network       Starts with a BOM"
expect_contains "threat on the wrong layer: FILE:LINE" "$out" "mismatch.py:3: layer 'env' does not stop data exfiltration"
expect_not_contains "a .sh file is not a snippet" "$out" "shell"
err=$(lab_with "$T/hdr/layers.ini" run mismatch 2>&1); rc=$?
expect_eq "run a threat on the wrong layer: exit 2" "$rc" 2
expect_contains "run says which layer would" "$err" "'# lab:layer: network'"
err=$(lab_with "$T/hdr/layers.ini" run "$T/hdr/sn/shell.sh" 2>&1); rc=$?
expect_eq "run PATH/x.sh: refused, exit 2" "$rc" 2
expect_contains "run PATH/x.sh: not run as Python" "$err" "not a snippet: snippets are Python files whose name ends in .py"
err=$(cd "$T/hdr/sn" && timeout 20 "$BIN" --config "$T/hdr/layers.ini" run shell.sh 2>&1); rc=$?
expect_contains "run x.sh from its folder: refused the same way" "$err" "shell.sh: not a snippet"
check "the .sh file never ran" test ! -e "$T/shell-ran"

# ---- no silent truncation (issue 11.3) ----
folder long
long=$(printf 'T%.0s' $(seq 1 200))
attack_header "$long" exfil network "c" >"$T/long/sn/title.py"
attack_header "ok" exfil network "$(printf 'C%.0s' $(seq 1 300))" >"$T/long/sn/conseq.py"
{ printf '# lab:title: ok\n# lab:threat: legit\n# lab:layer: none\n'; printf '# lab:expect: %s\n' "$(printf 'E%.0s' $(seq 1 130))"; } >"$T/long/sn/expect.py"
attack_header "ok" exfil network "c" >"$T/long/sn/$(printf 'n%.0s' $(seq 1 70)).py"
attack_header "ok" exfil network "$(printf 'C%.0s' $(seq 1 250))" >"$T/long/sn/fits.py"
out=$(lab_with "$T/long/layers.ini" list 2>&1)
expect_contains "title too long: FILE:LINE and the limit" "$out" "title.py:1: title longer than 127 bytes"
expect_contains "consequence too long: the limit" "$out" "conseq.py:4: consequence longer than 255 bytes"
expect_contains "expect line too long: the limit" "$out" "expect.py:4: expect line longer than 127 bytes"
expect_contains "file name too long: the limit" "$out" "file name longer than 63 bytes"
expect_contains "a 250-byte consequence on a 300+ byte line still loads" "$out" "fits             data exfiltration"

# ---- inert text (issue 7.12) ----
folder evil
esc=$'\e' lat=$'\xe9'
{
	printf '# -*- coding: latin-1 -*-\n' # so Python takes the bytes; the lab must still show them inert
	printf '# lab:title: evil \e]0;PWNED\a \xc2\x9b31m \x9b1m caf\xe9 \xe2\x80\xae rtl\n'
	printf '# lab:threat: exfil\n# lab:layer: network\n'
	printf '# lab:consequence: boom \e[2J \x9b2J caf\xe9 \xe2\x81\xa6x\n'
	tail -n +5 snippets/exfiltration.py
} >"$T/evil/sn/caf${lat}.py"
cp "$T/evil/sn/caf${lat}.py" "$T/evil/sn/e${esc}[31mvil.py"
out=$(lab_with "$T/evil/layers.ini" list 2>&1)
if raw_control <<<"$out"; then not_ok "list: header text and file names are inert" "$(cat -v <<<"$out")"; else ok "list: header text and file names are inert"; fi
expect_contains "list shows the escape made visible" "$out" 'evil ^[]0;PWNED^G'
expect_contains "list shows the file name's escape made visible" "$out" 'e^[[31mvil'
check "list --json is valid UTF-8 JSON with Latin-1 in a header" utf8_json < <(lab_with "$T/evil/layers.ini" list --json)
j=$(lab_with "$T/evil/layers.ini" run "$T/evil/sn/caf${lat}.py" --off network --json)
check "run --json is valid UTF-8 JSON with Latin-1 in the name and consequence" utf8_json <<<"$j"
if raw_control <<<"$j"; then not_ok "run --json carries no raw control"; else ok "run --json carries no raw control"; fi
expect_contains "run --json shows the consequence inert" "$j" 'boom ^[[2J \\x9b2J caf\\xe9 \\u2066x'
out=$(lab_with "$T/evil/layers.ini" run "$T/evil/sn/caf${lat}.py" --off network)
if raw_control <<<"$out"; then not_ok "run text output is inert" "$(cat -v <<<"$out")"; else ok "run text output is inert"; fi

# ---- quitting a matrix of chatty snippets (issue 11.1) ----
folder chat
{
	attack_header "Chatty sleeper" secrets env "nothing"
	printf 'import sys, time\nsys.stdout.write("x" * 200000 + "\\n")\nsys.stdout.flush()\ntime.sleep(20)\n'
} >"$T/chat/sn/chatty.py"
descendants() { # PID: it and every process below it
	local p=$1 c
	echo "$p"
	for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do descendants "$c"; done
}
all_gone() { # PIDS...: true when none is alive (zombies of a dead parent count as gone)
	local p st
	for p in "$@"; do
		st=$(awk '/^State:/ {print $2}' /proc/"$p"/status 2>/dev/null)
		[[ -n "$st" && "$st" != Z ]] && return 1
	done
	return 0
}
# wait_exit SECONDS PIDS...: waits until all are gone; prints the ms it took
wait_exit() {
	local secs=$1 t0=$(date +%s%N)
	shift
	while ! all_gone "$@"; do
		(($(date +%s%N) - t0 > secs * 1000000000)) && return 1
		sleep 0.05
	done
	echo $((($(date +%s%N) - t0) / 1000000))
}

"$BIN" --config "$T/chat/layers.ini" matrix --jobs 2 >"$T/chat/matrix.out" 2>&1 &
mpid=$!
sleep 1.5
pids=$(descendants "$mpid")
kill -TERM "$mpid"
if ms=$(wait_exit 5 $pids); then
	ok "matrix --jobs 2 ends within 5 s of SIGTERM (${ms} ms), no process left"
else
	not_ok "matrix --jobs 2 ends within 5 s of SIGTERM" "$(ps -o pid,stat,args -p "$(tr '\n' , <<<"$pids" | sed 's/,$//')")"
	kill -KILL $pids 2>/dev/null
fi
wait "$mpid" 2>/dev/null

if command -v tmux >/dev/null; then
	# The lab screen: 'm' starts the matrix; quit while two workers each
	# hold a 200 KB result the screen no longer reads.
	tmux_ new-session -d -s chat -x 100 -y 30 "$BIN --config $T/chat/layers.ini; echo EXITED:\$?; exec sleep 60"
	for _ in $(seq 1 50); do
		lpid=$(pgrep -P "$(tmux_ display -p -t chat '#{pane_pid}')" | head -1)
		[[ -n "$lpid" ]] && break
		sleep 0.1
	done
	sleep 0.5
	tmux_ send-keys -t chat m
	sleep 1.5
	pids=
	[[ -n "$lpid" ]] && pids=$(descendants "$lpid")
	expect_eq "the screen's matrix runs two workers" "$([[ -n "$lpid" ]] && pgrep -c -P "$lpid")" 2
	tmux_ send-keys -t chat q
	if [[ -n "$pids" ]] && ms=$(wait_exit 5 $pids); then
		ok "quitting the screen mid-matrix ends within 5 s (${ms} ms), no process left"
	else
		not_ok "quitting the screen mid-matrix ends within 5 s" "$(ps -o pid,stat,args -p "$(tr '\n' , <<<"$pids" | sed 's/,$//')")"
		kill -KILL $pids 2>/dev/null
	fi
	# The same with SIGTERM to the screen itself (issue 11.1): the terminal
	# comes back, the exit status says the signal, and every worker is
	# stopped at once, so the whole quit takes one grace period.
	tmux_ new-session -d -s chatterm -x 100 -y 30 "$BIN --config $T/chat/layers.ini; echo EXITED:\$?; stty -a | tr ' ;' '\n\n' | grep -x -e echo -e icanon | tr '\n' , | sed s/^/TTY:/; echo; exec sleep 60"
	lpid=
	for _ in $(seq 1 50); do
		lpid=$(pgrep -P "$(tmux_ display -p -t chatterm '#{pane_pid}')" | head -1)
		[[ -n "$lpid" ]] && break
		sleep 0.1
	done
	sleep 0.5
	tmux_ send-keys -t chatterm m
	sleep 1.5
	pids=
	[[ -n "$lpid" ]] && pids=$(descendants "$lpid")
	expect_eq "SIGTERM case: the screen's matrix runs two workers" "$([[ -n "$lpid" ]] && pgrep -c -P "$lpid")" 2
	[[ -n "$lpid" ]] && kill -TERM "$lpid"
	if [[ -n "$pids" ]] && ms=$(wait_exit 5 $pids); then
		ok "SIGTERM to the screen mid-matrix: it ends within 5 s (${ms} ms), no process left"
	else
		not_ok "SIGTERM to the screen mid-matrix ends within 5 s" "$(ps -o pid,stat,args -p "$(tr '\n' , <<<"$pids" | sed 's/,$//')")"
		kill -KILL $pids 2>/dev/null
	fi
	for _ in $(seq 1 30); do
		tmux_ capture-pane -p -t chatterm | grep -q '^TTY:' && break
		sleep 0.1
	done
	scr=$(tmux_ capture-pane -p -t chatterm)
	expect_contains "SIGTERM to the screen: exit status 143" "$scr" "EXITED:143"
	expect_contains "SIGTERM to the screen: the terminal is back in cooked mode" "$scr" "TTY:icanon,echo,"
	expect_not_contains "SIGTERM to the screen: the lab screen is gone" "$scr" "MATRIX"
	# Two workers that cannot answer (stopped): each gets the 1.5 s grace,
	# side by side, so the screen is gone well within two of them.
	tmux_ new-session -d -s chatstuck -x 100 -y 30 "$BIN --config $T/chat/layers.ini; echo EXITED:\$?; exec sleep 60"
	lpid=
	for _ in $(seq 1 50); do
		lpid=$(pgrep -P "$(tmux_ display -p -t chatstuck '#{pane_pid}')" | head -1)
		[[ -n "$lpid" ]] && break
		sleep 0.1
	done
	sleep 0.5
	tmux_ send-keys -t chatstuck m
	sleep 1.5
	pids= workers=
	if [[ -n "$lpid" ]]; then
		pids=$(descendants "$lpid")
		workers=$(pgrep -P "$lpid")
	fi
	[[ -n "$workers" ]] && kill -STOP $workers
	# when each stuck worker ends, seen through pidfds: one grace period
	# for both ends them together; one each would part them by 1.5 s.
	# The gap between the two ends, not a total a loaded machine stretches.
	gapf=$T/chat/gap
	# shellcheck disable=SC2086 # the pids are words
	[[ -n "$workers" ]] && $PY -c '
import os, select, sys, time
fds = {os.pidfd_open(int(p)): p for p in sys.argv[1:]}
n, seen, end = len(fds), [], time.monotonic() + 15
print("ready", flush=True)
while fds and time.monotonic() < end:
    for fd in select.select(list(fds), [], [], 0.05)[0]:
        fds.pop(fd)
        seen.append(time.monotonic())
print(int((max(seen) - min(seen)) * 1000) if len(seen) == n and n > 1 else -1, flush=True)' $workers >"$gapf" &
	watcher=$!
	for _ in $(seq 1 50); do grep -q ready "$gapf" 2>/dev/null && break; sleep 0.1; done
	[[ -n "$lpid" ]] && kill -TERM "$lpid"
	wait "$watcher" 2>/dev/null
	gap=$(tail -1 "$gapf" 2>/dev/null)
	if [[ -n "$workers" && $gap =~ ^[0-9]+$ ]] && ((gap < 1000)); then
		ok "SIGTERM with two stuck workers: one grace period, not one each (they ended ${gap} ms apart)"
	else
		not_ok "SIGTERM with two stuck workers: one grace period, not one each (ended ${gap:-?} ms apart)" \
			"$(ps -o pid,stat,args -p "$(tr '\n' , <<<"$pids" | sed 's/,$//')")"
	fi
	ms=$(wait_exit 10 $pids) || kill -KILL $pids 2>/dev/null
	# one broken file does not stop the screen
	folder tuibroken
	cp snippets/legit.py "$T/tuibroken/sn/"
	mkfifo "$T/tuibroken/sn/fifo.py"
	attack_header "Wrong layer" exfil env "gone" >"$T/tuibroken/sn/mismatch.py"
	tmux_ new-session -d -s broken -x 100 -y 30 "$BIN --config $T/tuibroken/layers.ini; echo EXITED:\$?; exec sleep 60"
	for _ in $(seq 1 50); do
		tmux_ capture-pane -p -t broken | grep -q "legit" && break
		sleep 0.1
	done
	scr=$(tmux_ capture-pane -p -t broken)
	expect_contains "the screen starts with a FIFO and a broken header in the folder" "$scr" "legit"
	tmux_ send-keys -t broken q
else
	not_ok "tmux is installed (apt-get install tmux)"
fi

sleep 0.3
# only our own: other labs may be running on this box (the processes of
# each run were checked by PID above)
tmux_ kill-server >/dev/null 2>&1
sleep 0.2
expect_eq "no lab process of this test left" "$(pgrep -af -- "$T/" | grep -v -e pgrep -e tmux)" ""
finish
