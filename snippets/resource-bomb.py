# lab:title: Fork bomb + memory balloon
# lab:threat: resource
# lab:layer: limits
# lab:consequence: {procs} processes at once, {mem} and {cpu} of CPU taken with nothing to stop them: an unbounded bomb or crypto miner would freeze the host for everyone and run up the bill.
"""Resource bomb, deliberately bounded so it is safe even with every layer off.

Phase 1 (fork bomb + CPU spin): fork 64 children (65 processes counting this
one). Each child burns about 3 ms of CPU, then waits on a pipe until the
parent lets go (about 0.15 s after the last fork) or the parent dies, so all
of them are alive together however slowly the machine forks; a child exits
after at most 10 s whatever happens.
Phase 2 (memory balloon): grow to 320 MiB in 4 MiB chunks, writing every
byte so the memory is really resident, hold it for 0.5 s, then let go. Small
chunks, as a real balloon grows until refused: it stops only when a cap bites
(the chunk whose mmap RLIMIT_AS refuses, which the lab sees at the call, or
the cgroup's memory cap).

A real bomb loops forever; this one stops at fixed sizes. When a limit bites
it says so: fork failing with EAGAIN, MemoryError, or (with a cgroup memory
cap) a SIGKILL from the OOM killer, in which case the last progress line
printed is how far it got.
"""
import os
import select
import sys
import time


def lab_input(name):
    """The lab's input NAME: from the environment, else from a NAME=VALUE
    argument (a sandbox under audit may clear the environment)."""
    for arg in sys.argv[1:]:
        key, eq, value = arg.partition("=")
        if eq and key == name and not os.environ.get(name):
            return value
    return os.environ.get(name)


def report_attempt():
    """Under `audit` the lab asks each attack to say when it makes its move,
    with a word only this run can form: no word, no verdict."""
    proof = lab_input("LAB_PROOF")
    if proof:
        print(f"lab-attempt: {proof[::-1]}", flush=True)

CHILDREN = 64            # the default pids cap is 32
HOLD_PROCS = 0.15        # seconds all children stay alive together
CHILD_MAX_LIFE = 10.0    # a child exits by then, parent or not (a backstop:
                         # the parent's release or its death ends it first)
SPIN_CPU = 0.003         # CPU seconds each child burns
SPIN_WALL = 0.25         # ...but never spins longer than this on the clock
CHUNK = 4 * 1024 * 1024
CHUNKS = 80              # 80 x 4 MiB = 320 MiB; the default memory cap is 256 MiB
SAY_EVERY = 8            # a progress line every 32 MiB
HOLD_MEM = 0.5             # a real balloon never lets go: held long enough
                         # for a sampler on a loaded machine to see its peak

MiB = 1024 * 1024


def child(release_fd):
    """Spin a little, then wait to be released; never outlive CHILD_MAX_LIFE."""
    born = time.monotonic()
    cpu0 = time.process_time()
    while (time.process_time() - cpu0 < SPIN_CPU
           and time.monotonic() - born < SPIN_WALL):
        pass
    left = CHILD_MAX_LIFE - (time.monotonic() - born)
    if left > 0:
        try:
            # EOF on the pipe (parent released us or died) or the deadline.
            select.select([release_fd], [], [], left)
        except BaseException:
            pass
    os._exit(0)


def fork_bomb():
    print(f"fork bomb: trying to run {CHILDREN} children at once", flush=True)
    release_r, release_w = os.pipe()
    pids = []
    stopped = None
    for i in range(CHILDREN):
        try:
            # lab:danger: forks without bound: the fork bomb
            pid = os.fork()
        except OSError as e:  # BlockingIOError (EAGAIN) when a cap bites
            stopped = e
            break
        if pid == 0:
            try:
                os.close(release_w)
                child(release_r)
            finally:
                os._exit(0)
        pids.append(pid)
        if (i + 1) % 16 == 0:
            print(f"  {i + 1} children forked", flush=True)

    if stopped is not None:
        name = os.strerror(stopped.errno) if stopped.errno else str(stopped)
        print(f"  fork #{len(pids) + 1} refused: {name} -- stopped at "
              f"{len(pids)} children ({len(pids) + 1} processes)", flush=True)
    else:
        print(f"  all {len(pids)} children running ({len(pids) + 1} processes "
              f"with this one), holding {HOLD_PROCS} s", flush=True)
    time.sleep(HOLD_PROCS)
    os.close(release_w)  # EOF: every child wakes up and exits

    reaped = 0
    for pid in pids:
        try:
            os.waitpid(pid, 0)
            reaped += 1
        except ChildProcessError:
            pass
    os.close(release_r)
    print(f"  reaped {reaped} children", flush=True)


def balloon():
    print(f"memory balloon: growing to {CHUNK * CHUNKS // MiB} MiB "
          f"in {CHUNK // MiB} MiB chunks", flush=True)
    chunks = []
    try:
        for _ in range(CHUNKS):
            # lab:danger: grows memory 4 MiB at a time, until refused
            chunks.append(bytearray(b"\x01") * CHUNK)  # writes every page
            if len(chunks) % SAY_EVERY == 0:
                print(f"  balloon at {len(chunks) * CHUNK // MiB} MiB", flush=True)
    except MemoryError:
        print(f"  MemoryError: balloon stopped at "
              f"{len(chunks) * CHUNK // MiB} MiB", flush=True)
    print(f"  holding {len(chunks) * CHUNK // MiB} MiB for {HOLD_MEM} s",
          flush=True)
    time.sleep(HOLD_MEM)
    chunks.clear()
    print("  balloon released", flush=True)


def main():
    report_attempt()
    t0 = time.monotonic()
    fork_bomb()
    balloon()
    u = os.times()
    print(f"done in {time.monotonic() - t0:.2f} s wall, CPU (self + children) "
          f"{u.user + u.system + u.children_user + u.children_system:.2f} s",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
