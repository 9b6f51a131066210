#!/usr/bin/env bash
# tests/tour_test.sh [BINARY] — `containment-lab tour` (and t on the screen)
# driven through a private tmux server at 80x24, as a student would: every
# step from the first to the last (predict, run for real, read why, t), a
# step whose rung or snippet this machine lacks says so and moves on, the
# score is kept, quitting and starting again resumes at the same step, T
# leaves the tour and t resumes it, bad input is refused, and nothing is
# left behind. The answers given are the truth table's, so the score
# counts every step the lab gave a yes or no; no figure of speed is
# asserted.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
if ! command -v tmux >/dev/null; then
	skip "the tour at 80x24" "tmux is not installed (apt-get install tmux)"
	finish
	exit
fi
SOCK=cltour-$$
T=$(mktemp -d /tmp/cl-tour.XXXXXX)
chmod 755 "$T"
tmux_() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	tmux_ kill-server >/dev/null 2>&1
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	rm -rf "$T"
	suite_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

before=$(leftovers_snapshot)
STATE=$T/state

# start SESSION ARGS...: the lab at 80x24, its progress under $STATE
start() {
	local s=$1
	shift
	printf '%q ' env XDG_STATE_HOME="$STATE" "$BIN" --config "$PWD/layers.ini" "$@" >"$T/$s.cmd"
	tmux_ new-session -d -s "$s" -x 80 -y 24 -c "$PWD" "bash -c '. $T/$s.cmd; echo EXITED:\$?; exec sleep 600'"
}
screen() { tmux_ capture-pane -p -t "$1" 2>/dev/null; }
# wait_for SESSION REGEX [TENTHS]: until the screen matches (default 120 s)
wait_for() {
	local n=0 max=${3:-1200}
	while ! screen "$1" | grep -qE "$2"; do
		((n++ < max)) || return 1
		sleep 0.1
	done
}
step_of() { screen "$1" | grep -oE 'TOUR [0-9]+/[0-9]+' | head -1; }

# ---- from the first step to the last ----
start tour tour
if ! wait_for tour 'TOUR 1/[0-9]+'; then
	not_ok "tour: opens at step 1" "$(screen tour)"
	finish
	exit
fi
ok "tour: opens at step 1 at 80x24 ($(step_of tour))"
expect_contains "tour: the step's intro and what to press" "$(screen tour)" "Enter  predict"
steps=$(step_of tour | cut -d/ -f2)
ran=0 moved=0 scored_want=0 seen_titles=()
for ((k = 1; k <= steps; k++)); do
	if ! wait_for tour "TOUR $k/$steps" 100; then
		not_ok "tour: step $k shows" "$(screen tour)"
		break
	fi
	scr=$(screen tour)
	seen_titles+=("$(grep -oE "TOUR $k/$steps: [^│]*" <<<"$scr" | head -1 | sed -E 's/ *(score.*)?$//')")
	if grep -q "t moves on" <<<"$scr"; then
		# this machine lacks the step's rung or snippet: it says so
		moved=$((moved + 1))
		echo "# step $k: $(grep -oE '(the [a-z-]+ rung does not run here|this lab has no snippet named [a-z-]+)' <<<"$scr" | head -1)"
		tmux_ send-keys -t tour t
		continue
	fi
	tmux_ send-keys -t tour Enter
	if ! wait_for tour 'PREDICT' 100; then
		not_ok "tour: step $k asks for a prediction" "$(screen tour)"
		break
	fi
	# the truth table's answer for the step, as its intro describes it
	if screen tour | grep -q 'ran ok or failed'; then key=o; else key=$( ((k == 3 || k == 10 || k == 11 || k == 13)) && echo c || echo e); fi
	tmux_ send-keys -t tour "$key"
	# the verdict, then the step's why (a microVM boots under TCG: up to 3 min)
	if ! wait_for tour "(^|[^a-z])why: [[:alnum:]]" 1800; then
		not_ok "tour: step $k runs and explains" "$(screen tour)"
		break
	fi
	ran=$((ran + 1))
	# a step the lab judged yes or no says "(score N/M)"; one it judged
	# otherwise (ERROR, FAILED) says "not scored" and why: shown, not counted
	guess=$(screen tour | grep -oE 'you predicted [^│]*' | head -1)
	if grep -q '(score [0-9]*/[0-9]*)' <<<"$guess"; then
		scored_want=$((scored_want + 1))
	else
		echo "# step $k: ${guess:-no prediction line}"
	fi
	[[ $k == 3 ]] && tmux_ capture-pane -p -t tour >"$T/step3.txt"
	tmux_ send-keys -t tour t
