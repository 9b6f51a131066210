#!/usr/bin/env bash
# tests/gvisor_test.sh [BINARY] — the gvisor rung of the isolation ladder:
# kernel-exploit ESCAPED on the container rung with every layer on and
# CONTAINED by Isolation under runsc; the other snippets in a few cells on
# gvisor with the truth table's verdicts (or the honest ERROR the rung
# gives); nothing left behind (no runsc process, no state folder, no
# mount). Skipped, with the reason, where runsc is missing or not root.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
trap 'rm -f "${CFG:-}"; suite_cleanup' EXIT
# The cells judge the rung, not the machine's speed: runsc's start and the
# ptrace platform's python on a loaded machine took the exfiltration past
# the 5 s wall clock before it connected (CI: CONTAINED by that clock), so
# the cells get 20 s (the safety net stays at 30 s)
CFG=$(mktemp "${TMPDIR:-/tmp}/cl-gvisor.XXXXXX")
sed '/^\[limits\]/,/^\[/ s/^timeout = .*/timeout = 20s/' layers.ini >"$CFG"
grep -q '^timeout = 20s' "$CFG" || { echo "not ok - the test's layers.ini has a 20 s wall clock"; exit 1; }
LAB_CONFIG=$CFG # lab() (lib.sh)

if ! command -v runsc >/dev/null && [[ ! -x /usr/bin/runsc ]]; then
	skip "the gvisor rung" "runsc is not installed (apt-get install runsc)"
	finish
	exit 0
fi
if [[ $(id -u) != 0 ]]; then
	skip "the gvisor rung as root" "not root (the suite runs the rung's checks as root)"
	finish
	exit 0
fi

before=$(leftovers_snapshot)
# the suite's own mounts and runsc's (another user's are not the suite's to count)
suite_mounts() { awk -v t="$CL_SUITE_TMP/" 'index($5, t) == 1 || $5 ~ /runsc|gvisor/' /proc/self/mountinfo | wc -l; }
mounts_before=$(suite_mounts)

