#!/usr/bin/env bash
# tests/progress_test.sh [BINARY] — matrix's and audit's progress line, seen
# on a real terminal (a private tmux server, as tmux tests itself): drawn
# on stderr while the cells run, one line redrawn in place (never a second
# one), erased before the grid; coloured, but not with NO_COLOR; nothing
# with --quiet, nothing when stderr is not a terminal. A capture of the
# line is printed as '#' lines. No figure that depends on the machine's
# speed is asserted: only that the count moves and what the line says.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
if ! command -v tmux >/dev/null; then
	skip "the progress line at a terminal" "tmux is not installed (apt-get install tmux)"
	finish
	exit
fi
SOCK=clprogress-$$
T=$(mktemp -d /tmp/cl-progress.XXXXXX)
chmod 755 "$T"
tmux_() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	tmux_ kill-server >/dev/null 2>&1
	# where tmux -L puts its socket (the server, killed earlier, cannot say)
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	rm -rf "$T"
	suite_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

before=$(leftovers_snapshot)

# start SESSION ENV... -- ARGS...: the lab in a 100x30 pane; the pane
# then shows EXITED:N and stays open.
start() {
	local s=$1
	shift
	local envs=()
	while [[ $1 != -- ]]; do envs+=("$1"); shift; done
	shift
	printf '%q ' env "${envs[@]}" "$BIN" --config "$PWD/layers.ini" "$@" >"$T/$s.cmd"
	# ERR_TO=FILE: stderr into FILE, not the terminal
	[[ -n ${ERR_TO:-} ]] && printf '2>%q' "$ERR_TO" >>"$T/$s.cmd"
	tmux_ new-session -d -s "$s" -x 100 -y 30 -c "$PWD" \
		"bash -c '. $T/$s.cmd; echo EXITED:\$?; exec sleep 600'"
}
screen() { tmux_ capture-pane -p -t "$1" 2>/dev/null; }
# wait_exit SESSION: until EXITED shows (the matrix's own deadlines bound it)
wait_exit() {
	local n=0
	while ! screen "$1" | grep -q '^EXITED:' && ((n++ < 1800)); do sleep 0.5; done
}
# watch SESSION: samples the screen until the lab exits; each sample's
# progress lines go to $T/SESSION.samples, one sample a block
watch() {
	local s=$1 n=0
	: >"$T/$s.samples"
	while ((n++ < 3600)); do
		local scr
		scr=$(screen "$s")
		grep -q '^EXITED:' <<<"$scr" && break
		{ grep -E '^(matrix|audit): [0-9]+/' <<<"$scr"; echo "--"; } >>"$T/$s.samples"
		if [[ ! -s $T/$s.color ]] && grep -qE '^matrix: [1-9][0-9]*/16 cells' <<<"$scr"; then
			tmux_ capture-pane -e -p -t "$s" >"$T/$s.color"
			printf '%s\n' "$scr" >"$T/$s.plain"
		fi
		sleep 0.3
	done
}

# ---- the line, coloured, redrawn in place ----
start colour -u NO_COLOR TERM=xterm-256color -- matrix --snippet legit --jobs 1
watch colour
final=$(screen colour)
lines=$(grep -E '^matrix: [0-9]+/16 cells' "$T/colour.samples" | sort -u)
if [[ -n $lines ]]; then
	ok "matrix at a terminal: a progress line ($(wc -l <<<"$lines") different states seen)"
else
	not_ok "matrix at a terminal: a progress line" "samples: $(head -c 600 "$T/colour.samples")"
fi
counts=$(sed -nE 's/^matrix: ([0-9]+)\/16 cells.*/\1/p' "$T/colour.samples" | sort -n -u | tr '\n' ' ')
[[ $(wc -w <<<"$counts") -ge 2 ]] && ok "the count moves while the cells run ($counts)" ||
	not_ok "the count moves while the cells run" "counts seen: $counts"
