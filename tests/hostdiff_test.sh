#!/usr/bin/env bash
# tests/hostdiff_test.sh [BINARY] — the host diff: every snippet of the
# hostile corpus (tests/hostile/*.py) in all 16 layer sets, as root and as
# uid 65534, and what each run left on the machine. Whatever the layers, the
# range must leave the host as it was: no setuid/setgid file or device node
# in a writable place, no SysV IPC object, POSIX message queue or key, no
# listener, no process, no mount, no cgroup, no run folder.
#
# Others may use the machine at the same time, so only the test's own
# objects are judged. Every name a snippet gives carries "cl-@NONCE@", and
# the test puts a nonce of its own there, one per cell: "cl-<nonce>-sysv-m05r"
# is the sysv snippet, layer set 5 (isolation,env), root ("n": uid 65534).
# SysV keys and TCP ports are made from the same string. So what a batch
# (one snippet, one user, the 16 sets) left is pinned to its cell, and the
# snapshot between two batches is one, not two. While the setuid snippet
# sleeps, the test looks for its copies from outside and runs each as a uid
# that is not the file's owner: a planted file must never hand out anyone
# else's uid. With Isolation off, a setuid copy or device node the snippet
# planted in the host folder makes the verdict ESCAPED, naming the file.
#
# The test first gives itself a session keyring of its own (as a login does
# with pam_keyinit): a key a run leaves in its caller's session keyring
# shows in /proc/keys, and the kernel drops it with that keyring when the
# test ends, whatever happened. Everything else of the nonce's is removed
# after a batch that left it and again on exit: processes by PID, SysV
# objects by key, queues, keys, files.
# HD_ONLY="sysv keyring" runs only those snippets; HD_JOBS runs at a time
# (2; the setuid snippet's, which sleep, twice as many).
set -u
cd "$(dirname "$0")/.." || exit 1
if [[ -z ${CL_HD_SESSION:-} ]]; then
	export CL_HD_SESSION=joining
	exec /usr/bin/python3 -c '
import ctypes, os, sys
nr = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "i686": 288}.get(os.uname().machine)
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(ctypes.c_long(nr), ctypes.c_long(1), b"cl-hostdiff-session") if nr else -1  # KEYCTL_JOIN_SESSION_KEYRING
os.environ["CL_HD_SESSION"] = str(r) if r >= 0 else "none: " + (os.strerror(ctypes.get_errno()) if nr else "arch")
os.execv("/bin/bash", ["bash"] + sys.argv[1:])' "$0" "$@"
fi
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

if [[ $(id -u) != 0 ]]; then
	skip "host diff of the hostile corpus" "needs root (runs as root and as uid 65534, reads the host's message queues through a mount, removes the SysV objects uid 65534's runs left)"
	suite_cleanup
	finish
	exit
fi

T=$(mktemp -d /tmp/cl-hostdiff.XXXXXX)
chmod 755 "$T"
mkdir -p "$T/s" "$T/o" "$T/mq"
LAB=$T/lab-hostdiff-$$
cp "$BIN" "$LAB"
cp layers.ini "$T/"
cp snippets/sales.csv "$T/s/" # the task data, beside the snippets
chmod -R a+rX "$T"
NONCE=hd$$x$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
PAT="cl-$NONCE-"
CORPUS=(setuid mknod sysv mqueue keyring unixsock daemon persist watch selfdelete)
[[ -n ${HD_ONLY:-} ]] && read -r -a CORPUS <<<"$HD_ONLY"
LAYER_NAMES=(isolation network env limits)
# where a run could plant a file, seen from outside; the suite's TMPDIR,
# which holds the run folders, is searched whole
SHARED=(/tmp /var/tmp /dev/shm /run /var/spool /etc/cron.d "$HOME")
KEYCTL_NR=$($PY -c 'import os; print({"x86_64": 250, "aarch64": 219, "riscv64": 219, "i686": 288}.get(os.uname().machine, 0))')
CUR_PIDS=()
POLLER=""
# runs at a time: they mostly wait (python's start, the setuid snippet's
# 1.5 s sleep), so a few overlap even on 2 cores; HD_JOBS sets it
JOBS=${HD_JOBS:-2}
RUN_DIRS_BEFORE=$(ls -d "$CL_SUITE_TMP"/containment-lab.* 2>/dev/null)

