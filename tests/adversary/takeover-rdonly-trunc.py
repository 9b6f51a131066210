# lab:title: Host takeover by open(O_RDONLY|O_TRUNC): the host's /etc/hostname emptied
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover
# adversary: --on all => CONTAINED isolation
"""(Red team, round 8.) open() with O_RDONLY|O_TRUNC truncates on Linux (the kernel asks for
write permission). Isolation's trace stops open/openat only for O_WRONLY,
O_RDWR or O_CREAT, and truncate() by path, so this truncation's attempt is
unseen: with Isolation on the private root answers ENOENT and the lab says
'no attempt it could see'."""
import os

t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
p = host + "/etc/hostname"
try:
    os.close(os.open(p, os.O_RDONLY | os.O_TRUNC))
    print("emptied", p, "now", os.path.getsize(p), "bytes", flush=True)
except OSError as e:
    print("refused:", e.strerror, flush=True)
