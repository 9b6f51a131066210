#!/usr/bin/env bash
# tests/unixdgram_test.sh [BINARY] — No-network with Isolation off and an
# AF_UNIX datagram socketpair (red team finding 3): the pair could be pointed
# at any socket file of the host's (read-only) view by sendto() or connect(),
# so /dev/log or /run/systemd/notify were reachable while the lab said
# "CONTAINED by No-network". The test makes its own datagram listener in its
# own staged folder (world-writable socket: sendto needs write permission on
# the file), runs a client there through `exec` (which puts the current
# folder back into the range's view), and asks the listener what came:
# nothing with No-network on, the datagrams with it off, as root and as
# uid 65534. The listener is ended by a last datagram the test sends itself.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
S=$(mktemp -d "$CL_SUITE_TMP/dgram.XXXXXX")
trap 'rm -rf "$S"; suite_cleanup' EXIT
cp "$BIN" "$S/lab" && cp layers.ini "$S/"

# the host's listener: prints each datagram it gets until "END" (or 30 s)
cat >"$S/listen.py" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666)
open(sys.argv[1] + ".ready", "w").close()
s.settimeout(30)
try:
    while True:
        d = s.recv(4096)
        if d == b"END":
            break
        print(d.decode(errors="replace"), flush=True)
except socket.timeout:
    print("listener timed out", flush=True)
PY
# the snippet's side: a datagram pair, pointed at the listener both ways
cat >"$S/client.py" <<'PY'
import socket, sys
p = sys.argv[1]
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
except OSError as e:
    print("socketpair:", e); sys.exit(0)
for how in ("sendto", "connect"):
    try:
        if how == "sendto":
            a.sendto(b"EXFIL via sendto", p)
        else:
            a.connect(p); a.send(b"EXFIL via connect")
        print(how, "ok")
    except OSError as e:
        print(how, e)
PY
chmod -R a+rX "$S" && chmod 755 "$S"

before=$(leftovers_snapshot)
# attempt WHO LAYERS: runs the client under `exec LAYERS` from $S; sets
# $got (what the listener received) and $said (what the client printed)
attempt() {
	local who=$1 sock=$S/l.sock lpid n=0
	local -a as=()
	[[ $who == uid65534 ]] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent)
	rm -f "$sock" "$sock.ready"
	$PY "$S/listen.py" "$sock" >"$S/got" 2>&1 &
	lpid=$!
	while [[ ! -e $sock.ready && $n -lt 100 ]]; do sleep 0.05; n=$((n + 1)); done
	# shellcheck disable=SC2086 # the layer words on purpose
	said=$(cd "$S" && "${as[@]}" ./lab --config layers.ini exec $2 -- $PY "$S/client.py" "$sock" 2>&1)
	$PY -c 'import socket,sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"END", sys.argv[1])' "$sock"
	wait "$lpid"
	got=$(cat "$S/got")
	rm -f "$sock" "$sock.ready"
}

whos=("$(id -un)")
[[ $(id -u) == 0 ]] && whos=(root uid65534)
for who in "${whos[@]}"; do
	attempt "$who" "--on network"
	expect_eq "$who: --on network (Isolation off): the host's datagram listener got nothing" "$got" ""
	expect_contains "$who: --on network: the datagram pair is refused (ESOCKTNOSUPPORT)" "$said" \
		"socketpair: [Errno 94] Socket type not supported"
	attempt "$who" "--on network,env,limits"
	expect_eq "$who: --on network,env,limits: the listener got nothing" "$got" ""
	# the control: the same client reaches the listener with No-network off,
	# so the empty answers above are the layer's doing, not the test's
	attempt "$who" "--on env,limits"
	expect_eq "$who: --on env,limits (No-network off): the listener got both datagrams" "$got" \
		"EXFIL via sendto
EXFIL via connect"
done
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
