# lab:title: One allocation of 300 MiB, refused with MemoryError
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary: --on all => CONTAINED limits ~ Resource-limits: mmap
# adversary: --on limits => CONTAINED limits ~ Resource-limits: mmap
# adversary: --off limits => ESCAPED resource
"""The red team's F7 (round 7), the memory half: one 300 MiB bytes object.
Under RLIMIT_AS (256 MiB) its mmap() is refused at once, Python raises
MemoryError, and the process's address space never comes near the cap
(the peak is a few MiB): the lab said BROKE "it stayed under every cap and
no limit had to fire", while with the layer off the same snippet holds 300
MiB (ESCAPED). The cap refused the bomb: CONTAINED, shown by the refused
call itself."""
import time

try:
    b = b"x" * (300 << 20)
    print("allocated", len(b) >> 20, "MiB", flush=True)
    time.sleep(0.5)
except MemoryError:
    print("MemoryError", flush=True)
