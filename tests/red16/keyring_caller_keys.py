# lab:title: the caller's keys from inside the range
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# The range joins an anonymous session keyring, but key permissions are
# checked against the key's owner kuid: with Isolation off the range maps the
# lab's own uid to itself, so the caller's session keyring and its keys are
# "the user's" to us (KEY_USR_VIEW/READ). /proc/keys (bound read-only, still
# readable) lists every key we may view, with its serial.
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
KEYCTL_DESCRIBE, KEYCTL_READ = 6, 11
def keyctl(op, a, b=0, c=0):
    return libc.syscall(ctypes.c_long(250), ctypes.c_long(op), ctypes.c_long(a), ctypes.c_long(b),
                        ctypes.c_long(c), ctypes.c_long(0))
print('own session keyring:', keyctl(0, -3))
for line in open('/proc/keys'):
    if 'r16' not in line:        # only the test's own key (other sessions' keys are listed too)
        continue
    print('/proc/keys:', line.rstrip())
    serial = int(line.split()[0], 16)
    buf = ctypes.create_string_buffer(512)
    n = keyctl(KEYCTL_DESCRIBE, serial, ctypes.addressof(buf), 512)
    print('  describe:', buf.value.decode(errors='replace') if n > 0 else 'errno %d' % ctypes.get_errno())
    n = keyctl(KEYCTL_READ, serial, ctypes.addressof(buf), 512)
    if n >= 0:
        print('  read:', buf.raw[:n][:64])
    else:
        print('  read: errno', ctypes.get_errno())
