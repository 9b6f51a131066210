#!/usr/bin/env bash
# tests/hosts/run.sh [BINARY] — `make test-hosts`: the lab on a real
# cgroup-v2 host. Boots Debian's kernel (the newest /boot/vmlinuz-*, the one
# the microvm rung uses, its modules from /lib/modules/RELEASE) under QEMU
# microvm with TCG as a small machine of its own — 2 vCPUs, 2 GiB, our init
# (tests/hosts/init.c, built static as build/hosts-init), the host's /usr,
# the staged lab (BINARY, a layers.ini, a snippets/ subset, swarm.py) over
# 9p read-only, a writable 9p share for the results — and runs
# tests/hosts/guest.sh in it, twice:
#   boot 1 (v2): cgroup2 alone, a systemd-style delegated subtree for uid
#     1000; the lab as root and as that user: run legit, the 12 x 200 MiB
#     swarm (uid 1000), the matrix
#   boot 2 (nouserns): user.max_user_namespaces=0; run, matrix and exec
#     must stop with exit 4 and one line, as root and as uid 1000
# After each boot tests/hosts/check.py judges what the guest left in
# build/hosts/. Skipped (exit 0, never "passed") where QEMU, the kernel, its
# modules or static glibc is missing.
#
# Bounded: each boot has a wall-clock deadline (HOSTS_DEADLINE_V2, default
# 1230 s; HOSTS_DEADLINE_NOUSERNS, default 270 s: 25 min in all); past it
# QEMU is killed by its PID. QEMU runs as uid 65534 when this script runs
# as root.
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/lib.sh
trap 'suite_cleanup' EXIT
BIN=$(realpath "${1:-./containment-lab}")
OUT=$PWD/build/hosts
INIT=$PWD/build/hosts-init
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3

skip_all() {
	skip "test-hosts (the lab on a cgroup-v2 host under QEMU)" "$1"
	finish
	exit 0
}
command -v qemu-system-x86_64 >/dev/null ||
	skip_all "qemu-system-x86_64 is missing: apt-get install -y qemu-system-x86"
KERNEL=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[[ -n $KERNEL && -r $KERNEL ]] ||
	skip_all "no readable guest kernel under /boot: apt-get install -y linux-image-amd64"
