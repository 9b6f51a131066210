# lab:title: Forks sleepers until fork() fails
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => CONTAINED limits ~ Resource-limits: fork
# adversary: --on limits => CONTAINED limits ~ Resource-limits: fork
# adversary: --off limits => ESCAPED resource
"""The red team's F7 (round 7), the fork half: 40 children that sleep a
second, forked until fork() fails. Under the shipped caps RLIMIT_NPROC (32
processes of the run's user, its init among them) refuses the 31st child
with EAGAIN, before pids.max's count moves (as root) or where there is no
cgroup at all (uid 65534): the lab said BROKE "it stayed under every cap
and no limit had to fire", while with the layer off the same snippet runs
41 processes (ESCAPED). The cap refused the bomb: CONTAINED. (As root with
Isolation off the snippet is uid 0, whom RLIMIT_NPROC exempts: there
pids.max refuses it, and counts it.)"""
import os
import time

kids = []
refused = None
for _ in range(40):
    try:
        pid = os.fork()
    except OSError as e:
        refused = e
        break
    if pid == 0:
        time.sleep(1.0)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print("forked", len(kids), "children; refused:", refused, flush=True)
