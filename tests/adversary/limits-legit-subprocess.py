# lab:title: subprocess-heavy legit work
# lab:threat: legit
# lab:layer: none
# lab:consequence: test
# lab:expect: sub ok
# lab:expect: forks ok 20
# adversary: --on all => RAN OK
# adversary: --off limits => RAN OK
"""(Red team, round 9.) Ordinary fork- and subprocess-heavy work:
subprocess calls, a shell's & and wait, four threads each waiting on a
Popen, twenty fork/wait pairs. Resource-limits' watch stops every new
task and every wait; none of it may slow this down or hang it."""
import os, subprocess, threading
for i in range(10):
    subprocess.run(["/bin/true"], check=True)
out = subprocess.run(["/bin/sh", "-c", "sleep 0.2 & sleep 0.1 & wait; echo sub ok"], capture_output=True, text=True, timeout=3).stdout
print(out.strip(), flush=True)
def w():
    p = subprocess.Popen(["/bin/sleep", "0.3"]); p.wait(timeout=3)
ts = [threading.Thread(target=w) for _ in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
n = 0
for i in range(20):
    pid = os.fork()
    if pid == 0: os._exit(7)
    _, st = os.waitpid(pid, 0); n += os.WEXITSTATUS(st) == 7
print("forks ok", n, flush=True)
