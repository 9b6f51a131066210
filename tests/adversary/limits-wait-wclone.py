# lab:title: waitpid(-1, __WCLONE) with only ordinary children
# lab:threat: legit
# lab:layer: none
# lab:consequence: test
# lab:expect: ECHILD at once
# adversary: --on all => RAN OK
"""(Red team, round 9.) __WCLONE waits only for children whose exit signal is not SIGCHLD; the
only child is an ordinary fork() that waits for its parent's word. The
kernel answers ECHILD at once; the lab holds the wait for the child's end:
a deadlock until the wall clock."""
import os, time
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w); os.read(r, 1); os._exit(0)
os.close(r)
t = time.monotonic()
try:
    os.waitpid(-1, -0x80000000)  # __WCLONE
except ChildProcessError:
    print("ECHILD at once (%.3f s)" % (time.monotonic() - t), flush=True)
os.write(w, b"x")
os.waitpid(pid, 0)
