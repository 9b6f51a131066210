#!/usr/bin/env bash
# tests/red16_test.sh [BINARY] — the red team's round against the range
# (issue 16; snippets in tests/red16/), each with the honest result it must
# get, as root and as uid 65534: exec --rw leaves no setuid file on the real
# disk, /run stays covered, the caller's keys stay out of reach and none
# outlives the run, a host folder the lab cannot search is not ruled out, a
# forged "end the run" signal is not the lab's, and the memory the range now
# counts is in the figure. What is not counted yet is skipped, with why.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-red16.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T" /opt/cl-red16-$$; suite_cleanup' EXIT
LAB=$T/lab-red16-$$
cp "$BIN" "$LAB"
cp -r layers.ini snippets tests/red16 "$T/"
# a wall clock the memory bombs can finish in on a loaded machine: the
# check is what was counted, not how fast
sed -e 's/^timeout = .*/timeout = 25s/' -e 's/^cpu_time = .*/cpu_time = 20s/' layers.ini >"$T/slow.ini"
chmod -R a+rX "$T"
R=$T/red16
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as() { if [[ $1 == root ]]; then shift; "$@"; else shift; nobody "$@"; fi; }
before=$(leftovers_snapshot)
[[ $(id -u) == 0 ]] || { skip "the red team's round" "needs root (it also acts as uid 65534)"; finish; exit; }

# ---- exec --rw: no setuid file on the real disk ----
P=/opt/cl-red16-$$
mkdir -p "$P" && cp "$R/exec_rw_setuid.py" "$P/" && chmod 777 "$P"
for case in "root --off isolation" "root --on all" "nobody --off isolation"; do
	read -r who layers <<<"$case"
	rm -f "$P/rootsh"
	out=$(cd "$P" && as "$who" "$LAB" --config "$T/layers.ini" exec $layers --rw -- /usr/bin/python3 exec_rw_setuid.py 2>&1)
	mode=$(stat -c %a "$P/rootsh" 2>/dev/null || echo none)
	# the control: the probe ran (it names rootsh, planted or refused)
	expect_contains "exec --rw ($who $layers): the probe ran" "$out" "rootsh"
	expect_not_contains "exec --rw ($who $layers): no setuid bit on the real disk (mode $mode)" "$mode" "4"
	[[ $mode == none || $mode != 4* ]] || not_ok "exec --rw ($who $layers): planted" "$out"
done
out=$(cd "$P" && "$LAB" --config "$T/layers.ini" exec --off isolation --rw -- sh -c 'echo x >f && chmod 755 f && install -m 640 f g && stat -c %a f g' 2>&1)
expect_eq "exec --rw: plain modes still work (chmod 755, install -m 640)" "$(tr '\n' ' ' <<<"$out")" "755 640 "
out=$(cd /run/lock 2>/dev/null && "$LAB" --config "$T/layers.ini" exec -- true 2>&1); rc=$?
expect_eq "exec from a folder under /run: refused (exit 2)" "$rc" 2
expect_contains "exec from a folder under /run: says why" "$out" "under /run, where the host's service sockets live"

