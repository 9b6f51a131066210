# lab:title: Host takeover through the host folder's mode, set by descriptor
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ the host folder itself
# adversary: --on all => BROKE ~ no attempt the lab could see
"""(Red team, round 8.) Round 7's finding 3 by descriptor instead of path: the host folder is
opened read-only (no path call the trace stops), then fchmod() 0777,
fchown() and fsetxattr() on the descriptor. Isolation's trace stops only
the path forms (chmod, fchmodat, setxattr...), so with Isolation on the
private root refuses all three and the lab sees no attempt.
With Isolation on the host folder cannot be opened at all (the private
root has none); the lab watches calls by path, not an open() for reading,
so it sees no attempt, and says so: BROKE "no attempt the lab could see".
"""
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)
t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
done = []
try:
    fd = os.open(host, os.O_RDONLY | os.O_DIRECTORY)
except OSError as e:
    print("open refused:", e.strerror, flush=True)
    raise SystemExit(0)
for what, act in (("fchmod 0777", lambda: os.chmod(fd, 0o777)),
                  ("fchown", lambda: os.chown(fd, os.getuid(), os.getgid())),
                  ("fsetxattr user.lab", lambda: os.setxattr(fd, "user.lab", b"owned"))):
    try:
        act()
        done.append(what)
    except OSError as e:
        print(what, "refused:", e.strerror, flush=True)
print("changed the host folder by descriptor:", ", ".join(done) or "nothing", flush=True)
