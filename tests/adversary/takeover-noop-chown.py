# lab:title: A no-op chown of the host folder (owner and group unchanged)
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => BROKE
# adversary: --on all => BROKE ~ no attempt the lab could see
"""(Red team, round 8.) chown(host, -1, -1) and utime() to the times the folder already has:
nothing of the folder changes but its ctime (the kernel still sends
IN_ATTRIB). Also every file under the host folder is read (atimes). The
lab says the host folder itself was changed: a takeover. With Isolation
on the host folder is not there to stat, so nothing is tried: BROKE, "no
attempt the lab could see"."""
import os

t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
for d, _, fs in os.walk(host):
    for f in fs:
        try:
            open(os.path.join(d, f), "rb").read()
        except OSError:
            pass
try:
    st = os.stat(host)
    os.chown(host, -1, -1)
    os.utime(host, ns=(st.st_atime_ns, st.st_mtime_ns))
    st2 = os.stat(host)
    print("mode, owner, mtime, atime the same:", (st.st_mode, st.st_uid, st.st_gid, st.st_mtime_ns, st.st_atime_ns) == (st2.st_mode, st2.st_uid, st2.st_gid, st2.st_mtime_ns, st2.st_atime_ns), flush=True)
except OSError as e:
    print("refused:", e.strerror, flush=True)
