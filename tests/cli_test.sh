#!/usr/bin/env bash
# tests/cli_test.sh [BINARY] — the command line from outside: every attack
# with its layer on and off, JSON, exec's exit statuses and isolation, bad
# input refused with a clear message, the safety net, output made inert,
# and nothing left behind. Run from the repo root.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
CONF=$PWD/layers.ini
T=$(mktemp -d /tmp/cl-cli.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
# lab() (lib.sh): every JSON document it brings back is kept, for the
# schema check at the end
mkdir "$T/json"
LAB_CONFIG=$CONF LAB_JSON_DIR=$T/json

before=$(leftovers_snapshot)

# ---- help, version, list ----
out=$(lab --help); rc=$?
expect_eq "--help exits 0" "$rc" 0
expect_contains "--help lists the commands" "$out" "matrix [--json|--markdown|--tap]"
expect_contains "--version" "$(lab --version)" "containment-lab "
out=$(lab list)
for s in legit legit-api resource-bomb secret-theft exfil-allowed exfiltration host-takeover kernel-exploit tool-chain tool-injection; do
	expect_contains "list shows $s" "$out" "$s"
done
check "list --json is JSON with 10 snippets (the 8 of the matrix and the 2 tool snippets of matrix --tools)" \
	$PY -c 'import json,sys; d=json.load(sys.stdin); assert d["format"]==1; d=d["snippets"]; assert len(d)==10 and d[0]["name"]=="legit"' < <(lab list --json)

# ---- bad input: refused with a clear message, nothing runs ----
printf '[limits]\n; memory cap\nmemory = 12X\n' >"$T/bad.ini"
err=$("$BIN" --config "$T/bad.ini" run legit 2>&1); rc=$?
expect_eq "malformed size: exit 2" "$rc" 2
expect_contains "malformed size: FILE:LINE and reason" "$err" "$T/bad.ini:3: memory = 12X: expected a size like 256M"
printf '[limits]\npids = -5\n' >"$T/bad2.ini"
err=$("$BIN" --config "$T/bad2.ini" run legit 2>&1); rc=$?
expect_eq "negative pids: exit 2" "$rc" 2
expect_contains "negative pids: FILE:LINE" "$err" "bad2.ini:2: pids = -5"
printf '[layers]\nisolation = on\nfirewall = on\n' >"$T/bad3.ini"
err=$("$BIN" --config "$T/bad3.ini" list 2>&1); rc=$?
expect_contains "unknown layer in layers.ini refused" "$err" "bad3.ini:3: [layers] unknown layer 'firewall'"
printf 'memory = 1G\n' >"$T/bad4.ini"
err=$("$BIN" --config "$T/bad4.ini" list 2>&1); rc=$?
expect_contains "key outside a section refused" "$err" "bad4.ini:1:"
err=$("$BIN" --config "$T/none.ini" list 2>&1); rc=$?
expect_contains "missing config file refused" "$err" "none.ini: cannot read"
err=$(lab run legit --on isolation,firewall 2>&1); rc=$?
expect_eq "unknown layer on the command line: exit 2" "$rc" 2
expect_contains "unknown layer named" "$err" "unknown layer 'firewall'"
err=$(lab run no-such-snippet 2>&1); rc=$?
expect_eq "missing snippet: exit 2" "$rc" 2
expect_contains "missing snippet named" "$err" "no snippet named 'no-such-snippet'"
printf 'print("no header here")\n' >"$T/nohdr.py"
err=$(lab run "$T/nohdr.py" 2>&1); rc=$?
expect_eq "snippet without header: exit 2" "$rc" 2
expect_contains "snippet without header explained" "$err" "missing snippet header"
err=$(lab run legit --on all --off env 2>&1); rc=$?
expect_contains "--on with --off refused" "$err" "cannot be combined"
err=$(lab frobnicate 2>&1); rc=$?
expect_eq "unknown command: exit 2" "$rc" 2
expect_eq "bad input ran nothing" "$(leftovers_snapshot)" "$before"

# ---- each attack against its own layer ----

out=$(lab run exfiltration --on all); rc=$?
expect_eq "exfiltration --on all: exit 0" "$rc" 0
expect_contains "exfiltration contained by No-network" "$out" "CONTAINED by No-network"
expect_contains "exfiltration evidence: Network is unreachable" "$out" "Network is unreachable"
out=$(lab run exfiltration --off network); rc=$?
expect_eq "exfiltration --off network: exit 1" "$rc" 1
expect_contains "exfiltration escaped" "$out" "ESCAPED"
expect_contains "exfiltration: bytes the attacker received" "$out" "The attacker received"
expect_contains "exfiltration: canary row arrived" "$out" "canary row present"
j=$(lab run exfiltration --off network --json)
expect_eq "exfiltration json verdict" "$(field 'd["verdict"]' <<<"$j")" "ESCAPED"
expect_eq "exfiltration json attacker bytes > 1000" "$(field 'd["measured"]["attacker_bytes"] > 1000' <<<"$j")" "True"
expect_eq "exfiltration json layers" "$(field 'd["layers"]' <<<"$j")" "{'isolation': True, 'network': False, 'env': True, 'limits': True}"
j=$(lab run exfiltration --on network --json)
expect_eq "exfiltration json caught_by network" "$(field 'd["caught_by"]' <<<"$j")" "network"
expect_eq "exfiltration json probe errno 101" "$(field 'd["measured"]["net_probe_errno"]' <<<"$j")" "101"
expect_contains "exfiltration json output shows the error the code hit" "$(field 'd["output"]' <<<"$j")" "Network is unreachable"

out=$(lab run secret-theft --on all); rc=$?
expect_contains "secret theft contained by Clean-env" "$out" "CONTAINED by Clean-env"
expect_contains "secret theft evidence: 0 canaries" "$out" "0 of 10 canary secrets"
out=$(lab run secret-theft --off env); rc=$?
expect_eq "secret theft --off env: exit 1" "$rc" 1
expect_contains "secret theft escaped with names" "$out" "AWS_SECRET_ACCESS_KEY"
expect_contains "secret theft: credentials file leaked" "$out" "~/.aws/credentials (aws_access_key_id, aws_secret_access_key)"
expect_contains "secret theft: the environment's keys, read in its own" "$out" \
	"DATABASE_URL from the snippet's own environment"
for f in "~/.ssh/id_ed25519 (the private key)" "~/.git-credentials (a GitHub token)" \
	"~/projects/billing-api/.env (STRIPE_SECRET_KEY)"; do
	expect_contains "secret theft: each decoy file is a source of its own: $f" "$out" "$f"
done
# the credentials file has canaries of its own: its leak is no environment leak
cat >"$T/file-thief.py" <<'EOF'
# lab:title: Secret theft, the credentials file only
# lab:threat: secrets
# lab:layer: env
# lab:consequence: the cloud keys on disk
import os
print(open(os.path.expanduser("~/.aws/credentials")).read())
EOF
out=$(lab run "$T/file-thief.py" --off env)
expect_contains "a credentials-file leak names the file" "$out" "2 of 10 planted secrets came out of the sandbox, from ~/.aws/credentials"
expect_not_contains "a credentials-file leak is no environment leak" "$out" "AWS_ACCESS_KEY_ID"
out=$(CL_USER_SECRET=user-own-secret-91 lab run secret-theft --on none); rc=$?
# the control: the theft ran and its decoys came out (exit 1), so the
# secret's absence below means something
expect_eq "the user's own environment: the theft ran, every layer off (ESCAPED, exit 1)" "$rc" 1
expect_not_contains "the user's own environment never reaches a snippet" "$out" "user-own-secret-91"

# a thief need not print a key plainly: encoded canaries count too
cat >"$T/sly-thief.py" <<'EOF'
# lab:title: Secret theft, encoded
# lab:threat: secrets
# lab:layer: env
# lab:consequence: the keys left base64- and hex-encoded
import base64, os
blob = "x" + os.environ.get("GITHUB_TOKEN", "") + "|" + os.environ.get("AWS_SECRET_ACCESS_KEY", "")
print(base64.b64encode(blob.encode()).decode())
print(os.environ.get("ANTHROPIC_API_KEY", "").encode().hex())
EOF
out=$(lab run "$T/sly-thief.py" --off env); rc=$?
expect_eq "encoded secrets: exit 1" "$rc" 1
expect_contains "base64- and hex-encoded secrets are caught" "$out" "AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, ANTHROPIC_API_KEY"
out=$(lab run "$T/sly-thief.py" --on all)
expect_contains "encoded theft contained by Clean-env" "$out" "CONTAINED by Clean-env"

out=$(lab run host-takeover --on all); rc=$?
expect_contains "host takeover contained by Isolation" "$out" "CONTAINED by Isolation"
expect_contains "host takeover evidence: target not created" "$out" "host target not created"
out=$(lab run host-takeover --off isolation); rc=$?
expect_eq "host takeover --off isolation: exit 1" "$rc" 1
expect_contains "host takeover escaped: file planted" "$out" "host target created"

out=$(lab run resource-bomb --on all); rc=$?
expect_contains "resource bomb contained by Resource-limits" "$out" "CONTAINED by Resource-limits"
expect_contains "resource bomb evidence: peak processes" "$out" "peak processes: "
out=$(lab run resource-bomb --off limits); rc=$?
expect_eq "resource bomb --off limits: exit 1" "$rc" 1
# which cap it passed first depends on the machine's speed (65 processes
# on a quiet one, the wall clock on a loaded one): the bench's figure, not this test's
expect_contains "resource bomb escaped past a cap of layers.ini" "$out" "The bomb took "

out=$(lab run legit --on all); rc=$?
expect_eq "legit --on all: exit 0" "$rc" 0
expect_contains "legit ran ok" "$out" "RAN OK"
cp snippets/legit.py "$T/my-task.py"
out=$(lab run "$T/my-task.py" --on none); rc=$?
expect_contains "run takes a path to a snippet file" "$out" "my-task"
expect_contains "run by path works" "$out" "RAN OK"

# ---- output is made inert, and capped ----
cat >"$T/noisy.py" <<'EOF'
# lab:title: Terminal hijack attempt
# lab:threat: legit
# lab:layer: none
# lab:expect: done
import sys
sys.stdout.write("\x1b[2J\x1b]0;pwned\x07\x1b[31mRED\r\n")
for i in range(200000):
    sys.stdout.write("flood line %d\n" % i)
print("done")
EOF
out=$(lab run "$T/noisy.py" --on all)
expect_contains "escape sequences shown inert" "$out" '^[[2J^[]0;pwned^G^[[31mRED^M'
if printf '%s' "$out" | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]'; then
	not_ok "no control character reaches the terminal"
