#!/usr/bin/env bash
# tests/completion_test.sh [BINARY] — shell completion as a person meets it:
# an interactive bash (`bash -i`) and zsh in a private tmux server, Tab
# pressed and the command line read back: subcommands, options, layers in
# a comma list, rungs, presets, snippet names from `list`. The words the
# scripts offer are checked against --help, so the two cannot drift apart.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
BASH_COMP=$PWD/completion/containment-lab.bash
ZSH_DIR=$PWD/completion
if ! command -v tmux >/dev/null; then
	skip "completion at a terminal" "tmux is not installed (apt-get install tmux)"
	finish
	exit
fi
SOCK=clcomp-$$
T=$(mktemp -d /tmp/cl-comp.XXXXXX)
tmux_() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	local sock
	sock=$(tmux_ display -p '#{socket_path}' 2>/dev/null)
	tmux_ kill-server >/dev/null 2>&1
	[[ -n $sock ]] && rm -f "$sock"
	rm -rf "$T"
	suite_cleanup
}
trap cleanup EXIT

# the lab on PATH as a user has it, run from a folder of its own
mkdir "$T/bin" "$T/home"
ln -s "$BIN" "$T/bin/containment-lab"
screen() { tmux_ capture-pane -p -t "$1" 2>/dev/null | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
# line SESSION: the last line that holds a prompt
line() { screen "$1" | grep -E '^\$ ' | tail -1; }
# wait_prompt SESSION N: until N prompts are on the screen
wait_prompt() {
	local k=0
	while (($(screen "$1" | grep -cE '^\$ ') < $2 && k++ < 100)); do sleep 0.1; done
}
# type_tab SESSION TEXT [TABS]: clears the line, types TEXT, presses Tab
type_tab() {
	tmux_ send-keys -t "$1" C-u
	tmux_ send-keys -t "$1" -l "$2"
	local k
	for ((k = 0; k < ${3:-1}; k++)); do
		tmux_ send-keys -t "$1" Tab
		sleep 0.4
	done
	sleep 0.6
}
# completes SESSION NAME TEXT WANT: Tab after TEXT, then '@', makes the
# line WANT (the '@' shows whether a space ended the word: the pane's
# capture drops trailing blanks)
completes() {
	type_tab "$1" "$3"
	tmux_ send-keys -t "$1" -l "@"
	sleep 0.3
	local got
	got=$(line "$1")
	got=${got#\$ }
	if [[ $got == "$4" ]]; then ok "$2"; else not_ok "$2" "typed '$3', the line became '$got', expected '$4'" "$(screen "$1" | tail -5)"; fi
}

# ---- bash -i ----
tmux_ new-session -d -s bash -x 120 -y 40 -c "$T/home" \
	"env -i HOME=$T/home TERM=xterm PATH=$T/bin:/usr/bin:/bin PS1='\$ ' bash --norc --noprofile -i"
wait_prompt bash 1
tmux_ send-keys -t bash -l "source $BASH_COMP" && tmux_ send-keys -t bash Enter
wait_prompt bash 2
completes bash "bash: a subcommand" "containment-lab ma" "containment-lab matrix @"
completes bash "bash: a snippet name for run" "containment-lab run secret-t" "containment-lab run secret-theft @"
completes bash "bash: the next layer in a comma list" "containment-lab run legit --on isolation,netw" "containment-lab run legit --on isolation,network@"
completes bash "bash: a rung" "containment-lab --rung gv" "containment-lab --rung gvisor @"
completes bash "bash: a network mode" "containment-lab --network-mode allo" "containment-lab --network-mode allowlist @"
completes bash "bash: an audit preset" "containment-lab audit --preset fire" "containment-lab audit --preset firejail @"
completes bash "bash: matrix's options" "containment-lab matrix --ju" "containment-lab matrix --junit @"
completes bash "bash: a snippet list for matrix --snippet" "containment-lab matrix --snippet legit,host-t" "containment-lab matrix --snippet legit,host-takeover@"
# two Tabs list the choices
type_tab bash "containment-lab --rung " 2
expect_contains "bash: Tab Tab lists the rungs" "$(screen bash)" "all         container   gvisor      in-process  microvm"

# ---- zsh ----
if command -v zsh >/dev/null; then
	tmux_ new-session -d -s zsh -x 120 -y 40 -c "$T/home" \
		"env -i HOME=$T/home TERM=xterm PATH=$T/bin:/usr/bin:/bin zsh -f -i"
	sleep 1
	tmux_ send-keys -t zsh -l "PS1='\$ '; fpath=($ZSH_DIR \$fpath); autoload -Uz compinit; compinit -u -D" && tmux_ send-keys -t zsh Enter
	wait_prompt zsh 1
	completes zsh "zsh: a subcommand" "containment-lab ma" "containment-lab matrix @"
	completes zsh "zsh: a snippet name for run" "containment-lab run secret-t" "containment-lab run secret-theft @"
	completes zsh "zsh: an audit preset" "containment-lab audit --preset fire" "containment-lab audit --preset firejail @"
	completes zsh "zsh: a rung" "containment-lab --rung gv" "containment-lab --rung gvisor @"
else
	skip "zsh completion" "zsh is not installed (apt-get install zsh)"
fi

# ---- the scripts' words are the program's ----
help=$("$BIN" --help)
for l in isolation network env limits; do
	grep -q "^  $l " <<<"$help" || not_ok "--help no longer lists layer $l: update completion/"
done
words=$(grep -oE 'presets: .*' <<<"$help")
expect_eq "the presets completion offers are --help's" "$words" "presets: bwrap firejail srt runsc lab"
for w in container gvisor microvm; do expect_contains "--help names rung $w, as completion does" "$help" "$w"; done
for f in --junit --html --tap --snippet --quiet; do expect_contains "completion offers matrix's $f" "$(grep '^	matrix)' "$BASH_COMP")" "$f"; done
finish
