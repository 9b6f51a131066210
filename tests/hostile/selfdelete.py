# lab:title: Run from a copy that deletes itself
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: Code that runs from a deleted file leaves nothing on disk to find afterwards, while its daemon keeps running on the host.
"""Copy this file into the first writable place (the host folder, /tmp,
/dev/shm, /var/tmp), re-exec python3 from the copy, delete the copy from
inside it, and leave a double-forked daemon of the deleted copy (its command line
names the copy, so it carries the nonce) that sleeps 30 s."""
import os
import shutil
import sys
import time

N = "cl-@NONCE@"
HOST = os.path.dirname(os.environ.get("LAB_HOST_TARGET", "/nonexistent/x"))

if len(sys.argv) < 2:
    for d in (HOST, "/tmp", "/dev/shm", "/var/tmp"):
        copy = os.path.join(d, N + "-self.py")
        try:
            shutil.copy(os.path.abspath(__file__), copy)
        except OSError as e:
            print("refused:", copy, e.strerror, flush=True)
            continue
        print("copied to", copy, flush=True)
        os.execv(sys.executable, [sys.executable, copy, "copy"])
    print("no writable place for a copy", flush=True)
elif sys.argv[1] == "copy":
    me = os.path.abspath(sys.argv[0])
    os.unlink(me)
    print("running from a deleted copy:", me, "exists" if os.path.exists(me) else "gone", flush=True)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            nul = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(nul, fd)
            time.sleep(30)
        os._exit(0)
    os.wait()
    time.sleep(0.1)
    print("left: a daemon of the deleted copy", flush=True)