else
	ok "no control character reaches the terminal"
fi
j=$(lab run "$T/noisy.py" --on all --json)
expect_eq "output capped at the limits layer's 64K" "$(field 'len(d["output"]) <= 70000 and d["output_truncated"]' <<<"$j")" "True"

# ---- exec ----
OLDPWD_REPO=$PWD
cd "$T" || exit 1
lab exec --on all -- /bin/true; expect_eq "exec: exit status 0" "$?" 0
lab exec --on all -- /bin/sh -c 'exit 3'; expect_eq "exec: exit status 3" "$?" 3
# the run's init is PID 1, so a command's own signals act as in a shell
lab exec --on network,env,limits -- /bin/sh -c 'kill -9 $$'; expect_eq "exec: signal 9 gives 137" "$?" 137
lab exec --on isolation -- /bin/sh -c 'kill -9 $$; echo survived'; expect_eq "exec --on isolation: signal 9 gives 137" "$?" 137
lab exec --on all -- /bin/sh -c 'kill -TERM $$; echo survived'; expect_eq "exec --on all: SIGTERM gives 143" "$?" 143
expect_eq "exec: a signal sent to PID 1 reaches the command" "$(lab exec --on all -- /bin/sh -c 'trap "echo got TERM; exit 0" TERM; kill -TERM 1; sleep 1' 2>&1)" "got TERM"
lab exec --on all -- /no/such/cmd 2>/dev/null; expect_eq "exec: not found gives 127" "$?" 127
lab exec --on all -- "$T/layers-not-exec" 2>/dev/null; expect_eq "exec: missing path gives 127" "$?" 127
touch "$T/plain"; chmod 644 "$T/plain"
lab exec --on all -- "$T/plain" 2>/dev/null; expect_eq "exec: not executable gives 126" "$?" 126
expect_eq "exec isolation: root inside" "$(lab exec --on isolation -- /usr/bin/id -u)" 0
expect_eq "exec isolation: own hostname" "$(lab exec --on isolation -- /bin/cat /proc/sys/kernel/hostname)" sandbox
expect_eq "exec isolation: the command is PID 2, under the run's init" "$(lab exec --on isolation -- /bin/sh -c 'echo $$')" 2
expect_eq "exec isolation: sees only its own processes (init and itself)" "$(lab exec --on isolation -- /bin/ls /proc | grep -c '^[0-9]')" 2
expect_eq "exec without isolation: its own PID namespace too (the range)" "$(lab exec --off isolation -- /bin/ls /proc | grep -c '^[0-9]')" 2
expect_contains "exec isolation: no capabilities" "$(lab exec --on isolation -- /bin/grep CapEff /proc/self/status)" "0000000000000000"
expect_contains "exec isolation: seccomp on" "$(lab exec --on isolation -- /bin/grep Seccomp: /proc/self/status)" "2"
expect_contains "exec isolation: no_new_privs" "$(lab exec --on isolation -- /bin/grep NoNewPrivs /proc/self/status)" "1"
lab exec --on isolation -- /bin/sh -c 'echo x > written' 2>/dev/null
expect_eq "exec: the current folder is read-only" "$?" 2
# as root, root inside is uid 65534 outside: it may only write what that uid may
mkdir -m 777 "$T/rw" && cd "$T/rw" || exit 1
lab exec --on isolation --rw -- /bin/sh -c 'echo x > written'
check "exec --rw: the current folder is writable" test -f "$T/rw/written"
cd "$T" || exit 1
# each path on its own: one missing path must not vouch for the others
for p in /home /root/.ssh /etc/shadow; do
	lab exec --on isolation -- /bin/sh -c "test -e $p || test -L $p"
	expect_eq "exec isolation: the host's $p is not there" "$?" 1
