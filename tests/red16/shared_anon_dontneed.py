# lab:title: shared anonymous memory whose page-table entries are dropped
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# A MAP_SHARED|MAP_ANONYMOUS mapping is a shmem object. madvise(MADV_DONTNEED)
# drops the process's page-table entries (Pss falls to 0) but not the pages:
# they stay in the object as long as the mapping exists. No descriptor, no
# file size (RLIMIT_FSIZE does not apply), no SysV segment. Two processes of
# 200 MiB each (RLIMIT_AS is per process).
import ctypes, mmap, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
def shmem():
    for l in open('/proc/meminfo'):
        if l.startswith('Shmem:'):
            return int(l.split()[1]) >> 10
def avail():
    for l in open('/proc/meminfo'):
        if l.startswith('MemAvailable:'):
            return int(l.split()[1]) >> 10
SIZE = 200 << 20
a0 = avail(); s0 = shmem()
r, w = os.pipe()
for k in range(2):
    if os.fork() == 0:
        m = mmap.mmap(-1, SIZE, mmap.MAP_SHARED)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        for off in range(0, SIZE, 1 << 20):
            ctypes.memset(addr + off, 0x5a, 1 << 20)
            libc.madvise(addr + off, 1 << 20, 4)        # MADV_DONTNEED: the pages stay in the object
        os.write(w, b'.')
        time.sleep(30)
        os._exit(0)
os.read(r, 1); os.read(r, 1)
print('2 x 200 MiB held; MemAvailable drop', a0 - avail(), 'MiB; host Shmem +', shmem() - s0, 'MiB', flush=True)
time.sleep(1.5)
print('drop now', a0 - avail(), 'MiB')
