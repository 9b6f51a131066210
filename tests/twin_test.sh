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
expect_not_contains "gvisor rung, Isolation off: no runtime" "$out" "--runtime"
out=$(twin --rung microvm twin --on all)
expect_not_contains "microvm rung: no docker runtime flag" "$out" "--runtime"
expect_contains "microvm rung: says there is no docker flag" "$out" "the microvm rung: no docker flag"
out=$(twin twin --off network)
expect_contains "--off network: says the default bridge reaches the attacker" "$out" "default bridge"
out=$(twin twin --bogus); rc=$?
expect_eq "twin --bogus: exit 2" "$rc" 2
out=$(twin twin --on nothere); rc=$?
expect_eq "twin --on nothere: exit 2" "$rc" 2
finish
