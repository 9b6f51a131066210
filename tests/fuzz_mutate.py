#!/usr/bin/env python3
"""tests/fuzz_mutate.py BINARY WORKDIR [SEED] — the fuzz smoke test's
mutator and judge (issue 11), run by tests/fuzz_test.sh.

With a fixed seed it writes a few hundred mutated layers.ini files (byte
flips, duplicated lines, long lines, NUL bytes, huge numbers, hex, unknown
keys, missing ']', ...) and a few hundred mutated snippet headers (the
'# lab:' lines of snippets/*.py: a BOM, Latin-1 bytes, ESC and C1 bytes,
overlong fields, wrong threat/layer pairs, names that are not .py, ...),
then runs `BINARY --config F list` on each layers.ini and
`BINARY run PATH --on none` (and `list` on folders of them) on each
snippet, every one under `timeout 10`. Each run must:
  - end by itself (timeout never fires),
  - exit with a documented status (0-5; refused input is 2),
  - on refusal say so on stderr as one message: its first line starts
    with "containment-lab: ", any further line names the input file,
  - never put raw control bytes on stdout or stderr (no byte < 0x20 but
    \\n, no ESC, no raw C1 byte, no C1 control as UTF-8).
Sanitizer reports are judged by the caller (ASAN_OPTIONS log_path).
Prints "ok - ..." / "not ok - ..." per check and a summary line.
Python standard library only; the same seed gives the same cases.
"""
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import time

BIN = sys.argv[1]
WORK = sys.argv[2]
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 11
N_INI = 300
N_SNIP = 260
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONF = os.path.join(REPO, "layers.ini")
rng = random.Random(SEED)

# ---------------------------------------------------------------- layers.ini
BASE_INI = open(CONF, "rb").read()
KEYS = [b"memory", b"pids", b"cpu", b"cpu_time", b"timeout", b"output", b"file_size",
        b"open_files", b"tmp_size", b"hostname", b"outside_uid", b"allow", b"home",
        b"python", b"snippets", b"isolation", b"network", b"env", b"limits"]
SECTIONS = [b"layers", b"isolation", b"network", b"env", b"limits", b"safety", b"paths"]
VALUES = [b"99999999999999999999G", b"0x10", b"0X1F", b"-5", b"1e9", b"12X", b"", b"on", b"off",
          b"18446744073709551616", b"9223372036854775808", b"0.0000001", b"nan", b"inf",
          b"1.5.5", b"  7  ", b"7 ; comment", b"7 # comment", b"\"256M\"", b"256m", b"256 M",
          b"4096", b"0", b"1h", b"3601s", b"-0", b"+1", b"0b101", b"\xe2\x80\x94", b"caf\xe9"]


def ini_lines(data):
    return data.split(b"\n")


def m_flip(d):
    if not d:
        return b"\xff"
    b = bytearray(d)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def m_dup_line(d):
    ls = ini_lines(d)
    i = rng.randrange(len(ls))
    ls[i:i] = [ls[i]] * rng.randint(1, 4)
    return b"\n".join(ls)


def m_long_line(d):
    ls = ini_lines(d)
    n = rng.choice([255, 256, 300, 1023, 1024, 4096, 65000])
    kind = rng.randrange(4)
    line = [b";" + b"x" * n, rng.choice(KEYS) + b" = " + b"9" * n, b"k" * n + b" = 5",
            b"[" + b"s" * n + b"]"][kind]
    ls.insert(rng.randrange(len(ls) + 1), line)
    return b"\n".join(ls)


def m_nul(d):
    i = rng.randrange(len(d) + 1)
    return d[:i] + b"\0" * rng.randint(1, 3) + d[i:]


def m_value(d):
    ls = ini_lines(d)
    idx = [i for i, l in enumerate(ls) if b"=" in l and not l.startswith(b";")]
    if not idx:
        return d + b"\n[limits]\nmemory = " + rng.choice(VALUES)
    i = rng.choice(idx)
    k = ls[i].split(b"=", 1)[0]
    ls[i] = k + b"= " + rng.choice(VALUES)
    return b"\n".join(ls)


def m_unknown_key(d):
    ls = ini_lines(d)
    key = rng.choice([b"frobnicate", b"Memory", b"memory.max", b"\x1b[31mred", b"k\x9bk", b"" ,
                      b"caf\xe9", b"=", b" "])
    ls.insert(rng.randrange(len(ls) + 1), key + b" = 1")
    return b"\n".join(ls)


def m_bracket(d):
    ls = ini_lines(d)
    idx = [i for i, l in enumerate(ls) if l.startswith(b"[")]
    if idx:
        i = rng.choice(idx)
        ls[i] = ls[i].rstrip(b"]")
    else:
        ls.insert(0, b"[limits")
    return b"\n".join(ls)


def m_section(d):
    ls = ini_lines(d)
    s = rng.choice(SECTIONS + [b"", b"LIMITS", b"limits ", b"[x]", b"\x1b]0;t\x07", b"\xc2\x9b"])
    ls.insert(rng.randrange(len(ls) + 1), b"[" + s + b"]")
    return b"\n".join(ls)


