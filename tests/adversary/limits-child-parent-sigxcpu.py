# lab:title: A child ignores RLIMIT_CPU's SIGXCPU, spins past the cap, then its parent kills it with SIGXCPU
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary(root): --on all => CONTAINED limits ~ CPU quota
# adversary(nobody): --on all => BROKE ~ no limit was seen to fire
# adversary: --off limits => ESCAPED resource
"""(Red team, round 9.) RLIMIT_CPU is 2 s soft, 3 s hard. The child ignores SIGXCPU, so the
kernel's signal at 2 s does nothing; it spins on to 2.4 s of its own CPU
(past the layer's 2 s cap), restores SIGXCPU's default and sleeps. Its
parent then kill()s it with SIGXCPU and reaps it. The cap stopped nothing
(the child ran 0.4 s past it); the lab's watch reads a zombie ended by
SIGXCPU with >= 2 s of CPU and credits "a child process killed by
RLIMIT_CPU": CONTAINED. The same child exiting by itself at 2.4 s is
judged ESCAPED (see the run with os._exit instead of the kill).
The lab's answer (round 9's fix): a SIGXCPU at 2.4 s of CPU is no
RLIMIT_CPU kill (the kernel's come at the cap and once a second after),
so no RLIMIT_CPU credit; the child ran past the soft cap only as far as
the hard one lets a process that ignores SIGXCPU. As root the run's CPU
quota held the hog back (throttled, as for any hog of a second or more);
as uid 65534 (no cgroup) no limit was seen to fire.
"""
import os, signal, time
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    while time.process_time() < 2.4:
        pass
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    os.write(w, b"x")
    time.sleep(30)
    os._exit(0)
os.close(w)
os.read(r, 1)
os.kill(pid, signal.SIGXCPU)      # the parent's own kill, not the rlimit's
_, st = os.waitpid(pid, 0)
print("child ended by signal", os.WTERMSIG(st) if os.WIFSIGNALED(st) else None, flush=True)
