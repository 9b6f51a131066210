# lab:title: data parked in unread stream socketpairs
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# No-network leaves socketpair(AF_UNIX, SOCK_STREAM). Bytes written and never
# read sit in kernel skbs (up to SO_SNDBUF, ~208 KiB, per direction): in no
# process's Pss, in no memfd, in no tmpfs. RLIMIT_NOFILE is per process and
# RLIMIT_NPROC is 32: 26 processes x 30 pairs x 2 directions.
import os, socket, time
def avail():
    for l in open('/proc/meminfo'):
        if l.startswith('MemAvailable:'):
            return int(l.split()[1]) >> 10
a0 = avail()
buf = b'\x5a' * 65536
done_r, done_w = os.pipe()
for p in range(26):
    if os.fork() == 0:
        pairs = []
        try:
            for i in range(30):
                a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
                for s in (a, b):
                    s.setblocking(False)
                    try:
                        while True:
                            s.send(buf)
                    except BlockingIOError:
                        pass
                pairs.append((a, b))
        except OSError as e:
            pass
        os.write(done_w, b'.')
        time.sleep(30)
        os._exit(0)
for p in range(26):
    os.read(done_r, 1)
print('MemAvailable drop', a0 - avail(), 'MiB', flush=True)
time.sleep(2)
print('drop now', a0 - avail(), 'MiB')
