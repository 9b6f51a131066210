# lab:title: Reserves address space to within 6 MiB of RLIMIT_AS, refused nothing
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => BROKE
# adversary: --off limits => BROKE
"""The red team's F4 (round 7): one PROT_NONE anonymous mapping, never
touched, sized from the process's own VmSize so that its address space
ends 6 MiB under the 256 MiB RLIMIT_AS of layers.ini. The kernel granted
it: nothing was refused. The lab said "a process's address space reached
250 MiB of RLIMIT_AS 256 MiB (under 8 MiB left: not even a thread's stack
fits)" and gave Resource-limits the credit, as root and as uid 65534. A
peak near the cap is no refusal: BROKE both ways. The mapping is held
1.5 s, so a sampler on a loaded machine sees it."""
import mmap
import time

CAP = 256 << 20  # [limits] memory of the shipped layers.ini
LEFT = 6 << 20


def vm_size():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) << 10
    return 0


size = CAP - vm_size() - LEFT
size -= size % mmap.PAGESIZE
m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=0)  # PROT_NONE
print("reserved", size >> 20, "MiB, PROT_NONE, granted; address space now", vm_size() >> 20, "MiB", flush=True)
time.sleep(1.5)
m.close()
