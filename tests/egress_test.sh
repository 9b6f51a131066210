#!/usr/bin/env bash
# tests/egress_test.sh [BINARY] — No-network's allow-list (issue 10), as root
# and as uid 65534: the egress proxy refuses a host that is not listed (403
# naming the rule, CONNECT too) and lets a listed one through; inside, any
# other destination is unreachable; hostile requests (garbage, a 10 MB
# header, a slow drip) hang neither the proxy nor the lab; legit-api,
# exfil-allowed and exfiltration give their verdicts in both settings;
# nothing is left listening. Traffic goes only to 127.0.0.1 and to the
# sandbox's own network namespace.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")

before=$(leftovers_snapshot)
T=$(mktemp -d /tmp/cl-egress.XXXXXX)
trap 'rm -rf "$T"; suite_cleanup' EXIT
# /root may be 0700: stage what uid 65534 needs where it can read it
mkdir -p "$T/lab/work"
cp "$BIN" "$T/lab/containment-lab"
cp -r snippets layers.ini "$T/lab/"
cp tests/egress_probe.py "$T/lab/work/"
cp -r tests/egress_red "$T/lab/red" # the red team's snippets (issue 10's review)
cat >"$T/lab/ports.py" <<'PY'
# lab:title: Where the small internet listens
# lab:threat: legit
# lab:layer: none
# lab:expect: ports
import os
print("ports", os.environ["LAB_API"], os.environ["LAB_ATTACKER"])
PY
chmod -R a+rX "$T"

as() { # WHO CMD... : in the staged folder (or $IN), as root or as uid 65534
	local who=$1
	shift
	if [[ $who == root ]]; then
		(cd "${IN:-$T/lab}" && "$@")
	else
		(cd "${IN:-$T/lab}" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -u XDG_CONFIG_HOME HOME=/nonexistent "$@")
	fi
}

# A 127.0.0.1 port in LISTEN state in the lab's own namespace?
listening() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p="0100007F:$hex" '$2 == p && $4 == "0A" { found = 1 } END { exit !found }' /proc/net/tcp
}

# Another local user (here: the test itself) at a run's listeners on the
# lab's 127.0.0.1: it posts what it read in the run's folder (the canary
# row) to each, and holds 20 idle connections to each (more than the
# 16 slots api.lab.test has) for 3.5 s.
cat >"$T/forge.py" <<'PY'
import socket, sys, time
csv = open(sys.argv[1], "rb").read()
held = []
t0 = time.time()
# the run's loop is up once it shuts a connection (its start-up blocks it)
for p in map(int, sys.argv[2:]):
    try:
        s = socket.create_connection(("127.0.0.1", p), timeout=5)
        s.settimeout(3)
        s.recv(1)
    except OSError:
        pass  # a lab that keeps strays open: go on all the same
