"""tests/egress_probe.py — run inside the sandbox by tests/egress_test.sh
(`containment-lab --network-mode allowlist exec -- python3 egress_probe.py`).

Prints one "name: result" line per check; the test reads them. Talks only
to the proxy on the sandbox's own 127.0.0.1:3128 and to addresses that have
no route from inside (nothing leaves the sandbox's network namespace).
"""
import errno
import os
import select
import socket
import time
import urllib.error
import urllib.request

PROXY = ("127.0.0.1", 3128)


def say(name, result):
    print(f"{name}: {result}", flush=True)


def raw(request, read=True, timeout=3.0):
    """Sends bytes to the proxy; returns its first line (or the error)."""
    s = socket.create_connection(PROXY, timeout=timeout)
    try:
        s.sendall(request)
        if not read:
            return s
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return data.decode("latin-1", "replace")
    finally:
        if read:
            s.close()


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=3) as resp:
            return f"{resp.status} {resp.read(4096).decode()[:40]!r}"
    except urllib.error.HTTPError as e:
        return f"{e.code} {e.read(512).decode().strip()}"
    except Exception as e:
        return f"error {e}"


def connect_errno(addr, port):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((addr, port))
        return "connected"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        s.close()


def listening_inside():
    ports = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A":
                ports.append(int(local.split(":")[1], 16))
    return sorted(ports)


def slow_drip():
    """One byte of a head every 0.2 s: the proxy must give up on it."""
    t0 = time.monotonic()
    s = socket.create_connection(PROXY, timeout=4)
    head = b"GET http://api.lab.test/prices HTTP/1.1\r\nHost: api.lab.test\r\nX-Drip: " + b"a" * 60
    data = b""
    try:
        for b in head:
            # the proxy's answer, as soon as it gives one (sending on
            # after it closed would only earn an EPIPE)
            if select.select([s], [], [], 0)[0]:
                break
            s.sendall(bytes([b]))
            time.sleep(0.2)
            if time.monotonic() - t0 > 3.5:
                break
        data = s.recv(4096)
    except OSError as e:
        data = f"error {errno.errorcode.get(e.errno, e.errno)}".encode()
    finally:
        s.close()
    return f"{data.decode('latin-1').splitlines()[0] if data else 'closed'} after {time.monotonic() - t0:.1f} s"


def huge_header():
    """A 10 MB header: cut at 16 KiB with a 431 (or a reset, if the proxy
    closed while we were still sending)."""
    s = raw(b"GET http://api.lab.test/prices HTTP/1.1\r\nX-Huge: ", read=False)
    try:
        chunk = b"a" * 65536
        for _ in range(160):
            s.sendall(chunk)
        status = s.recv(4096).decode("latin-1").splitlines()[0]
    except OSError as e:
        status = f"reset ({errno.errorcode.get(e.errno, e.errno)})"
    finally:
        s.close()
    return status


say("env", " ".join(f"{k}={os.environ.get(k)}" for k in ("HTTP_PROXY", "https_proxy", "NO_PROXY")))
say("listening inside", listening_inside())
say("allowed", get("http://api.lab.test/prices"))
say("refused", get("http://evil.lab.test/steal"))
say("connect refused", raw(b"CONNECT evil.lab.test:443 HTTP/1.1\r\nHost: evil.lab.test:443\r\n\r\n").splitlines()[0])
t = raw(b"CONNECT api.lab.test:80 HTTP/1.1\r\n\r\nGET /prices HTTP/1.0\r\n\r\n")
say("connect allowed", t.splitlines()[0])
say("raw off loopback", connect_errno("192.0.2.1", 80))
say("raw 10.0.0.1", connect_errno("10.0.0.1", 443))
say("raw own loopback", connect_errno("127.0.0.1", 80))
say("garbage", raw(b"\x16\x03\x01garbage that is no request\r\n\r\n").splitlines()[0] or "closed")
say("huge header", huge_header())
say("slow drip", slow_drip())
say("still serving", get("http://api.lab.test/prices"))