# ---- /run stays covered when resolv.conf points into it ----
for target in /run/resolv.conf /run/systemd/resolve/stub-resolv.conf; do
	out=$(unshare -m --propagation private bash -c '
		set -e
		mkdir -p '"$T"'/etc.copy && cp -a /etc/. '"$T"'/etc.copy/
		mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/resolve
		mount --bind '"$T"'/etc.copy /etc && rm -f /etc/resolv.conf
		echo "nameserver 127.0.0.53" >'"$target"' && ln -s '"$target"' /etc/resolv.conf
		'"$PY"' -c "import socket,os; s=socket.socket(socket.AF_UNIX); s.bind(\"/run/cl-daemon.sock\"); os.chmod(\"/run/cl-daemon.sock\", 0o777)"
		for who in root nobody; do
			if [[ $who == root ]]; then L='"$LAB"'; else L="setpriv --reuid=65534 --regid=65534 --clear-groups '"$LAB"'"; fi
			$L --config '"$T"'/layers.ini run '"$R"'/resolv_in_run_probe.py --on none --json | '"$PY"' -c "import json,sys; d=json.load(sys.stdin); print(\"$who\", [l for l in d[\"output\"].splitlines() if \"/run holds\" in l])"
			$L --config '"$T"'/layers.ini run legit --on none >/dev/null; echo "$who legit rc=$?"
		done' 2>&1)
	rm -rf "$T/etc.copy"
	for who in root nobody; do
		expect_contains "resolv.conf -> $target ($who): the probe saw /run" "$out" "$who [\"/run holds:"
		expect_not_contains "resolv.conf -> $target ($who): the daemon's socket stays hidden" "$(grep "^$who \[" <<<"$out")" "cl-daemon.sock"
		expect_contains "resolv.conf -> $target ($who): legit still RAN OK" "$out" "$who legit rc=0"
	done
done

# ---- keys: the caller's stay out of reach, none outlives the run ----
for who in root nobody; do
	j=$(as $who $PY "$R/keyring_caller_setup.py" "$LAB" --config "$T/layers.ini" run "$R/keyring_caller_keys.py" --on none --json 2>/dev/null)
	o=$(field 'd["output"]' <<<"$j")
	expect_contains "the caller's keys: the probe ran ($who, every layer off)" "$o" "own session keyring:"
	expect_not_contains "the caller's session key cannot be read ($who, every layer off)" "$o" "TICKET-SECRET-r16"
	expect_not_contains "/proc/keys lists none of the caller's keys ($who)" "$o" "krb5cc:r16"
	as $who "$LAB" --config "$T/layers.ini" run "$R/keyring_outlives_run.py" --on none >/dev/null 2>&1
	expect_eq "no key the run added outlives it in the host's keyrings ($who)" "$(as $who grep -c r16-left-behind /proc/keys)" 0
done

# ---- a host folder the lab cannot search is not ruled out ----
for who in root nobody; do
	for f in planted_setuid_not_judged planted_hidden_deep planted_hidden_wide; do
		j=$(as $who "$LAB" --config "$T/layers.ini" run "$R/$f.py" --on none --json)
		expect_contains "$f ($who): the lab names what was planted, or what it could not search" \
			"$(field 'd["measured"]["host_planted"] or ""' <<<"$j")" ":"
	done
done
# a folder the run made unreadable is opened up by the lab, which owns it
# (red team round 6, F10): the sweep finds what is in it, as root's does
# (it said "a folder the lab may not read: cannot be ruled out" before)
j=$(nobody "$LAB" --config "$T/layers.ini" run "$R/planted_hidden_unreadable_dir.py" --on none --json)
expect_contains "an unreadable folder in the host folder (nobody): opened up, its setuid file found" "$(field 'd["measured"]["host_planted"] or ""' <<<"$j")" "locked/sh: setuid"

# ---- a forged "end the run" signal is not the lab's ----
for who in root nobody; do
	j=$(as $who "$LAB" --config "$T/layers.ini" run "$R/forged_lab_sigterm.py" --on all --json)
	expect_eq "a SIGTERM forged with the lab's si_pid reaches the snippet, not the init's 'end the run' ($who)" \
		"$(field 'd["exit"]["signal"], d["exit"]["timed_out"]' <<<"$j")" "15 False"
done

# ---- memory the range counts now (uid 65534: no cgroup on this host) ----
mem() { # SNIPPET LAYERS: "VERDICT MiB"
	nobody "$LAB" --config "$T/slow.ini" run "$R/$1.py" --on "$2" --json | field 'd["verdict"], d["measured"]["peak_mem_bytes"] >> 20'
}
read -r v m <<<"$(mem shm_attached_untouched all)"
[[ $v == ESCAPED && $m -ge 256 ]] && ok "SysV segments attached and never touched: ESCAPED past the cap ($m MiB)" ||
	not_ok "SysV segments attached and never touched: ESCAPED past the cap" "got $v with $m MiB"
read -r v m <<<"$(mem sem_arrays_uncounted all)"
[[ $m -gt 200 ]] && ok "semaphore sets are in the memory figure ($v, $m MiB)" || not_ok "semaphore sets are in the memory figure" "got $v with $m MiB"
read -r v m <<<"$(mem host_tmpfs_uncounted limits)"
[[ $m -ge 60 ]] && ok "the host tmpfs is in the memory figure ($v, $m MiB)" || not_ok "the host tmpfs is in the memory figure" "got $v with $m MiB"
# how many folders it makes in its 3.5 s depends on the machine: the
# figure must hold about 1 KiB for each one it says it made
read -r v m n <<<"$(nobody "$LAB" --config "$T/slow.ini" run "$R/tmpfs_inodes_uncounted.py" --on all --json |
	field 'd["verdict"], d["measured"]["peak_mem_bytes"] >> 20, (__import__("re").findall(r"(\d+) folders in ", d["output"]) or [0])[0]')"
[[ $n -gt 0 && $m -ge $((n * 9 / 10 / 1024)) ]] && ok "tmpfs inodes are in the memory figure ($v, $m MiB for $n folders)" ||
	not_ok "tmpfs inodes are in the memory figure" "got $v with $m MiB for $n folders"
# socket buffers: the range's init reads them through sock_diag in the
# run's own network namespace; the lab's run-wide cap ends the run
read -r v m k <<<"$(nobody "$LAB" --config "$T/slow.ini" run "$R/socket_buffers_uncounted.py" --on all --json |
	field 'd["verdict"], d["measured"]["peak_mem_bytes"] >> 20, d["measured"]["mem_cap_killed"]')"