done
err=$(lab exec --on network -- $PY -c 'import socket; socket.create_connection(("127.0.0.1", 9), 1)' 2>&1)
expect_contains "exec network: connect fails with ENETUNREACH" "$err" "Network is unreachable"
err=$(lab exec --on network -- $PY -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)' 2>&1)
expect_contains "exec network: AF_VSOCK (not fenced by the namespace) is refused" "$err" "Address family not supported"
envout=$(CL_FAKE_SECRET=abc123 lab exec --on env -- /usr/bin/env)
expect_not_contains "exec env: secrets dropped" "$envout" "CL_FAKE_SECRET"
expect_contains "exec env: HOME reset" "$envout" "HOME="
envout=$(CL_FAKE_SECRET=abc123 lab exec --on none -- /usr/bin/env)
expect_contains "exec env off: the environment passes (naive)" "$envout" "CL_FAKE_SECRET=abc123"
expect_eq "exec env: no fd beyond stdio" "$(lab exec --on env -- /bin/ls /proc/self/fd 3</dev/null | tr '\n' ' ')" "0 1 2 3 "
lab exec --on limits -- $PY -c 'bytearray(512*1024*1024)' 2>/dev/null
expect_eq "exec limits: a 512 MiB allocation fails" "$?" 1
cd - >/dev/null || exit 1