# one block at a time holds at most one progress line: redrawn, not added
most=$(awk '/^--$/ { if (n > m) m = n; n = 0; next } { n++ } END { print m + 0 }' "$T/colour.samples")
expect_eq "the line is redrawn in place: never two progress lines on the screen" "$most" 1
expect_contains "the line says how long it has run" "$lines" " s"
if grep -qE '^matrix: [0-9]+/16 cells, [0-9]+ s, ~[0-9]+ s left' <<<"$lines"; then
	ok "the line says the time left, once a cell is in"
else
	not_ok "the line says the time left" "$lines"
fi
if [[ -s $T/colour.color ]] && grep -E 'matrix: ' "$T/colour.color" | grep -qE $'\e\\[[0-9;]*3[0-9]m'; then
	ok "the count is coloured (TERM set, NO_COLOR unset)"
else
	not_ok "the count is coloured" "$(grep -a 'matrix: ' "$T/colour.color" | cat -v)"
fi
echo "# a capture of the pane while the matrix ran (tmux capture-pane):"
sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$T/colour.plain" | sed 's/^/#   | /'
expect_contains "the matrix exits 0 at the terminal" "$final" "EXITED:0"
expect_contains "the grid follows" "$final" "16/16 cells as expected"
if grep -qE '^matrix: [0-9]+/16' <<<"$final"; then
	not_ok "the progress line is erased before the grid" "$final"
else
	ok "the progress line is erased before the grid"
fi

# ---- NO_COLOR: the same words, no colour ----
start mono TERM=xterm-256color NO_COLOR=1 -- matrix --snippet legit --jobs 1
watch mono
if [[ -s $T/mono.color ]]; then
	ok "NO_COLOR: the progress line is still drawn"
	if grep -a 'matrix: ' "$T/mono.color" | grep -qE $'\e\\[[0-9;]*(3[0-9]|9[0-7])m'; then
		not_ok "NO_COLOR: no colour in the progress line" "$(grep -a 'matrix: ' "$T/mono.color" | cat -v)"
	else
		ok "NO_COLOR: no colour in the progress line"
	fi
else
	not_ok "NO_COLOR: the progress line is still drawn" "$(head -c 600 "$T/mono.samples")"
fi

# ---- --quiet, and stderr not a terminal: no line at all ----
start quiet TERM=xterm-256color -- matrix --snippet legit --jobs 1 --quiet
watch quiet
expect_eq "--quiet: no progress line at the terminal, ever" "$(grep -c '^matrix' "$T/quiet.samples")" 0
expect_contains "--quiet: the grid still comes" "$(screen quiet)" "16/16 cells as expected"
start quiet2 TERM=xterm-256color -- --quiet matrix --snippet legit --jobs 1
watch quiet2
expect_eq "--quiet before the command: no progress line either" "$(grep -c '^matrix' "$T/quiet2.samples")" 0
# stderr into a file while stdout is the terminal: the file gets no line
ERR_TO=$T/pipe.err start pipe TERM=xterm-256color -- matrix --snippet legit --jobs 1
wait_exit pipe
expect_contains "stderr not a terminal: the grid on the terminal" "$(screen pipe)" "16/16 cells as expected"
expect_eq "stderr not a terminal: nothing written to it" "$(cat "$T/pipe.err")" ""

# ---- audit draws the same line ----
# the bomb's run lasts seconds, however fast the machine: two quick
# snippets were over before the first sample on a quiet one
start audit -u NO_COLOR TERM=xterm-256color -- audit --preset lab --snippet legit --snippet resource-bomb
watch audit
if grep -qE '^audit: [0-9]+/2 snippets, [0-9]+ s' "$T/audit.samples"; then
	ok "audit at a terminal: its progress line ($(grep -E '^audit' "$T/audit.samples" | sort -u | head -1))"
else
	not_ok "audit at a terminal: its progress line" "$(head -c 600 "$T/audit.samples")"
fi
expect_contains "audit: the card follows" "$(screen audit)" "missing: none"

tmux_ kill-server >/dev/null 2>&1
sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
