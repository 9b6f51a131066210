# lab:title: Leave keys in the kernel's keyrings
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A key left in the caller's session or user keyring outlives the run: whatever the user runs next can read it, or it carries a payload to the next process.
"""add_key("user", "cl-<nonce>-...") into the session, user and
user-session keyrings, and never unlink them."""
import ctypes
import os

N = "cl-@NONCE@"
NR_ADD_KEY = {"x86_64": 248, "aarch64": 217, "riscv64": 217, "i686": 286}.get(os.uname().machine)
libc = ctypes.CDLL(None, use_errno=True)
if NR_ADD_KEY is None:
    print("add_key: no syscall number for", os.uname().machine, flush=True)
else:
    for ring, name in ((-3, "session"), (-4, "user"), (-5, "usersession")):
        desc = ("%s-%s" % (N, name)).encode()
        payload = b"left by " + desc
        r = libc.syscall(ctypes.c_long(NR_ADD_KEY), b"user", desc, payload, ctypes.c_size_t(len(payload)),
                         ctypes.c_long(ring))
        if r < 0:
            print("add_key into the %s keyring refused: %s" % (name, os.strerror(ctypes.get_errno())), flush=True)
        else:
            print("left: key %d %s in the %s keyring" % (r, desc.decode(), name), flush=True)
