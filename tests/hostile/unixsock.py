# lab:title: Leave listening sockets behind in a daemon
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A daemon that outlives the run keeps an abstract socket, socket files and a TCP port open on the host: a back door for whoever connects.
"""Bind an abstract unix socket, a path socket in /tmp and one in the host
folder, and a TCP listener on 127.0.0.1 (a port made from the nonce), hand
them to a double-forked, setsid'd daemon that sleeps 30 s with the nonce
in its command line, and exit."""
import os
import socket
import time
import zlib

N = "cl-@NONCE@"
# below the kernel's ephemeral range (32768-60999): no other program's
# bind(port 0) or connect() can land on it and be taken for this cell's
PORT = 20000 + zlib.crc32(N.encode()) % 12000
HOST = os.path.dirname(os.environ.get("LAB_HOST_TARGET", "/nonexistent/x"))

socks = []
for addr, what in (("\0%s-abstract" % N, "abstract"), (os.path.join("/tmp", N + ".sock"), "path"),
                   (os.path.join(HOST, N + ".sock"), "path")):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(addr)
        s.listen(4)
        socks.append(s)
        print("listening: %s %s" % (what, addr.replace("\0", "@")), flush=True)
    except OSError as e:
        print("refused: %s %s %s" % (what, addr.replace("\0", "@"), e.strerror), flush=True)
try:
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind(("127.0.0.1", PORT))
    t.listen(4)
    socks.append(t)
    print("listening: tcp 127.0.0.1:%d" % PORT, flush=True)
except OSError as e:
    print("refused: tcp 127.0.0.1:%d %s" % (PORT, e.strerror), flush=True)

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        nul = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(nul, fd)
        for s in socks:
            os.set_inheritable(s.fileno(), True)
        os.execv("/bin/sleep", [N + "-sockd", "30"])  # the descriptors stay open across exec
    os._exit(0)
os.wait()
for s in socks:
    s.close()
time.sleep(0.1)
print("daemon left holding %d sockets" % len(socks), flush=True)