# the wall clock and the safety net, with short timeouts
printf '[limits]\ntimeout = 500ms\n[safety]\ntimeout = 1s\n' >"$T/short.ini"
start=$(date +%s%N)
err=$("$BIN" --config "$T/short.ini" exec --on limits -- /bin/sleep 30 2>&1); rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
expect_eq "limits wall clock kills: 137" "$rc" 137
expect_contains "limits wall clock says so" "$err" "wall clock"
# the clock, not sleep 30, ended it (how soon is the bench's business)
check "limits wall clock ended it before the sleep did ($ms ms)" test "$ms" -lt 29000
err=$("$BIN" --config "$T/short.ini" exec --on none -- /bin/sleep 30 2>&1); rc=$?
expect_eq "safety net kills with every layer off: 137" "$rc" 137
expect_contains "safety net says so" "$err" "safety net"
# double-forked, setsid'd processes do not outlive the run, whatever the layers
for on in none isolation limits; do
	mark="$((RANDOM + 40000))"
	lab exec --on $on -- /bin/sh -c "setsid /bin/sh -c '/bin/sleep $mark & ' ; (/bin/sleep $mark &) ; /bin/sleep 0.2"
	# the control: the command ran to its end, so its sleeps were started
	expect_eq "escaped processes: the command that forks them ran (--on $on, exit 0)" "$?" 0
	sleep 0.2
	if pgrep -f "sleep $mark" >/dev/null; then
		not_ok "escaped processes killed (--on $on)" "$(pgrep -af "sleep $mark")"
		pkill -f "sleep $mark"
	else
		ok "escaped processes killed (--on $on)"
	fi
