#!/usr/bin/bash
# tests/hosts/guest.sh — runs inside the test host (tests/hosts/run.sh boots
# it; tests/hosts/init.c starts this script as its only child). /lab is the
# staged lab (read-only: containment-lab, layers.ini, snippets/, swarm.py),
# /out the writable share the results go to (build/hosts/ on the host side).
#
# The machine is made the way a systemd host is: cgroup2 alone at
# /sys/fs/cgroup, every controller enabled in the root's subtree_control,
# user.slice/user-1000.slice/user@1000.service with +memory +pids +cpu
# enabled on the way there and the service folder (and its cgroup.procs,
# cgroup.subtree_control, cgroup.threads) owned by uid 1000, as systemd's
# Delegate=yes leaves it for the user's manager.
#
# hostsmode (from the kernel's command line):
#   v2        the lab as root, and as uid 1000 from inside the delegated
#             folder: run legit (its mechanisms line), the swarm with a
#             MemAvailable sampler beside it; uid 1000 again as systemd-run
#             --user --scope would start it (user@1000.service/app.slice/
#             lab.scope): run legit, the swarm; last the matrix (root, user)
#   debug     /lab/debug.sh (HOSTS_DEBUG=FILE tests/hosts/run.sh), as root
#   nouserns  user.max_user_namespaces=0 first; then run legit, matrix and
#             exec -- true as root and as uid 1000: each should stop with
#             exit 4 and one line
# Every step is written to /out/steps.txt as "NAME EXIT MS"; /out/done last.
set -u
export PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin
export LANG=C.UTF-8 TMPDIR=/tmp
O=/out
LAB=/lab/containment-lab
CONF=/lab/layers.ini
C=/sys/fs/cgroup
U=$C/user.slice/user-1000.slice/user@1000.service
mode=${hostsmode:-v2}

# our own words go to the console (fd 9), whatever a step's 2> says
exec 9>&2
say() { echo "hosts-guest: $*" >&9; }
now_ms() { # bash's own clock: no fork (a fork costs ~0.1 s under TCG here)
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}
# step NAME CMD...: runs CMD, logs its exit status and time
step() {
	local name=$1 t0 rc
	shift
	say "$name: start"
	t0=$(now_ms)
	"$@"
	rc=$?
	echo "$name $rc $(($(now_ms) - t0))" >>"$O/steps.txt"
	say "$name: exit $rc after $(($(now_ms) - t0)) ms"
	return 0
}
# as_user CMD...: a shell moved (by root) into a leaf of the delegated
# folder, as systemd places a user's processes (never in the service folder
# itself, which must stay empty to hand its controllers down), then uid 1000
# with no supplementary groups, its own HOME
# A scope of its own each time: a lab alone in its scope moves itself into
# a leaf and hands the controllers down, after which no process may join
# the scope (as systemd makes a new scope for each program).
as_user() {
	local s="$U/shell-$BASHPID-$RANDOM.scope"
	mkdir -p "$s" && chown -R 1000:1000 "$s"
	bash -c 'echo $$ >"$0/cgroup.procs" || exit 125
		exec setpriv --reuid=1000 --regid=1000 --clear-groups env HOME=/home/user USER=user LOGNAME=user "$@"' \
		"$s" "$@"
}
as_root() { "$@"; }
# as_scope CMD...: as systemd-run --user --scope would start it: uid 1000 in
# user@1000.service/app.slice/lab.scope, the user's manager having enabled
# +memory +pids +cpu in user@1000.service (scope_setup)
as_scope() {
	local s="$U/app.slice/lab-$BASHPID-$RANDOM.scope"
	setpriv --reuid=1000 --regid=1000 --clear-groups mkdir -p "$s"
	bash -c 'echo $$ >"$0/cgroup.procs" || exit 125
		exec setpriv --reuid=1000 --regid=1000 --clear-groups env HOME=/home/user USER=user LOGNAME=user "$@"' \
		"$s" "$@"
}
scope_setup() { # as uid 1000 from outside the folder, which must be empty
	setpriv --reuid=1000 --regid=1000 --clear-groups bash -c \
		'echo "+memory +pids +cpu" >"$0/cgroup.subtree_control" && mkdir -p "$0/app.slice"' "$U"
	echo "scope: user@1000.service subtree_control: $(cat "$U/cgroup.subtree_control"); app.slice $(stat -c %u:%g "$U/app.slice" 2>&1)" >>"$O/guest-$mode.txt"
}
# back to the delegated folder as systemd left it, for the matrix as uid
# 1000 in it: what the runs left below it goes (folders, deepest first),
# then its controllers
scope_teardown() {
	echo "scope: left below user@1000.service: $(cd "$U" && find . -mindepth 1 -type d | tr '\n' ' ')" >>"$O/guest-$mode.txt"
	find "$U" -mindepth 1 -depth -type d -exec rmdir {} \; &&
		echo "-memory -pids -cpu" >"$U/cgroup.subtree_control"
}

: >"$O/steps.txt"
# ---- the machine ----
mount -t cgroup2 -o nosuid,nodev,noexec,nsdelegate cgroup2 $C || say "cannot mount cgroup2"
for c in $(cat $C/cgroup.controllers); do
	echo "+$c" >$C/cgroup.subtree_control 2>/dev/null || say "root: +$c refused"
