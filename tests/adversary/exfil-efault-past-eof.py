# lab:title: A connect() whose address is in a mapping nobody can read
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on network => BROKE
# adversary: --on all => BROKE
# adversary: --off network => BROKE
"""(Red team, round 8.) The sockaddr pointer lies in a mapping of an empty memfd (past its end
of file): the page is in /proc/PID/maps, but neither the lab (/proc/PID/mem)
nor the kernel can read it; connect() is EFAULT for the caller, before any
route is looked up. caller_family() only asks whether the address is
mapped, so the lab credits No-network with 'no route'."""
import ctypes, os, socket

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.memfd_create("empty")  # size 0
addr = libc.mmap(None, 4096, 3, 1, fd, 0)  # PROT_READ|WRITE, MAP_SHARED
s = socket.socket()
rc = libc.connect(s.fileno(), ctypes.c_void_p(addr), 16)
print("connect =", rc, os.strerror(ctypes.get_errno()) if rc else "", flush=True)
