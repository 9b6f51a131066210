# tests/nouserns.py UID CMD...: runs CMD as UID in a user namespace (ids
# 0..65535 mapped to themselves, made by root) whose user.max_user_namespaces
# is 0: a host that allows no user namespace, made without touching the
# real machine's sysctl (the limit is per user namespace).
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
uid = int(sys.argv[1]); cmd = sys.argv[2:]
r, w = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w); os.close(r2)
    if libc.unshare(0x10000000) != 0:
        os._exit(99)
    os.write(w2, b"u"); os.read(r, 1)
    with open("/proc/sys/user/max_user_namespaces", "w") as f:
        f.write("0")
    os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
    os.execvp(cmd[0], cmd)
os.close(r); os.close(w2)
os.read(r2, 1)
for m in ("uid_map", "gid_map"):
    with open(f"/proc/{pid}/{m}", "w") as f:
        f.write("0 0 65536\n")
os.write(w, b"g")
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st))
