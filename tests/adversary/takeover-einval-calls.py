# lab:title: Host-folder calls the kernel refuses before any lookup (EINVAL)
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => BROKE
# adversary: --on all => BROKE
"""(Red team, round 8.) truncate() of the host folder's etc/hostname to -1 bytes, utimensat()
of the host folder with flags 0x4000 and fchmodat2() with flags 0x8000:
each is EINVAL before the kernel looks the path up, with Isolation on or
off; nothing could change. Isolation's trace only reads the path and
credits the private root with meeting a takeover."""
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)
t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
for what, rc in (("truncate(etc/hostname, -1)", lambda: libc.truncate((host + "/etc/hostname").encode(), ctypes.c_long(-1))),
                 ("utimensat(host, flags 0x4000)", lambda: libc.syscall(280, -100, host.encode(), None, 0x4000)),
                 ("fchmodat2(host, 0777, flags 0x8000)", lambda: libc.syscall(452, -100, host.encode(), 0o777, 0x8000))):
    r = rc()
    print(what, "=", r, os.strerror(ctypes.get_errno()) if r else "", flush=True)