[[ $v == ESCAPED && $m -ge 256 && $k == True ]] &&
	ok "unread socketpairs (uid 65534, no cgroup): seen past the cap and ended by the lab's cap ($m MiB)" ||
	not_ok "unread socketpairs (uid 65534, no cgroup): seen past the cap and ended by the lab's cap" "got $v with $m MiB, cap kill $k"
# memory the lab cannot see without a cgroup: never CONTAINED, never
# "stayed under every cap"
for f in memfd_unmapped_pages shared_anon_dontneed; do
	j=$(nobody "$LAB" --config "$T/slow.ini" run "$R/$f.py" --on all --json)
	v=$(field 'd["verdict"]' <<<"$j")
	h=$(field 'd["headline"]' <<<"$j")
	[[ $v == ERROR && $h == *"cannot see all of this run's memory"* ]] &&
		ok "$f (uid 65534, no cgroup): no verdict on a figure that is a lower bound" ||
		not_ok "$f (uid 65534, no cgroup): no verdict on a figure that is a lower bound" "got $v: $h"
	expect_eq "$f (uid 65534): the figure says it is a lower bound" "$(field 'd["measured"]["peak_mem_lower_bound"]' <<<"$j")" True
done
# zero-length messages: a 64-byte slab object each, whatever the text;
# the snippet says how many the namespace held
read -r v m n <<<"$(nobody "$LAB" --config "$T/slow.ini" run "$R/msgq_zero_length.py" --on all --json |
	field 'd["verdict"], d["measured"]["peak_mem_bytes"] >> 20, (__import__("re").findall(r"held (\d+) messages", d["output"]) or [0])[0]')"
[[ $n -gt 0 && $m -ge $((n * 64 / 1048576)) ]] && ok "zero-length messages are in the memory figure ($v, $m MiB for $n messages)" ||
	not_ok "zero-length messages are in the memory figure" "got $v with $m MiB for $n messages"

after=$(leftovers_snapshot)
expect_eq "nothing left behind (temp folders, cgroups, processes, mounts)" "$after" "$before"
finish
