#!/usr/bin/env bash
# tests/multiuser_test.sh [BINARY] — another local user against a run's
# evidence (issue 17 item 2, issue 24): while the lab runs, a process of
# another uid (tests/multiuser_attacker.py) crowds every new 127.0.0.1
# listener of the lab's uid with idle connections, reads whatever decoys
# it can reach and POSTs their canaries to those listeners; and two
# snippets hide their socket from a lab that looks for it afterwards
# (tests/adversary/exfil-hidden-fd.py, exfil-parked.py). Every verdict
# must be the run's own: the shipped exfiltration ESCAPED, secret theft
# with Clean-env on CONTAINED, the hiding snippets ESCAPED, every time.
# Root lab against uid 65534 (the sandbox's own outside uid), rootless lab
# (uid 65534) against uid 65533.
#
# The whole suite runs in a network namespace of its own (lo up), so the
# attacker reaches only this suite's labs, never another user's runs on
# the same machine. Needs root (setpriv, unshare --net).
set -u
cd "$(dirname "$0")/.." || exit 1
if [[ $(id -u) != 0 ]]; then
	source tests/lib.sh
	skip "another uid against the lab" "needs root (setpriv to other uids, a network namespace of its own)"
	finish
	exit
fi
if [[ -z ${CL_MULTI_NETNS:-} ]]; then
	exec unshare --net env CL_MULTI_NETNS=1 bash "$0" "$@"
fi
ip link set lo up || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-multi.XXXXXX)
chmod 755 "$T"
APID=""
trap '[[ -n $APID ]] && kill "$APID" 2>/dev/null; rm -rf "$T"; suite_cleanup' EXIT
LAB=$T/lab-multi-$$
cp "$BIN" "$LAB"
cp layers.ini snippets/sales.csv snippets/exfiltration.py snippets/secret-theft.py \
	tests/adversary/exfil-hidden-fd.py tests/adversary/exfil-parked.py tests/multiuser_attacker.py "$T/"
chmod -R a+rX "$T"
as_uid() { # UID CMD...
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$u" --clear-groups "$@"
}
verdict() { $PY -c "import json,sys; d=json.load(sys.stdin); print(d['verdict'], d['caught_by'] or '-')" 2>/dev/null || echo "no-json"; }

before=$(leftovers_snapshot)

# attack WHO LAB_UID ATTACKER_UID: the four cells, with the attacker about
attack() {
	local who=$1 lab_uid=$2 att=$3 t0=$SECONDS
	# setpriv execs the attacker: $! is its pid
	setpriv --reuid="$att" --regid="$att" --clear-groups $PY "$T/multiuser_attacker.py" "$TMPDIR" "$lab_uid" >"$T/stats.$who" &
	APID=$!
	sleep 0.3
	cell "$who" "the shipped exfiltration, --off network" exfiltration.py network "ESCAPED -" 10
	cell "$who" "secret theft, --off network (Clean-env on)" secret-theft.py network "CONTAINED env" 10
	cell "$who" "exfiltration from fd 4204 behind 4,200 fds, --off network,limits" exfil-hidden-fd.py network,limits "ESCAPED -" 20
	cell "$who" "exfiltration from a socket parked via SCM_RIGHTS, --off network" exfil-parked.py network "ESCAPED -" 20
	kill -TERM "$APID"
	wait "$APID"
	APID=""
	local stats
	stats=$(cat "$T/stats.$who")
	expect_contains "$who: uid $att read none of the run's decoys ($stats)" "$stats" " read 0 "
	echo "# $who against uid $att: attacker saw: $stats ($((SECONDS - t0)) s)"
}

# cell WHO NAME SNIPPET OFF EXPECT N
cell() {
	local who=$1 name=$2 file=$3 off=$4 want=$5 n=$6 i got good=0 other=""
	for ((i = 0; i < n; i++)); do
		if [[ $who == root ]]; then
			got=$("$LAB" --config "$T/layers.ini" run "$T/$file" --off "$off" --json | verdict)
		else
			got=$(as_uid 65534 "$LAB" --config "$T/layers.ini" run "$T/$file" --off "$off" --json | verdict)
		fi
		if [[ $got == "$want" ]]; then good=$((good + 1)); else other+=" [$got]"; fi
	done
	if [[ $good == "$n" ]]; then
		ok "$who: $name: $want $good of $n"
	else
		not_ok "$who: $name: $want $good of $n" "the others:$other"
	fi
}

attack root 0 65534
attack nobody 65534 65533

expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
