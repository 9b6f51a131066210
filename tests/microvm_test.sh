#!/usr/bin/env bash
# tests/microvm_test.sh [BINARY] — the microvm rung (issue 8): as root, the
# snippet runs on its own guest kernel in a QEMU microvm. The legit task
# runs; exfiltration is CONTAINED by No-network (no NIC) and ESCAPES with
# it off (a user-mode NIC reaches the lab's listener in QEMU's own netns); the guest's init
# names its kernel; nothing is left behind. Skipped, with the reason, where
# QEMU, a guest kernel or the static guest init is missing. TCG boots take
# ~5 s here: four runs, about half a minute.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-microvm.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT

why=""
if [[ $(id -u) != 0 ]]; then
	why="not root (the suite runs the microvm rung as root)"
elif ! command -v qemu-system-x86_64 >/dev/null; then
	why="qemu-system-x86_64 is missing (apt-get install qemu-system-x86)"
elif ! compgen -G "/boot/vmlinuz-*" >/dev/null; then
	why="no guest kernel under /boot (apt-get install linux-image-amd64)"
elif [[ ! -x build/vm-init ]]; then
	why="build/vm-init is missing: no static libc to build the guest init (apt-get install libc6-dev)"
fi
if [[ -n $why ]]; then
	skip "the microvm rung" "$why"
	finish
	exit
fi

# the boot counts against the wall clock: TCG needs more than the default 5 s.
# And the CPU-time cap: a guest whose vCPU thread the loaded host keeps off
# the CPU charges the time it waited to the task that ran when it was cut
# off (the guest's clock ran on), so the legit task crossed 2 s of "CPU"
# in CI (FAILED after 28 s at load 10). This test is about the rung.
# At load 30 a TCG guest took ~2 min to boot here: the run's clocks are
# made loose enough that load changes the time, not the result.
sed -e '/^\[limits\]/,/^\[/{s/^timeout = .*/timeout = 240s/;s/^cpu_time = .*/cpu_time = 120s/}' \
	-e '/^\[safety\]/,/^\[/s/^timeout = .*/timeout = 400s/' layers.ini >"$T/layers.ini"
LAB_CONFIG=$T/layers.ini LAB_WRAP=(env "LAB_VM_INIT=$PWD/build/vm-init") # lab() (lib.sh)

before=$(leftovers_snapshot)

t0=$(date +%s%N)
j=$(lab run legit --on all --rung microvm --json)
ms=$((($(date +%s%N) - t0) / 1000000))
echo "# legit on the microvm rung: ${ms} ms wall"
expect_eq "legit on the microvm rung: RAN OK" "$(field 'd["verdict"]' <<<"$j")" "RAN OK"
mech=$(field 'd["mechanisms"]' <<<"$j")
host_rel=$(uname -r)
rel=$(sed -n 's/.*guest kernel \([^,]*\),.*/\1/p' <<<"$mech")
if [[ -n $rel && $rel != "?" ]]; then
	ok "the guest's init named its kernel ($rel; the host runs $host_rel)"
else
	not_ok "the guest's init named its kernel" "mechanisms: $mech"
fi
expect_contains "mechanisms say how the guest ran" "$mech" "microVM: QEMU microvm"
if [[ $mech == *", kvm"* || $mech == *", tcg"* ]]; then
	ok "mechanisms say tcg or kvm"
else
	not_ok "mechanisms say tcg or kvm" "$mech"
fi

j=$(lab run exfiltration --on all --rung microvm --json)
expect_eq "exfiltration, all on: CONTAINED" "$(field 'd["verdict"]' <<<"$j")" "CONTAINED"
expect_eq "exfiltration, all on: by No-network" "$(field 'd["caught_by"]' <<<"$j")" "network"
expect_contains "the guest's probe: connect() -> ENETUNREACH (no NIC)" "$j" '"net_probe_errno":101'

