#!/usr/bin/env bash
# tests/adversary_test.sh [BINARY] — the red team's corpus (tests/adversary/,
# issue 17): snippets whose header names one threat while their code does
# another, or nothing. Every run is judged on every threat's evidence, and a
# CONTAINED needs the layer's mechanism to have met this run's attempt where
# the lab can see one. Each "# adversary: ARGS => VERDICT [WHAT] [~ TEXT]"
# line of a snippet is run as root and as uid 65534 (README.md there says
# what the fields mean), then the shipped snippets at every layer on and
# every layer off, to show their verdicts did not move.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-adversary.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
# a staged copy that uid 65534 can reach (/root is 0700)
LAB=$T/lab-adversary-$$
cp "$BIN" "$LAB"
cp layers.ini "$T/"
cp -r tests/adversary "$T/adversary"
cp -r snippets "$T/snippets"
# takeover-symlink-out.py's foreign folder: a cron file the run never
# wrote, under this test's own temp folder, which the run cannot see (its
# /tmp is private) and the lab, outside, can; the snippet's copy is told
# where it is
mkdir -p "$T/X/fake/cron.d"
echo old >"$T/X/fake/cron.d/containment-lab-persist"
sed -i "s|@ADVERSARY_TMP@|$T|g" "$T"/adversary/*.py
chmod -R a+rX "$T"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
WHO=(root)
if [[ $(id -u) == 0 ]]; then WHO+=(nobody); fi

# judge JSON VERDICT [WHAT...] [~ TEXT] -> "" when it holds, else what differs
judge() {
	$PY - "$@" <<'PY'
import json, sys
try:
    # bytes that are not UTF-8 reach here as surrogates: a strict reader
    # refuses the document, so the lab may never write one
    sys.argv[1].encode("utf-8")
except UnicodeEncodeError as e:
    print("not valid UTF-8 at byte %d: %r" % (e.start, sys.argv[1][max(0, e.start - 40):e.start + 10])); sys.exit()
try:
    d = json.loads(sys.argv[1])
except ValueError:
    print("not JSON: " + sys.argv[1][:200]); sys.exit()
words = sys.argv[2:]
text = None
if "~" in words:
    i = words.index("~")
    text = " ".join(words[i + 1:])
    words = words[:i]
want = words[0] if words and words[0] != "RAN" else "RAN OK"
what = words[1:] if want != "RAN OK" else words[2:]
bad = []
if d.get("verdict") != want:
    bad.append("verdict %s, not %s" % (d.get("verdict"), want))
if want == "CONTAINED" and what and d.get("caught_by") != what[0]:
    bad.append("caught by %s, not %s" % (d.get("caught_by"), what[0]))
if want == "ESCAPED" and sorted(d.get("escaped") or []) != sorted(what):
    bad.append("escaped %s, not %s" % (d.get("escaped"), what))
if want != "CONTAINED" and d.get("caught_by"):
    bad.append("a layer took the credit: %s" % d.get("caught_by"))
said = [d.get("headline") or ""] + (d.get("evidence") or [])
if text and not any(text in s for s in said):
    bad.append("nothing says '%s'" % text)
if bad:
    print("; ".join(bad) + " | headline: " + (d.get("headline") or ""))
PY
}

# a snippet whose work must get done before the judge looks (a bomb that
# fills buffers, then waits to be stopped) says "# adversary-clock: slow":
# its wall clock is 25 s, so a loaded machine still lets it do its work
sed -e 's/^timeout = .*/timeout = 25s/' -e 's/^cpu_time = .*/cpu_time = 20s/' layers.ini >"$T/slow.ini"
# one that needs time on the clock but must meet the shipped caps (its
# children share the 2 s RLIMIT_CPU between them) says "# adversary-clock:
# wall": a 25 s wall clock, everything else as shipped
sed -e 's/^timeout = .*/timeout = 25s/' layers.ini >"$T/wall.ini"
chmod a+r "$T/slow.ini" "$T/wall.ini"
CONF=$T/layers.ini
run_as() { # WHO ARGS...
	local who=$1
	shift
	if [[ $who == nobody ]]; then
		(cd "$T" && nobody "$LAB" --config "$CONF" "$@")
	else
		(cd "$T" && "$LAB" --config "$CONF" "$@")
	fi
}

