#!/usr/bin/env bash
# tests/load_test.sh [BINARY] — the class server (issue 24): 30 labs of 30
# different uids (root and uids 70001-70029, rootless) run
# `containment-lab matrix` at once on this machine, every cell of each as
# the truth table says, and nothing is left behind (no process of theirs,
# no run folder, cgroup or mount).
#
# The labs share the machine through [safety] slots (run_slot.h): at most
# CL_LOAD_SLOTS (4) runs at once on the whole machine, whichever lab they
# are of, so a legit task never misses the 5 s wall clock for want of a CPU.
# Long (tens of minutes on 2 cores): `make test-load`, not part of
# `make test`. It prints its wall time and the verdicts counted over all
# the cells. Needs root (setpriv to other uids, a network namespace of its
# own, so every lab's loopback listeners are this test's only).
set -u
cd "$(dirname "$0")/.." || exit 1
if [[ $(id -u) != 0 ]]; then
	source tests/lib.sh
	skip "30 labs at once" "needs root (setpriv to 29 other uids, a network namespace of its own)"
	finish
	exit
fi
if [[ -z ${CL_LOAD_NETNS:-} ]]; then
	exec unshare --net env CL_LOAD_NETNS=1 bash "$0" "$@"
fi
ip link set lo up || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
SLOTS=${CL_LOAD_SLOTS:-4}
UIDS=(0 $(seq 70001 70029))
T=$(mktemp -d /tmp/cl-load.XXXXXX)
chmod 755 "$T"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"; suite_cleanup' EXIT
cp "$BIN" "$T/containment-lab"
cp -r snippets "$T/"
sed "s/^slots = .*/slots = $SLOTS/" layers.ini >"$T/layers.ini"
grep -q "^slots = $SLOTS\$" "$T/layers.ini" || { not_ok "layers.ini has a [safety] slots line" "none found"; finish; exit; }
chmod -R a+rX "$T"

for u in "${UIDS[@]:1}"; do
	if getent passwd "$u" >/dev/null || pgrep -u "$u" >/dev/null; then
		skip "30 labs at once" "uid $u is in use on this machine"
		finish
		exit
	fi
done

before=$(leftovers_snapshot)
t0=$SECONDS
for u in "${UIDS[@]}"; do
	mkdir -m 700 "$T/home.$u" && chown "$u:$u" "$T/home.$u"
	(cd "$T" && HOME=$T/home.$u setpriv --reuid="$u" --regid="$u" --clear-groups \
		"$T/containment-lab" --config "$T/layers.ini" matrix --json >"$T/m.$u.json" 2>"$T/m.$u.err"
	echo $? >"$T/m.$u.rc") &
	PIDS+=($!)
done
for p in "${PIDS[@]}"; do wait "$p"; done
PIDS=()
wall=$((SECONDS - t0))

# every cell against the truth table, restated here (as matrix_test.sh does)
summary=$($PY - "$T" "${UIDS[@]}" <<'PY'
import collections, json, sys
t, uids = sys.argv[1], sys.argv[2:]
layer = {"legit": None, "legit-api": None, "resource-bomb": "limits", "secret-theft": "env",
         "exfil-allowed": "network", "exfiltration": "network", "host-takeover": "isolation",
         "kernel-exploit": "isolation"}
counts, labs_ok, bad = collections.Counter(), 0, []
for u in uids:
    rc = open(f"{t}/m.{u}.rc").read().strip()
    try:
        cells = json.load(open(f"{t}/m.{u}.json"))["cells"]
    except (OSError, ValueError) as e:
        bad.append(f"uid {u}: no matrix ({e}; exit {rc}): {open(f'{t}/m.{u}.err').read()[:200]}")
        continue
    good = 0
    for c in cells:
        counts[c["verdict"]] += 1
        l = layer.get(c["snippet"], "?")
        want = "RAN OK" if l is None else ("CONTAINED" if c["layers"][l] else "ESCAPED")
        if c["snippet"] == "kernel-exploit":
            want = "ESCAPED"
        if c["snippet"] == "legit-api" and c["layers"]["network"]:
            want = "FAILED"
        if c["snippet"] == "exfil-allowed" and c["layers"]["network"]:
            want = "CONTAINED"
        if c["verdict"] == want and c["expected"] == want and (want != "CONTAINED" or c["caught_by"] == l):
            good += 1
        else:
            bad.append(f"uid {u}: {c['snippet']} {c['layers']} want {want} got {c['verdict']}: {c['headline'][:160]}")
    if good == len(cells) == 128 and rc == "0":
        labs_ok += 1
print(labs_ok, sum(counts.values()), " ".join(f"{k.replace(' ', '_')}={v}" for k, v in sorted(counts.items())))
for b in bad[:12]:
    print("#", b)
PY
)
read -r labs_ok ncells verdicts <<<"$(head -1 <<<"$summary")"
echo "# 30 labs x 128 cells in $wall s with $SLOTS machine-wide slots: $ncells cells, $verdicts"
if [[ $labs_ok == 30 ]]; then
	ok "30 labs of 30 uids at once: every matrix 128/128 as the truth table says, exit 0 ($wall s; $verdicts)"
else
	not_ok "30 labs of 30 uids at once: $labs_ok of 30 matrices as the truth table says" "$(tail -n +2 <<<"$summary")"
fi
left=""
for u in "${UIDS[@]:1}"; do pgrep -u "$u" >/dev/null && left+=" uid $u:$(pgrep -u "$u" | tr '\n' ' ')"; done
expect_eq "no process of the 29 other uids is left" "$left" ""
expect_eq "nothing left behind (run folders, cgroups, processes, mounts)" "$(leftovers_snapshot)" "$before"
finish
