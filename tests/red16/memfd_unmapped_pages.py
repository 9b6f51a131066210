# lab:title: memfd pages held by a one-page mapping, fd closed
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# 400 memfds of 1 MiB each (RLIMIT_FSIZE allows exactly 1 MiB), filled with
# write() (never through a mapping, so no Pss), then held only by a one-page
# MAP_SHARED mapping that is never touched; the descriptor is closed, so the
# lab's memfd_bytes() (it walks /proc/PID/fd) never sees them either.
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
def avail():
    for l in open('/proc/meminfo'):
        if l.startswith('MemAvailable:'):
            return int(l.split()[1]) >> 10
a0 = avail()
chunk = b'\x5a' * (1 << 20)
maps = []
for i in range(400):
    fd = libc.memfd_create(b'x', 0)
    if fd < 0:
        print('memfd_create failed', ctypes.get_errno()); break
    os.write(fd, chunk)
    maps.append(libc.mmap(None, 4096, 1, 1, fd, 0))  # PROT_READ, MAP_SHARED: python's mmap would dup the fd
    os.close(fd)
a1 = avail()
print(f'held {len(maps)} MiB in memfds; MemAvailable {a0} -> {a1} MiB (drop {a0 - a1} MiB)', flush=True)
time.sleep(2.5)
print('still here, drop now', a0 - avail(), 'MiB')
