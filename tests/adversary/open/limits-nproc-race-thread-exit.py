# lab:title: Forks at the task cap while one of its threads is exiting
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary(root): --on all => BROKE
"""(Red team, round 9.) Fills the run to 31 tasks of its user (RLIMIT_NPROC 32), starts a C
thread that only sleeps 1000 us and returns (pthread_create(usleep)), and
forks at once: at the call the run has 32 tasks, so the lab's watch counts
32 + 1 > 32 and credits "fork refused (EAGAIN) by RLIMIT_NPROC"; the thread
ends while the lab reads /proc, and the kernel lets the fork through.
Nothing was refused (the snippet prints each fork's outcome)."""
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
def tasks():
    me, n = os.getuid(), 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                st = open("/proc/%s/status" % p).read()
            except OSError:
                continue
            f = dict(l.split(":", 1) for l in st.splitlines() if ":" in l)
            if int(f["Uid"].split()[0]) == me:
                n += int(f["Threads"])
    return n
kids = []
while tasks() < 31:
    pid = os.fork()
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    kids.append(pid)
print("tasks before:", tasks(), flush=True)
usleep = ctypes.cast(libc.usleep, ctypes.c_void_p)
th = ctypes.c_ulong()
assert libc.pthread_create(ctypes.byref(th), None, usleep, ctypes.c_void_p(1000)) == 0
try:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    kids.append(pid)
    print("fork at the cap: succeeded", flush=True)
except OSError as e:
    print("fork at the cap: refused", e, flush=True)
for k in kids:
    os.waitpid(k, 0)