done

# A lab inside the lab's own Isolation layer cannot make namespaces (its
# seccomp filter refuses them, like Docker's default profile): the cells
# that need them say ERROR with the reason and the fix, the rest still run.
# Root inside the sandbox is an unprivileged uid outside, and the clone may
# sit in a folder only root may enter: stage the inner lab in $T (0755).
mkdir -p "$T/nested" && cp "$BIN" "$T/nested/lab" && cp -r layers.ini snippets "$T/nested/" 2>/dev/null ||
	cp -r "$OLDPWD_REPO/layers.ini" "$OLDPWD_REPO/snippets" "$T/nested/"
chmod -R a+rX "$T/nested"
cd "$T/nested" || exit 1
# (the sanitizers' log folder is not inside that sandbox, and LeakSanitizer
# needs ptrace, which the filter refuses: ASan and UBSan still watch)
nested() {
	# (the suite's TMPDIR is not inside the sandbox: the inner lab uses /tmp)
	lab exec --on isolation -- /usr/bin/env -u UBSAN_OPTIONS -u TMPDIR ASAN_OPTIONS=detect_leaks=0 \
		./lab --config layers.ini "$@"
}
out=$(nested run exfiltration --on all); rc=$?
expect_eq "no namespaces available: ERROR exit 4" "$rc" 4
expect_contains "no namespaces available: says why and what to do" "$out" "seccomp=unconfined"
out=$(nested matrix); rc=$?
expect_eq "no namespaces available: matrix exits 1" "$rc" 1
expect_contains "no namespaces available: no cell runs without the range" "$out" "0/128 cells as expected (128 differ, 128 errors)"
cd "$T" || exit 1

