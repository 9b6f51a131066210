"""tests/multiuser_attacker.py TMPDIR LAB_UID — another local user against
the lab's evidence (issue 17 item 2, issue 24), for tests/multiuser_test.sh.

Runs as a uid of its own until SIGTERM, in a loop:
 - crowds: every new listening socket on 127.0.0.1 owned by LAB_UID (read
   from /proc/net/tcp) gets 8 idle connections, held while it listens;
 - forges: every decoy it can read under TMPDIR/containment-lab.*/ (the
   credentials file, the CSV's canary row) is POSTed to every such
   listener, on a connection closed at once;
 - pokes: a fast connection with a few raw bytes to each new listener.
On SIGTERM it prints one line of counts: "listeners N held N read N
forged N".
"""
import glob
import os
import re
import signal
import socket
import sys
import time

tmp, lab_uid = sys.argv[1], int(sys.argv[2])
stop = False
held = {}  # port -> [socket]
loot = {}  # path -> bytes
counts = {"listeners": 0, "held": 0, "read": 0, "forged": 0}


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)


def listeners():
    ports = set()
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                p = line.split()
                ip, port = p[1].split(":")
                if p[3] == "0A" and int(p[7]) == lab_uid and ip == "0100007F":
                    ports.add(int(port, 16))
    except OSError:
        pass
    return ports


def hold(port):
    conns = []
    for _ in range(8):
        s = socket.socket()
        s.setblocking(False)
        if s.connect_ex(("127.0.0.1", port)) not in (0, 115):
            s.close()
            continue
        conns.append(s)
    counts["held"] += len(conns)
    return conns


def send_once(port, data):
    s = socket.socket()
    s.settimeout(0.2)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(data)
        return True
    except OSError:
        return False
    finally:
        s.close()


def post(port, body):
    head = b"POST /feedback HTTP/1.1\r\nHost: api.lab.test\r\nContent-Length: %d\r\n\r\n" % len(body)
    if send_once(port, head + body):
        counts["forged"] += 1


def read_decoys():
    fresh = []
    for pattern in ("containment-lab.*/home/.aws/credentials", "containment-lab.*/work/sales.csv"):
        for p in glob.glob(os.path.join(tmp, pattern)):
            if p in loot:
                continue
            try:
                with open(p, "rb") as f:
                    text = f.read(1 << 20)
            except OSError:
                continue
            if p.endswith(".csv"):
                text = b"\n".join(l for l in text.split(b"\n") if b"CANARY-" in l)
            loot[p] = text
            counts["read"] += 1
            fresh.append(text)
    return fresh


while not stop:
    now = listeners()
    for port in list(held):
        if port not in now:
            for s in held.pop(port):
                s.close()
    for port in now - set(held):
        counts["listeners"] += 1
        held[port] = hold(port)
        send_once(port, b"x" * 64)
        for text in loot.values():
            post(port, text)
    for text in read_decoys():
        for port in now:
            post(port, text)
    time.sleep(0.002)
print(" ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