done
if wait_for tour 'TOUR done: [0-9]+ of [0-9]+ predictions right' 100; then
	done_line=$(screen tour | grep -oE 'TOUR done: [0-9]+ of [0-9]+ predictions right')
	ok "tour: from the first step to the last ($ran run, $moved said why they cannot run here): $done_line"
	total=$(grep -oE 'of [0-9]+' <<<"$done_line" | grep -oE '[0-9]+')
	expect_eq "tour: every step the lab judged yes or no is in the score" "$total" "$scored_want"
else
	not_ok "tour: reaches its end" "$(screen tour)"
fi
printf '# %s\n' "${seen_titles[@]}"
echo "# a step's screen at 80x24:"
sed 's/^/#   /' "$T/step3.txt" 2>/dev/null
((ran >= 9)) && ok "tour: at least the container and in-process steps ran ($ran of $steps)" ||
	not_ok "tour: at least the container and in-process steps ran" "ran $ran of $steps"
expect_contains "tour: the progress file is the student's" "$(stat -c '%a %U' "$STATE/containment-lab/tour" 2>&1)" "600 $(id -un)"
tmux_ send-keys -t tour q
wait_for tour '^EXITED:0' 100 && ok "tour: q quits (exit 0)" || not_ok "tour: q quits" "$(screen tour)"

# ---- leave and resume ----
printf 'step 4\nright 2\ntotal 3\n' >"$STATE/containment-lab/tour"
start resume tour
if wait_for resume "TOUR 5/$steps: .*score 2/3" 100; then
	ok "tour: starts where the student left it (step 5, score 2/3)"
else
	not_ok "tour: starts where the student left it" "$(screen resume)"
fi
tmux_ send-keys -t resume t
wait_for resume "TOUR 6/$steps" 100 && ok "tour: t moves on without running the step" ||
	not_ok "tour: t moves on" "$(screen resume)"
tmux_ send-keys -t resume T
wait_for resume 'left the tour at step 6' 100 && ok "tour: T leaves it and says where" ||
	not_ok "tour: T leaves it" "$(screen resume)"
expect_not_contains "tour: left, the result pane is the screen's own again" "$(screen resume)" "TOUR 6/"
tmux_ send-keys -t resume q
wait_for resume '^EXITED:0' 100
expect_contains "tour: the place is kept on quitting" "$(cat "$STATE/containment-lab/tour")" "step 5"
# the plain screen: t resumes the tour there too
start plain
wait_for plain 'SNIPPETS' 100
tmux_ send-keys -t plain t
wait_for plain "TOUR 6/$steps" 100 && ok "the screen's t resumes the tour" || not_ok "the screen's t resumes the tour" "$(screen plain)"
tmux_ send-keys -t plain q
wait_for plain '^EXITED:0' 100

# ---- a step scored before quitting is not scored again on resuming ----
printf 'step 0\nright 1\ntotal 1\ncounted 1\n' >"$STATE/containment-lab/tour"
start again tour
wait_for again "TOUR 1/$steps: .*score 1/1" 100
tmux_ send-keys -t again Enter
wait_for again 'PREDICT' 100 && tmux_ send-keys -t again o
if wait_for again "(^|[^a-z])why: [[:alnum:]]" 1800; then
	expect_contains "tour: a step scored before quitting is not scored twice" "$(screen again)" "TOUR 1/$steps: Real work first   score 1/1"
else
	not_ok "tour: the resumed step runs" "$(screen again)"
fi
tmux_ send-keys -t again q
wait_for again '^EXITED:0' 100

# ---- a damaged progress file starts over; bad input is refused ----
printf 'step 999\nright 5\ntotal 1\n' >"$STATE/containment-lab/tour"
start damaged tour
wait_for damaged "TOUR 1/$steps: .*score 0/0" 100 && ok "tour: a progress file it cannot trust starts from step 1" ||
	not_ok "tour: a damaged progress file" "$(screen damaged)"
tmux_ send-keys -t damaged q
wait_for damaged '^EXITED:0' 100
out=$("$BIN" --config layers.ini tour --fast 2>&1 </dev/null)
rc=$?
expect_eq "tour --fast: a usage error (exit 2)" "$rc" 2
expect_contains "tour --fast: says why" "$out" "tour takes no options"
out=$("$BIN" --config layers.ini tour 2>&1 </dev/null)
expect_contains "tour without a terminal: says it needs one" "$out" "needs a terminal"

tmux_ kill-server >/dev/null 2>&1
sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