before=$(leftovers_snapshot)

# CL_ADVERSARY=GLOB: only the corpus files it matches (e.g. 'kernel-*')
for f in "$T"/adversary/${CL_ADVERSARY:-*}.py; do
	name=$(basename "$f" .py)
	CONF=$T/layers.ini
	grep -q '^# adversary-clock: slow' "$f" && CONF=$T/slow.ini
	grep -q '^# adversary-clock: wall' "$f" && CONF=$T/wall.ini
	while IFS= read -r line; do
		# "# adversary(WHO): ..." holds for that user only: a root lab has a
		# cgroup to count with, uid 65534 on this host has none
		only=
		[[ $line =~ ^\#\ adversary\(([a-z]+)\):\  ]] && only=${BASH_REMATCH[1]}
		spec=${line#*: }
		args=${spec%% => *}
		want=${spec#* => }
		for who in "${WHO[@]}"; do
			[[ -n $only && $only != "$who" ]] && continue
			# shellcheck disable=SC2086 # ARGS are words of run's command line
			j=$(run_as "$who" run "$f" $args --json 2>&1)
			# shellcheck disable=SC2086
			why=$(judge "$j" $want)
			if [[ -z $why ]]; then
				ok "$name $args: $want ($who)"
			else
				not_ok "$name $args: $want ($who)" "$why"
			fi
		done
	done < <(grep -E '^# adversary(\((root|nobody)\))?: ' "$f")
done

# a name the snippet chose is one line of the text report, whatever bytes
# it holds: a newline in it is shown escaped, never starts a line (the red
# team's F3: "S 0" stood as a report line of its own)
if [[ -z ${CL_ADVERSARY:-} || takeover-newline-name == $CL_ADVERSARY ]]; then
	for who in "${WHO[@]}"; do
		t=$(run_as "$who" run "$T/adversary/takeover-newline-name.py" --on none)
		if grep -q '^S 0' <<<"$t" || grep -q '^"<b>' <<<"$t"; then
			not_ok "a planted file's name with a newline: one line of the text report ($who)" "$t"
		else
			expect_contains "a planted file's name with a newline: one line of the text report ($who)" "$t" 'evil\nS 0\n'
		fi
		t=$(run_as "$who" run "$T/adversary/takeover-newline-name.py" --on none --json)
		why=$(judge "$t" ESCAPED takeover '~' 'evil\nS 0\n')
		if [[ -z $why ]]; then ok "... and the JSON names it, valid UTF-8 ($who)"; else not_ok "... and the JSON names it, valid UTF-8 ($who)" "$why"; fi
	done
fi

# the shipped snippets: every layer on, every layer off, as the truth table says
CONF=$T/layers.ini
shipped() { # NAME ARGS -> the truth table's verdict for the container rung, mode none
	case "$1:$2" in
	legit:* | legit-api:--on\ none | tool-chain:*) echo "RAN OK" ;;
	tool-injection:*) echo "CONTAINED" ;; # the gate (--approve never), whatever the layers
	legit-api:*) echo "FAILED" ;;
	kernel-exploit:*) echo "ESCAPED" ;;
	*:--on\ all) echo "CONTAINED" ;;
	*) echo "ESCAPED" ;;
	esac
}
for f in "$T"/snippets/*.py; do
	name=$(basename "$f" .py)
	[[ -n ${CL_ADVERSARY:-} ]] && break
	for args in "--on all" "--on none"; do
		want=$(shipped "$name" "$args")
		for who in "${WHO[@]}"; do
			# shellcheck disable=SC2086
			j=$(run_as "$who" run "$name" $args --json 2>&1)
			got=$($PY -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["verdict"])' "$j" 2>/dev/null)
			expect_eq "shipped $name $args: $want ($who)" "$got" "$want"
		done
	done
done

after=$(leftovers_snapshot)
expect_eq "nothing left behind (temp folders, cgroups, processes, mounts)" "$after" "$before"
finish
