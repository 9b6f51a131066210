#!/usr/bin/env bash
# tests/exectty_test.sh [BINARY] — exec leaves the caller's terminal as it
# found it (issue 16, item 4), as root and as uid 65534. Each case runs in
# a terminal of its own: a pty made with python3's pty module, a shell as
# its session leader (like a login), 100x30. Before and after the lab the
# shell records the terminal: `stty -a` (rows, columns, echo, icanon, every
# flag and control character) and what stty does not show (the foreground
# process group, exclusive mode, the line discipline); they must be equal,
# and a line printed after the lab must still reach the screen (no output
# left stopped). The command attacks the terminal it was given (stty,
# TIOCSWINSZ, raw mode, tostop, TIOCSPGRP, TIOCEXCL, a line discipline,
# TCOOFF) and ends every way a run ends: by itself, the wall clock, the
# safety net, SIGTERM or SIGINT to the lab. Then what a terminal must still
# do for the command: it is a terminal of the window's size, it reads what
# is typed, Ctrl-C interrupts it, a resize reaches it (and stays after).
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-exectty.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
# a staged copy that uid 65534 can reach (/root is 0700); its name marks
# its processes. The clocks are short: the wall clock 1 s, the safety net 3 s.
LAB=$T/lab-exectty-$$
cp "$BIN" "$LAB"
sed -e 's/^timeout = 5s$/timeout = 1s/' -e 's/^timeout = 30s$/timeout = 3s/' layers.ini >"$T/layers.ini"
# what a terminal does for the command is not about the clocks: those
# cases get clocks a loaded machine cannot reach (a 3 s safety net ended
# "sleep 2.5; stty size" on a machine at load 45)
sed -e 's/^timeout = 5s$/timeout = 60s/' -e 's/^timeout = 30s$/timeout = 120s/' layers.ini >"$T/long.ini"
CONF=$T/layers.ini
mkdir "$T/work"
chmod -R a+rX "$T"

before_all=$(leftovers_snapshot)

# The terminal as a shell in it sees it: what stty -a prints, then what it
# does not print.
cat >"$T/probe.py" <<'EOF'
import fcntl, os, struct, termios
TIOCGEXCL = 0x80045440
excl = struct.unpack("i", fcntl.ioctl(0, TIOCGEXCL, b"\0" * 4))[0]
ldisc = struct.unpack("i", fcntl.ioctl(0, termios.TIOCGETD, b"\0" * 4))[0]
fg = "the shell's" if os.tcgetpgrp(0) == os.getpgrp() else "another (%d)" % os.tcgetpgrp(0)
print("foreground group: %s; exclusive: %d; line discipline: %d" % (fg, excl, ldisc))
EOF

# ptydrive.py LIMIT SCRIPT [AT:ACTION]...: runs sh -c SCRIPT as the session
# leader of a new 100x30 pty, prints everything the pty showed, then
# "STATUS N" (124 when it took longer than LIMIT seconds: killed).
# ACTION at AT seconds, or once the pty showed WORD when AT is @WORD:
# "w:TEXT" types TEXT (\x03 is Ctrl-C), "r:RxC" resizes the window as a
# terminal emulator does.
cat >"$T/ptydrive.py" <<'EOF'
import fcntl, os, select, signal, struct, sys, termios, time
limit, script, actions = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
m, s = os.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
pid = os.fork()
if pid == 0:
    os.close(m)
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    for fd in range(3):
        os.dup2(s, fd)
    os.close(s)
    os.execv("/bin/sh", ["sh", "-c", script])
os.close(s)
t0, out, status = time.time(), b"", None
todo = sorted((float(a.split(":", 1)[0]), a.split(":", 1)[1]) for a in actions if a[0] != "@")
seen = [(a[1:].split(":", 1)[0].encode(), a.split(":", 1)[1]) for a in actions if a[0] == "@"]
while True:
    now = time.time() - t0
    due = [a for a in seen if a[0] in out]
    seen = [a for a in seen if a not in due]
    while todo and todo[0][0] <= now:
        due.append(todo.pop(0))
    for _, what in due:
        if what.startswith("w:"):
            os.write(m, what[2:].encode().decode("unicode_escape").encode("latin-1"))
        elif what.startswith("r:"):
            rows, cols = (int(x) for x in what[2:].split("x"))
            fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    if now >= limit:
        os.killpg(pid, signal.SIGKILL)
        status = 124
        break
    wait = min(limit, todo[0][0]) - now if todo else limit - now
    r, _, _ = select.select([m], [], [], max(wait, 0))
    if r:
        try:
            d = os.read(m, 65536)
        except OSError:
            break
        if not d:
            break
        out += d
_, st = os.waitpid(pid, 0)
if status is None:
    status = os.waitstatus_to_exitcode(st)
