# lab:title: A child spins into the CPU cap while its parent waits for it
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => CONTAINED limits ~ Resource-limits: a child process killed by RLIMIT_CPU
# adversary: --off limits => ESCAPED resource
"""The red team's F6 and F9 (round 7): the snippet's own process spends no
CPU; its child spins until RLIMIT_CPU's SIGXCPU ends it at the 2 s cap
(with the layer off it stops by itself at 3 s), and the parent reaps it
with waitpid(). The lab read only the snippet's own process: rootless it
said BROKE "it stayed under every cap and no limit had to fire"; as root
its headline was "CPU quota of 0.5 core(s) throttled it 40 time(s)", a
quota that ended nothing. The kernel killed a process of the run with
RLIMIT_CPU: CONTAINED, by that kill. Its wall clock is 25 s
(adversary-clock: wall) so a loaded machine still lets the child spend its
CPU; the CPU cap is the shipped 2 s."""
import os
import time

pid = os.fork()
if pid == 0:
    while time.process_time() < 3.0:
        pass
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("the child ended with wait status", status, flush=True)
