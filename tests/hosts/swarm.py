# lab:title: Memory swarm: 12 processes x 200 MiB
# lab:threat: resource
# lab:layer: limits
# lab:consequence: 12 processes took 200 MiB each, 2.3 GiB in all: past the machine's memory, the host's OOM killer picks its own victims.
"""A swarm no per-process limit stops: each of 12 forked children takes
200 MiB (under RLIMIT_AS 256 MiB, each alone is allowed) and writes every
byte so it is resident, then holds it. Only a cap on the whole run (a
cgroup's memory.max) stops the sum. tests/hosts/run.sh runs it on a test
host with 2 GiB: without such a cap the swarm would take more than the
machine has. Bounded: each child holds for at most HOLD seconds."""
import os
import sys
import time

CHILDREN = 12
SIZE = 200 * 1024 * 1024
HOLD = 8.0

kids = []
for i in range(CHILDREN):
    pid = os.fork()
    if pid == 0:
        block = b"\x01" * SIZE  # written: resident, not just reserved
        print("child %d holds %d MiB" % (i, len(block) >> 20), flush=True)
        t = time.monotonic()
        while time.monotonic() - t < HOLD and os.getppid() != 1:
            time.sleep(0.1)
        os._exit(0)
    kids.append(pid)
    time.sleep(0.05)
killed = 0
for pid in kids:
    _, st = os.waitpid(pid, 0)
    if os.WIFSIGNALED(st):
        killed += 1
        print("child %d killed by signal %d" % (pid, os.WTERMSIG(st)), flush=True)
print("swarm over: %d of %d children killed" % (killed, CHILDREN), flush=True)
sys.exit(0)
