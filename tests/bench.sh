#!/usr/bin/env bash
# tests/bench.sh [BINARY] — `make bench`: what the sandbox costs.
# Start cost of `exec --on all -- CMD` against the bare command and against
# bubblewrap with equivalent isolation, measured side by side (the variants
# take turns in every round, so drift hits them all alike), reported as
# medians and ratios of medians; then the wall time of the full matrix.
# Goals: start <= 0.8x bwrap with all four layers on; matrix <= 10 s.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=$(realpath "${1:-./containment-lab}")
ROUNDS=${BENCH_ROUNDS:-60}

exec /usr/bin/python3 - "$BIN" "$ROUNDS" <<'PY'
import os, shutil, statistics, subprocess, sys, time

lab, rounds = sys.argv[1], int(sys.argv[2])
conf = os.path.join(os.getcwd(), "layers.ini")
bwrap = shutil.which("bwrap")
BW = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr",
      "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
      "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--cap-drop", "ALL"] if bwrap else None

def variants(cmd):
    v = {"bare": cmd, "lab --on all": [lab, "--config", conf, "exec", "--on", "all", "--"] + cmd,
         "lab --on isolation,network": [lab, "--config", conf, "exec", "--on", "isolation,network", "--"] + cmd}
    if BW:
        v["bwrap"] = BW + cmd
    return v

def measure(cmd):
    vs = variants(cmd)
    times = {k: [] for k in vs}
    for k, argv in vs.items():  # warm-up
        for _ in range(3):
            subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
    for r in range(rounds):
        keys = list(vs)
        keys = keys[r % len(keys):] + keys[:r % len(keys)]
        for k in keys:
            t = time.perf_counter()
            subprocess.run(vs[k], check=True, stdin=subprocess.DEVNULL)
            times[k].append((time.perf_counter() - t) * 1000)
    return {k: statistics.median(v) for k, v in times.items()}

print(f"containment-lab bench: {rounds} interleaved rounds, uid {os.geteuid()}, {os.cpu_count()} cores")
if not BW:
    print("bwrap not installed (apt-get install bubblewrap): ratios against it are skipped")
goal_ok = True
for cmd in (["/bin/true"], ["/usr/bin/python3", "-c", "pass"]):
    med = measure(cmd)
    print(f"\nstart cost of {' '.join(cmd)} (median ms):")
    for k, v in med.items():
        line = f"  {k:28s} {v:7.2f} ms   x{v / med['bare']:5.2f} bare"
        if BW:
            line += f"   x{v / med['bwrap']:5.2f} bwrap"
        print(line)
    if BW:
        ratio = med["lab --on all"] / med["bwrap"]
        ok = ratio <= 0.8
        goal_ok &= ok or cmd[0] != "/bin/true"
        print(f"  goal lab --on all <= 0.8x bwrap: {ratio:.2f}x -> {'met' if ok else 'NOT met'}")

# the trace (Isolation's refusals answered by the lab through a seccomp
# listener): the start cost of exec --on all with it and without it
# (LAB_TRACE=0), interleaved; then what one refused call costs, from a loop
# of 10000 unshare() calls answered by the lab or by the filter itself
TRACE_ROUNDS = max(20, rounds)
LOOP = ("import ctypes\nlibc = ctypes.CDLL(None)\n"
        "for i in range(10000): libc.unshare(0x10000000)\n")
def trace_cost(cmd, n):
    env_on = dict(os.environ); env_on.pop("LAB_TRACE", None)
    env_off = dict(os.environ, LAB_TRACE="0")
    argv = [lab, "--config", conf, "exec", "--on", "all", "--"] + cmd
    times = {"trace on": [], "trace off (LAB_TRACE=0)": []}
    envs = {"trace on": env_on, "trace off (LAB_TRACE=0)": env_off}
    for k in times:
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, env=envs[k])
    for i in range(n):
        for k in (list(times) if i % 2 == 0 else list(times)[::-1]):
            t = time.perf_counter()
            subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, env=envs[k])
            times[k].append((time.perf_counter() - t) * 1000)
    return {k: statistics.median(v) for k, v in times.items()}

