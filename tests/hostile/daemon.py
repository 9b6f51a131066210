# lab:title: Leave a daemon running
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A process that outlives the run keeps running on the host with the lab's uid, after the lab said it was done.
"""Two double-forked, setsid'd daemons with the nonce in their command
lines: /bin/sleep 30 (argv[0] carries the nonce) and a python3 -c that
ignores SIGHUP, SIGINT and SIGTERM and sleeps 30 s. Then exit."""
import os
import sys
import time

N = "cl-@NONCE@"


def daemon(path, argv):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            nul = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(nul, fd)
            os.execv(path, argv)
        os._exit(0)
    os.wait()


daemon("/bin/sleep", [N + "-sleep", "30"])
daemon(sys.executable, [sys.executable, "-c",
                        "import signal, time\n"
                        "for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM): signal.signal(s, signal.SIG_IGN)\n"
                        "time.sleep(30)", N + "-stubborn"])
time.sleep(0.1)
print("left: two daemons", flush=True)
