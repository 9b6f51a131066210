# lab:title: Host takeover through the host folder's own mode, times and xattr
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ the host folder itself
# adversary: --on all => CONTAINED isolation
"""The red team's round 7, finding 3: it changes nothing inside the host
folder, only the folder itself: mode 0777 with the sticky bit off (any
user may now plant files at the top of the host's /), its times set back,
and a user xattr. inotify reports a watched folder's own attributes with
an empty name, which the lab dropped, and its snapshots listed what is
below the folder, never the folder: "the host folder is as it was" while
the host's root had become world-writable. With Isolation on the host
folder is read-only to the snippet (its private root)."""
import os

t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
done = []
for what, act in (("mode 0777", lambda: os.chmod(host, 0o777)),
                  ("times set to 2001", lambda: os.utime(host, (978307200, 978307200))),
                  ("xattr user.lab", lambda: os.setxattr(host, "user.lab", b"owned"))):
    try:
        act()
        done.append(what)
    except OSError as e:
        print(what, "refused:", e.strerror, flush=True)
print("changed the host folder itself:", ", ".join(done) or "nothing", flush=True)
