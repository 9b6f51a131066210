# lab:title: a setuid file in the host folder the sweep does not see: in a folder the lab cannot read (rootless)
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
p = plant(host + '/locked')
os.chmod(host + '/locked', 0o300)           # rootless: the lab (same uid, no CAP_DAC_OVERRIDE) cannot list it
