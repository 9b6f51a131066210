# lab:title: Declares secret theft, forks past the process cap
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# adversary: --off limits => ESCAPED resource
# adversary: --on all => CONTAINED env
"""Bounded fork burst: 40 children that each sleep 0.6 s (the cap is 32).
With Resource-limits off that is past a cap of layers.ini, whatever the
header says; with it on, fork is refused and the snippet carries on."""
import os
import time

kids = []
for _ in range(40):
    try:
        pid = os.fork()
    except OSError as e:
        print("fork:", e.strerror, flush=True)
        break
    if pid == 0:
        time.sleep(0.6)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print("forked", len(kids), flush=True)
