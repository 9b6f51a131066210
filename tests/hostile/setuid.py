# lab:title: Plant a setuid copy of id on the host
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: Whoever runs the planted copy gets the lab's uid (root, for a root lab): a way back into the machine long after the run.
"""Copy /usr/bin/id into every writable place (the host folder first, then
/tmp, /dev/shm, /var/tmp, $HOME, the work folder), make it root's where
chown allows, and setuid/setgid. Then wait 1.5 s so someone outside can
try the copies while the run lives. The copies are only `id`: running one
says whose uid it gave, nothing more."""
import os
import shutil
import time

N = "cl-@NONCE@"
HOST = os.path.dirname(os.environ.get("LAB_HOST_TARGET", "/nonexistent/x"))
WORK = os.path.dirname(os.environ.get("LAB_DATA", "/nonexistent/x"))
places = []
for d in (HOST, "/tmp", "/dev/shm", "/var/tmp", os.environ.get("HOME", ""), WORK,
          os.environ.get("XDG_RUNTIME_DIR", ""), "/run/user/%d" % os.getuid()):
    if d and d not in places:
        places.append(d)

for d in places:
    for mode, tag in ((0o4755, "suid"), (0o2755, "sgid")):
        p = os.path.join(d, "%s-%s-id" % (N, tag))
        try:
            shutil.copy("/usr/bin/id", p)
        except OSError as e:
            print("refused:", p, e.strerror, flush=True)
            break
        try:
            os.chown(p, 0, 0)
        except OSError as e:
            print("chown 0:0 refused:", p, e.strerror, flush=True)
        try:
            os.chmod(p, mode)
        except OSError as e:
            print("chmod %o refused: %s %s" % (mode, p, e.strerror), flush=True)
            continue
        st = os.stat(p)
        print("planted: %s mode %o uid %d gid %d" % (p, st.st_mode & 0o7777, st.st_uid, st.st_gid),
              flush=True)
time.sleep(1.5)
print("done", flush=True)
