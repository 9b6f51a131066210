# not a snippet: run the lab from a process that joined a named session keyring with a user-readable key in it:
#   setpriv --reuid=U --regid=U --clear-groups /usr/bin/python3 keyring_caller_setup.py ./containment-lab run keyring_caller_keys.py --on none --json
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
kr = libc.syscall(250, 1, b"r16-login")              # KEYCTL_JOIN_SESSION_KEYRING
k = libc.syscall(248, b"user", b"krb5cc:r16", b"TICKET-SECRET-r16", 17, ctypes.c_long(-3))  # add_key
libc.syscall(250, 5, ctypes.c_long(k), 0x3f030000)   # KEYCTL_SETPERM: possessor all, user view+read
print('caller: session keyring', kr, 'key', k, file=sys.stderr)
os.execv(sys.argv[1], sys.argv[1:])
