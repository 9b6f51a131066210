#!/usr/bin/env bash
# tests/twin_test.sh [BINARY] — `twin`: for all 16 layer combinations the
# docker (and bwrap) command has each layer's flags exactly when that layer
# is on, the numbers of layers.ini, the rung's runtime, and the gaps.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
twin() { "$BIN" --config layers.ini "$@" 2>&1; }
trap suite_cleanup EXIT

layer_keys=(isolation network env limits)
# has OUT NEEDLE WANT(0|1): prints a complaint when the needle's presence differs
has() {
	local got=0
	[[ "$1" == *"$2"* ]] && got=1
	[[ $got == "$3" ]] || echo "'$2' $([[ $3 == 1 ]] && echo missing || echo present)"
}

for combo in $(seq 0 15); do
	on=()
	for l in 0 1 2 3; do ((combo & (1 << l))) && on+=("${layer_keys[$l]}"); done
	list=$(IFS=,; echo "${on[*]:-none}")
	I=$((combo & 1 ? 1 : 0)) N=$((combo & 2 ? 1 : 0)) E=$((combo & 4 ? 1 : 0)) L=$((combo & 8 ? 1 : 0))
	d=$(twin twin --on "$list"); rc=$?
	b=$(twin twin --on "$list" --bwrap)
	bad=$(
		[[ $rc == 0 ]] || echo "exit $rc"
		has "$d" "docker run --rm" 1
		has "$d" "--network none" $N
		for f in "--read-only" "--tmpfs /tmp" "--cap-drop ALL" "--user 2147418112:2147418112" \
			"--security-opt no-new-privileges"; do has "$d" "$f" $I; done
		has "$d" '-v "$PWD":/work' $((1 - I))
		for f in "--env PATH" "--env HOME=/tmp"; do has "$d" "$f" $E; done
		for f in "--env-file .env" "-v ~/.aws:/root/.aws:ro"; do has "$d" "$f" $((1 - E)); done
		for f in "--memory 256m" "--cpus 0.5" "--pids-limit 32" "--ulimit cpu=2" "--ulimit fsize=1048576" \
			"--ulimit nofile=64:64" "the wall clock (5.0 s): no docker flag" "the output cap (64K kept)"; do
			has "$d" "$f" $L
		done
		has "$d" "--runtime" 0
		has "$b" "--unshare-net" $N
		has "$b" "--cap-drop ALL" $I
		has "$b" "--clearenv" $E
		has "$b" "systemd-run" $L
	)
	if [[ -z "$bad" ]]; then ok "twin --on $list: each layer's flags exactly when it is on"; else
		not_ok "twin --on $list: each layer's flags exactly when it is on" "$bad"; fi
done

out=$(twin --rung gvisor twin --on all)
expect_contains "gvisor rung, Isolation on: --runtime runsc" "$out" "--runtime runsc"
out=$(twin --rung gvisor twin --off isolation)
expect_contains "gvisor rung, Isolation off: the twin is printed" "$out" "docker run --rm"
expect_not_contains "gvisor rung, Isolation off: no runtime" "$out" "--runtime"
out=$(twin --rung microvm twin --on all)
expect_contains "microvm rung: the twin is printed" "$out" "docker run --rm"
expect_not_contains "microvm rung: no docker runtime flag" "$out" "--runtime"
expect_contains "microvm rung: says there is no docker flag" "$out" "the microvm rung: no docker flag"
out=$(twin twin --off network)
expect_contains "--off network: says the default bridge reaches the attacker" "$out" "default bridge"
# ---- the bwrap twin, run for real: what it builds is what the lab builds ----
# (the red team's F1-F3: prlimit --nproc on bwrap itself, a writable root,
# /dev and covered folders, /proc/keys readable, no IPC namespace or
# session of its own). systemd-run and --seccomp 10 need a user manager
# and an exported filter: left out; the rest of the command runs as shown.
out=$(twin twin --on all --bwrap)
expect_contains "bwrap twin: its prlimit line is there" "$out" "prlimit --as="
expect_not_contains "bwrap twin: no prlimit --nproc (it counts every process of the caller's uid)" "$out" "--nproc="
expect_contains "bwrap twin: ... and the gap is said" "$out" "RLIMIT_NPROC: prlimit would set it on bwrap itself"
if command -v bwrap >/dev/null && command -v prlimit >/dev/null; then
	P=$(mktemp -d /tmp/cl-twin.XXXXXX)
	chmod 755 "$P"
	cat >"$P/SNIPPET.py" <<'PY'
import os
def w(path):
    try:
        open(path, "w").close()
        os.unlink(path)
        return "writable"
    except OSError:
        return "read-only"
print("root", w("/lab-twin-probe"))
print("dev", w("/dev/lab-twin-probe"))
print("keys", len(open("/proc/keys").read()) if os.path.exists("/proc/keys") else 0)
print("home", w("/home/lab-twin-probe") if os.path.isdir("/home") else "read-only")
# a session leader outside the PID namespace reads as 0: the caller's session
print("session", os.getsid(0) != 0)
print("ipc", os.readlink("/proc/self/ns/ipc") != HOST_IPC)
PY
	sed -i "s|HOST_IPC|'$(readlink /proc/self/ns/ipc)'|" "$P/SNIPPET.py"
	for list in all isolation none env; do
		cmd=$(twin twin --on "$list" --bwrap | sed -n '2,/^$/p' | grep -v -e '^systemd-run' -e '--seccomp 10' | sed '1s/^  //')
		got=$(cd "$P" && bash -c "$cmd" 2>&1 | tr '\n' ' ')
		want="root read-only dev read-only keys 0 home read-only session True ipc True "
		expect_eq "bwrap twin --on $list, run: root, /dev and covered folders read-only, no keys, own session and IPC" "$got" "$want"
	done
	rm -rf "$P"
else
	skip "the bwrap twin, run for real" "bwrap or prlimit is not installed (apt-get install bubblewrap util-linux)"
fi
out=$(twin twin --bogus); rc=$?
expect_eq "twin --bogus: exit 2" "$rc" 2
out=$(twin twin --on nothere); rc=$?
expect_eq "twin --on nothere: exit 2" "$rc" 2
finish
