# lab:title: SysV semaphore arrays, never counted
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# The init's 'M' figure reads detached shm and queued message bytes; it never
# looks at semaphores. semget(IPC_PRIVATE, 32000) (SEMMSL) allocates 32000
# cache-line-aligned struct sem, ~2 MiB of kernel memory per call. 150 calls:
# ~300 MiB in a fraction of a second, in nobody's Pss.
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
def avail():
    for l in open('/proc/meminfo'):
        if l.startswith('MemAvailable:'):
            return int(l.split()[1]) >> 10
a0 = avail()
n = 0
for i in range(150):
    if libc.semget(0, 32000, 0o1000 | 0o600) < 0:
        print('semget errno', ctypes.get_errno()); break
    n += 1
print(f'{n} arrays of 32000 semaphores; MemAvailable drop {a0 - avail()} MiB', flush=True)
time.sleep(1)
print('drop now', a0 - avail(), 'MiB')