print(f"\nthe trace's cost, exec --on all ({TRACE_ROUNDS} interleaved rounds, median ms):")
med = trace_cost(["/bin/true"], TRACE_ROUNDS)
on, off = med["trace on"], med["trace off (LAB_TRACE=0)"]
print(f"  start, /bin/true:           on {on:7.2f} ms   off {off:7.2f} ms   cost {100 * (on - off) / off:+5.1f}%")
med = trace_cost(["/usr/bin/python3", "-c", LOOP], max(5, TRACE_ROUNDS // 4))
on, off = med["trace on"], med["trace off (LAB_TRACE=0)"]
print(f"  10000 refused unshare():    on {on:7.2f} ms   off {off:7.2f} ms   "
      f"{1000 * (on - off) / 10000:.1f} us more per refused call")

# the isolation ladder: each rung's start cost, `exec --on all` on it
RUNG_ROUNDS = max(5, rounds // 6)
def rung_works(rung):
    try:
        p = subprocess.run([lab, "--config", conf, "exec", "--on", "all", "--rung", rung, "--", "/bin/true"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "timed out after 120 s"
    return None if p.returncode == 0 else (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]

print(f"\nthe isolation ladder: start cost per rung, exec --on all ({RUNG_ROUNDS} interleaved rounds, median ms)")
rungs = []
for rung in ("container", "gvisor", "microvm"):
    why = rung_works(rung)
    if why:
        print(f"  {rung:10s} skipped: {why}")
    else:
        rungs.append(rung)
for cmd in (["/bin/true"], ["/usr/bin/python3", "-c", "pass"]):
    times = {r: [] for r in rungs}
    for i in range(RUNG_ROUNDS):
        for r in rungs[i % len(rungs):] + rungs[:i % len(rungs)]:
            t = time.perf_counter()
            subprocess.run([lab, "--config", conf, "exec", "--on", "all", "--rung", r, "--"] + cmd, check=True,
                           stdin=subprocess.DEVNULL)
            times[r].append((time.perf_counter() - t) * 1000)
    med = {r: statistics.median(v) for r, v in times.items()}
    print(f"  {' '.join(cmd)}:")
    for r in rungs:
        base = f"   x{med[r] / med['container']:6.1f} container" if "container" in med else ""
        print(f"    {r:10s} {med[r]:8.2f} ms{base}")

# No-network's setting: what the allow-list's door costs at start (lo up,
# a socket handed over, the proxy and the small internet in the loop)
print(f"\nNo-network's setting: start cost, exec --on all ({rounds} interleaved rounds, median ms)")
for cmd in (["/bin/true"], ["/usr/bin/python3", "-c", "pass"]):
    times = {m: [] for m in ("none", "allowlist")}
    for i in range(rounds):
        for mode in (["none", "allowlist"] if i % 2 == 0 else ["allowlist", "none"]):
            t = time.perf_counter()
            subprocess.run([lab, "--config", conf, "--network-mode", mode, "exec", "--on", "all", "--"] + cmd,
                           check=True, stdin=subprocess.DEVNULL)
            times[mode].append((time.perf_counter() - t) * 1000)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"  {' '.join(cmd)}: none {med['none']:.2f} ms, allowlist {med['allowlist']:.2f} ms "
          f"-> the proxy adds {med['allowlist'] - med['none']:+.2f} ms (x{med['allowlist'] / med['none']:.2f})")

walls = []
for _ in range(3):
    t = time.perf_counter()
    p = subprocess.run([lab, "--config", conf, "matrix"], stdout=subprocess.PIPE, text=True)
    walls.append(time.perf_counter() - t)
    summary = p.stdout.strip().splitlines()[-1]
m = statistics.median(walls)
cells = summary.split("/")[1].split()[0] if "/" in summary else "?"
print(f"\nfull matrix ({cells} cells, {os.cpu_count()} jobs): median {m:.2f} s of 3 "
      f"({', '.join(f'{w:.2f}' for w in walls)}) -> goal <= 10 s {'met' if m <= 10 else 'NOT met'}")
print(f"  last run: {summary}")
t = time.perf_counter()
p = subprocess.run([lab, "--config", conf, "--network-mode", "allowlist", "matrix"], stdout=subprocess.PIPE, text=True)
print(f"full matrix, --network-mode allowlist: {time.perf_counter() - t:.2f} s: "
      f"{p.stdout.strip().splitlines()[-1]}")
PY