# Resource-limits off too: under TCG on a loaded host the guest's python can
# meet RLIMIT_CPU (2 s) before it connects, and this check is about the NIC
j=$(lab run exfiltration --off network,limits --rung microvm --json)
expect_eq "exfiltration, No-network off: ESCAPED" "$(field 'd["verdict"]' <<<"$j")" "ESCAPED"
expect_contains "the attacker on the host received the canary row" "$j" '"attacker_got_canary":true'

# Clean-env off shares the decoy home read-only at /root
j=$(lab run secret-theft --off env --rung microvm --json)
expect_eq "secret-theft, Clean-env off: ESCAPED (the decoy home at /root)" "$(field 'd["verdict"]' <<<"$j")" \
	"ESCAPED"

# exec on the guest kernel (issue 21): its release, stdout and stderr apart,
# the exit status, uid 65534, stdin passed through, the cwd read-only
out=$(printf 'from-stdin\n' | lab exec --rung microvm --on all -- \
	sh -c 'uname -r; id -u; cat; echo to-stderr >&2; touch x 2>/dev/null || echo ro; exit 7' 2>"$T/exec.err")
rc=$?
expect_eq "exec --rung microvm: the command's exit status is the lab's" "$rc" 7
guest_rel=$(head -1 <<<"$out")
if [[ -n $guest_rel && $guest_rel != "$(uname -r)" ]]; then
	ok "exec --rung microvm: uname -r is the guest's ($guest_rel, the host runs $(uname -r))"
else
	not_ok "exec --rung microvm: uname -r is the guest's" "got '$guest_rel'"
fi
expect_eq "exec --rung microvm: the command is uid 65534 in the guest" "$(sed -n 2p <<<"$out")" 65534
expect_eq "exec --rung microvm: stdin passed through" "$(sed -n 3p <<<"$out")" from-stdin
expect_eq "exec --rung microvm: the current folder is read-only" "$(sed -n 4p <<<"$out")" ro
expect_contains "exec --rung microvm: stderr on the lab's stderr" "$(cat "$T/exec.err")" to-stderr
if [[ $out == *to-stderr* ]]; then
	not_ok "exec --rung microvm: stderr apart from stdout" "$out"
else
	ok "exec --rung microvm: stderr apart from stdout"
fi
lab exec --rung microvm --on all -- sh -c 'kill -TERM $$' 2>/dev/null
expect_eq "exec --rung microvm: death by SIGTERM is 128+15" "$?" 143
lab exec --rung microvm --on all -- no-such-command-cl 2>"$T/exec.err"
expect_eq "exec --rung microvm: a missing command is 127" "$?" 127
# the layer set: No-network on, no NIC; off, a NIC (nothing is sent)
nics=$(lab exec --rung microvm --on isolation,network -- ls /sys/class/net 2>/dev/null | tr '\n' ' ')
expect_eq "exec --rung microvm, No-network on: no NIC, only lo" "$nics" "lo "
nics=$(lab exec --rung microvm --on isolation -- ls /sys/class/net 2>/dev/null | tr '\n' ' ')
expect_eq "exec --rung microvm, No-network off: a NIC" "$nics" "eth0 lo "
# Isolation off: every rung is the container, the host's kernel
expect_eq "exec --rung microvm --on none: the host's kernel" \
	"$(lab exec --rung microvm --on none -- uname -r 2>/dev/null)" "$(uname -r)"

# No-network's allow-list on the microvm rung: the egress proxy is the one
# door, judged as on the container rung
al() { lab run --rung microvm --network-mode allowlist "$@" --json; }
j=$(al exfiltration)
expect_eq "allowlist, exfiltration: CONTAINED" "$(field 'd["verdict"]' <<<"$j")" "CONTAINED"
expect_eq "allowlist, exfiltration: by No-network" "$(field 'd["caught_by"]' <<<"$j")" "network"
expect_contains "allowlist, exfiltration: the guest's probe off the door -> ENETUNREACH" "$j" \
	'"route_probe_errno":101'
