# lab:title: Host takeover through the host folder's mode, by a path through a link
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ the host folder itself
# adversary: --on all => BROKE ~ no attempt the lab could see
"""(Red team, round 8.) chmod() 0777 and setxattr() of the host folder named through a symlink
in a temporary folder: the trace makes the path plain by its text only
(path_lexical, no symlink followed), so the name is not 'in the run's
folder' and is not logged; the same call naming the host folder directly
is credited to Isolation (takeover-host-root-attrs).
With Isolation on the lab reads the path as written (a symlink in /tmp),
not what it leads to, so it sees no attempt at the host folder and says
so: BROKE "no attempt the lab could see" (a gap in the lab's eyes, not in
the layer: the private root has no host folder to reach).
"""
import os, tempfile

t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
link = os.path.join(tempfile.mkdtemp(), "h")
os.symlink(host, link)
done = []
for what, act in (("chmod via a symlink 0777", lambda: os.chmod(link, 0o777)),
                  ("setxattr via a symlink", lambda: os.setxattr(link, "user.lab", b"owned"))):
    try:
        act()
        done.append(what)
    except OSError as e:
        print(what, "refused:", e.strerror, flush=True)
print("changed the host folder:", ", ".join(done) or "nothing", flush=True)
