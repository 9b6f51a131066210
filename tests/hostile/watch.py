# lab:title: Watch the host folder from a daemon
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A daemon with inotify or fanotify marks on a host folder sees every file the user makes there after the run, and fanotify could even block or read them.
"""inotify_add_watch on the host folder and /tmp, fanotify_init and a mark
on the host folder, handed to a double-forked daemon that sleeps 30 s with
the nonce in its command line. Then exit."""
import ctypes
import os
import time

N = "cl-@NONCE@"
HOST = os.path.dirname(os.environ.get("LAB_HOST_TARGET", "/nonexistent/x"))
libc = ctypes.CDLL(None, use_errno=True)
libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]


def err():
    return os.strerror(ctypes.get_errno())


keep = []
ino = libc.inotify_init1(0)
if ino < 0:
    print("inotify_init1 refused:", err(), flush=True)
else:
    keep.append(ino)
    for d in (HOST, "/tmp"):
        if libc.inotify_add_watch(ino, d.encode(), 0xFFF) < 0:  # IN_ALL_EVENTS
            print("inotify watch refused:", d, err(), flush=True)
        else:
            print("watching (inotify):", d, flush=True)
fan = libc.fanotify_init(0, os.O_RDONLY)  # FAN_CLASS_NOTIF
if fan < 0:
    print("fanotify_init refused:", err(), flush=True)
else:
    keep.append(fan)
    # FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD
    if libc.fanotify_mark(fan, 1, 0x20 | 0x08 | 0x08000000, -100, HOST.encode()) < 0:
        print("fanotify mark refused:", HOST, err(), flush=True)
    else:
        print("watching (fanotify):", HOST, flush=True)

if keep:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            nul = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(nul, fd)
            for fd in keep:
                os.set_inheritable(fd, True)
            os.execv("/bin/sleep", [N + "-watchd", "30"])  # the descriptors stay open across exec
        os._exit(0)
    os.wait()
    print("left: a daemon holding %d notification descriptors" % len(keep), flush=True)
time.sleep(0.1)