for p in map(int, sys.argv[2:]):
    try:
        s = socket.create_connection(("127.0.0.1", p), timeout=3)
        s.sendall(b"POST /feedback HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(csv) + csv)
        held.append(s)
        for _ in range(20):
            held.append(socket.create_connection(("127.0.0.1", p), timeout=3))
    except OSError as e:
        print(p, e, "after %.2f s" % (time.time() - t0))
time.sleep(3.5)
PY
# PID and its descendants, as "a|b|c"
tree_pids() {
	local out=$1 c
	for c in $(pgrep -P "$1"); do out+="|$(tree_pids "$c")"; done
	echo "$out"
}
# the 127.0.0.1 ports a process tree listens on
lab_ports() {
	ss -Hltnp 2>/dev/null | grep -E "pid=($(tree_pids "$1"))," | awk '{print $4}' | sed -n 's/^127\.0\.0\.1://p'
}

whos=(root)
[[ $(id -u) == 0 ]] && whos+=(nobody)
for who in "${whos[@]}"; do
	# ---- the proxy, seen from inside (exec runs the probe in the sandbox) ----
	t0=$(date +%s%N)
	out=$(IN=$T/lab/work as "$who" ../containment-lab --config ../layers.ini --network-mode allowlist \
		exec --on all -- /usr/bin/python3 egress_probe.py 2>&1)
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_eq "$who: the probe ran to its end in the sandbox (exit 0)" "$rc" 0
	expect_contains "$who: HTTP_PROXY announced whatever Clean-env keeps, NO_PROXY empty" "$out" \
		"env: HTTP_PROXY=http://127.0.0.1:3128 https_proxy=http://127.0.0.1:3128 NO_PROXY="
	expect_contains "$who: inside, the only listener is the lab's proxy" "$out" "listening inside: [3128]"
	expect_contains "$who: a listed host is let through (api.lab.test:80)" "$out" "allowed: 200 'sku,item,unit_price"
	expect_contains "$who: a host not listed gets 403 naming the rule" "$out" \
		"refused: 403 containment-lab egress proxy: evil.lab.test:80 refused: not in allow-list (rule: allow = api.lab.test:80"
	expect_contains "$who: CONNECT to a host not listed: 403" "$out" "connect refused: HTTP/1.1 403 Forbidden"
	expect_contains "$who: CONNECT to a listed host: a tunnel" "$out" "connect allowed: HTTP/1.1 200 Connection established"
	expect_contains "$who: a raw socket off loopback: ENETUNREACH" "$out" "raw off loopback: ENETUNREACH"
	expect_contains "$who: a raw socket to 10.0.0.1: ENETUNREACH" "$out" "raw 10.0.0.1: ENETUNREACH"
	expect_contains "$who: 127.0.0.1 inside is the sandbox's own loopback, not the lab's" "$out" \
		"raw own loopback: ECONNREFUSED"
	expect_contains "$who: garbage: 400" "$out" "garbage: HTTP/1.1 400 Bad Request"
	if [[ $out == *"huge header: HTTP/1.1 431 Request Header Fields Too Large"* ||
		$out == *"huge header: reset (ECONNRESET)"* || $out == *"huge header: reset (EPIPE)"* ]]; then
		ok "$who: a 10 MB header is cut at 16 KiB (431, or reset while it still sent)"
	else
		not_ok "$who: a 10 MB header is cut at 16 KiB" "$(grep 'huge header' <<<"$out")"
	fi
	drip=$(grep -o 'slow drip: HTTP/1.1 408 Request Timeout after [0-9.]* s' <<<"$out")
	secs=${drip##* after }
	secs=${secs% s}
	if [[ -n $drip ]] && $PY -c "import sys; sys.exit(not 1.5 <= float('$secs') <= 5.0)"; then
		ok "$who: a slow drip is answered 408 after ${secs}s"
	else
		not_ok "$who: a slow drip is answered 408 in about 2 s (1.5-5 s from the client's first byte on a loaded machine)" "$(grep 'slow drip' <<<"$out")"
	fi
	expect_contains "$who: after all that the proxy still serves" "$out" "still serving: 200"
	expect_contains "$who: the lab logs the refusal" "$out" \
		"containment-lab: egress: REFUSE GET evil.lab.test:80 /steal -> 403 not in allow-list (rule: allow = api.lab.test:80)"
	expect_contains "$who: the lab logs the 431" "$out" "containment-lab: egress: BAD    431"
	expect_contains "$who: the lab logs the 408" "$out" "containment-lab: egress: BAD    408"
	if ((ms < 8000)); then ok "$who: the lab did not hang (${ms} ms)"; else not_ok "$who: the lab took ${ms} ms"; fi

	# ---- the three snippets, both settings ----
	run_v() { # MODE SNIPPET -> "rc|verdict line|headline"
		as "$who" ./containment-lab --config layers.ini --network-mode "$1" run "$2" --on all
	}
	out=$(run_v allowlist legit-api); rc=$?
	expect_eq "$who: legit-api --network-mode allowlist: RAN OK (exit 0)" "$rc" 0
	expect_contains "$who: legit-api allowlist: the proxy's log line" "$out" \
		"> ALLOW  GET api.lab.test:80 /prices -> answered"
	out=$(run_v none legit-api); rc=$?
	expect_eq "$who: legit-api --network-mode none: FAILED (exit 3)" "$rc" 3
	expect_contains "$who: legit-api none: the price of no network" "$out" "the price of no network"
	out=$(run_v allowlist exfil-allowed); rc=$?
	expect_eq "$who: exfil-allowed --network-mode allowlist: ESCAPED (exit 1)" "$rc" 1
	expect_contains "$who: exfil-allowed allowlist: through the allowed host, canary row there" "$out" \
		"The data left through an allowed host: api.lab.test received"
	expect_contains "$who: exfil-allowed allowlist: the refusal it got around" "$out" \
		"> REFUSE POST attacker.lab.test:80"
	expect_contains "$who: exfil-allowed allowlist: the post that got out" "$out" \
		"> ALLOW  POST api.lab.test:80 /feedback -> answered"
	j=$(as "$who" ./containment-lab --config layers.ini --network-mode allowlist run exfil-allowed --on all --json)
	expect_eq "$who: exfil-allowed --json: mode, canary at api.lab.test, one refusal" \
		"$($PY -c 'import json,sys; d=json.load(sys.stdin); e=d["egress"]; print(d["network_mode"], e["api_got_canary"], e["refused"], any("/feedback" in l for l in e["log"]))' <<<"$j")" \
		"allowlist True 1 True"
	out=$(run_v none exfil-allowed); rc=$?
	expect_eq "$who: exfil-allowed --network-mode none: CONTAINED (exit 0)" "$rc" 0
	expect_contains "$who: exfil-allowed none: by No-network" "$out" "CONTAINED by No-network"
	out=$(run_v allowlist exfiltration); rc=$?
	expect_eq "$who: exfiltration --network-mode allowlist: CONTAINED (exit 0)" "$rc" 0
	expect_contains "$who: exfiltration allowlist: the proxy's 403 and its rule" "$out" \
		"The egress proxy refused attacker.lab.test:80: not in allow-list (rule: allow = api.lab.test:80)"
	expect_contains "$who: exfiltration allowlist: no route off loopback" "$out" \
		"connect(192.0.2.1:80, off loopback) -> Network is unreachable"
	out=$(run_v none exfiltration); rc=$?
	expect_eq "$who: exfiltration --network-mode none: CONTAINED (exit 0)" "$rc" 0
	expect_contains "$who: exfiltration none: no interface" "$out" "Network is unreachable"

	# ---- the red team's findings against the allow-list, one check each ----
	red_json() { # SNIPPET [ARGS...] -> the JSON report of a run behind the allow-list
		local sn=$1
		shift
		as "$who" ./containment-lab --config layers.ini --network-mode allowlist run "red/$sn.py" "$@" --json
	}
	jq_py() { $PY -c "import json,sys; d=json.load(sys.stdin); e=d['egress']; print($1)"; }
	# 1: data an allowed host received is not "nothing went through", however it is dressed
	for sn in xor-quiet split-exfil; do
		got=$(red_json "$sn" --on all | jq_py 'd["verdict"], e["api_payload"] > 256, "found no canary it can read" in d["headline"]')
		expect_eq "$who: $sn (canary row unreadable at api.lab.test): ESCAPED, bodies counted, says it could not read them" \
			"$got" "ESCAPED True True"
	done
	# red team round 3: the data in headers, in the URL path, in a 96-byte
	# body: an allow-list cannot tell data from a request, so any request
	# let through with bytes up takes CONTAINED away
	for sn in hdr-exfil path-exfil small-body; do
		got=$(red_json "$sn" --on all | jq_py 'd["verdict"], e["allowed"] >= 1, "an allow-list cannot tell data from a request" in d["headline"], "nothing of this run went through" in d["headline"]')
		expect_eq "$who: $sn (the row disguised outside the bodies): ESCAPED, the proxy's allowed request named, never 'nothing went through'" \
			"$got" "ESCAPED True True False"
	done
	got=$(red_json secrets-header --off env | jq_py 'd["verdict"], "no planted secret it can read" in d["headline"]')
	expect_eq "$who: secrets-header --off env (XOR'd secrets in a header to the allowed host): ESCAPED, not BROKE" \
		"$got" "ESCAPED True"
	got=$(red_json secrets-header --on all | jq_py 'd["verdict"]')
	expect_eq "$who: secrets-header --on all (no secret in reach): CONTAINED by Clean-env" "$got" "CONTAINED"
	got=$(red_json pad-exfil --on all | jq_py 'd["verdict"], e["api_got_canary"]')
	expect_eq "$who: pad-exfil (canary row past 1.2 MB of padding): ESCAPED, the row found" "$got" "ESCAPED True"
	# 2: secrets posted to the allowed host: the snippet takes every variable
	# named *KEY*, *TOKEN* or *DATABASE* (6 of the lab's planted variables)
	# and ~/.aws/credentials (one more): 7 of the 10 decoys
	got=$(red_json secrets-api --off env | jq_py 'd["verdict"], e["secrets_to_api"]')
	expect_eq "$who: secrets-api --off env behind the allow-list: ESCAPED, 7 secrets at api.lab.test" "$got" "ESCAPED 7"
	got=$(as "$who" ./containment-lab --config layers.ini run red/secrets-api.py --off env,network --json |
		jq_py 'd["verdict"], e["secrets_to_api"]')
	expect_eq "$who: secrets-api --off env,network (mode none): ESCAPED, 7 secrets at api.lab.test" "$got" "ESCAPED 7"
	# 3: a big post and exit: the drain delivers it before the verdict, every time
	verdicts=""
	for _ in 1 2 3 4 5 6; do
		verdicts+="$(red_json fire-forget-big --on all | jq_py 'd["verdict"], e["api_got_canary"]');"
	done
	expect_eq "$who: fire-forget-big 6 times: ESCAPED with the canary row every time" "$verdicts" \
		"ESCAPED True;ESCAPED True;ESCAPED True;ESCAPED True;ESCAPED True;ESCAPED True;"
	# 4: forty refusals cannot push the ALLOW lines out, and the dropped lines are counted
	out=$(as "$who" ./containment-lab --config layers.ini --network-mode allowlist run red/stealth.py --on all)
	n_allow=$(grep -c '^  > ALLOW  POST api.lab.test:80 /feedback' <<<"$out")
	expect_eq "$who: stealth: all 3 ALLOW lines in the proxy log after 40 refusals" "$n_allow" 3
	expect_contains "$who: stealth: the lines not kept are counted" "$out" "more line(s) not kept (in all: 3 allowed, 40 refused"
	expect_contains "$who: stealth: the evidence shows an ALLOW line first" "$out" \
		"  - egress proxy log: ALLOW  POST api.lab.test:80"
	# 5: a run's evidence is its own: another user who read the run's canary
	# row posts it to the run's listeners and crowds them; nothing counts
	for case in sleeper:allowlist sleeper:none legit-late:allowlist; do
		sn=${case%:*} mode=${case#*:}
		as "$who" ./containment-lab --config layers.ini --network-mode "$mode" run "red/$sn.py" --on all --json \
			>"$T/victim.json" &
		vpid=$!
		ports=""
		# both, however long a loaded machine takes to set the run up
		# (the listeners came before the folder's CSV in one run)
		csv=""
		for _ in $(seq 400); do
			ports=$(lab_ports "$vpid" | tr '\n' ' ')
			csv=$(ls -td "$TMPDIR"/containment-lab.*/work/sales.csv 2>/dev/null | head -1)
			[[ $(wc -w <<<"$ports") -ge 2 && -n $csv ]] && break
			sleep 0.05
		done
		if [[ -z $ports || -z $csv ]]; then
			not_ok "$who: $sn ($mode): found the run's listeners and folder" "ports='$ports' csv='$csv'"
			wait "$vpid"
			continue
		fi
		# shellcheck disable=SC2086 # the ports are words
		$PY "$T/forge.py" "$csv" $ports
		wait "$vpid"
		if [[ $sn == sleeper ]]; then
			got=$(jq_py 'd["verdict"], d["measured"]["attacker_bytes"], e["api_requests"], e["api_strays"] >= 22' <"$T/victim.json")
			# the sleeper tries nothing: no attempt for No-network to meet
			# (issue 17), BROKE; the forged bytes must not make it ESCAPED
			expect_eq "$who: sleeper (mode $mode) while another user forges its canary row at its ports: BROKE (no attempt), 0 bytes counted" \
				"$got" "BROKE 0 0 True"
		else
			got=$(jq_py 'd["verdict"], e["api_requests"], e["api_strays"] >= 22' <"$T/victim.json")
			expect_eq "$who: legit-late while its api.lab.test is crowded and posted to: RAN OK, 1 request served" \
				"$got" "RAN OK 1 True"
			expect_contains "$who: legit-late: the served count is the proxy's" "$(cat "$T/victim.json")" \
				"api.lab.test served 1 request(s); the egress proxy let 1 through"
		fi
	done

	# 9 and 7: the request line exactly, labels that say what happened
	out=$(IN=$T/lab/red as "$who" ../containment-lab --config ../layers.ini --network-mode allowlist \
		exec --on all -- /usr/bin/python3 parser_probe.py 2>&1)
	expect_contains "$who: HTTP/1.9xyz: 400" "$out" "version 1.9xyz: HTTP/1.1 400 Bad Request"
	expect_contains "$who: a request line split over lines: 400" "$out" "split line: HTTP/1.1 400 Bad Request"
	expect_contains "$who: CONNECTapi.lab.test:80: 400" "$out" "no space after CONNECT: HTTP/1.1 400 Bad Request"
	expect_contains "$who: bare LF: 400 at once, not a 408 after 2 s" "$out" "bare LF: HTTP/1.1 400 Bad Request after 0.0 s"
	expect_contains "$who: the log says why: a bare LF" "$out" "its first line ends in a bare LF, not CRLF"
	expect_contains "$who: http://api.lab.test?x=1 reaches the host (its 404, not the proxy's 400)" "$out" \
		"query after host: HTTP/1.1 404 Not Found"
	expect_contains "$who: Content-Length 2^64-1: 413, not 'recorded'" "$out" "huge content-length: HTTP/1.1 413"
	expect_contains "$who: a tunnel the host never answered says so, 0 down (not the proxy's own 200)" "$out" \
		"ALLOW  CONNECT api.lab.test:80 -> closed by the host without an answer, 0 bytes up, 0 down"

	# ---- nothing left listening: the small internet's ports after the run ----
	out=$(as "$who" ./containment-lab --config layers.ini --network-mode allowlist run ./ports.py --off network)
	read -r api att < <(grep -o 'ports http://127.0.0.1:[0-9]*/ http://127.0.0.1:[0-9]*/' <<<"$out" |
		sed 's|ports http://127.0.0.1:\([0-9]*\)/ http://127.0.0.1:\([0-9]*\)/|\1 \2|')
	if [[ -z ${api:-} ]]; then
		not_ok "$who: the run said where the small internet listened" "${out:0:400}"
	elif listening "$api" || listening "$att"; then
		not_ok "$who: api.lab.test ($api) or the attacker ($att) still listening after the run"
	else
		ok "$who: nothing listening after the run (api.lab.test was :$api, the attacker :$att)"
	fi
done

# ---- the settings: refused when malformed, refused on a rung that cannot build it ----
printf '[network]\nmode = sometimes\n' >"$T/bad.ini"
err=$("$BIN" --config "$T/bad.ini" list 2>&1)
expect_contains "layers.ini: a bad mode is refused with file:line" "$err" "bad.ini:2: mode = sometimes: expected none or allowlist"
printf '[network]\nallow = api.lab.test\n' >"$T/bad2.ini"
err=$("$BIN" --config "$T/bad2.ini" list 2>&1)
expect_contains "layers.ini: a host without a port is refused" "$err" "bad2.ini:2: allow: 'api.lab.test': expected host:port"
err=$("$BIN" --network-mode sometimes list 2>&1); rc=$?
expect_eq "--network-mode sometimes: usage error (2)" "$rc" 2
expect_contains "--network-mode sometimes: says the choices" "$err" "expected none or allowlist"
# a port written with a leading zero means the same port to the matcher
printf '[network]\nmode = allowlist\nallow = api.lab.test:080\n' >"$T/l080.ini"
out=$(cd "$T/lab" && "$BIN" --config "$T/l080.ini" run legit-api --on all); rc=$?
expect_eq "allow = api.lab.test:080: legit-api RAN OK (exit 0), the pair matches port 80" "$rc" 0
expect_contains "allow = api.lab.test:080: the rule is shown as the matcher reads it" \
	"$(cd "$T/lab" && "$BIN" --config "$T/l080.ini" run exfiltration --on all)" "(rule: allow = api.lab.test:80)"
printf '[network]\nmode = allowlist\nallow = attacker.lab.test:80\n' >"$T/open.ini"
out=$(cd "$T/lab" && "$BIN" --config "$T/open.ini" run exfiltration --on all); rc=$?
expect_eq "allow = attacker.lab.test:80: the exfiltration ESCAPES through the proxy (exit 1)" "$rc" 1
expect_contains "the listed attacker: the proxy let it out, and says so" "$out" "the egress proxy let it out"
if command -v runsc >/dev/null; then
	out=$(cd "$T/lab" && "$BIN" --config layers.ini --rung gvisor --network-mode allowlist run exfiltration --on all); rc=$?
	if [[ $out == *"ERROR"* && $out == *"wall clock"* ]]; then
		skip "allowlist on the gvisor rung" "runsc did not start within the wall clock on this machine now"
	else
		expect_eq "allowlist on the gvisor rung: the exfiltration is not let out (exit 0)" "$rc" 0
		expect_contains "allowlist on the gvisor rung: the proxy refused it" "$out" "CONTAINED"
	fi
else
	skip "allowlist on the gvisor rung" "runsc is not installed (apt-get install runsc)"
fi

# ---- the docker and bwrap twins say there is no one-flag equivalent ----
d=$("$BIN" --config layers.ini --network-mode allowlist twin --on all)
expect_contains "twin allowlist: docker on an --internal network" "$d" "--network lab-egress"
expect_contains "twin allowlist: the proxy announced" "$d" "--env HTTP_PROXY=http://egress-proxy:3128"
expect_not_contains "twin allowlist: not --network none" "$d" "--network none"
expect_contains "twin allowlist: docker has no one-flag equivalent" "$d" "docker has no one-flag equivalent"
b=$("$BIN" --config layers.ini --network-mode allowlist twin --on all --bwrap)
expect_contains "twin allowlist: bwrap binds a proxy's socket in" "$b" "--unshare-net --bind /run/egress-proxy.sock"
expect_contains "twin allowlist: bwrap's gap names srt's bridge" "$b" "socat inside"
d=$("$BIN" --config layers.ini --network-mode allowlist twin --off network)
expect_contains "twin allowlist with No-network off: the twin is printed" "$d" "docker run --rm"
expect_not_contains "twin allowlist with No-network off: no proxy" "$d" "egress-proxy"

sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