sys.stdout.write(out.decode("utf-8", "replace").replace("\r", ""))
print("STATUS %d" % status)
EOF

# tty_case NAME WHO KILL LIMIT LABARGS... -- CMD...: in a fresh terminal,
# records it, runs the lab (as WHO: root or nobody) with LABARGS and the
# config $CONF, sends the lab signal KILL (or none) after 1.5 s (give such
# a case --off limits: the wall clock is 1 s; the safety net's 3 s is
# later), records the terminal again and prints a line after. Sets OUT (what the terminal showed), RC (the lab's
# exit status) and N (the case's number, for its files).
N=0
tty_case() {
	local who=$1 sig=$2 limit=$3
	shift 3
	N=$((N + 1))
	local runner=""
	[[ $who == nobody ]] && runner="setpriv --reuid=65534 --regid=65534 --clear-groups"
	local args="" a
	for a in "$@"; do args+=" $(printf '%q' "$a")"; done
	# the lab runs as an asynchronous list so the shell can signal it: it
	# stays in the shell's process group, the terminal's foreground one.
	# (Without job control sh gives such a list /dev/null as stdin unless
	# told otherwise, hence fd 3.)
	# A Ctrl-C the terminal turns into SIGINT must not end the shell
	# before its second record (the lab sets its own handler).
	local script="cd $T/work || exit 9
trap '' INT
{ stty -a; $PY $T/probe.py; } >$T/before.$N 2>&1
exec 3<&0
$runner $LAB --config $CONF$args <&3 &
lp=\$!
[ $sig = none ] || { sleep 1.5; kill -$sig \$lp; }
wait \$lp
echo \"lab-rc=\$?\"
{ stty -a; $PY $T/probe.py; } >$T/after.$N 2>&1
echo 'a line after the lab reached the screen'"
	OUT=$($PY "$T/ptydrive.py" "$limit" "$script" "${ACTIONS[@]}")
	RC=$(sed -n 's/^lab-rc=\([0-9]*\)$/\1/p' <<<"$OUT")
}
ACTIONS=()

# expect_terminal_kept NAME: the terminal after the lab is the one before
expect_terminal_kept() {
	local name=$1
	if [[ $OUT == *"STATUS 124"* ]]; then
		not_ok "$name" "the terminal hung (killed after the time limit); it showed:" "$(tail -5 <<<"$OUT")"
	elif [[ ! -s $T/before.$N || ! -s $T/after.$N ]]; then
		not_ok "$name" "no record of the terminal before or after the lab"
	elif ! cmp -s "$T/before.$N" "$T/after.$N"; then
		mapfile -t d < <(diff "$T/before.$N" "$T/after.$N")
		not_ok "$name" "the terminal differs after the lab (< before, > after):" "${d[@]}"
	elif [[ $OUT != *"a line after the lab reached the screen"* ]]; then
		not_ok "$name" "the line printed after the lab never reached the screen (output stopped?)"
	else
		ok "$name"
	fi
}

PYC=/usr/bin/python3
whos=(root)
[[ $(id -u) == 0 ]] && whos+=(nobody)
for who in "${whos[@]}"; do
	# ---- the terminal's modes and size: stty, TIOCSWINSZ ----
	tty_case "$who" none 20 exec --on all -- stty rows 5 cols 5
	expect_terminal_kept "$who: exec --on all -- stty rows 5 cols 5: rows and columns as before"
	tty_case "$who" none 20 exec --on all -- stty -echo -icanon tostop
	expect_terminal_kept "$who: exec -- stty -echo -icanon tostop: echo, icanon, tostop as before"
	tty_case "$who" none 20 exec --off all -- stty -echo raw
	expect_terminal_kept "$who: every layer off, exec -- stty -echo raw: modes as before"
	tty_case "$who" none 20 exec --on all -- $PYC -c \
		'import fcntl, struct, termios; fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 7, 9, 0, 0))'
	expect_terminal_kept "$who: exec -- python TIOCSWINSZ 7x9: size as before"

	# ---- raw mode, and the run ends by force ----
	raw='import sys, termios, time, tty; tty.setraw(0); a = termios.tcgetattr(0); a[3] &= ~termios.ECHO; termios.tcsetattr(0, termios.TCSANOW, a); print("raw", flush=True); time.sleep(60)'
	tty_case "$who" none 20 exec --on all -- $PYC -c "$raw"
	expect_terminal_kept "$who: raw mode, killed by the Resource-limits wall clock: modes as before"
	expect_contains "$who: raw mode, the wall clock: the lab says so" "$OUT" "killed: the Resource-limits wall clock"
	tty_case "$who" none 20 exec --off limits -- $PYC -c "$raw"
	expect_terminal_kept "$who: raw mode, Resource-limits off, killed by the safety net: modes as before"
	expect_contains "$who: raw mode, the safety net: the lab says so" "$OUT" "killed by the safety net"
	tty_case "$who" TERM 20 exec --off limits -- $PYC -c "$raw"
	expect_terminal_kept "$who: raw mode, the lab gets SIGTERM: modes as before"
	expect_eq "$who: raw mode, the lab gets SIGTERM: exit 143" "$RC" 143
	tty_case "$who" INT 20 exec --off limits -- $PYC -c "$raw"
	expect_terminal_kept "$who: raw mode, the lab gets SIGINT: modes as before"
	expect_eq "$who: raw mode, the lab gets SIGINT: exit 130" "$RC" 130

	# ---- job control and what stty does not show ----
	tty_case "$who" none 20 exec --on all -- $PYC -c 'import os, signal
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.setpgid(0, 0)
try:
    os.tcsetpgrp(0, os.getpgrp()); print("TIOCSPGRP done")
