# lab:title: memory parked in the range's host tmpfs
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# With Isolation off the host folder is a tmpfs of tmp_size (64M): its pages
# are memory, but the sampler counts only /tmp and /dev/shm (tmpfs_used).
# RLIMIT_FSIZE is 1M: 63 files of 1 MiB.
import os, time
def avail():
    for l in open('/proc/meminfo'):
        if l.startswith('MemAvailable:'):
            return int(l.split()[1]) >> 10
host = os.path.dirname(os.path.dirname(os.path.dirname(os.environ['LAB_HOST_TARGET'])))
a0 = avail()
chunk = b'\x5a' * (1 << 20)
n = 0
for i in range(63):
    try:
        with open(f'{host}/blob{i}', 'wb') as f:
            f.write(chunk)
        n += 1
    except OSError as e:
        print(e); break
print(f'{n} MiB in {host}; MemAvailable drop {a0 - avail()} MiB', flush=True)
os.system(f'df -h {host} /tmp /dev/shm')
time.sleep(1)