set_name() { # MASK -> the --on argument (bit 0 isolation ... bit 3 limits)
	local m=$1 i out=""
	[[ $m == 0 ]] && { echo none; return; }
	[[ $m == 15 ]] && { echo all; return; }
	for i in 0 1 2 3; do ((m >> i & 1)) && out+=${out:+,}${LAYER_NAMES[i]}; done
	echo "$out"
}
cell_of() { printf '%s-m%02d%s' "$1" "$2" "${3:0:1}"; } # SNIP MASK WHO -> sysv-m05r
cell_desc() { # sysv-m05r -> "sysv --on isolation,env as root"
	local s=${1%-m*} c=${1##*-m}
	echo "$s --on $(set_name $((10#${c:0:2}))) as $([[ ${c:2:1} == r ]] && echo root || echo uid 65534)"
}
declare -A KEYCELL PORTCELL PIDCELL PREKEY
cells=()
for snip in "${CORPUS[@]}"; do
	for who in root nobody; do for m in $(seq 0 15); do cells+=("$(cell_of "$snip" "$m" $who)"); done; done
done
while read -r c key port; do
	KEYCELL[$key]=$c
	PORTCELL[$port]=$c
done < <($PY -c '
import sys, zlib
for c in sys.argv[2:]:
    n = ("cl-%s-%s" % (sys.argv[1], c)).encode()  # as sysv.py and unixsock.py make them
    print(c, "0x%08x" % (0x6C000000 | (zlib.crc32(n) & 0xFFFFFF)), 20000 + zlib.crc32(n) % 12000)' "$NONCE" "${cells[@]}")

ipcs_lines() { # every SysV object on the host: TYPE KEY ID OWNER
	local t
	for t in m q s; do
		ipcs -$t 2>/dev/null | awk -v t=$t '$1 ~ /^0x/ {print (t == "m" ? "shm" : t == "q" ? "msg" : "sem"), $1, $2, $3}'
	done
}
our_ipcs() { # the SysV objects whose key is a cell's
	local t k rest
	while read -r t k rest; do [[ -n ${KEYCELL[$k]:-} ]] && echo "$t $k $rest"; done < <(ipcs_lines)
}
# a key someone else already uses is never removed
while read -r _ key _; do PREKEY[$key]=1; done < <(our_ipcs)

# what the cells could have left on the host, one line per object, each
# naming its cell (a name with the nonce, a SysV key, a TCP port)
hd_snapshot() {
	{
		find "$CL_SUITE_TMP" \( -perm /6000 -o -type b -o -type c -o -name "*$PAT*" \) \
			-printf 'file %p %M %u:%g\n' 2>/dev/null
		find "${SHARED[@]}" -maxdepth 3 -name "*$PAT*" -printf 'file %p %M %u:%g\n' 2>/dev/null
		our_ipcs | sed 's/^/ipc /'
		{
			grep -F "$PAT" /proc/keys
			"${NOBODY[@]}" grep -F "$PAT" /proc/keys
		} 2>/dev/null | awk '{print "key", $1, "uid:gid " $6 ":" $7, $8, $9}'
		# the host IPC namespace's POSIX queues, through a mount in a
		# mount namespace of the snapshot's own (nothing stays mounted)
		unshare -m sh -c 'mount -t mqueue none "$1" && ls -1 "$1"' sh "$T/mq" 2>/dev/null | grep -F "$PAT" | sed 's|^|mqueue /|'
		ss -Hxlp 2>/dev/null | grep -F "$PAT" | awk '{print "unix-listener", $5, $9}'
		ss -Hltn 2>/dev/null | awk '{n = split($4, a, ":"); print $4, a[n]}' |
			while read -r addr port; do [[ -n ${PORTCELL[$port]:-} ]] && echo "tcp-listener $addr ${PORTCELL[$port]}"; done
		pgrep -af -- "$PAT" 2>/dev/null | sed 's/^/process /'
		if command -v atq >/dev/null; then
			local j
			for j in $(atq 2>/dev/null | awk '{print $1}'); do
				at -c "$j" 2>/dev/null | grep -F "$PAT" | sed "s/^/at-job $j /"
			done
		fi
		[[ -d /run/systemd/system ]] && systemctl list-units --all --plain --no-legend "$PAT*" 2>/dev/null | sed 's/^/systemd-unit /'
		if command -v crontab >/dev/null; then
			crontab -l -u root 2>/dev/null | grep -F "$PAT" | sed 's/^/crontab root /'
			crontab -l -u nobody 2>/dev/null | grep -F "$PAT" | sed 's/^/crontab nobody /'
		fi
	} | sort -u
}

# ---- clean up: only the nonce's own, idempotent ----
keys_invalidate() { # every key of the nonce the current user can see
	local ids
	ids=$(grep -F "$PAT" /proc/keys 2>/dev/null | awk '{print $1}')
	[[ -n $ids && $KEYCTL_NR != 0 ]] || return 0
	# shellcheck disable=SC2086 # the ids are words
	$PY -c '
import ctypes, sys
libc = ctypes.CDLL(None)
for k in sys.argv[2:]:
    libc.syscall(ctypes.c_long(int(sys.argv[1])), ctypes.c_long(21), ctypes.c_long(int(k, 16)))  # KEYCTL_INVALIDATE' "$KEYCTL_NR" $ids
}
hd_cleanup() {
	local pid key t
	for pid in $(pgrep -f -- "$PAT"); do
		[[ $pid == "$$" || $pid == "$BASHPID" ]] || kill -KILL "$pid" 2>/dev/null
	done
	while read -r t key _; do
		[[ -n ${PREKEY[$key]:-} ]] && continue
		case $t in shm) ipcrm -M "$key" ;; msg) ipcrm -Q "$key" ;; sem) ipcrm -S "$key" ;; esac 2>/dev/null
	done < <(our_ipcs)
	mkdir -p "$T/mq" 2>/dev/null
	unshare -m sh -c 'mount -t mqueue none "$1" && rm -f "$1"/"$2"*' sh "$T/mq" "$PAT" 2>/dev/null
	keys_invalidate
	export -f keys_invalidate
	PAT=$PAT KEYCTL_NR=$KEYCTL_NR PY=$PY "${NOBODY[@]}" bash -c keys_invalidate 2>/dev/null
	find "$CL_SUITE_TMP" -name "*$PAT*" ! -type d -exec rm -f {} + 2>/dev/null
	find "${SHARED[@]}" -maxdepth 3 -name "*$PAT*" ! -type d -exec rm -f {} + 2>/dev/null
	if command -v atq >/dev/null; then
		for t in $(atq 2>/dev/null | awk '{print $1}'); do at -c "$t" 2>/dev/null | grep -qF "$PAT" && atrm "$t"; done
	fi
	[[ -d /run/systemd/system ]] && systemctl list-units --all --plain --no-legend "$PAT*" 2>/dev/null |
		awk '{print $1}' | xargs -r systemctl stop 2>/dev/null
	if command -v crontab >/dev/null; then # persist.py writes a crontab only where there was none
		for t in root nobody; do
			crontab -l -u $t 2>/dev/null | grep -qF "$PAT" &&
				! crontab -l -u $t 2>/dev/null | grep -v '^#' | grep -vF "$PAT" | grep -q . && crontab -r -u $t
		done
	fi
	return 0
}
on_exit() {
	local p
	for p in "${CUR_PIDS[@]}" ${POLLER:+"$POLLER"}; do kill -KILL "$p" 2>/dev/null; done
	hd_cleanup
	# run folders the test's own labs left behind (the lab is gone)
	local d pid
	for d in "$CL_SUITE_TMP"/containment-lab.*; do
		[[ -d $d ]] || continue
		grep -qxF -- "$d" <<<"$RUN_DIRS_BEFORE" && continue
		pid=${d##*/containment-lab.}
		pid=${pid%%.*}
		[[ -n ${PIDCELL[$pid]:-} && ! -d /proc/$pid ]] && rm -rf "$d"
	done
	rm -rf "$T"
	suite_cleanup
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP

line_cell() { # the cell a snapshot line names, "" if none
	local l=$1 w
	if [[ $l =~ cl-$NONCE-([a-z]+-m[0-9][0-9][rn]) || $l =~ /s/([a-z]+-m[0-9][0-9][rn])\.py ]]; then
		echo "${BASH_REMATCH[1]}"
		return
	fi
	case $l in
	ipc\ *) read -r _ _ w _ <<<"$l" && echo "${KEYCELL[$w]:-}" ;;
	tcp-listener\ *) echo "${l##* }" ;;
	*containment-lab.[0-9]*) # a run folder or a cgroup: the lab's pid
		w=${l#*containment-lab.}
		w=${w#run-}
		w=${w%%[!0-9]*}
		echo "${PIDCELL[$w]:-}"
		;;
	esac
}

# ---- the setuid copies, from outside, while the runs sleep ----
# One poller for a group of runs walks the run folders' host trees and the
# shared places for the snippet's copies. It opens each new one at once
# (cheap: a loaded machine may end the run before a fork gets there; the
# descriptor keeps the file as it was) and runs it as a uid that is not
# its owner (65534, or 65533 for a file of 65534's): by its path, as that
# uid would, or through the descriptor when the path is gone by then. It
# prints CELL|FILE|MODE OWNER|UID|how|what "id -u" and "id -g" printed.
# It starts before the runs and stops after the sweep that follows STOP.
declare -A OUTSIDE
outside_start() { # SNIP: the poller, in the background (POLLER, its pid)
	local i
	rm -f "$T/poll".*
	$PY - "$CL_SUITE_TMP" "$PAT" "$1" "$HOME" "$T/poll" >"$T/poll.out" 2>"$T/poll.err" <<'PY' &
import glob, grp, os, pwd, re, sys, time
suite, pat, snip, home, poll = sys.argv[1:6]
stop = poll + ".stop"
name = re.compile(re.escape(pat + snip) + r"-(m\d\d[rn])-s[ug]id-id$")
open(poll + ".ready", "w").close()

def candidates():
    for top in glob.glob(os.path.join(suite, "containment-lab.*", "host")):
        for d, _, files in os.walk(top):
            for f in files:
                yield os.path.join(d, f)
    for d in ("/tmp", "/var/tmp", "/dev/shm", home):
        try:
            for f in os.listdir(d):
                yield os.path.join(d, f)
        except OSError:
            pass


def run_as(tu, path, fd, opt):
    """id OPT as uid tu: (how, output)"""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.dup2(w, 1)
            os.dup2(w, 2)
            os.setgroups([])
            os.setgid(tu)
            os.setuid(tu)
            try:
                os.stat(path)
            except FileNotFoundError:
                os.write(1, b"fd: ")
                os.execve(fd, [path, opt], {"PATH": "/usr/bin:/bin"})
            os.write(1, b"path: ")
            os.execve(path, [path, opt], {"PATH": "/usr/bin:/bin"})
        except OSError as e:
            os.write(1, ("%s" % e.strerror).encode())
        os._exit(127)
    os.close(w)
    out = b""
    while True:
        b = os.read(r, 4096)
        if not b:
            break
        out += b
    os.close(r)
    os.waitpid(pid, 0)
    how, _, got = out.decode(errors="replace").strip().partition(": ")
    return (how, got) if how in ("path", "fd") else ("path", out.decode(errors="replace").strip())


def who(n, db):
    try:
        return db(n)[0]
    except KeyError:
        return str(n)


held = {}
while True:
    live = not os.path.exists(stop)
    new = []
    for f in list(candidates()):  # first open them all, then run them
        m = name.search(os.path.basename(f))
        if not m or f in held:
            continue
        try:
            fd = os.open(f, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        st = os.fstat(fd)
        if not st.st_mode & 0o6000:
            os.close(fd)
            continue
        held[f] = fd
        new.append((f, fd, st, m))
    for f, fd, st, m in new:
        tu = 65533 if st.st_uid == 65534 else 65534
        res = [run_as(tu, f, fd, opt) for opt in ("-u", "-g")]
        print("%s-%s|%s|%o %s:%s|%d|%s|%s" % (snip, m.group(1), f, st.st_mode & 0o7777, who(st.st_uid, pwd.getpwuid),
                                           who(st.st_gid, grp.getgrgid), tu, "/".join(sorted({h for h, _ in res})),
                                           " ".join(g for _, g in res).replace("\n", " ")), flush=True)
    if not live:
        break
    time.sleep(0.02)
for fd in held.values():
    os.close(fd)
PY
	POLLER=$!
	for ((i = 0; i < 100; i++)); do [[ -e $T/poll.ready ]] && break; sleep 0.05; done
}
outside_stop() { # the poller's findings into OUTSIDE
	local cell rest
	touch "$T/poll.stop"
	wait "$POLLER"
	POLLER=""
	OUTSIDE=()
	while IFS='|' read -r cell rest; do
		[[ -n $cell ]] && OUTSIDE[$cell]+="$rest"$'\n'
	done <"$T/poll.out"
	[[ -s $T/poll.err ]] && not_ok "the poller that tries the planted copies from outside ran" "$(head -c 600 "$T/poll.err")"
	return 0
}
outside_report() { # CELL
	local f st tu how got via
	if [[ -z ${OUTSIDE[$1]:-} ]]; then
		ok "$(cell_desc "$1"): no planted copy reachable from outside"
		return
	fi
	while IFS='|' read -r f st tu how got; do
		[[ -z $f ]] && continue
		via="by its path"
		[[ $how == fd ]] && via="through a descriptor the test opened while the run lived (the path was gone by then)"
		[[ $how == fd/path ]] && via="by its path, then through the test's descriptor (the path went meanwhile)"
		if [[ $got == "$tu $tu" ]]; then
			ok "$(cell_desc "$1"): $f ($st) is on the host; uid $tu running it stays uid $tu"
		elif [[ $how == path && $got == *"ermission denied"* ]]; then
			ok "$(cell_desc "$1"): $f ($st) is on the host, but uid $tu cannot reach or run it"
		else
			not_ok "$(cell_desc "$1"): a planted copy, run from outside, gives no one another uid" \
				"$f ($st) is on the host's disk while the run lives" \
				"run as uid $tu $via: id -u and id -g print: $got (expected: $tu $tu)"
		fi
	done <<<"${OUTSIDE[$1]}"
}

# what the lab said, for every cell of a batch: CELL VERDICT PLANTED NAMED HEADLINE
batch_results() { # SNIP WHO
	$PY - "$T/o" "$1" "$2" <<'PY'
import json, os, sys
d, snip, who = sys.argv[1:]
for m in range(16):
    cell = "%s-m%02d%s" % (snip, m, who[0])
    try:
        j = json.load(open(os.path.join(d, cell + ".json")))
    except Exception as e:
        err = open(os.path.join(d, cell + ".err"), errors="replace").read().strip()
        print(cell, "NORESULT", "-", "-", (str(e) + " " + err)[:300].replace("\n", " "))
        continue
    text = " ".join([j.get("headline") or ""] + list(j.get("evidence") or []) +
                    [str(j.get("host_planted") or ""), str((j.get("measured") or {}).get("host_planted") or "")])
    # the files the snippet says it planted in the host folder
    planted = [l.split()[1] for l in (j.get("output") or "").splitlines()
               if l.startswith("planted: ") and "/host/" in l]
    named = [p for p in planted if os.path.basename(p) in text]
    print(cell, j.get("verdict") or "NORESULT", ",".join(planted) or "-", ",".join(named) or "-",
          (j.get("headline") or j.get("error") or "").replace("\n", " ")[:240])
PY
}

# Mounts: the machine's mount table is everyone's (another developer's
# firejail mounts under /run while this runs), so lib.sh's line count is
# not judged here; a new mount is the test's when it is in the suite's
# TMPDIR (where the run folders are), in the test's folder or names the
# nonce. Others are said, not judged.
mount_lines() { # MOUNTPOINT FSTYPE SOURCE
	awk '{ for (i = 7; $i != "-"; i++); print $5, $(i + 1), $(i + 2) }' /proc/self/mountinfo | sort
}
mine_mount() { [[ $1 == *"$CL_SUITE_TMP"* || $1 == *"$T"* || $1 == *"$PAT"* ]]; }

# ---- one batch: a snippet, a user, the 16 layer sets ----
PREV_HD=$(hd_snapshot)
PREV_L=$(leftovers_snapshot | grep -v '^mounts: ')
PREV_M=$(mount_lines)
MOUNTS_START=$PREV_M
batch() { # SNIP WHO
	local snip=$1 who=$2 m cell f pid after lafter mafter new l c
	local -A left=() verdict=() why=()
	local runner=()
	[[ $who == nobody ]] && runner=("${NOBODY[@]}")
	# the setuid snippet sleeps 1.5 s: more of its runs at a time
	local jobs=$JOBS g
	[[ $snip == setuid ]] && jobs=$((JOBS * 2))
	for m in $(seq 0 15); do
		cell=$(cell_of "$snip" "$m" "$who")
		sed "s/@NONCE@/$NONCE-$cell/g" "tests/hostile/$snip.py" >"$T/s/$cell.py"
		chmod 644 "$T/s/$cell.py"
	done
	for ((g = 0; g < 16; g += jobs)); do
		CUR_PIDS=()
		[[ $snip == setuid ]] && outside_start "$snip"
		for ((m = g; m < g + jobs && m < 16; m++)); do
			cell=$(cell_of "$snip" "$m" "$who")
			f=$T/s/$cell.py
			"${runner[@]}" "$LAB" --config "$T/layers.ini" run "$f" --on "$(set_name "$m")" --json \
				>"$T/o/$cell.json" 2>"$T/o/$cell.err" &
			pid=$!
			CUR_PIDS+=("$pid")
			PIDCELL[$pid]=$cell
		done
		wait "${CUR_PIDS[@]}"
		CUR_PIDS=()
		if [[ $snip == setuid ]]; then
			outside_stop
			for ((m = g; m < g + jobs && m < 16; m++)); do outside_report "$(cell_of "$snip" "$m" "$who")"; done
		fi
	done
	after=$(hd_snapshot)
	new=$(comm -13 <(echo "$PREV_HD") <(echo "$after"))
	if [[ -n $new ]]; then # the kernel drops some objects a moment later (a key of a gone namespace)
		sleep 0.5
		after=$(hd_snapshot)
		new=$(comm -13 <(echo "$PREV_HD") <(echo "$after"))
	fi
	lafter=$(leftovers_snapshot | grep -v '^mounts: ')
	new+=$'\n'$(comm -13 <(echo "$PREV_L") <(echo "$lafter"))
	mafter=$(mount_lines)
	while IFS= read -r l; do
		[[ -z $l ]] && continue
		if mine_mount "$l"; then new+=$'\n'"mount $l"; else echo "# a mount appeared meanwhile, not the test's (not judged): $l"; fi
	done < <(comm -13 <(echo "$PREV_M") <(echo "$mafter"))
	PREV_HD=$after
	PREV_L=$lafter
	PREV_M=$mafter
	while IFS= read -r l; do
		[[ -z $l ]] && continue
		c=$(line_cell "$l")
		left[${c:-batch}]+="$l"$'\n'
	done <<<"$new"

	local v planted named head
	while read -r cell v planted named head; do
		m=${cell##*-m}
		m=$((10#${m:0:2}))
		verdict[$cell]=$v
		why[$cell]=$head
		# a set-id file or device node in the host folder, Isolation off:
		# ESCAPED, and the verdict names it
		if [[ ($snip == setuid || $snip == mknod) && $((m & 1)) == 0 && $v != NORESULT && $v != ERROR ]]; then
			if [[ $planted == - ]]; then
				ok "$(cell_desc "$cell"): nothing planted in the host folder (every try refused), verdict $v"
			elif [[ $v == ESCAPED && $named != - ]]; then
				ok "$(cell_desc "$cell"): ESCAPED, naming the planted ${named%%,*}"
			else
				not_ok "$(cell_desc "$cell"): a file planted in the host folder makes it ESCAPED, and the verdict names it" \
					"planted (the snippet's words): $planted" \
					"verdict $v; named in headline/evidence/host_planted: $named" "headline: $head"
			fi
		fi
	done < <(batch_results "$snip" "$who")

	local lines
	for m in $(seq 0 15); do
		cell=$(cell_of "$snip" "$m" "$who")
		lines=()
		[[ -n ${left[$cell]:-} ]] && mapfile -t lines <<<"${left[$cell]%$'\n'}"
		if [[ ${verdict[$cell]:-NORESULT} == NORESULT || ${verdict[$cell]} == ERROR ]]; then
			not_ok "$(cell_desc "$cell"): the run gave a verdict (else nothing left would prove nothing)" \
				"${verdict[$cell]:-NORESULT}: ${why[$cell]:-}" "${lines[@]}"
		elif [[ ${#lines[@]} -eq 0 ]]; then
			ok "$(cell_desc "$cell"): nothing left on the host"
		else
			not_ok "$(cell_desc "$cell"): nothing left on the host" "${lines[@]}"
		fi
		unset "left[$cell]"
	done
	for c in "${!left[@]}"; do # not pinned to a cell of this batch
		mapfile -t lines <<<"${left[$c]%$'\n'}"
		if [[ $c == batch ]]; then
			not_ok "$snip as $who (the batch of 16 sets, not pinned to one): nothing left on the host" "${lines[@]}"
		else
			not_ok "$snip as $who: found after this batch, named for $(cell_desc "$c"): nothing left on the host" "${lines[@]}"
		fi
	done
	# remove what the batch left, so the next starts clean
	[[ -n ${new//$'\n'/} ]] && hd_cleanup
	return 0
}

t0=$SECONDS
echo "# nonce $NONCE; the test's session keyring: $CL_HD_SESSION; SysV objects on the host (everyone's): $(ipcs_lines | wc -l)"
for snip in "${CORPUS[@]}"; do
	for who in root nobody; do
		batch "$snip" $who
	done
done
left_mounts=$(comm -13 <(echo "$MOUNTS_START") <(mount_lines) | while IFS= read -r l; do mine_mount "$l" && echo "$l"; done)
expect_eq "no mount of the test's own is left (in the suite's TMPDIR, the test's folder, naming the nonce)" "$left_mounts" ""
echo "# at the end: SysV objects on the host (everyone's): $(ipcs_lines | wc -l); mountinfo lines: $(wc -l </proc/self/mountinfo) (at the start: $(wc -l <<<"$MOUNTS_START")); $((SECONDS - t0)) s for ${#CORPUS[@]} snippets x 16 sets x 2 users"
finish