# Isolation's deny list in the guest (issue 21): a seccomp filter the
# guest's init installs on the snippet's process and answers, then reports
# over the serial line. The same calls, decoded the same way, as the
# container's trace; the strings read inside the guest.
mkdir -p "$T/snip"
cat >"$T/snip/refuse.py" <<'PY'
# lab:title: refusals with strings
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: the host is changed
import ctypes
l = ctypes.CDLL(None, use_errno=True)
for i in range(3):
    l.mount(b"/dev/sda1", b"/mnt/" + b"x" * 60, b"ext4", 0, None)
l.syscall(272, 0x10000000)  # unshare(CLONE_NEWUSER)
l.syscall(135, 0x0040000)   # personality(ADDR_NO_RANDOMIZE)
l.syscall(250, 0, 0, 0)     # keyctl
print("errno after keyctl:", ctypes.get_errno())
PY
chmod -R a+rX "$T/snip"
tr_lines='"\n".join(t["call"] + " = " + t["result"] + " x" + str(t["count"]) for t in d["trace"])'
jc=$(lab run "$T/snip/refuse.py" --on all --json)
jm=$(lab run "$T/snip/refuse.py" --on all --rung microvm --json)
expect_eq "the guest's filter: CONTAINED by Isolation" "$(field 'd["verdict"] + " " + d["caught_by"]' <<<"$jm")" \
	"CONTAINED isolation"
expect_contains "... the snippet saw EPERM" "$jm" "errno after keyctl: 1"
if [[ -n $(field "$tr_lines" <<<"$jm") && $(field "$tr_lines" <<<"$jm") == "$(field "$tr_lines" <<<"$jc")" ]]; then
	ok "the guest's refusals are the container's, call by call (strings read in the guest, counts)"
else
	not_ok "the guest's refusals are the container's, call by call" "container: $(field "$tr_lines" <<<"$jc")" \
		"microvm: $(field "$tr_lines" <<<"$jm")"
fi
expect_eq "... each answered by the guest's seccomp (Isolation)" \
	"$(field 'sorted(set(t["by"] for t in d["trace"]))' <<<"$jm")" "['seccomp (Isolation) in the guest']"
att='(d["attempts"]["watched_isolation"], d["attempts"]["isolation_refused"])'
# the guest's filter has no path rules: a write aimed at the host target is
# not watched there, so "watched" stays false (the red team's finding 1)
expect_eq "... 6 refusals counted, Isolation's writes not watched in the guest" "$(field "$att" <<<"$jm")" "(False, 6)"
expect_eq "... as the container counts them" "$(field "$att" <<<"$jc")" "(True, 6)"
expect_contains "... the mechanisms say so" "$(field 'd["mechanisms"]' <<<"$jm")" \
	"guest seccomp: Isolation's deny list, its init answers and reports"
j=$(lab run host-takeover --on all --rung microvm --json)
# red team, finding 5: the evidence quotes the refusal as on the container
expect_contains "host-takeover on the microvm: the evidence quotes the refused call" \
	"$(field '"|".join(d["evidence"])' <<<"$j")" "refused by the seccomp filter: "
# finding 6: the mechanisms line is whole (the wall clock is its last words)
expect_contains "... the mechanisms line is not cut" "$(field 'd["mechanisms"]' <<<"$j")" "wall-clock timeout"
expect_contains "host-takeover on the microvm: the trace lists a refused call" \
	"$(field '[t["line"] for t in d["trace"]]' <<<"$j")" "EPERM  seccomp (Isolation) in the guest"
# finding 1: a write aimed at the host target, no call of the deny list:
# CONTAINED (the guest cannot reach it), never BROKE for "no attempt seen"
cat >"$T/snip/target.py" <<'PY'
# lab:title: a write aimed at the host target only
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: the host is changed
import os
try:
    open(os.environ["LAB_HOST_TARGET"], "w").write("* * * * * root sh -c evil\n")
except OSError as e:
    print("refused", e)
