# lab:title: Cheap mremap() calls that each make the lab read a 30000-line maps file
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary: --on all => BROKE
# adversary: --off limits => ESCAPED resource
"""(Red team, round 9.) 117 MiB split into 30000 one-page mappings (under every cap), then four
threads call mremap(page, 4 KiB, 1 MiB, 0) in a loop: each call fails at
once in the kernel (the next page is mapped, no MREMAP_MAYMOVE), but the
watch stops it first and reads the whole /proc/PID/maps (~1.5 MB) before
it even compares with the cap. The lab's listener, outside the cgroup's
0.5-core CPU quota, does the work."""
import ctypes, threading, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mremap.restype = ctypes.c_void_p
libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int]
libc.mallopt(-8, 1)
N = 30000
small = libc.mmap(None, N * 4096, 1, 0x22, -1, 0)
for i in range(0, N, 2):
    libc.mprotect(small + i * 4096, 4096, 0)
count = [0] * 4
stop = time.monotonic() + 4.0
def spin(k):
    while time.monotonic() < stop:
        libc.mremap(small + k * 8192, 4096, 1 << 20, 0)
        count[k] += 1
ts = [threading.Thread(target=spin, args=(k,)) for k in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("mremap calls:", sum(count), "cpu of the snippet: %.2f s" % time.process_time(), flush=True)