def m_garbage(d):
    ls = ini_lines(d)
    g = rng.choice([b"this is garbage", b"=", b"==", b"= 5", b"key", b"\t\t", b"\r", b"\x1b[2J",
                    b"\xef\xbb\xbf[limits]", b"\\", b"k = v \\", b"[limits] memory = 1G"])
    ls.insert(rng.randrange(len(ls) + 1), g)
    return b"\n".join(ls)


def m_crlf(d):
    return d.replace(b"\n", b"\r\n")


def m_truncate(d):
    return d[:rng.randrange(len(d) + 1)]


def m_bom(d):
    return b"\xef\xbb\xbf" + d


def m_splice(d):
    ls = ini_lines(d)
    rng.shuffle(ls)
    return b"\n".join(ls)


INI_MUT = [m_flip, m_dup_line, m_long_line, m_nul, m_value, m_value, m_unknown_key, m_bracket,
           m_section, m_garbage, m_crlf, m_truncate, m_bom, m_splice]

# ------------------------------------------------------------ snippet headers
SNIP_DIR = os.path.join(REPO, "snippets")
HEADERS = []
for f in sorted(os.listdir(SNIP_DIR)):
    if f.endswith(".py"):
        with open(os.path.join(SNIP_DIR, f), "rb") as fh:
            HEADERS.append([l for l in fh.read().split(b"\n") if l.startswith(b"# lab:")])
THREATS = [b"legit", b"resource", b"secrets", b"exfil", b"takeover"]
LAYERS = [b"none", b"isolation", b"network", b"env", b"limits"]
BODY = b'print("hi")\n'
NASTY = [b"\x1b[2J", b"\x1b]0;PWNED\x07", b"\x9b31m", b"\xc2\x9b1m", b"caf\xe9", b"\xff\xfe",
         b"\xe2\x80\xae", b"\xe2\x81\xa6", b"\x07", b"\r", b"\x7f", b"\x00", b"\xe2\x80\x94",
         b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]


def field_index(h, name):
    for i, l in enumerate(h):
        if l.startswith(b"# lab:" + name + b":"):
            return i
    return None


def s_bom(h, name):
    return [b"\xef\xbb\xbf" + h[0]] + h[1:], name


def s_nasty(h, name):
    h = list(h)
    i = rng.randrange(len(h))
    cut = rng.randrange(len(h[i]) + 1)
    h[i] = h[i][:cut] + rng.choice(NASTY) + h[i][cut:]
    return h, name


def s_overlong(h, name):
    h = list(h)
    f = rng.choice([b"title", b"consequence", b"expect", b"threat", b"layer"])
    n = rng.choice([127, 128, 255, 256, 300, 2000, 70000])
    line = b"# lab:" + f + b": " + bytes(rng.choice(b"ABCxyz \xe9") for _ in range(n))
    i = field_index(h, f)
    if i is None:
        h.append(line)
    else:
        h[i] = line
    return h, name


def s_pair(h, name):
    h = list(h)
    t = rng.choice(THREATS + [b"", b"EXFIL", b"exfil ", b"bomb", b"\x1b[1mexfil"])
    lay = rng.choice(LAYERS + [b"", b"Network", b"all", b"firewall", b"network,env"])
    for f, v in ((b"threat", t), (b"layer", lay)):
        i = field_index(h, f)
        line = b"# lab:" + f + b": " + v
        if i is None:
            h.append(line)
        else:
            h[i] = line
    return h, name


def s_drop_dup(h, name):
    h = list(h)
    i = rng.randrange(len(h))
    if rng.random() < 0.5:
        del h[i]
    else:
        h[i:i] = [h[i]] * rng.randint(1, 3)
    return h, name


def s_unknown(h, name):
    h = list(h)
    h.insert(rng.randrange(len(h) + 1), rng.choice([b"# lab:frob: 1", b"# lab:", b"# lab::", b"# lab: title: x",
                                                    b"#lab:title: x", b"# LAB:title: x", b"# lab:title x"]))
    return h, name


def s_flip(h, name):
    data = bytearray(b"\n".join(h))
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data).split(b"\n"), name


def s_name(h, name):
    name = rng.choice([b"x.sh", b"x.py.txt", b"x.PY", b"x y.py", b".py", b"x.pyc", b"caf\xe9.py",
                       b"e\x1b[31mvil.py", b"c1\x9b2J.py", b"n" * 70 + b".py", b"-x.py", b"--help.py",
                       b"x\ny.py", b"x.py "])
    return h, name


def s_crlf(h, name):
    return [l + b"\r" for l in h], name


SNIP_MUT = [s_bom, s_nasty, s_nasty, s_overlong, s_pair, s_pair, s_drop_dup, s_unknown, s_flip, s_name, s_crlf]

# ----------------------------------------------------------------- judging
CTRL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\x1b|\x9b|\xc2[\x80-\x9f]")


