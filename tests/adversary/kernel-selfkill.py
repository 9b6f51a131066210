# lab:title: Knocks on the kernel's riskiest doors, then kills itself
# lab:threat: kernel
# lab:layer: isolation
# lab:consequence: test
# adversary: --on all => ESCAPED kernel ~ the snippet's own, or another process's
# adversary: --on none => ESCAPED kernel ~ the snippet's own, or another process's
"""The red team's F1 (round 5): the shipped kernel-exploit's calls, then
SIGKILL to itself. The kernel keeps no sender for it, so the lab saw a
signal it did not send and called the run ERROR, "from outside the
sandbox": the host kernel had served every call, and the escape was gone.
A signal the lab cannot attribute takes credit from the layers; it never
hides what the evidence shows."""
import ctypes
import errno
import os
import platform
import signal

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

# x86_64 system call numbers
NR = {"io_uring_setup": 425, "userfaultfd": 323, "bpf": 321,
      "keyctl": 250, "perf_event_open": 298, "unshare": 272}
if platform.machine() == "aarch64":
    NR = {"io_uring_setup": 425, "userfaultfd": 282, "bpf": 280,
          "keyctl": 219, "perf_event_open": 241, "unshare": 97}


def call(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name]), *args)
    return r, ctypes.get_errno()


def show(name, r, e, fd=False):
    if r >= 0:
        print(f"  {name}: answered -> {'fd ' if fd else ''}{r}")
        if fd:
            os.close(r)
    else:
        code = errno.errorcode.get(e, str(e))
        what = "not implemented by this kernel" if e == errno.ENOSYS else "refused"
        print(f"  {name}: {what} -> {code} ({os.strerror(e)})")


print(f"kernel release (uname -r): {os.uname().release}")
print(f"kernel version: {os.uname().version}")
try:
    with open("/proc/sys/kernel/random/boot_id") as f:
        print(f"boot id: {f.read().strip()}")
except OSError as ex:
    print(f"boot id: none ({ex.strerror})")
print("calling the interfaces real container escapes went through:")

params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
# lab:danger: the kernel interfaces real escapes went through
show("io_uring_setup(1 entry)", *call("io_uring_setup", ctypes.c_uint(1), params), fd=True)
show("userfaultfd(O_CLOEXEC)", *call("userfaultfd", ctypes.c_int(os.O_CLOEXEC)), fd=True)
attr = ctypes.create_string_buffer(128)
show("bpf(BPF_MAP_CREATE, empty attr)", *call("bpf", ctypes.c_int(0), attr, ctypes.c_uint(0)))
show("keyctl(GET_KEYRING_ID, session)", *call("keyctl", ctypes.c_int(0), ctypes.c_int(-3), ctypes.c_int(0)))
pattr = ctypes.create_string_buffer(128)  # perf_event_attr: hardware, cycles
ctypes.memmove(ctypes.addressof(pattr) + 4, ctypes.byref(ctypes.c_uint32(128)), 4)  # .size
show("perf_event_open(cycles, self)",
     *call("perf_event_open", pattr, ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_ulong(0)),
     fd=True)

pid = os.fork()
if pid == 0:
    # lab:danger: a new user namespace: root-like powers in it
    r, e = call("unshare", ctypes.c_int(0x10000000))  # CLONE_NEWUSER
    os._exit(0 if r == 0 else min(e, 255))
_, st = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(st)
show("unshare(CLONE_NEWUSER) in a child", 0 if code == 0 else -1, code)
print("done: every call was harmless; the lab decides from outside which kernel answered")

os.kill(os.getpid(), signal.SIGKILL)