REL=${KERNEL#/boot/vmlinuz-}
[[ -d /lib/modules/$REL ]] ||
	skip_all "no modules for $REL under /lib/modules: apt-get install -y linux-image-$REL"
[[ -x $INIT ]] ||
	skip_all "build/hosts-init is missing: no static libc to build the test host's init (apt-get install -y libc6-dev)"
[[ -x $BIN ]] || skip_all "no lab binary at $BIN (make containment-lab)"

T=$(mktemp -d /tmp/cl-hosts.XXXXXX) || exit 1
chmod 755 "$T"
QPID=
kill_qemu() {
	if [[ -n $QPID ]] && kill -0 "$QPID" 2>/dev/null; then
		kill -KILL "$QPID" 2>/dev/null
		wait "$QPID" 2>/dev/null
	fi
	QPID=
}
trap 'kill_qemu; rm -rf "$T"; suite_cleanup' EXIT
trap 'kill_qemu; exit 130' INT TERM HUP

# ---- the staged lab: world-readable, what the guest's /lab shows ----
# layers.ini and snippets/ come from beside BINARY (another tree's build
# is tested with its own), else from this tree
SRC=$(dirname "$BIN")
[[ -f $SRC/layers.ini && -d $SRC/snippets ]] || SRC=$PWD
echo "# the lab under test: $BIN ($("$BIN" --version 2>&1)), layers.ini and snippets from $SRC"
S=$T/lab
mkdir -p "$S/snippets"
cp "$BIN" "$S/containment-lab"
# The matrix subset: legit (must still run under every combination) and
# resource-bomb (the Resource-limits layer's own snippet): 32 cells, not
# 128 — TCG on a loaded 2-core machine is ~10x slower than the host.
# HOSTS_SNIPPETS="a b ..." picks others (names from snippets/), "all" the
# whole matrix (128 cells: give it HOSTS_DEADLINE_V2=3600 or more).
SNIPS=${HOSTS_SNIPPETS:-legit resource-bomb}
[[ $SNIPS == all ]] && SNIPS=$(cd "$SRC/snippets" && ls ./*.py | sed 's|^\./||; s|\.py$||')
for s in $SNIPS; do
	cp "$SRC/snippets/$s.py" "$S/snippets/"
done
cp "$SRC"/snippets/*.csv "$S/snippets/"
cp tests/hosts/swarm.py tests/hosts/guest.sh "$S/"
[[ -n ${HOSTS_DEBUG:-} ]] && cp "$HOSTS_DEBUG" "$S/debug.sh"
# Times are TCG's: the wall clock and the per-process CPU cap get room (a
# python start alone takes seconds here); memory, pids and cpu stay the
# shipped values (256M, 32, 0.5 core), the ones the checks name.
sed -e 's/^timeout = .*/timeout = 120s/' -e 's/^cpu_time = .*/cpu_time = 60s/' "$SRC/layers.ini" |
	awk '/^\[safety\]/{s=1} s && /^timeout = /{$0="timeout = 10min"} {print}' >"$S/layers.ini"
chmod -R a+rX "$S"

"$PY" tests/hosts/mkinitramfs.py "$T/initramfs.cpio" "$INIT" "$REL" >"$T/mkinitramfs.err" 2>&1 ||
	skip_all "$(cat "$T/mkinitramfs.err")"
chmod 644 "$T/initramfs.cpio"
# Under TCG the guest calibrates its TSC against the emulated PIT, which
# fails on a loaded host and hangs the boot (see src/engine/boxes/box_microvm.c): the
# host's frequency goes on the command line instead.
KHZ=$(awk -F: '/^cpu MHz/ {printf "%d", $2 * 1000; exit}' /proc/cpuinfo)
TSC=${KHZ:+ tsc_early_khz=$KHZ tsc=reliable}

mkdir -p "$OUT"
TOTAL_P=0 TOTAL_F=0 TOTAL_S=0

# boot MODE DEADLINE_S: one boot of the test host; its results in $OUT.
# Under TCG on a loaded host a 2-vCPU guest sometimes never finishes booting
# (seen here: both vCPUs in soft lockups, migration/0 waiting on the other
# one): an attempt whose init has not said "machine up" within
# HOSTS_BOOT_DEADLINE s (default 150) is killed and tried once more; both
# attempts together stay within DEADLINE_S.
boot() {
	local mode=$1 deadline=$2 share=$T/out-$1 t0 ta el rc=0 attempt=1 up qemu=()
	[[ $(id -u) == 0 ]] && qemu=(setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs)
	qemu+=(qemu-system-x86_64 -M microvm -accel tcg -cpu max -m 2048M -smp 2
		-nodefaults -nographic -no-reboot -serial stdio
		-kernel "$KERNEL" -initrd "$T/initramfs.cpio"
		-append "console=ttyS0 quiet loglevel=4 panic=-1 random.trust_cpu=on cryptomgr.notests$TSC hostsmode=$mode"
		-fsdev "local,id=f0,path=/usr,security_model=none,readonly=on"
		-device virtio-9p-device,fsdev=f0,mount_tag=usr
		-fsdev "local,id=f1,path=$S,security_model=none,readonly=on"
		-device virtio-9p-device,fsdev=f1,mount_tag=lab
		-fsdev "local,id=f2,path=$share,security_model=none"
		-device virtio-9p-device,fsdev=f2,mount_tag=out)
	echo "# boot $mode: QEMU microvm, TCG, 2 vCPUs, 2 GiB, kernel $REL, deadline ${deadline} s"
	t0=$(date +%s)
	while :; do
		rm -rf "$share"
		mkdir -m 0777 "$share"
		[[ $(id -u) == 0 ]] && chown 65534:65534 "$share"
		ta=$(date +%s)
		up=
		"${qemu[@]}" </dev/null >"$OUT/console-$mode.log" 2>&1 &
		QPID=$!
		while kill -0 "$QPID" 2>/dev/null; do
			if [[ -z $up ]] && grep -q "hosts-init: machine up" "$OUT/console-$mode.log"; then
				up=$(($(date +%s) - ta))
				echo "# boot $mode: the guest's init is up after ${up} s (attempt $attempt)"
			fi
			if (($(date +%s) - t0 >= deadline)); then
				echo "# boot $mode: the deadline (${deadline} s) passed: QEMU (pid $QPID) killed"
				echo "deadline ${deadline}" >"$share/deadline"
				kill -KILL "$QPID"
				break
			fi
			if [[ -z $up ]] && (($(date +%s) - ta >= ${HOSTS_BOOT_DEADLINE:-150})); then
				echo "# boot $mode: attempt $attempt did not boot within ${HOSTS_BOOT_DEADLINE:-150} s: QEMU (pid $QPID) killed"
				tail -n 3 "$OUT/console-$mode.log" | sed 's/^/#   console: /'
				kill -KILL "$QPID"
				break
			fi
			sleep 1
		done
		wait "$QPID"
		rc=$?
		QPID=
		[[ -n $up || $attempt -ge 2 || -e $share/deadline ]] && break
		attempt=$((attempt + 1))
		cp "$OUT/console-$mode.log" "$OUT/console-$mode.attempt1.log"
	done
	el=$(($(date +%s) - t0))
	echo "# boot $mode: ${el} s wall (QEMU exit $rc, attempt $attempt)"
	# the guest's files, owned by this user on the host side
	for f in "$share"/*; do [[ -e $f ]] && cp "$f" "$OUT/"; done
	echo "$mode ${el} $rc" >"$OUT/boot-$mode.time"
	sed -n 's/^hosts-guest: //p' "$OUT/console-$mode.log" | sed 's/^/#   guest: /'
}

# check MODE: the checker's lines; its counts added to the total
check_boot() {
	local line
	while IFS= read -r line; do
		echo "$line"
		case $line in
		ok\ -*) TOTAL_P=$((TOTAL_P + 1)) ;;
		not\ ok\ -*) TOTAL_F=$((TOTAL_F + 1)) ;;
		skip\ -*) TOTAL_S=$((TOTAL_S + 1)) ;;
		esac
	done < <("$PY" tests/hosts/check.py "$1" "$OUT")
}

rm -f "$OUT"/*
t_all=$(date +%s)
if [[ -n ${HOSTS_DEBUG:-} ]]; then # a look inside, no checks
	boot debug "${HOSTS_DEADLINE_DEBUG:-600}"
	cat "$OUT/debug.out"
	exit 0
fi
boot v2 "${HOSTS_DEADLINE_V2:-1230}"
check_boot v2
boot nouserns "${HOSTS_DEADLINE_NOUSERNS:-270}"
check_boot nouserns
echo "# test-hosts: $(($(date +%s) - t_all)) s in all; results in build/hosts/"
PASS=$TOTAL_P FAIL=$TOTAL_F SKIP=$TOTAL_S
finish