except OSError as e:
    print("TIOCSPGRP:", e)'
	expect_terminal_kept "$who: exec -- TIOCSPGRP to its own group: the shell's group stays the foreground"
	tty_case "$who" none 20 exec --on all -- $PYC -c 'import fcntl, termios; fcntl.ioctl(0, termios.TIOCEXCL)'
	expect_terminal_kept "$who: exec -- TIOCEXCL: the terminal is not left exclusive"
	tty_case "$who" none 20 exec --off all -- $PYC -c 'import fcntl, struct, termios; fcntl.ioctl(0, termios.TIOCSETD, struct.pack("i", 27))'
	expect_terminal_kept "$who: every layer off, exec -- TIOCSETD N_NULL: the line discipline is still n_tty"
	tty_case "$who" none 20 exec --on all -- $PYC -c 'import termios; termios.tcflow(1, termios.TCOOFF)'
	expect_terminal_kept "$who: exec -- tcflow TCOOFF: output is not left stopped"
done

# ---- what a terminal still does for the command ----
CONF=$T/long.ini
tty_case root none 20 exec --on all -- sh -c 'test -t 0 && test -t 1 && test -t 2 && echo "three terminals" && stty size'
expect_contains "the command's stdin, stdout and stderr are terminals" "$OUT" "three terminals"
expect_contains "the command's terminal has the window's size" "$OUT" $'\n30 100\n'
ACTIONS=("@say:w:typed line\n")
tty_case root none 20 exec --off limits -- $PYC -c 'import sys; print("say:", flush=True); print("read:", sys.stdin.readline().strip())'
expect_contains "the command reads what is typed" "$OUT" "read: typed line"
expect_terminal_kept "after reading what was typed: the terminal as before"
# Ctrl-C is the command's: its SIGINT (Python's KeyboardInterrupt, exit
# 130), not the lab's (which would abort the run and say so)
ACTIONS=("@waiting:w:\x03")
tty_case root none 20 exec --off limits -- $PYC -c 'import time; print("waiting", flush=True); time.sleep(30)'
expect_eq "Ctrl-C interrupts the command: exit 130, its KeyboardInterrupt, no clock or abort of the lab's" \
	"rc=$RC interrupted=$(grep -c KeyboardInterrupt <<<"$OUT") lab=$(grep -c 'stopped by\|safety net\|wall clock' <<<"$OUT")" \
	"rc=130 interrupted=1 lab=0"
expect_terminal_kept "after Ctrl-C: the terminal as before"
ACTIONS=("1.5:r:40x120")
tty_case root none 20 exec --off limits -- sh -c 'sleep 2.5; stty size'
expect_contains "a resize during the run reaches the command" $'\n'"$OUT" $'\n40 120\n'
expect_eq "a resize during the run stays after it (the lab does not put the old size back)" \
	"$(grep -o 'rows [0-9]*; columns [0-9]*' "$T/after.$N")" "rows 40; columns 120"
ACTIONS=()

# gVisor's Sentry gives the command no terminal ioctls on a host fd it was
# handed (stty says ENOTTY), with or without the lab's pty: this guards
# the gvisor exec path (the pty handed to runsc), not the Sentry.
if [[ -x /usr/bin/runsc && $(id -u) == 0 ]]; then
	tty_case root none 40 --rung gvisor exec --on all -- stty rows 5 cols 5 -echo
	if [[ $OUT == *"gvisor"*"ERROR"* || $RC == 125 ]]; then
		skip "gvisor rung: exec -- stty rows 5 cols 5 -echo" "runsc cannot run here: $(grep -m1 containment-lab <<<"$OUT")"
	else
		expect_terminal_kept "gvisor rung: exec -- stty rows 5 cols 5 -echo: the terminal as before"
	fi
else
	skip "gvisor rung: exec -- stty" "runsc is not installed or not root"
fi

expect_eq "nothing left behind (temp folders, cgroups, processes, mounts)" "$(leftovers_snapshot)" "$before_all"
finish
