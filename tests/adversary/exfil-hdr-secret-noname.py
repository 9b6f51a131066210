# lab:title: sendmsg() with no address at all, its header in secret memory
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on network => BROKE
# adversary: --on all => BROKE
# adversary: --off network => BROKE
"""(Red team, round 8.) An unconnected UDP socket, sendmsg() with msg_name NULL: EDESTADDRREQ,
there is no destination. The msghdr lives in memfd_secret memory, so the
lab cannot read it, takes the socket's family (AF_INET) and credits
No-network with 'no route'."""
import ctypes, mmap, os, socket, struct

libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(447, 0)
if fd >= 0:
    os.ftruncate(fd, 4096)
    page = mmap.mmap(fd, 4096)
else:
    print("memfd_secret refused:", os.strerror(ctypes.get_errno()), flush=True)
    page = mmap.mmap(-1, 4096)
base = ctypes.addressof(ctypes.c_char.from_buffer(page))
page[256:320] = b"x" * 64
page[128:144] = struct.pack("=QQ", base + 256, 64)  # iovec
# msghdr: name, namelen, iov, iovlen, control, controllen, flags
page[0:56] = struct.pack("=QI4xQQQQi4x", 0, 0, base + 128, 1, 0, 0, 0)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rc = libc.sendmsg(s.fileno(), ctypes.c_void_p(base), 0)
print("sendmsg =", rc, os.strerror(ctypes.get_errno()) if rc < 0 else "", flush=True)
