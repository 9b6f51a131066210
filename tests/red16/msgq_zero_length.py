# lab:title: SysV message queues full of zero-length messages
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# The init's 'M' figure adds MSG_INFO's msgtql: the bytes of message TEXT.
# A zero-length message has none, but each one is a kmalloc'd struct msg_msg
# (48 bytes -> a 64-byte slab object). A queue takes q_qbytes (16384)
# messages, so one queue holds ~1 MiB of kernel memory that counts as 0.
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT, IPC_NOWAIT = 0, 0o1000, 0o4000
def avail():
    for l in open('/proc/meminfo'):
        if l.startswith('MemAvailable:'):
            return int(l.split()[1]) >> 10
WORKERS, QUEUES = 8, 16            # 128 queues, ~128 MiB of msg_msg (about 12 s of CPU)
buf = ctypes.create_string_buffer(16)
ctypes.memmove(buf, (1).to_bytes(8, 'little'), 8)   # mtype = 1, no text
a0 = avail()
kids = []
for w in range(WORKERS):
    pid = os.fork()
    if pid == 0:
        for q in range(QUEUES):
            qid = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
            if qid < 0:
                os._exit(1)
            snd = libc.msgsnd
            for i in range(16384):
                if snd(qid, buf, 0, IPC_NOWAIT) < 0:
                    break
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
a1 = avail()
class MsgInfo(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int) for n in ('msgpool', 'msgmap', 'msgmax', 'msgmnb', 'msgmni', 'msgssz', 'msgtql')] + [('msgseg', ctypes.c_ushort)]
mi = MsgInfo()
libc.msgctl(0, 12, ctypes.byref(mi))   # MSG_INFO: the namespace's totals
print(f'{WORKERS*QUEUES} queues: held {mi.msgmap} messages; MemAvailable drop {a0 - a1} MiB', flush=True)
time.sleep(1)
print('drop now', a0 - avail(), 'MiB')
