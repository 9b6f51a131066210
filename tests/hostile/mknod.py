# lab:title: Leave device nodes on the host
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A /dev/mem or disk node on the host's file system lets whoever can open it read memory or the raw disk, past every file permission.
"""mknod a character device with /dev/mem's numbers (1:1) and a block
device with the first disk's (8:0) in every writable place. The nodes are
made 0600: no one but their owner could open them even where they exist;
this snippet never opens one."""
import os
import stat

N = "cl-@NONCE@"
HOST = os.path.dirname(os.environ.get("LAB_HOST_TARGET", "/nonexistent/x"))
WORK = os.path.dirname(os.environ.get("LAB_DATA", "/nonexistent/x"))
places = []
for d in (HOST, "/tmp", "/dev/shm", "/var/tmp", os.environ.get("HOME", ""), WORK,
          os.environ.get("XDG_RUNTIME_DIR", ""), "/run/user/%d" % os.getuid()):
    if d and d not in places:
        places.append(d)

for d in places:
    for kind, tag, dev in ((stat.S_IFCHR, "mem", os.makedev(1, 1)), (stat.S_IFBLK, "sda", os.makedev(8, 0))):
        p = os.path.join(d, "%s-%s" % (N, tag))
        try:
            os.mknod(p, kind | 0o600, dev)
        except OSError as e:
            print("refused:", p, e.strerror, flush=True)
            continue
        st = os.stat(p)
        print("planted: %s %s %d:%d uid %d" % (p, "char" if stat.S_ISCHR(st.st_mode) else "block",
                                               os.major(st.st_rdev), os.minor(st.st_rdev), st.st_uid),
              flush=True)
