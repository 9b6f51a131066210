#!/usr/bin/env bash
# tests/audit_test.sh [BINARY] — `audit`: the lesson's attacks run through
# another sandbox's command prefix, judged by the lab's outside evidence.
#  - the lab's own `exec --on all`: every attack CONTAINED, legit RAN OK;
#  - `exec --on none`: the secrets, the exfiltration and the bomb ESCAPED;
#    the host takeover is CONTAINED, because exec's range (always on, even
#    with every layer off) shows the host read-only and /tmp private, so the
#    decoy home's start-up file is out of its reach — the truth, asserted;
#  - bwrap with the lesson-like preset (Debian's bubblewrap, installed when
#    root): all namespaces, --clearenv, a minimal read-only view, no limits:
#    secrets, exfiltration and takeover CONTAINED, the bomb ESCAPED; bwrap
#    is started by env -i, since its --clearenv leaves the secrets in its
#    own /proc/1/environ (bubblewrap#725): a custom bwrap started with them
#    is secret-theft ESCAPED, and the card says so;
#  - firejail (installed when root): it refuses to sandbox inside a PID
#    namespace, so the preset runs it outside the range, and with
#    --noprofile --net=none --private it stops only the exfiltration: the
#    environment passes, $HOME is the decoy's (its --private covers /root),
#    no limits;
#  - srt when installed (npm -g @anthropic-ai/sandbox-runtime): secrets and
#    bomb ESCAPED, exfiltration and takeover CONTAINED (issue 12's finding);
#  - resources as a limit counts them: the lab's preset under load is all
#    CONTAINED (a cap crossed within layers.ini's tolerance while the
#    wrapper's kill is in evidence is its limit holding); a wrapper that
#    caps memory only (tests/memonly_wrapper.sh, root) is resource-bomb
#    ESCAPED with all 65 processes counted, 10 runs of 10;
#  - the placeholders, the usage errors, JSON and markdown; nothing left
#    behind after any audit.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
trap 'suite_cleanup' EXIT
LAB_CONFIG=layers.ini # lab() (lib.sh)
# verdicts: "snippet=VERDICT ..."; an ESCAPED card's headline and figures
# go to stderr (the log), so a failure says why
verdicts() { $PY -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(r["snippet"]+"="+r["verdict"] for r in d["results"]))
for r in d["results"]:
    if r["verdict"] == "ESCAPED": print("# %s: %s (peak_mem %s, %s ms)" % (r["snippet"], r["headline"], r["peak_mem"], r["duration_ms"]), file=sys.stderr)'; }

before=$(leftovers_snapshot)

# install what the presets need, as the suite does its other deps
if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
	missing=""
	command -v bwrap >/dev/null || missing="$missing bubblewrap"
	command -v firejail >/dev/null || missing="$missing firejail"
	if [[ -n $missing ]]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null 2>&1 ||
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null 2>&1; }
	fi
fi

# ---- usage ----
lab audit >/dev/null 2>&1
expect_eq "audit without a sandbox: usage error (2)" "$?" 2
lab audit --preset nosuch >/dev/null 2>&1
expect_eq "audit --preset nosuch: usage error (2)" "$?" 2
lab audit --preset lab -- /bin/true >/dev/null 2>&1
expect_eq "audit --preset and a prefix: usage error (2)" "$?" 2

# ---- placeholders: {dir}, {VAR}, {cmd} inside an argument ----
out=$(lab audit --snippet legit -- /bin/sh -c 'cd {dir} && test -f {LAB_DATA} && exec {cmd}' 2>&1)
expect_contains "audit: {dir}, {LAB_DATA} and {cmd} inside an argument expand" "$out" "RAN OK"

