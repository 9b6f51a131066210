# lab:title: socket buffers whose writers are gone
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: slow
# adversary(root): --on all => CONTAINED limits
# adversary(nobody): --on all => ESCAPED resource ~ of memory (cap 256 MiB)
# Bytes written into a stream socketpair and never read wait in the peer's
# queue; here each writer is closed once the queue is full, so no socket a
# process holds was their sender. No process's memory, no file: a cgroup
# charges them (as root), and without one (uid 65534 on a cgroup v1 host)
# the range's init finds them through sock_diag, the writer's share gone,
# in the queues themselves. 24 processes x ~58 queues of ~208 KiB.
import os, socket, time
buf = b'\x5a' * 65536
done_r, done_w = os.pipe()
for p in range(24):
    if os.fork() == 0:
        keep = []
        try:
            for i in range(64):
                a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                a.setblocking(False)
                try:
                    while True:
                        a.send(buf)
                except (BlockingIOError, OSError):
                    pass
                a.close()
                keep.append(b)
        except OSError:
            pass
        os.write(done_w, b'.')
        time.sleep(30)
        os._exit(0)
for p in range(24):
    os.read(done_r, 1)
print('24 processes of full queues, writers closed', flush=True)
time.sleep(30)
