# lab:title: empty files in the private /tmp: inodes, not blocks
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# The sampler counts the private /tmp and /dev/shm by statvfs blocks
# (tmpfs_used). An empty folder takes no block but pins an inode and a dentry
# (~1 KiB of unreclaimable slab on tmpfs), and tmp_size caps blocks, not
# inodes (nr_inodes defaults to half the RAM's pages).
import os, time
def meminfo():
    m = {}
    for l in open('/proc/meminfo'):
        k, v = l.split(':'); m[k] = int(v.split()[0]) >> 10
    return m
m0 = meminfo()
t = time.time()
n = 0
try:
    for i in range(400):
        d = f'/tmp/{i}'
        os.mkdir(d)
        for j in range(1000):
            os.mkdir(f'{d}/{j}')
        n += 1001
        if time.time() - t > 3.5:
            break
except OSError as e:
    print(e)
m1 = meminfo()
st = os.statvfs('/tmp')
print(f'{n} folders in {time.time()-t:.1f}s; /tmp blocks used {(st.f_blocks - st.f_bfree) * st.f_frsize >> 10} KiB; '
      f'Slab +{m1["Slab"] - m0["Slab"]} MiB, MemAvailable -{m0["MemAvailable"] - m1["MemAvailable"]} MiB', flush=True)
time.sleep(0.5)