# descriptors the lab inherits (a shell's 7</) never reach a sandbox,
# whatever the layers: they are the user's real files
fds=$(lab exec --on none -- /bin/ls /proc/self/fd 7</); rc=$?
expect_eq "inherited descriptors: the listing ran (exec, all off, exit 0)" "$rc" 0
expect_not_contains "inherited descriptors stay out (exec, all off)" "$(tr '\n' ' ' <<<"$fds")" " 7 "
cat >"$T/fd-escape.py" <<'EOF'
# lab:title: Host write through an inherited descriptor
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: a file planted on the host through a leaked directory handle
import os
target = os.environ["LAB_HOST_TARGET"]
for fd in range(3, 64):
    try:
        os.stat(fd)
    except OSError:
        continue
    try:
        os.open(target, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        print("planted through fd", fd)
    except OSError as e:
        print("fd", fd, e)
EOF
out=$(lab run "$T/fd-escape.py" --off env 7</)
expect_contains "an inherited directory handle cannot beat Isolation" "$out" "CONTAINED by Isolation"
# a chain that forks and exits over and over is swept too (no PID namespace)
cat >"$T/chain.py" <<'EOF'
import os, sys, time
deadline = time.time() + 3
while time.time() < deadline:
    try:
        if os.fork():
            os._exit(0)
        os.setsid()
    except OSError:
        time.sleep(0.001)
EOF
rcs=""
for on in none limits network; do
	lab exec --on $on -- /usr/bin/python3 "$T/chain.py"
	rcs+="$? "
done
# the control: each chain's first process ran (it exits 0 at its first fork)
expect_eq "fork-and-exit chains ran (exit 0 under --on none, limits, network)" "$rcs" "0 0 0 "
sleep 0.5
if pgrep -f "$T/chain.py" >/dev/null; then
	not_ok "fork-and-exit chains do not outlive the run" "$(pgrep -af "$T/chain.py")"
	pkill -f "$T/chain.py"
else
	ok "fork-and-exit chains do not outlive the run"
fi

# if the lab itself is killed, its sandbox dies with it (PR_SET_PDEATHSIG,
# armed again after the sandbox changed its ids)
for on in all none; do
	mark="$((RANDOM + 40000))"
	"$BIN" --config "$CONF" exec --on $on -- /bin/sleep $mark &
	labpid=$!
	# the control: the sandbox's sleep is running before the lab is killed
	# (its command line is exactly that; the lab's own holds more)
	seen=0
	for _ in $(seq 400); do
		pgrep -xf "/bin/sleep $mark" >/dev/null && seen=1 && break
		sleep 0.05
	done
	expect_eq "the sandbox's command ran before its lab was killed (--on $on)" "$seen" 1
	kill -9 $labpid
	wait $labpid 2>/dev/null
	sleep 0.3
	if pgrep -f "sleep $mark" >/dev/null; then
		not_ok "killing the lab kills its sandbox (--on $on)" "$(pgrep -af "sleep $mark")"
		pkill -f "sleep $mark"
	else
		ok "killing the lab kills its sandbox (--on $on)"
	fi
done
# a killed lab could not clean up; the next run sweeps what it left
lab exec --on none -- /bin/true
# and should a sandbox ever outlive its lab, its cgroup gives it away: the
# next run ends it (simulated: a process in the cgroup of a pid that is gone)
if [[ $(id -u) != 0 ]]; then
	skip "a sandbox that outlived its lab is ended by the next run" "only root's lab creates cgroups"
elif [[ ! -f /sys/fs/cgroup/pids/tasks ]]; then
	skip "a sandbox that outlived its lab is ended by the next run" \
		"no cgroup v1 pids hierarchy here (cgroup v2 only?); the simulated orphan is planted in a v1 pids cgroup"
else
	dead=$(( $(cat /proc/sys/kernel/pid_max) - 7 ))
	while kill -0 $dead 2>/dev/null; do dead=$((dead - 1)); done
	cg=/sys/fs/cgroup/pids/containment-lab.run-$dead-0
	/bin/sleep 3$RANDOM &
	orphan=$!
	disown $orphan # its end is the point: no job-control notice
	# another script's run may sweep the empty cgroup between the mkdir
	# and the move (its pid is gone: stale): made and filled back to back,
	# again if it went
	for _ in 1 2 3 4 5; do
		mkdir "$cg" 2>/dev/null
		echo "$orphan" 2>/dev/null >"$cg/cgroup.procs" && break
	done
	sleep 0.2
	lab exec --on none -- /bin/true
	sleep 0.2
	if kill -0 $orphan 2>/dev/null; then
		not_ok "a sandbox that outlived its lab is ended by the next run"
		kill -9 $orphan
	else
		ok "a sandbox that outlived its lab is ended by the next run"
	fi
	check "and its cgroup is gone" test ! -d "$cg"
fi

# ---- a terminal that is not UTF-8 (issue 7.14) ----
# LC_ALL=C: the lab's own dashes, arrows and quotes come out as ASCII, not
# as raw UTF-8 or '???'; other non-ASCII text as \uXXXX; JSON stays UTF-8.
non_ascii() { LC_ALL=C grep -naP '[^\x00-\x7F]'; }
# each with the exit status it must have: the control that it ran, so an
# empty output cannot pass for ASCII
for run in "run legit:0" "run exfiltration --off network:1" "run resource-bomb --off limits:1" "list:0" "--help:0" "run --help:0"; do
	args=${run%:*}
	# shellcheck disable=SC2086
	out=$(LC_ALL=C lab $args 2>&1); rc=$?
	expect_eq "LC_ALL=C $args: it ran (exit ${run##*:})" "$rc" "${run##*:}"
	bad=$(non_ascii <<<"$out" | head -3)
	if [[ -z "$bad" ]]; then ok "LC_ALL=C $args: ASCII only"; else not_ok "LC_ALL=C $args: ASCII only" "$(cat -v <<<"$bad")"; fi
done
expect_contains "LC_ALL=C: an em dash becomes --" "$(LC_ALL=C lab run legit)" "legit -- legitimate task"
expect_contains "LC_ALL=C: an evidence line's dash becomes --" "$(LC_ALL=C lab run resource-bomb --off limits)" ") -- "
expect_contains "LC_ALL=C.UTF-8 keeps the em dash" "$(LC_ALL=C.UTF-8 lab run legit)" "legit — legitimate task"
expect_contains "LANG=C.UTF-8 with LC_ALL unset keeps the em dash" "$(env -u LC_ALL -u LC_CTYPE LANG=C.UTF-8 "$BIN" --config "$CONF" run legit)" "legit — legitimate task"
mkdir -p "$T/u8/sn"
cp "${CONF%/layers.ini}/snippets/sales.csv" "$T/u8/sn/"
printf '[paths]\nsnippets = sn\npython = /usr/bin/python3\n' >"$T/u8/layers.ini"
printf '# lab:title: Prints caf\xc3\xa9 \xe2\x80\x94 and more\n# lab:threat: legit\n# lab:layer: none\n# lab:expect: ok\nprint("caf\\u00e9 \\u2014 \\u4e2d \\u2192 ok")\n' >"$T/u8/sn/u8.py"
out=$(LC_ALL=C "$BIN" --config "$T/u8/layers.ini" run u8 2>&1)
expect_contains "LC_ALL=C: the snippet's non-ASCII output readable, never raw" "$out" '| caf\u00e9 -- \u4e2d -> ok'
if [[ -z "$(non_ascii <<<"$out")" ]]; then ok "LC_ALL=C: a snippet's UTF-8 output comes out ASCII"; else not_ok "LC_ALL=C: a snippet's UTF-8 output comes out ASCII"; fi
expect_contains "LC_ALL=C list: a header's UTF-8 title readable" "$(LC_ALL=C "$BIN" --config "$T/u8/layers.ini" list)" 'Prints caf\u00e9 -- and more'
j=$(LC_ALL=C "$BIN" --config "$T/u8/layers.ini" run u8 --json)
expect_contains "LC_ALL=C --json stays UTF-8" "$j" 'café — 中 → ok'
check "LC_ALL=C --json is valid UTF-8 JSON" $PY -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode("utf-8","strict"))' <<<"$j"

