# lab:title: Declares secret theft, forks past the process cap
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# adversary: --off limits => ESCAPED resource
# adversary: --on all => CONTAINED env
"""Bounded fork burst: 40 children (the cap is 32), all alive together:
each waits on a pipe until the parent has forked them all and held them
0.3 s (a child gone early would make the count depend on the machine's
speed), and exits after 20 s whatever happens. With Resource-limits off that
is past a cap of layers.ini, whatever the header says; with it on, fork is
refused and the snippet carries on."""
import os
import select
import time

r, w = os.pipe()
kids = []
for _ in range(40):
    try:
        pid = os.fork()
    except OSError as e:
        print("fork:", e.strerror, flush=True)
        break
    if pid == 0:
        os.close(w)
        select.select([r], [], [], 20.0)
        os._exit(0)
    kids.append(pid)
time.sleep(0.3)
os.close(w)
for pid in kids:
    os.waitpid(pid, 0)
print("forked", len(kids), flush=True)
