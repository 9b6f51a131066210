# lab:title: Leave a daemon running
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A process that outlives the run keeps running on the host with the lab's uid, after the lab said it was done.
"""Two double-forked, setsid'd daemons, /bin/sleep 30 with the nonce in
argv[0]: one plain, one that ignores SIGHUP, SIGINT and SIGTERM. Then
exit."""
import os
import signal
import time

N = "cl-@NONCE@"


def daemon(tag, stubborn=False):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            nul = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(nul, fd)
            if stubborn:  # ignored signals stay ignored across exec
                for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
                    signal.signal(s, signal.SIG_IGN)
            os.execv("/bin/sleep", [N + "-" + tag, "30"])
        os._exit(0)
    os.wait()


daemon("sleep")
daemon("stubborn", stubborn=True)
time.sleep(0.1)
print("left: two daemons", flush=True)
