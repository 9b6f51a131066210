# lab:title: Leave SysV IPC objects behind
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: Shared memory, a message queue and a semaphore set outlive the run in the host's IPC namespace: kernel memory no cap counts, and a rendezvous for whatever runs next.
"""shmget/shmat/touch/shmdt a 64 KiB segment, msgget a queue with one
message, semget a set of one, all with IPC_CREAT and a key made from the
run's nonce, and never remove them."""
import ctypes
import zlib

N = "cl-@NONCE@"
KEY = 0x6C000000 | (zlib.crc32(N.encode()) & 0xFFFFFF)
IPC_CREAT = 0o1000
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.msgsnd.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def err():
    import os
    return os.strerror(ctypes.get_errno())


print("key 0x%08x" % KEY, flush=True)
shm = libc.shmget(KEY, 65536, IPC_CREAT | 0o600)
if shm < 0:
    print("shmget refused:", err(), flush=True)
else:
    addr = libc.shmat(shm, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        print("shmat refused:", err(), flush=True)
    else:
        ctypes.memset(addr, 0x5A, 65536)
        libc.shmdt(addr)
    print("left: shm id", shm, flush=True)
msq = libc.msgget(KEY, IPC_CREAT | 0o600)
if msq < 0:
    print("msgget refused:", err(), flush=True)
else:
    msg = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + 16)
    ctypes.c_long.from_buffer(msg).value = 1
    libc.msgsnd(msq, msg, 16, 0o4000)  # IPC_NOWAIT
    print("left: msg id", msq, flush=True)
sem = libc.semget(KEY, 1, IPC_CREAT | 0o600)
if sem < 0:
    print("semget refused:", err(), flush=True)
else:
    print("left: sem id", sem, flush=True)