# ---- kernel-exploit: the lesson's point, from outside evidence ----
json=$(lab run kernel-exploit --on all --rung container --json)
expect_eq "kernel-exploit, container rung, every layer on: ESCAPED" "$(field 'd["verdict"]' <<<"$json")" "ESCAPED"
expect_contains "container rung: the host kernel served it" "$json" "the snippet ran as a host process on kernel $(uname -r)"
json=$(lab run kernel-exploit --on all --rung gvisor --json)
expect_eq "kernel-exploit, gvisor rung: CONTAINED" "$(field 'd["verdict"]' <<<"$json")" "CONTAINED"
expect_eq "kernel-exploit, gvisor rung: caught by Isolation" "$(field 'd["caught_by"]' <<<"$json")" "isolation"
expect_contains "gvisor rung: gVisor's release answered" "$json" "answered uname -r: 4.4.0"
expect_contains "gvisor rung: the interpreter was never a host process" "$json" "the interpreter was never one of them"
expect_contains "gvisor rung: mechanisms name runsc" "$json" "gVisor runsc (ptrace platform, root)"
expect_eq "gvisor rung: JSON names the rung" "$(field 'd["rung"]' <<<"$json")" "gvisor"
# what the Sentry refused of Isolation's deny list (runsc --strace), in
# the trace, read by the lab after the run
json=$(lab run host-takeover --on all --rung gvisor --json)
expect_eq "host-takeover, gvisor rung: the trace lists the mount() the Sentry refused" \
	"$(field '[t["line"] for t in d["trace"] if t["call"].startswith("mount(")]' <<<"$json")" \
	"[\"mount(<null>, <null>, <null>, 0x0, <null>) = -1 EPERM  gVisor's Sentry (Isolation)\"]"
expect_eq "host-takeover, gvisor rung: still CONTAINED by Isolation" "$(field 'd["verdict"], d["caught_by"]' <<<"$json")" "CONTAINED isolation"
json=$(lab run kernel-exploit --off isolation --rung gvisor --json)
expect_eq "kernel-exploit, Isolation off on gvisor: ESCAPED (the container box)" \
	"$(field 'd["verdict"]' <<<"$json")" "ESCAPED"

# ---- the five snippets in a few cells on gvisor ----
cell() { # SNIPPET LAYERS-FLAGS EXPECTED [CAUGHT-BY]
	local s=$1 flags=$2 want=$3 by=${4:-}
	local j v
	# shellcheck disable=SC2086
	j=$(lab run "$s" $flags --rung gvisor --json)
	v=$(field 'd["verdict"]' <<<"$j")
	if [[ $v == "$want" && (-z $by || $(field 'd["caught_by"]' <<<"$j") == "$by") ]]; then
		ok "gvisor: $s $flags -> $want${by:+ by $by}"
	else
		not_ok "gvisor: $s $flags -> $want${by:+ by $by}" "got $v: $(field 'd["headline"]' <<<"$j")"
	fi
}
cell legit "--on all" "RAN OK"
cell secret-theft "--on all" CONTAINED env
cell secret-theft "--off env" ESCAPED
cell exfiltration "--on all" CONTAINED network
cell exfiltration "--off network" ESCAPED
cell host-takeover "--on all" CONTAINED isolation
# the bomb's processes and memory live in the Sentry: the run's init polls
# its own accounting (runsc events --stats), and the verdict rests on that.
# The Sentry counts tasks and memory, not what its rlimits refused: a peak
# at the cap is no refusal (the red team's F3, round 6). Its refusals of a
# fork are taken from runsc --strace (clone() = -1 EAGAIN), so the bomb is
# CONTAINED by Resource-limits on that evidence, or by the wall clock when
# it fires first; never on a peak, never BROKE
j=$(lab run resource-bomb --on all --rung gvisor --json)
v=$(field 'd["verdict"]+" "+str(d.get("caught_by"))' <<<"$j")
expect_eq "gvisor: resource-bomb --on all -> CONTAINED by Resource-limits" "$v" "CONTAINED limits"
expect_eq "gvisor: ... a fork the Sentry refused is in the evidence (runsc --strace)" \
	"$(field '[t["by"] for t in d["trace"] if t["call"].startswith("clone(") and t["result"] == "-1 EAGAIN"][:1], d["record"]["sentry_forks_refused"] > 0' <<<"$j")" \
	"[\"gVisor's Sentry: RLIMIT_NPROC (Resource-limits)\"] True"
expect_contains "gvisor: the bomb's figures are the Sentry's" "$j" "the Sentry's task count"
expect_contains "gvisor: the Sentry's memory figure is not presented as the snippet's alone" "$j" "the whole sandbox's"
j=$(lab run resource-bomb --off limits --rung gvisor --json)
v=$(field 'd["verdict"]' <<<"$j")
if [[ $v != ERROR ]]; then
	ok "gvisor: resource-bomb --off limits is judged from the Sentry's figures ($v)"
else
	not_ok "gvisor: resource-bomb --off limits is judged" "got ERROR: $(field 'd["headline"]' <<<"$j")"
fi

# ---- the allow-list on gvisor: the lab's proxy as the one door ----
al() { # SNIPPET EXPECTED; the run's JSON is left in $j (not a subshell: ok/not_ok count here)
	local v
	j=$(lab run "$1" --on all --rung gvisor --network-mode allowlist --json)
	v=$(field 'd["verdict"]' <<<"$j")
	if [[ $v == "$2" ]]; then
		ok "gvisor allowlist: $1 -> $2"
	else
		not_ok "gvisor allowlist: $1 -> $2" "got $v: $(field 'd["headline"]' <<<"$j")"
	fi
}
al exfiltration CONTAINED
expect_contains "gvisor allowlist: the proxy refused the attacker" "$j" "The egress proxy refused attacker.lab.test:80"
expect_contains "gvisor allowlist: off loopback is unreachable" "$j" "connect(192.0.2.1:80, off loopback) -> Network is unreachable"
al legit-api "RAN OK"
expect_contains "gvisor allowlist: legit-api went through the proxy" "$j" "ALLOW  GET api.lab.test:80 /prices"
al exfil-allowed ESCAPED
expect_contains "gvisor allowlist: exfil-allowed left through the allowed host" "$j" "The data left through an allowed host"

# ---- exec on gvisor ----
out=$(cd /usr && "$BIN" --config "$OLDPWD/layers.ini" exec --on all --rung gvisor -- /usr/bin/uname -r); rc=$?
expect_eq "exec --rung gvisor: exit 0" "$rc" 0
expect_eq "exec --rung gvisor: gVisor's kernel answers uname -r" "$out" "4.4.0"
(cd /usr && "$BIN" --config "$OLDPWD/layers.ini" exec --on all --rung gvisor -- /bin/sh -c 'exit 7'); rc=$?
expect_eq "exec --rung gvisor: the command's exit status comes back" "$rc" 7

# ---- nothing left behind ----
sleep 0.2
expect_eq "no runsc process of the suite is left" "$(pgrep -af runsc | grep -F -- "$CL_SUITE_TMP" | grep -v pgrep)" ""
expect_eq "no runsc state folder is left" "$(find "$CL_SUITE_TMP" -maxdepth 3 -name runsc 2>/dev/null)" ""
expect_eq "no mount of the suite's or runsc's is left" "$(suite_mounts)" "$mounts_before"
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
