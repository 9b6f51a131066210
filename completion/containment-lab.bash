# bash completion for containment-lab                        -*- shell-script -*-
# Installed as /usr/share/bash-completion/completions/containment-lab (by
# `make install` and the .deb); works on its own too: `source` this file.
# Subcommands, their options, layer names (comma lists too), rungs,
# network modes, audit presets, and snippet names from `containment-lab
# list` (with the line's own --config).

_containment_lab_snippets()
{
	local cfg=() i
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == --config ]] && cfg=(--config "${COMP_WORDS[i + 1]}")
	done
	"${COMP_WORDS[0]}" "${cfg[@]}" list 2>/dev/null | awk '$2 != "BROKEN:" { print $1 }'
}

# _containment_lab_list WORDS: complete the last item of a comma list
_containment_lab_list()
{
	local cur=$1 head=""
	shift
	[[ $cur == *,* ]] && head=${cur%,*}, && cur=${cur##*,}
	COMPREPLY=($(compgen -P "$head" -W "$*" -- "$cur"))
	[[ ${#COMPREPLY[@]} == 1 ]] && compopt -o nospace 2>/dev/null
}

_containment_lab()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local layers="isolation network env limits all none"
	local commands="tui list run matrix exec audit twin"
	local global="--config --rung --network-mode --quiet --json --help --version --predict"
	case $prev in
	--config | --junit | --html)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return
		;;
	--rung)
		COMPREPLY=($(compgen -W "in-process container gvisor microvm all" -- "$cur"))
		return
		;;
	--network-mode)
		COMPREPLY=($(compgen -W "none allowlist" -- "$cur"))
		return
		;;
	--on | --off)
		_containment_lab_list "$cur" $layers
		return
		;;
	--preset)
		COMPREPLY=($(compgen -W "bwrap firejail srt runsc lab" -- "$cur"))
		return
		;;
	--snippet)
		_containment_lab_list "$cur" $(_containment_lab_snippets)
		return
		;;
	--jobs)
		COMPREPLY=($(compgen -W "1 2 4 8" -- "$cur"))
		return
		;;
	esac
	# the command: the first word that is no option nor an option's value
	local i cmd="" dashdash=0
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--config | --rung | --network-mode | --on | --off | --preset | --snippet | --junit | --html | --jobs) ((i++)) ;;
		--) dashdash=1 ;;
		-*) ;;
		*) [[ -z $cmd ]] && cmd=${COMP_WORDS[i]} ;;
		esac
	done
	if ((dashdash)) && [[ $cmd == exec || $cmd == audit ]]; then
		COMPREPLY=($(compgen -c -- "$cur"))
		return
	fi
	local opts
	case $cmd in
	"") opts="$global $commands" ;;
	tui) opts="--predict" ;;
	list) opts="--json" ;;
	run)
		opts="--on --off --json --rung --network-mode"
		if [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W "$(_containment_lab_snippets)" -- "$cur") $(compgen -f -X '!*.py' -- "$cur"))
			return
		fi
		;;
	matrix) opts="--json --markdown --tap --junit --html --snippet --jobs --quiet --rung --network-mode" ;;
	exec) opts="--on --off --rw --rung --network-mode --" ;;
	audit) opts="--json --markdown --tap --junit --preset --snippet --outside-range --quiet --" ;;
	twin) opts="--on --off --docker --bwrap --tools --spec --rung --network-mode" ;;
	*) opts="" ;;
	esac
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _containment_lab containment-lab
