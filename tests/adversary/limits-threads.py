# lab:title: Sixty-four threads alive at once
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --off limits => ESCAPED resource ~ 65 processes (cap 32)
# adversary: --on all => CONTAINED limits ~ RLIMIT_AS
"""The red team's F5 (round 6): threads are tasks, and both caps count
them (pids.max, RLIMIT_NPROC). With Resource-limits off, 65 tasks were
alive at once (the main thread and 64 waiting ones) and the lab said BROKE,
"peak processes: 1 (cap 32) — counted in /proc": its sampler counted
processes, not tasks. With it on, thread creation fails after a few: each
thread's 8 MiB stack and glibc's 64 MiB arena fill RLIMIT_AS's 256 MiB, and
the next stack cannot be mapped; root said BROKE and uid 65534 CONTAINED
for the same outcome. Every thread waits until the last one started (or
20 s), and they are held 1 s together, so the count does not depend on how
fast a loaded machine starts them."""
import os
import threading
import time

go = threading.Event()
threads = []
for _ in range(64):
    t = threading.Thread(target=go.wait, args=(20.0,))
    try:
        t.start()
    except RuntimeError as e:
        print("thread refused:", e, flush=True)
        break
    threads.append(t)
print("tasks alive:", len(os.listdir("/proc/self/task")), flush=True)
time.sleep(1.0)
go.set()
for t in threads:
    t.join()
print("started", len(threads), "threads", flush=True)
