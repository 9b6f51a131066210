# lab:title: Maps 60 MiB past the cap while another thread frees 100 MiB
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary: --on all => BROKE
# adversary: --off limits => BROKE
"""(Red team, round 9.) The process holds ~240 MiB of address space (a 100 MiB mapping and
117 MiB split into 30000 one-page mappings, which makes /proc/PID/maps
slow to read). The main thread maps 60 MiB: at the call VmSize + 60 MiB is
past RLIMIT_AS's 256 MiB, and while the lab reads the maps a second thread
unmaps the 100 MiB. The kernel then maps the 60 MiB: nothing was refused,
the address space never passed the cap. The lab credits "mmap() of 60 MiB
refused (ENOMEM) by RLIMIT_AS"."""
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PRIV_ANON = 0x02 | 0x20
MAP_FAILED = ctypes.c_void_p(-1).value
libc.mallopt(-8, 1)   # M_ARENA_MAX 1: no 64/128 MiB arena reservations of glibc's for the thread
N = 30000
small = libc.mmap(None, N * 4096, 1, PRIV_ANON, -1, 0)
for i in range(0, N, 2):
    libc.mprotect(small + i * 4096, 4096, 0)
big = libc.mmap(None, 100 << 20, 1, PRIV_ANON, -1, 0)
vm = [l for l in open("/proc/self/status") if l.startswith("VmSize")][0].split()[1]
print("VmSize before:", int(vm) >> 10, "MiB", flush=True)
def freer():
    libc.usleep(3000)
    libc.munmap(big, 100 << 20)
t = threading.Thread(target=freer)
t.start()
p = libc.mmap(None, 60 << 20, 1, PRIV_ANON, -1, 0)
err = ctypes.get_errno()
t.join()
print("mmap(60 MiB):", "refused, errno %d" % err if p == MAP_FAILED else "mapped", flush=True)
vm = [l for l in open("/proc/self/status") if l.startswith("VmSize")][0].split()[1]
print("VmSize after:", int(vm) >> 10, "MiB", flush=True)