# ---- a card for attacks that never ran is no card (issue 18) ----
j=$(lab audit --json -- /bin/false); rc=$?
expect_eq "audit -- /bin/false: exit 4 (no attack ran: the card is incomplete)" "$rc" 4
out=$(lab audit -- /bin/false); rc=$?
expect_eq "audit -- /bin/false, the card: exit 4 too (it ran)" "$rc" 4
expect_not_contains "audit -- /bin/false: never 'missing: none'" "$out" "missing: none: no attack got out"
expect_eq "audit -- /bin/false: JSON not ok" "$(field 'd["ok"], d["legit_ok"]' <<<"$j")" "False False"
err=$(lab audit --snippet host-takeover -- nosuchwrapper {cmd} 2>&1 >/dev/null); rc=$?
expect_eq "audit -- nosuchwrapper: usage error before anything runs (2)" "$rc" 2
expect_contains "audit -- nosuchwrapper: says it is not on PATH" "$err" "nosuchwrapper: not found on PATH"
top=$PWD
cp "$BIN" "$CL_SUITE_TMP/lab-relative"
out=$(cd "$CL_SUITE_TMP" && "$BIN" --config "$top/layers.ini" audit --snippet legit -- ./lab-relative --config "$top/layers.ini" exec --on none -- {cmd})
rm -f "$CL_SUITE_TMP/lab-relative"
expect_contains "audit -- ./relative/wrapper: resolved before the run (legit RAN OK)" "$out" "legit           RAN OK"
out=$(lab audit --snippet legit -- sh -c '{cmd}')
expect_contains "audit -- sh -c '{cmd}': the command string is the whole command (legit RAN OK)" "$out" "legit           RAN OK"
out=$(lab audit --snippet legit -- sh -c 'nice -n 1 {cmd}')
expect_contains "audit -- sh -c 'nice {cmd}': quoted inside a longer string (legit RAN OK)" "$out" "legit           RAN OK"

# ---- the lab's own exec --on all: all CONTAINED ----
j=$(lab audit --json --preset lab); rc=$?
expect_eq "audit --preset lab: exit 0" "$rc" 0
expect_eq "audit --preset lab: every attack CONTAINED, legit RAN OK" "$(verdicts <<<"$j")" \
	"legit=RAN OK resource-bomb=CONTAINED secret-theft=CONTAINED exfiltration=CONTAINED dns-exfil=CONTAINED host-takeover=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
expect_contains "audit: CONTAINED is the wrapper's, never a lab layer's" "$j" "by the wrapper:"
expect_eq "audit --preset lab: nothing missing" "$(field 'd["missing"]' <<<"$j")" "[]"

# ---- under load: two busy loops of the suite's own beside the audit ----
# the lab's exec keeps its caps; the audit counts as a limit counts (the
# interpreter's own start time, the measuring cgroup), and a cap crossed
# by less than layers.ini's tolerance while the wrapper's kill is in
# evidence is the wrapper's limit holding, never an escape
burn=()
for _ in 1 2; do
	$PY -c 'import time
t = time.monotonic() + 60
while time.monotonic() < t: pass' &
	burn+=($!)
done
j=$(lab audit --json --preset lab); rc=$?
kill "${burn[@]}" 2>/dev/null
wait "${burn[@]}" 2>/dev/null
expect_eq "audit --preset lab under load: every attack CONTAINED, legit RAN OK" "$(verdicts <<<"$j")" \
	"legit=RAN OK resource-bomb=CONTAINED secret-theft=CONTAINED exfiltration=CONTAINED dns-exfil=CONTAINED host-takeover=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
expect_eq "audit --preset lab under load: exit 0" "$rc" 0
expect_contains "audit card: the tolerance is on it" "$j" "layers.ini [audit] tolerance"