PY
# finding 2: a refusal whose report line is long (three 47-byte strings,
# every other argument all ones) must not swallow the guest cgroup's figures
cat >"$T/snip/longline.py" <<'PY'
# lab:title: a long refusal line
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: the host is changed
import ctypes as c
l = c.CDLL(None)
M = c.c_ulong(2**64 - 1)
s = [c.create_string_buffer(bytes([65 + i]) * 60) for i in range(3)]
l.syscall(c.c_ulong(165), s[0], s[1], s[2], M, M, M)
print("done")
PY
chmod -R a+rX "$T/snip"
j=$(lab run "$T/snip/target.py" --on all --rung microvm --json)
expect_eq "a write aimed at the host target alone, microvm: CONTAINED by Isolation" \
	"$(field 'd["verdict"] + " " + d["caught_by"]' <<<"$j")" "CONTAINED isolation"
j=$(lab run "$T/snip/longline.py" --on all --rung microvm --json)
expect_contains "a long refusal line: listed" "$(field '[t["call"] for t in d["trace"]]' <<<"$j")" 'mount("AAAA'
expect_contains "... and the guest cgroup's figures still came" "$(field 'd["mechanisms"]' <<<"$j")" \
	"figures from the guest's cgroup"
# red team on the guest filter, finding 3: the init's table keyed each
# call on all six raw arguments, so 100 mounts that differ only in an
# argument the trace does not show (the data pointer) filled its 48 rows,
# the unshare after them was not listed and 52 refusals were not counted.
# Keyed on what the trace shows, they are one line x100, as on the container.
cat >"$T/snip/manymounts.py" <<'PY'
# lab:title: mounts that differ where the trace does not look
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: the host is changed
import ctypes as c
l = c.CDLL(None)
for i in range(100):
    l.mount(b"none", b"/mnt", b"tmpfs", 0, c.c_void_p(4096 + i))
l.syscall(272, 0x10000000)  # unshare(CLONE_NEWUSER)
print("done")
PY
# finding 4: a child left behind that keeps calling a refused call woke
# the init's relay loop with every notification, so the 200 ms it waits
# for a quiet line never came: the run ended on the wall clock, its
# refusals lost. The run ends with the snippet, as on the container.
cat >"$T/snip/leftover.py" <<'PY'
# lab:title: a child left behind calling a refused call
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: the host is changed
import ctypes as c, os
l = c.CDLL(None)
l.syscall(272, 0x10000000)
if os.fork() == 0:
    while True:
        l.syscall(272, 0x10000000)
print("parent gone")
PY
# ... and calls past the init's table are still counted: 60 mounts that
# differ where the trace looks, then the unshare
sed -e 's|b"/mnt", b"tmpfs", 0, c.c_void_p(4096 + i)|b"/mnt/%d" % (i % 60), b"tmpfs", 0, None|' \
	-e 's|where the trace does not look|where the trace looks|' \
	"$T/snip/manymounts.py" >"$T/snip/distinct.py"
chmod -R a+rX "$T/snip"
cnt='(d["attempts"]["isolation_refused"], d["trace_dropped"], len(d["trace"]))'
jc=$(lab run "$T/snip/distinct.py" --on all --json)
jm=$(lab run "$T/snip/distinct.py" --on all --rung microvm --json)
expect_eq "100 mounts at 60 places and an unshare: counted and listed as on the container" \
	"$(field "$cnt" <<<"$jm")" "$(field "$cnt" <<<"$jc")"
expect_eq "... 101 refused, 24 listed" "$(field '(d["attempts"]["isolation_refused"], len(d["trace"]))' <<<"$jm")" "(101, 24)"
jc=$(lab run "$T/snip/manymounts.py" --on all --json)
jm=$(lab run "$T/snip/manymounts.py" --on all --rung microvm --json)
if [[ -n $(field "$tr_lines" <<<"$jm") && $(field "$tr_lines" <<<"$jm") == "$(field "$tr_lines" <<<"$jc")" ]]; then
	ok "100 mounts differing in an unshown argument: one line x100 and the unshare, as on the container"
else
	not_ok "100 mounts differing in an unshown argument: as on the container" \
		"container: $(field "$tr_lines" <<<"$jc")" "microvm: $(field "$tr_lines" <<<"$jm")"
