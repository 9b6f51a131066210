# lab:title: a key in the host user's own keyring, after the run
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# The range joins a fresh session keyring, and -4 (the user keyring) is the
# range's user namespace's. But /proc/keys lists the host's keyrings we may
# view, with their serials: the real user keyring (_uid.N, perm 1f3f0000:
# the user may write it) is one add_key() away, and it lives as long as the
# user does, not as long as the run.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for line in open('/proc/keys'):
    f = line.split()
    if f[7] == 'keyring' and (f[8].startswith('_uid.') or f[8].startswith('_uid_ses.')):
        serial = int(f[0], 16)
        k = libc.syscall(ctypes.c_long(248), b'user', b'r16-left-behind', b'planted by a run', ctypes.c_long(16),
                         ctypes.c_long(serial))
        print(f[8], hex(serial), '-> add_key', k, 'errno', ctypes.get_errno() if k < 0 else 0)