# ---- a run stopped by a signal cleans up first (red team round 3) ----
# Killed mid-run the lab used to leave the run folder (decoy CSV and
# credentials) and its cgroups. SIGINT, SIGTERM and SIGHUP now abort the
# run: run reports ERROR "Aborted" (4), exec 128+N; nothing is left.
mkdir -p "$T/sig"
cp "$BIN" "$T/sig/containment-lab"
cp "$CONF" "$T/sig/layers.ini"
cp -r "${CONF%/layers.ini}/snippets" "$T/sig/"
printf '# lab:title: holds on\n# lab:threat: exfil\n# lab:layer: network\n# lab:consequence: test\nimport os, time\nfor i in range(3):\n    if os.fork() == 0:\n        time.sleep(60); os._exit(0)\nprint("holding", flush=True)\ntime.sleep(60)\n' >"$T/sig/hold.py"
chmod -R a+rX "$T/sig"
whos=(root)
[[ $(id -u) == 0 ]] && whos+=(nobody)
for who in "${whos[@]}"; do
	runner=()
	[[ $who == nobody ]] && runner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	for sig in INT TERM HUP; do
		t0=$(date +%s%N)
		# exec: $! is the lab's own pid, which names its run folder and cgroups
		(cd "$T/sig" && exec "${runner[@]}" ./containment-lab --config layers.ini --network-mode allowlist \
			run ./hold.py --on all >"$T/sig/out" 2>&1) &
		lp=$!
		for _ in $(seq 50); do
			compgen -G "$TMPDIR/containment-lab.$lp.*" >/dev/null && break
			sleep 0.05
		done
		sleep 1.5
		kill -"$sig" "$lp"
		wait "$lp"
		rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		left=$(ls -d "$TMPDIR"/containment-lab."$lp".* /sys/fs/cgroup/*/containment-lab.run-"$lp"-* 2>/dev/null)
		got="rc=$rc aborted=$(grep -c 'Aborted: the run was stopped and cleaned up' "$T/sig/out") left=[$left] fast=$((ms < 40000))"
		expect_eq "$who: run stopped by SIG$sig mid-run: ERROR (4), says Aborted, no run folder or cgroup left, no wait for the snippet" \
			"$got" "rc=4 aborted=1 left=[] fast=1"
	done
	for sig in INT TERM; do
		(cd "$T/sig" && exec "${runner[@]}" ./containment-lab --config layers.ini exec --on all -- /bin/sleep 60) 2>"$T/sig/err" &
		lp=$!
		# the signal once the run is under way (the range's first process
		# comes after the lab's handlers are in), not after a second a
		# loaded machine may need
		for _ in $(seq 200); do
			pgrep -P "$lp" >/dev/null && break
			sleep 0.05
		done
		sleep 0.2
		kill -"$sig" "$lp"
		wait "$lp"
		rc=$?
		want=$((128 + $(kill -l "$sig")))
		left=$(ls -d "$TMPDIR"/containment-lab."$lp".* /sys/fs/cgroup/*/containment-lab.run-"$lp"-* 2>/dev/null)
		expect_eq "$who: exec stopped by SIG$sig: exit $want, says so, nothing left" \
			"rc=$rc said=$(grep -c 'exec stopped by' "$T/sig/err") left=[$left]" "rc=$want said=1 left=[]"
	done