done
mkdir -p "$U"
echo "+memory +pids +cpu" >$C/user.slice/cgroup.subtree_control
echo "+memory +pids +cpu" >$C/user.slice/user-1000.slice/cgroup.subtree_control
chown 1000:1000 "$U" "$U/cgroup.procs" "$U/cgroup.subtree_control" "$U/cgroup.threads"
{
	echo "mode: $mode"
	echo "kernel: $(uname -r)"
	echo "nproc: $(nproc)"
	grep -E '^(MemTotal|MemAvailable)' /proc/meminfo
	echo "cgroup mounts: $(grep cgroup /proc/mounts | tr "\n" ";")"
	echo "root cgroup.controllers: $(cat $C/cgroup.controllers)"
	echo "root cgroup.subtree_control: $(cat $C/cgroup.subtree_control)"
	echo "user.slice subtree_control: $(cat $C/user.slice/cgroup.subtree_control)"
	echo "user-1000.slice subtree_control: $(cat $C/user.slice/user-1000.slice/cgroup.subtree_control)"
	echo "user@1000.service controllers: $(cat "$U/cgroup.controllers")"
	echo "user@1000.service owner: $(stat -c '%u:%g' "$U") procs $(stat -c '%u' "$U/cgroup.procs") subtree_control $(stat -c '%u' "$U/cgroup.subtree_control") threads $(stat -c '%u' "$U/cgroup.threads")"
	echo "root shell's cgroup: $(cat /proc/self/cgroup)"
	echo "user shell's cgroup: $(as_user cat /proc/self/cgroup)"
	echo "user shell's id: $(as_user id)"
	echo "user.max_user_namespaces: $(cat /proc/sys/user/max_user_namespaces)"
	echo "kernel.unprivileged_userns_clone: $(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null || echo absent)"
	echo "lab: $($LAB --version 2>&1)"
} >"$O/guest-$mode.txt" 2>&1

# the swarm beside a MemAvailable sampler ("MS KB", every 0.1 s, to /tmp:
# not through 9p while it measures). Builtins only: it waits with read -t on
# a FIFO nobody writes to, not with sleep(1), and never forks.
swarm() { # WHO
	local who=$1 spid
	: >/tmp/meminfo
	rm -f /tmp/idle
	mkfifo /tmp/idle
	(
		exec {idle}<>/tmp/idle
		while [[ ! -e /tmp/stop-sampler ]]; do
			while read -r k v _; do
				[[ $k == MemAvailable: ]] && t=${EPOCHREALTIME/./} && echo "$((t / 1000)) $v" && break
			done </proc/meminfo
			read -r -t 0.1 -u "$idle" _
		done
	) >>/tmp/meminfo &
	spid=$!
	sleep 1.5 # the baseline: samples before the lab starts
	echo "start $(now_ms)" >>"$O/swarm-$who.marks"
	step "swarm-$who" "as_$who" $LAB --config $CONF run /lab/swarm.py --on all --json \
		>"$O/swarm-$who.json" 2>"$O/swarm-$who.stderr"
	echo "end $(now_ms)" >>"$O/swarm-$who.marks"
	sleep 1
	touch /tmp/stop-sampler
	wait "$spid"
	rm -f /tmp/stop-sampler
	cp /tmp/meminfo "$O/swarm-$who.meminfo"
}

case $mode in
v2)
	for who in root user; do
		step "legit-$who" "as_$who" $LAB --config $CONF run legit --on all --json \
			>"$O/legit-$who.json" 2>"$O/legit-$who.stderr"
	done
	swarm user
	# the same user as systemd-run --user --scope would start the lab
	step scope-setup scope_setup
	step legit-scope as_scope $LAB --config $CONF run legit --on all --json \
		>"$O/legit-scope.json" 2>"$O/legit-scope.stderr"
	swarm scope
	step scope-teardown scope_teardown
	# the matrices last (the longest steps): a boot cut at its deadline
	# keeps everything above
	for who in root user; do
		step "matrix-$who" "as_$who" $LAB --config $CONF matrix --json --network-mode none \
			>"$O/v2-$who.json" 2>"$O/v2-$who.stderr"
	done
	;;
nouserns)
	echo 0 >/proc/sys/user/max_user_namespaces
	echo "after sysctl: user.max_user_namespaces = $(cat /proc/sys/user/max_user_namespaces)" >>"$O/guest-$mode.txt"
	for who in root user; do
		# bounded: a lab that did not stop would run the whole matrix
		step "nouserns-$who-run" "as_$who" timeout -s KILL 300 $LAB --config $CONF run legit \
			>"$O/nouserns-$who-run.out" 2>"$O/nouserns-$who-run.err"
		step "nouserns-$who-matrix" "as_$who" timeout -s KILL 300 $LAB --config $CONF matrix \
			>"$O/nouserns-$who-matrix.out" 2>"$O/nouserns-$who-matrix.err"
		step "nouserns-$who-exec" "as_$who" timeout -s KILL 300 $LAB --config $CONF exec -- true \
			>"$O/nouserns-$who-exec.out" 2>"$O/nouserns-$who-exec.err"
	done
	;;
debug) # HOSTS_DEBUG=FILE tests/hosts/run.sh: that script, as root
	step debug bash /lab/debug.sh >"$O/debug.out" 2>&1
	;;
esac
echo "$mode" >"$O/done"
sync
