# lab:title: A connect() that only disconnects, its address in secret memory
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on network => BROKE
# adversary: --on all => BROKE
# adversary: --off network => BROKE
"""(Red team, round 8.) connect() on an unconnected TCP socket with a sockaddr of family
AF_UNSPEC: the kernel's answer is a disconnect, 0, no route looked up, no
packet. The sockaddr sits in memfd_secret memory, so the lab cannot read
it and credits No-network with 'no route' for a call that succeeded and
went nowhere."""
import ctypes, mmap, os, socket, struct

libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(447, 0)  # memfd_secret
if fd >= 0:
    os.ftruncate(fd, 4096)
    page = mmap.mmap(fd, 4096)
else:
    print("memfd_secret refused:", os.strerror(ctypes.get_errno()), flush=True)
    page = mmap.mmap(-1, 4096)
page[0:16] = struct.pack("=H", socket.AF_UNSPEC) + b"\0" * 14
where = ctypes.addressof(ctypes.c_char.from_buffer(page))
s = socket.socket()
rc = libc.connect(s.fileno(), ctypes.c_void_p(where), 16)
print("connect(AF_UNSPEC) =", rc, os.strerror(ctypes.get_errno()) if rc else "(a disconnect: nothing sent)", flush=True)