done
if pgrep -f "$T/sig/hold.py|/bin/sleep 60" >/dev/null; then
	not_ok "no snippet process left after the stopped runs" "$(pgrep -af "$T/sig/hold.py|/bin/sleep 60")"
else
	ok "no snippet process left after the stopped runs"
fi

expect_eq "nothing left behind (temp folders, cgroups, processes, mounts)" "$(leftovers_snapshot)" "$before"
# ---- the man page: every command, its exit statuses, every option of --help ----
man=${CONF%/layers.ini}/docs/containment-lab.1
nocmd=""
for c in tui list run matrix exec audit twin; do
	grep -qE "^\.R?B (\[ )?$c( \])?\$" "$man" && grep -qE "^\.SS .*\b$c\b" "$man" || nocmd="$nocmd $c"
done
expect_eq "the man page has every command in its synopsis and under EXIT STATUS" "$nocmd" ""
missing=""
opts=$(lab --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
# the control: --help named options (an empty list would leave none missing)
expect_contains "--help names the options the man page is checked for (--json among them)" "$opts" "--json"
for o in $opts; do
	grep -qF -- "${o//-/\\-}" "$man" || missing="$missing $o"
done
expect_eq "the man page names every option --help names" "$missing" ""
err=$(lab -V); expect_eq "-V is --version" "$err" "$(lab --version)"
json_schema_check "every JSON this script's runs wrote" "$T"/json/*
finish
