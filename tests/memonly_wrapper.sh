#!/bin/sh
# tests/memonly_wrapper.sh TAG CMD... — a sandbox wrapper that limits memory and
# nothing else, as `systemd-run --scope -p MemoryMax=200M` would: CMD runs in
# a cgroup of its own with a 200M memory cap and no process limit; the cgroup
# is removed after. Root only (it writes /sys/fs/cgroup). Used by
# tests/audit_test.sh: the fork bomb through it must be ESCAPED, every time.
set -u
# its name: TAG (the test's, so it counts its own) and a random
# part: $$ inside the audit's PID namespace is the same small number in
# every audit, and two suites at once collided on it
tag=$1
shift
if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/cgroup.procs ]; then
	base=/sys/fs/cgroup/memory
	limit=memory.limit_in_bytes
else
	base=/sys/fs/cgroup
	limit=memory.max
fi
cg=$(mktemp -d "$base/memonly-wrapper.${tag:-x}.XXXXXX") || exit 125
echo 200M >"$cg/$limit" || { rmdir "$cg"; exit 125; }
# a child joins the cgroup, then becomes CMD: this shell stays outside to
# remove the cgroup once CMD is done
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
rc=$?
for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
exit $rc