fi
expect_eq "... 101 refusals counted" "$(field 'd["attempts"]["isolation_refused"]' <<<"$jm")" "101"
j=$(lab run "$T/snip/leftover.py" --on all --rung microvm --json)
expect_eq "a leftover child calling a refused call: the run ends with the snippet, not on a clock" \
	"$(field '(d["exit"]["timed_out"], d["exit"]["safety_net"], d["verdict"])' <<<"$j")" "(False, False, 'CONTAINED')"
expect_contains "... and its refusals are reported" "$(field "$tr_lines" <<<"$j")" "unshare(CLONE_NEWUSER) = -1 EPERM"
j=$(lab run "$T/snip/refuse.py" --off isolation --rung microvm --json)
expect_eq "Isolation off: no call refused by a guest filter" \
	"$(field '[t for t in d["trace"] if "guest" in t["by"]]' <<<"$j")" "[]"

j=$(al legit-api)
expect_eq "allowlist, legit-api: RAN OK (through the proxy)" "$(field 'd["verdict"]' <<<"$j")" "RAN OK"
j=$(al exfil-allowed)
expect_eq "allowlist, exfil-allowed: ESCAPED (through an allowed host)" "$(field 'd["verdict"]' <<<"$j")" \
	"ESCAPED"

# the shipped CPU-seconds cap (2 s): under TCG the guest's seconds are
# emulated, 10-20 for one of the host's, and an upload with Resource-limits
# on was killed by RLIMIT_CPU before it got anywhere (the ladder's matrix:
# 4 cells CONTAINED that are ESCAPED or RAN OK). The guest init scales it
# under TCG and says so; only the clocks are loosened here.
sed -e '/^\[limits\]/,/^\[/s/^timeout = .*/timeout = 240s/' \
	-e '/^\[safety\]/,/^\[/s/^timeout = .*/timeout = 400s/' layers.ini >"$T/cpu.ini"
json=$(LAB_VM_INIT=$PWD/build/vm-init "$BIN" --config "$T/cpu.ini" run exfiltration --off network,env --rung microvm --json)
expect_eq "microvm, the shipped 2 s CPU cap, exfiltration with No-network off: ESCAPED" "$(field 'd["verdict"]' <<<"$json")" "ESCAPED"
if [[ $(field '"accel tcg" in d["mechanisms"] or ", tcg" in d["mechanisms"]' <<<"$json") == True ]]; then
	expect_contains "... under TCG the mechanisms say the cap was scaled" "$json" "RLIMIT_CPU x10 in the guest"
fi

# the wall clock ends a run before the guest's init can send what its
# filter refused: the note says the list never came, not that the rung has
# no filter (a loaded machine's microvm legit run said "not available");
# where the guest is quick enough to report, it says what it reported
printf '[limits]\ntimeout = 1s\n' >"$T/short.ini"
json=$(LAB_VM_INIT=$PWD/build/vm-init "$BIN" --config "$T/short.ini" run legit --on all --rung microvm --json)
if [[ $(field 'd["exit"]["timed_out"]' <<<"$json") == True ]]; then
	expect_eq "microvm, a 1 s wall clock before the guest reported: the note says no report came" \
		"$(field 'd["trace_note"]' <<<"$json")" \
		"refused calls: not listed, the guest's init sent no report of its filter (the run ended before it could)"
else
	expect_contains "microvm, a 1 s wall clock the guest beat: the note says its filter answered" \
		"$(field 'd["trace_note"]' <<<"$json")" "as the guest's seccomp filter answered"
fi

sleep 0.3
after=$(leftovers_snapshot)
if [[ $before == "$after" ]]; then
	ok "nothing left behind (no qemu, no temp file)"
else
	not_ok "nothing left behind" "$(diff <(echo "$before") <(echo "$after"))"
fi
if pgrep -f "qemu-system-x86_64.*$CL_SUITE_TMP" >/dev/null; then
	not_ok "no qemu process of the suite" "$(pgrep -a -f "qemu-system-x86_64.*$CL_SUITE_TMP")"
else
	ok "no qemu process of the suite"
fi
finish
