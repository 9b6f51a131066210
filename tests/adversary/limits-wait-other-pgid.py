# lab:title: Waits for its own process group while its only child leads another
# lab:threat: legit
# lab:layer: none
# lab:consequence: test
# lab:expect: as the kernel answers
# adversary: --on all => RAN OK
# adversary: --off limits => RAN OK
"""(Red team, round 9.) waitpid(0, 0) waits only for children in the caller's process group. The
only child made its own session (setsid), so the kernel answers ECHILD at
once; the child waits for its parent's word before it exits. With the
watch, the lab holds the wait until a child of the caller ends."""
import os, time
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.setsid()
    os.close(w)
    os.read(r, 1)          # until the parent says go
    os._exit(0)
os.close(r)
time.sleep(0.2)
t = time.monotonic()
try:
    os.waitpid(0, 0)
    print("waitpid(0) returned a child?")
except ChildProcessError:
    print("ECHILD after %.3f s, as the kernel answers" % (time.monotonic() - t), flush=True)
os.write(w, b"x")
os.waitpid(pid, 0)
print("done")
