# lab:title: Thirty children that sleep a second, under the process cap
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => BROKE
# adversary: --off limits => BROKE
"""The red team's F3 (round 6): 30 children that sleep 1 s, 31 processes
with the parent, under the cap of 32 (the run's init is one): no fork was
refused, yet the lab said "fork refused (EAGAIN) at 32 processes by
RLIMIT_NPROC", inferred from the peak alone. A refusal needs evidence of
one (pids.events' max with a cgroup)."""
import os
import time

kids = []
for _ in range(30):
    pid = os.fork()
    if pid == 0:
        time.sleep(1.0)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print("forked", len(kids), "children, every fork succeeded", flush=True)
