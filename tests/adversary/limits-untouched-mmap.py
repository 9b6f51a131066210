# lab:title: Reserves 200 MiB of address space and never touches it
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary-clock: wall
# adversary: --on all => BROKE
# adversary: --off limits => BROKE
"""The red team's F4 (round 6): a read-only anonymous mapping of 200 MiB,
never touched: the address space grows to ~214 MiB of RLIMIT_AS's 256 MiB
and nothing is refused. Rootless the lab said "a process's address space
reached 214 MiB of RLIMIT_AS 256 MiB" and gave Resource-limits the credit;
as root it said BROKE. Nothing was refused: BROKE for both. The mapping is
held 1.5 s, so the lab's sampler sees it however loaded the machine."""
import mmap
import time

m = mmap.mmap(-1, 200 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ)
print("reserved", len(m) >> 20, "MiB of address space, touched none of it", flush=True)
time.sleep(1.5)
m.close()
