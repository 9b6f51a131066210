# lab:title: TCP buffers on the run's own loopback
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: slow
# adversary: --off network => ESCAPED resource ~ of memory (cap 256 MiB)
# With No-network off the run has a network namespace of its own with lo
# up: connections to itself on 127.0.0.1 that are never accepted nor read
# keep their bytes in both ends' socket buffers, in no process's memory.
# cgroup v1 charges TCP buffers only to a cgroup with a TCP limit of its own
# (the lab sets one, and counts it beside the memory peak); without a cgroup
# the range's init reads them through sock_diag. Either way the run is seen
# past the cap: 16 processes, each its own listener and 14 connections.
import os, socket, time
buf = b'\x5a' * 65536
done_r, done_w = os.pipe()
for p in range(16):
    if os.fork() == 0:
        srv = socket.socket()
        srv.bind(('127.0.0.1', 0))
        srv.listen(32)
        keep = []
        try:
            for i in range(14):
                c = socket.create_connection(('127.0.0.1', srv.getsockname()[1]))
                c.setblocking(False)
                try:
                    while True:
                        c.send(buf)
                except (BlockingIOError, OSError):
                    pass
                keep.append(c)
        except OSError as e:
            print('stopped:', e, flush=True)
        os.write(done_w, b'.')
        time.sleep(30)
        os._exit(0)
for p in range(16):
    os.read(done_r, 1)
print('16 x 14 connections full, never accepted', flush=True)
time.sleep(30)