def run(args, path=None):
    t0 = time.monotonic()
    p = subprocess.run(["timeout", "10"] + args, cwd=REPO, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0, path


def judge(case, res):
    """Returns a list of problems (empty when the run behaved)."""
    rc, out, err, secs, path = res
    bad = []
    if rc == 124:
        return ["hung: timeout 10 fired"]
    if rc not in range(0, 6):
        bad.append("exit status %d is not one of the documented 0-5" % rc)
    if rc == 2:
        lines = err.rstrip(b"\n").split(b"\n")
        if not lines[0].startswith(b"containment-lab: "):
            bad.append("refused without a 'containment-lab: ' message")
        pfx = os.fsencode(path) + b":" if path else None
        for l in lines[1:]:
            if not (l.startswith(b"containment-lab: ") or (pfx and l.startswith(pfx)) or
                    re.fullmatch(rb"\(and \d+ more\)", l)):
                bad.append("a stderr line that is neither prefixed nor names the file: %r" % l[:80])
                break
    for what, data in (("stderr", err), ("stdout", out)):
        m = CTRL.search(data)
        if m:
            bad.append("raw control byte %r on %s at %d" % (m.group(0), what, m.start()))
    if b"Sanitizer" in err or b"runtime error:" in err:
        bad.append("sanitizer report on stderr")
    return bad


def main():
    os.makedirs(WORK, exist_ok=True)
    jobs = []  # (kind, case name, args, path)
    inidir = os.path.join(WORK, "ini")
    os.makedirs(inidir)
    for n in range(N_INI):
        d = BASE_INI
        for _ in range(rng.randint(1, 3)):
            d = rng.choice(INI_MUT)(d)
        p = os.path.join(inidir, "c%03d.ini" % n)
        with open(p, "wb") as fh:
            fh.write(d)
        jobs.append(("ini", p, [BIN, "--config", p, "list"], p))
    # snippets: each in a folder of ten, run by path, and each folder listed
    folders = []
    for n in range(N_SNIP):
        h = list(rng.choice(HEADERS))
        name = b"s%03d.py" % n
        for _ in range(rng.randint(1, 2)):
            h, name = rng.choice(SNIP_MUT)(h, name)
        if name != b"s%03d.py" % n:
            name = b"s%03d-" % n + name
        folder = os.path.join(WORK, "sn%02d" % (n // 10))
        if not os.path.isdir(folder):
            os.makedirs(os.path.join(folder, "sn"))
            with open(os.path.join(SNIP_DIR, "sales.csv"), "rb") as src, \
                    open(os.path.join(folder, "sn", "sales.csv"), "wb") as dst:
                dst.write(src.read())
            with open(os.path.join(folder, "layers.ini"), "w") as fh:
                fh.write("[paths]\nsnippets = sn\npython = /usr/bin/python3\n")
            folders.append(folder)
        p = os.path.join(os.fsencode(folder), b"sn", name)
        with open(p, "wb") as fh:
            fh.write(b"\n".join(h) + b"\n" + BODY)
        jobs.append(("snippet", os.fsdecode(p), [BIN, "--config", CONF, "run", p, "--on", "none"], None))
    for f in folders:
        c = os.path.join(f, "layers.ini")
        jobs.append(("list", f, [BIN, "--config", c, "list"], c))
        jobs.append(("list", f, [BIN, "--config", c, "list", "--json"], c))

    t0 = time.monotonic()
    failures = {"ini": [], "snippet": [], "list": []}
    counts = {"ini": 0, "snippet": 0, "list": 0}
    status = {}
    slowest = 0.0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        futs = {ex.submit(run, a, path): (k, c) for k, c, a, path in jobs}
        for fu in concurrent.futures.as_completed(futs):
            k, c = futs[fu]
            res = fu.result()
            counts[k] += 1
            status[res[0]] = status.get(res[0], 0) + 1
            slowest = max(slowest, res[3])
            for b in judge(c, res):
                failures[k].append("%s: %s" % (c, b))
    secs = time.monotonic() - t0

    labels = {"ini": "mutated layers.ini files (--config F list)",
              "snippet": "mutated snippet headers and names (run PATH --on none)",
              "list": "folders of mutated snippets (list, list --json)"}
    passed = failed = 0
    for k in ("ini", "snippet", "list"):
        name = "%d %s: no hang, exit 0-5, refusals one prefixed message, no raw control bytes" % (
            counts[k], labels[k])
        if failures[k]:
            failed += 1
            print("not ok - " + name)
            for f in failures[k][:int(os.environ.get("FUZZ_SHOW", "12"))]:
                print("#   " + f)
            if len(failures[k]) > 12:
                print("#   ... and %d more" % (len(failures[k]) - 12))
        else:
            passed += 1
            print("ok - " + name)
    print("# seed %d: %d runs in %.1f s (slowest %.2f s); exit statuses %s" % (
        SEED, sum(counts.values()), secs, slowest,
        ", ".join("%d: %d" % kv for kv in sorted(status.items()))))
    # the time is said above, not judged: a loaded machine stretches it
    # (speed is make bench's business, not a test's)
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
