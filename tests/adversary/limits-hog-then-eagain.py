# lab:title: A CPU hog under the cap, then forks until fork() fails
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => CONTAINED limits ~ Resource-limits: fork
# adversary: --off limits => ESCAPED resource
"""The red team's F9 (round 7): the decisive mechanism first. A child
spins 1.5 s of CPU (under the 2 s RLIMIT_CPU: nothing kills it), so as
root the cgroup's CPU quota throttles the run; then the parent forks
sleepers until fork() is refused (RLIMIT_NPROC or pids.max). The refusal
stopped the bomb, the quota only slowed it: the headline must name the
refusal, never "CPU quota ... throttled". With the layer off: 41
processes, ESCAPED."""
import os
import time

hog = os.fork()
if hog == 0:
    while time.process_time() < 1.5:
        pass
    os._exit(0)
os.waitpid(hog, 0)
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
print("hog done; forked", len(kids), "children; refused:", refused, flush=True)
