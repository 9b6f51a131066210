# The proxy's request-line and labels, seen from inside (run by exec with
# --network-mode allowlist): one line per case, "NAME: first status line".
import socket, time

def ask(name, raw, wait=3.0):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=wait)
    t0 = time.time()
    try:
        s.sendall(raw)
        got = b""
        while b"\r\n" not in got:
            b = s.recv(4096)
            if not b:
                break
            got += b
        first = got.split(b"\r\n")[0].decode(errors="replace") or "closed"
    except socket.timeout:
        first = "timeout"
    except OSError as e:
        first = "error " + type(e).__name__
    s.close()
    print("%s: %s after %.1f s" % (name, first, time.time() - t0), flush=True)

ask("version 1.9xyz", b"GET http://api.lab.test/prices HTTP/1.9xyz\r\nHost: api.lab.test\r\n\r\n")
ask("split line", b"GET\r\nhttp://api.lab.test/prices\r\nHTTP/1.1\r\n\r\n")
ask("no space after CONNECT", b"CONNECTapi.lab.test:80 HTTP/1.1\r\n\r\n")
ask("bare LF", b"GET http://api.lab.test/prices HTTP/1.1\nHost: api.lab.test\n\n")
ask("query after host", b"GET http://api.lab.test?x=1 HTTP/1.1\r\nHost: api.lab.test\r\n\r\n")
ask("huge content-length", b"POST http://api.lab.test/feedback HTTP/1.1\r\nHost: api.lab.test\r\n"
    b"Content-Length: 18446744073709551615\r\n\r\nhello")
# a CONNECT tunnel that says nothing: the host never answers it
s = socket.create_connection(("127.0.0.1", 3128), timeout=3)
s.sendall(b"CONNECT api.lab.test:80 HTTP/1.1\r\n\r\n")
print("tunnel:", s.recv(200).split(b"\r\n")[0].decode(), flush=True)
s.close()
time.sleep(0.3)
