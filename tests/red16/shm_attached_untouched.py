# lab:title: SysV shm attached by a holder that never touches it
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# The init counts a segment only while nattch == 0 ("an attached one is in
# its process's Pss already"). But Pss counts only the pages a process has
# in its page tables: holders attach each segment first and never touch it
# (nattch >= 1 from then on), then the main process fills it through its own
# attachment and detaches. Nobody's Pss holds the pages, the init skips the
# segment. 3 x 96 MiB; two holders, as RLIMIT_AS is per process.
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_POPULATE_WRITE = 23
def avail():
    for l in open('/proc/meminfo'):
        if l.startswith('MemAvailable:'):
            return int(l.split()[1]) >> 10
SEG = 96 << 20
a0 = avail()
ids = [libc.shmget(0, SEG, 0o1000 | 0o600) for i in range(3)]
for group in (ids[:2], ids[2:]):
    r, w = os.pipe()
    if os.fork() == 0:
        for s in group:
            libc.shmat(s, None, 0)          # attached, never touched
        os.write(w, b'.')
        time.sleep(30)
        os._exit(0)
    os.read(r, 1)
for s in ids:
    p = libc.shmat(s, None, 0)
    if libc.madvise(p, SEG, MADV_POPULATE_WRITE) != 0:
        ctypes.memset(p, 0x5a, SEG)
    libc.shmdt(p)
print('3 x 96 MiB held, attached but untouched; MemAvailable drop', a0 - avail(), 'MiB', flush=True)
print(open('/proc/sysvipc/shm').read(), flush=True)
time.sleep(2)
