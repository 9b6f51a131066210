# lab:title: Children share the CPU cap between them, then it kills itself
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => ERROR ~ no RLIMIT_CPU sent it
"""The red team's F2 (round 6): RLIMIT_CPU is per process. Two children
each spend 1.05 s of CPU (the cap is 2 s), the parent waits for them and
SIGKILLs itself: the run used 2.1 s in all and no process came near the
cap, yet the lab said "killed by RLIMIT_CPU's hard limit after 2.4 s of
CPU (it ignored SIGXCPU)", from the run's total. Its wall clock is 25 s
(adversary-clock: wall) so a loaded machine still lets the children spend
their CPU; the CPU cap is the shipped 2 s."""
import os
import signal
import time

kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        while time.process_time() < 1.05:
            pass
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print("children spent their CPU; killing myself with SIGKILL", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