# ---- a wrapper that limits memory only: the bomb's processes counted ----
if [[ $(id -u) == 0 ]]; then
	esc=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		j=$(lab audit --json --snippet resource-bomb -- "$PWD/tests/memonly_wrapper.sh" "${CL_SUITE_TMP##*.}" {cmd})
		v=$(field 'd["results"][0]["verdict"], d["results"][0]["peak_procs"]' <<<"$j")
		[[ $v == "ESCAPED 65" ]] && esc=$((esc + 1))
	done
	expect_eq "a memory-only cgroup wrapper: resource-bomb ESCAPED with all 65 processes counted, 10 of 10" \
		"$esc" 10
	expect_contains "the figures are the measuring cgroup's" "$j" "the lab's measuring cgroup"
	expect_eq "no memory-only cgroup left behind" "$(ls /sys/fs/cgroup/memory /sys/fs/cgroup 2>/dev/null | grep -c "memonly-wrapper\.${CL_SUITE_TMP##*.}\.")" 0
else
	skip "audit of a memory-only cgroup wrapper" "the wrapper writes /sys/fs/cgroup: root only"
fi

# ---- the lab's exec --on none ----
j=$(lab audit --json -- "$BIN" --config "$PWD/layers.ini" exec --on none -- {cmd}); rc=$?
expect_eq "audit of exec --on none: exit 1" "$rc" 1
expect_eq "audit of exec --on none: the card, threat by threat" "$(verdicts <<<"$j")" \
	"legit=RAN OK resource-bomb=ESCAPED secret-theft=ESCAPED exfiltration=ESCAPED dns-exfil=ESCAPED host-takeover=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
expect_eq "audit of exec --on none: missing layers" "$(field '",".join(d["missing"])' <<<"$j")" "network,env,limits"

# ---- the allowed host is outside the wrapper too (issue 10's review) ----
# LAB_API is handed over: exfil-allowed posts the data there when the
# attacker is out of reach, and the audit sees it arrive
out=$(lab audit --snippet exfil-allowed -- "$BIN" --config "$PWD/layers.ini" exec --on none -- \
	/usr/bin/env LAB_ATTACKER=http://127.0.0.1:1/ {cmd} 2>&1)
expect_contains "audit: exfil-allowed through exec --on none reaches api.lab.test: ESCAPED there" "$out" \
	"ESCAPED    api.lab.test on the host's 127.0.0.1 received"
expect_contains "audit: the missing layer names api.lab.test, not an attacker that got 0 bytes" "$out" \
	"No-network missing — api.lab.test on the host's 127.0.0.1 received"
out=$(lab --network-mode allowlist audit --preset lab --snippet exfil-allowed 2>&1)
expect_contains "audit --preset lab: LAB_API is handed to the wrapper" "$out" "LAB_API={LAB_API}"
expect_contains "audit --network-mode allowlist --preset lab: says the allow-list is not the wrapper's" "$out" \
	"this card says nothing about the allow-list"

# ---- bwrap, the lesson-like preset ----
if command -v bwrap >/dev/null; then
	j=$(lab audit --json --preset bwrap); rc=$?
	expect_eq "audit --preset bwrap: exit 1 (the bomb)" "$rc" 1
	expect_eq "audit --preset bwrap: the card, threat by threat" "$(verdicts <<<"$j")" \
		"legit=RAN OK resource-bomb=ESCAPED secret-theft=CONTAINED exfiltration=CONTAINED dns-exfil=CONTAINED host-takeover=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
	expect_eq "audit --preset bwrap: Resource-limits missing" "$(field '",".join(d["missing"])' <<<"$j")" "limits"
	t=$(lab audit --preset bwrap --snippet resource-bomb)
	expect_contains "audit text: the missing layer with its figures" "$t" "Resource-limits missing — "
	expect_contains "audit --preset bwrap: bwrap starts from an environment of the inputs only" \
		"$(field 'd["wrapper"][:2]' <<<"$j")" "['/usr/bin/env', '-i']"
	# bubblewrap#725: --clearenv clears the child's environment, not
	# bwrap's own, and bwrap is PID 1 of the sandbox's /proc
	t=$(lab audit --snippet secret-theft -- bwrap --unshare-all --die-with-parent --ro-bind /usr /usr \
		--symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev \
		--ro-bind {dir} {dir} --chdir {dir} --clearenv --setenv PATH /usr/bin {cmd}); rc=$?
	expect_eq "audit of bwrap --clearenv started with the secrets: exit 1" "$rc" 1
	expect_contains "audit of bwrap --clearenv: secret-theft ESCAPED, from bwrap's own environment" "$t" \
		"ESCAPED    5 of 10 planted secrets came out through the wrapper, from bwrap's own environment via /proc/1/environ"
	expect_contains "audit of bwrap --clearenv: the missing layer names /proc/1/environ" "$t" \
		"Clean-env missing — the caller's secrets were readable inside: 5 of 10 came out, from bwrap's own environment via /proc/1/environ"
else
	skip "audit --preset bwrap" "bubblewrap is not installed (apt-get install bubblewrap; the suite installs it as root)"
fi

# ---- firejail ----
if command -v firejail >/dev/null && [[ $(id -u) == 0 ]]; then
	j=$(lab audit --json --preset firejail)
	expect_eq "audit --preset firejail: the card, threat by threat" "$(verdicts <<<"$j")" \
		"legit=RAN OK resource-bomb=ESCAPED secret-theft=ESCAPED exfiltration=CONTAINED dns-exfil=CONTAINED host-takeover=ESCAPED persist-hooks=ESCAPED daemon=CONTAINED agent-socket=ESCAPED"
	expect_contains "audit --preset firejail: says the range could not surround it" "$j" "the range could not surround it"
	expect_contains "audit --preset firejail: the secrets from the snippet's own environment" "$j" \
		"from the snippet's own environment"
	# a firejail of the caller's own, even behind env, runs outside the
	# range as the preset does: inside it, it would sandbox nothing
	j=$(lab audit --json --snippet exfiltration -- env FOO=1 firejail --quiet --noprofile --net=none -- {cmd})
	expect_eq "audit -- env firejail --net=none: exfiltration CONTAINED (run outside the range)" \
		"$(verdicts <<<"$j")" "exfiltration=CONTAINED"
	expect_contains "audit -- env firejail: the card says the range could not surround it" "$j" \
		"the range could not surround it"
elif command -v firejail >/dev/null; then
	out=$(lab audit --preset firejail); rc=$?
	expect_eq "audit --preset firejail rootless: skipped (4)" "$rc" 4
	expect_contains "audit --preset firejail rootless: says why" "$out" "setuid"
	out=$(lab audit -- firejail --noprofile -- {cmd}); rc=$?
	expect_eq "audit -- firejail rootless: skipped (4), as its preset" "$rc" 4
else
	skip "audit --preset firejail" "firejail is not installed (apt-get install firejail; the suite installs it as root)"
fi

# ---- srt ----
# srt_card NAME JSON: uid 65534's two cells; a miss shows the lab's stderr
# (a card that never came says why)
srt_card() {
	local got
	got=$(verdicts <<<"$2")
	if [[ $got == "legit=RAN OK secret-theft=ESCAPED" ]]; then
		ok "$1"
	else
		not_ok "$1" "expected 'legit=RAN OK secret-theft=ESCAPED', got '$got'" \
			"stderr: $(tail -c 1500 "$CL_SUITE_TMP/srt.err" | tr '\n' ' ')" "json: ${2:0:600}"
	fi
}
# either order: uid 65534 first here (its leftovers in a shared /tmp must
# not fail root's card), root's card, then uid 65534 again below
if command -v srt >/dev/null && [[ $(id -u) == 0 ]]; then
	h=$(mktemp -d) && chown 65534:65534 "$h"
	j=$(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$h" "$BIN" --config layers.ini \
		audit --json --preset srt --snippet legit --snippet secret-theft 2>"$CL_SUITE_TMP/srt.err")
	srt_card "audit --preset srt as uid 65534 before root's: legit RAN OK, secret-theft ESCAPED" "$j"
	rm -rf "$h"
fi
if command -v srt >/dev/null; then
	j=$(lab audit --json --preset srt)
	expect_eq "audit --preset srt: the card, threat by threat" "$(verdicts <<<"$j")" \
		"legit=RAN OK resource-bomb=ESCAPED secret-theft=ESCAPED exfiltration=CONTAINED dns-exfil=CONTAINED host-takeover=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
else
	out=$(lab audit --preset srt); rc=$?
	expect_eq "audit --preset srt without srt: skipped (4)" "$rc" 4
	skip "audit --preset srt" "srt is not installed (npm install -g @anthropic-ai/sandbox-runtime)"
fi

# srt as uid 65534 after root's audits: its leftovers in a shared /tmp
# (srt-mux-2-0.sock, srt is PID 2 in the range) must not fail the next
if command -v srt >/dev/null && [[ $(id -u) == 0 ]]; then
	h=$(mktemp -d) && chown 65534:65534 "$h"
	j=$(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$h" "$BIN" --config layers.ini \
		audit --json --preset srt --snippet legit --snippet secret-theft 2>"$CL_SUITE_TMP/srt.err")
	srt_card "audit --preset srt as uid 65534 after root's: legit RAN OK, secret-theft ESCAPED" "$j"
	rm -rf "$h"
fi

# ---- snippets/audit: DNS exfiltration, persistence in the work folder, a daemon, the agent's socket ----
# through no sandbox at all, each gets out; through the lab's exec --on all
# and the bwrap preset (read-only work folder, PID namespace, no network,
# no home) none does
t=$(lab audit --json --snippet dns-exfil --snippet persist-hooks --snippet daemon --snippet agent-socket -- /usr/bin/env {cmd})
expect_eq "audit -- env: dns-exfil, persist-hooks, daemon and agent-socket ESCAPED" "$(verdicts <<<"$t")" \
	"dns-exfil=ESCAPED persist-hooks=ESCAPED daemon=ESCAPED agent-socket=ESCAPED"
expect_contains "audit -- env: the agent's socket reached and the key listed" "$t" \
	"it reached your ssh-agent's socket (~/.ssh/agent.sock) and asked it for your keys"
expect_contains "audit -- env: the agent's figures" "$t" "1 connection(s) of the snippet's, 1 request(s) answered, the decoy key listed 1 time(s)"
expect_contains "audit -- env: the DNS zone got the canary row" "$t" \
	"queries whose names carried 3,527 bytes, the canary row of the customer data among them"
expect_contains "audit -- env: the hook and the .envrc named" "$t" \
	"it left .git/hooks/pre-commit (74 bytes, executable), .envrc (66 bytes) in the work folder on the host"
expect_contains "audit -- env: the daemon that outlived the wrapper named" "$t" \
	"1 process of the snippet's (python3) still ran when the wrapper's command had exited"
expect_eq "audit -- env: No-network and Isolation missing" "$(field '",".join(d["missing"])' <<<"$t")" "isolation,network"
t=$(lab audit --json --preset lab --snippet dns-exfil --snippet persist-hooks --snippet daemon --snippet agent-socket)
expect_eq "audit --preset lab: dns-exfil, persist-hooks, daemon and agent-socket CONTAINED" "$(verdicts <<<"$t")" \
	"dns-exfil=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
expect_contains "audit --preset lab: the agent's socket was tried and not reached" "$t" "the ssh-agent's socket was not reached"
if command -v bwrap >/dev/null; then
	t=$(lab audit --json --preset bwrap --snippet dns-exfil --snippet persist-hooks --snippet daemon --snippet agent-socket)
	expect_eq "audit --preset bwrap: dns-exfil, persist-hooks, daemon and agent-socket CONTAINED (its PID 1 outlives bwrap for a moment)" \
		"$(verdicts <<<"$t")" "dns-exfil=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
fi
# bwrap's PID namespace ends with its PID 1, the daemon killed with it: a
# python3 still there for an instant, its SIGKILL already taken from the
# queue, is dying, not outliving (the screen's card once said ESCAPED)
if command -v bwrap >/dev/null; then
	n=0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		t=$(lab audit --json --preset bwrap --snippet daemon)
		[[ $(verdicts <<<"$t") == "daemon=CONTAINED" ]] && n=$((n + 1))
	done
	expect_eq "audit --preset bwrap: the daemon dies with bwrap's PID namespace, CONTAINED 10 of 10" "$n" 10
fi
# a wrapper that cuts the network and hides the files but hands the
# agent's socket in, as `ssh -A` or a devcontainer's agent forwarding does
t=$(lab audit --json --snippet agent-socket -- /bin/sh -c 'unshare -rn {cmd}')
expect_eq "audit -- unshare -rn (no network, the home left): agent-socket ESCAPED" "$(verdicts <<<"$t")" "agent-socket=ESCAPED"

# ---- the red team against audit's new threats (tests/audit-redteam/) ----
RT=$PWD/tests/audit-redteam
# a client that hangs up before the agent's answer: SIGPIPE killed the
# command line (exit 141, no card, the run folder left behind)
out=$(lab -q audit --snippet "$RT/agent-hangs-up.py" -- /usr/bin/env {cmd} 2>&1); rc=$?
expect_eq "audit: a snippet that hangs up on the agent: the card, exit 1 (was 141, SIGPIPE)" "$rc" 1
expect_contains "audit: a snippet that hangs up on the agent: ESCAPED" "$out" "agent-hangs-up  ESCAPED    it reached your ssh-agent's socket"
# the wrapper's own probe of the agent is not the snippet's
if command -v bwrap >/dev/null; then
	mapfile -t bw < <(lab audit --json --preset bwrap --snippet legit | $PY -c 'import json,sys; print("\n".join(json.load(sys.stdin)["wrapper"]))')
	t=$(lab audit --json --snippet host-takeover --snippet persist-hooks --snippet daemon --snippet agent-socket -- "$RT/wrapper-probes-agent.sh" "${bw[@]}")
	expect_eq "audit: a wrapper that probes the agent around bwrap: every takeover row CONTAINED" "$(verdicts <<<"$t")" \
		"host-takeover=CONTAINED persist-hooks=CONTAINED daemon=CONTAINED agent-socket=CONTAINED"
	expect_contains "audit: the wrapper's connection is counted apart" "$t" "0 connection(s) of the snippet's, 0 request(s) answered, the decoy key listed 0 time(s); 1 of other processes"
fi
# the new evidence is judged whatever the header says; .git/config is watched
t=$(lab audit --json --snippet "$RT/legit-but-plants.py" --snippet "$RT/secrets-but-agent.py" --snippet "$RT/persist-git-config.py" -- /usr/bin/env {cmd})
expect_eq "audit: a legit task that plants, secrets that ask the agent, a git config: all ESCAPED" "$(verdicts <<<"$t")" \
	"legit-but-plants=ESCAPED secrets-but-agent=ESCAPED persist-git-config=ESCAPED"
expect_contains "audit: .git/config changed is named" "$t" ".git/config changed"
expect_eq "audit: their missing layer is Isolation" "$(field '",".join(d["missing"])' <<<"$t")" "isolation"

# a daemon that forks anew every 100 ms and lets the old pid go: the
# survivor check only re-tested the pids it saw first (CONTAINED, wrongly)
t=$(lab audit --json --snippet "$RT/daemon-respawn.py" -- /usr/bin/env {cmd})
expect_eq "audit: a respawning daemon outlives the wrapper: ESCAPED" "$(verdicts <<<"$t")" "daemon-respawn=ESCAPED"
# a daemon that execs another program (/bin/sh): the survivor check counts
# only processes running the snippet's interpreter. Not fixed yet: the
# init cannot tell a wrapper's helper from the snippet's exec'd child
skip "audit: a daemon that execs /bin/sh outlives the wrapper: ESCAPED (tests/audit-redteam/daemon-exec.py)" \
	"known gap: only the interpreter's processes are counted as survivors (issue 18 red team)"

# stopped by SIGTERM mid-card: the running attack killed and cleaned up,
# the card so far, exit 4 (it was exit 143 with the run folder left)
# (the binary itself in the background, not the lab function: its subshell
# would take the signal)
# The signal must land while an attack runs: a fast machine finished the
# two shipped snippets within the second the test waited (CI: exit 0). So
# the second snippet sleeps 4 s (under the 5 s timeout of layers.ini), and
# the signal goes once a process of the audit's tree runs it.
slow="$CL_SUITE_TMP/slow-task-$$.py"
printf '%s\n' '# lab:title: A task that takes its time' '# lab:threat: legit' '# lab:layer: none' \
	'# lab:consequence: none' 'import time' 'time.sleep(4)' 'print("done")' >"$slow"
"$BIN" --config layers.ini -q audit --preset lab --snippet resource-bomb --snippet "$slow" >"$CL_SUITE_TMP/stopped.out" 2>&1 &
p=$!
# is one of the processes running the slow task a descendant of $1?
in_tree_of() {
	local q a
	for q in $(pgrep -f "slow-task-$$"); do
		# the audit's own command line names the task too: only a
		# process below it runs it
		[ "$q" = "$1" ] && continue
		a=$q
		while [ "${a:-1}" -gt 1 ]; do
			[ "$a" = "$1" ] && return 0
			a=$(awk '{print $4}' "/proc/$a/stat" 2>/dev/null)
		done
	done
	return 1
}
running=no
for _ in $(seq 1 300); do
	in_tree_of "$p" && { running=yes; break; }
	sleep 0.1
done
expect_eq "audit stopped by SIGTERM: the slow task ran when the signal was sent" "$running" yes
kill -TERM "$p"
wait "$p"; rc=$?
expect_eq "audit stopped by SIGTERM: exit 4 (the card is incomplete)" "$rc" 4
expect_contains "audit stopped by SIGTERM: says so" "$(cat "$CL_SUITE_TMP/stopped.out")" "audit stopped by Terminated: the sandbox was killed and cleaned up"
expect_eq "audit stopped by SIGTERM: no run folder left" "$(ls -d "$CL_SUITE_TMP"/containment-lab.* 2>/dev/null)" ""

# ---- markdown ----
m=$(lab audit --markdown --preset lab --snippet legit)
expect_contains "audit --markdown: a table" "$m" "| legit | RAN OK |"

# ---- nothing left behind ----
sleep 0.3
expect_eq "nothing left behind after the audits" "$(leftovers_snapshot)" "$before"
expect_eq "no decoy start-up file left anywhere in the suite's folder" \
	"$(find "$CL_SUITE_TMP" -path '*bashrc.d*' 2>/dev/null)" ""
finish
