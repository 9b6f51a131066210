# lab:title: An orphaned grandchild spins into the CPU cap
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => CONTAINED limits ~ RLIMIT_CPU
# adversary: --off limits => ESCAPED resource
"""(Red team, round 9.) The snippet forks a child that forks a grandchild and exits at once; the
grandchild (reparented to the sandbox's init) spins until RLIMIT_CPU
kills it at 2 s (3 s with the layer off: it stops by itself). The snippet
waits for it through a pipe's end of file. No wait of the snippet's ever
meets the dead grandchild: the init reaps it."""
import os, time
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    if os.fork() == 0:
        os.close(r)
        while time.process_time() < 3.0:
            pass
        os._exit(0)
    os._exit(0)
os.close(w)
os.waitpid(pid, 0)
os.read(r, 1)    # end of file: the grandchild is gone
time.sleep(0.3)
print("the grandchild is gone", flush=True)
