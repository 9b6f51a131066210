#!/usr/bin/env python3
"""tests/hosts/check.py MODE DIR — judges what one boot of the test host
(tests/hosts/run.sh, tests/hosts/guest.sh) left in DIR (build/hosts/).
Standard library only. Prints "ok - ..." / "not ok - ..." / "skip - ...:
skipped: why" lines, "#" lines with the figures, and ends with
"N passed, N failed, N skipped" like tests/lib.sh's finish; exit 1 if any
check failed.

MODE v2: the machine (cgroup2 alone, every controller on at the root, the
delegated user@1000.service), then for root and for uid 1000: run legit
(RAN OK, and which mechanism Resource-limits used: cgroup-v2, delegated for
the user), the matrix (every cell as expected; its counts and
limits_mechanism), and the uid 1000 swarm (12 x 200 MiB, --on all):
CONTAINED by Resource-limits with an OOM kill at the 256 MiB cap, the
guest's MemAvailable falling by no more than the cap + 10 %.

MODE nouserns: user.max_user_namespaces=0; run legit, matrix and exec --
true, as root and as uid 1000: exit 4 and exactly one line mentioning
user.max_user_namespaces."""
import json
import os
import re
import sys

MODE, DIR = sys.argv[1], sys.argv[2]
CAP = 256 << 20  # the staged layers.ini's [limits] memory (the shipped value)
DELEGATED = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service"
counts = {"ok": 0, "not ok": 0, "skip": 0}


def line(kind, name, *notes):
    counts[kind] += 1
    print("%s - %s" % (kind, name))
    for n in notes:
        print("#   %s" % n)


def ok(name, cond, *notes):
    line("ok" if cond else "not ok", name, *([] if cond else notes))
    return cond


def note(text):
    print("# " + text)


def path(name):
    return os.path.join(DIR, name)


def read(name):
    try:
        with open(path(name), errors="replace") as f:
            return f.read()
    except OSError:
        return None


def load_json(name, what):
    """The parsed JSON, or None after a "not ok" saying why."""
    text = read(name)
    if text is None:
        line("not ok", "%s: %s parses" % (what, name), "missing: the guest never wrote it" + cut_short())
        return None
    try:
        d = json.loads(text)
    except ValueError as e:
        err = (read(name.replace(".json", ".stderr")) or "").strip().splitlines()
        line("not ok", "%s: %s parses" % (what, name), "not JSON (%s): %r" % (e, text[:200]),
             *(["stderr: " + l for l in err[-3:]]))
        return None
    line("ok", "%s: %s parses" % (what, name))
    return d


def cut_short():
    d = read("deadline")
    return " (the boot was cut at its deadline: %s s)" % d.split()[1] if d else ""


def steps():
    out = {}
    for l in (read("steps.txt") or "").splitlines():
        p = l.split()
        if len(p) == 3:
            out[p[0]] = (int(p[1]), int(p[2]))
    return out


def limits_mech(mech):
    """What Resource-limits rested on, from a run's mechanisms line."""
    m = re.search(r"cgroup-v2, delegated: [^,]*", mech)
    if m:
        return m.group(0)
    for k in ("cgroup-v2", "cgroup-v1"):
        if re.search(r"\b%s\b" % k, mech):
            return k
    m = re.search(r"rlimits-only \(.*?\)(?=, rlimits \()", mech) or re.search(r"rlimits-only \([^)]*\)", mech)
    if m:
        return m.group(0)
    return "rlimits-only" if "rlimits-only" in mech else "?"


def boot_header():
    t = read("boot-%s.time" % MODE)
    if t:
        _, secs, rc = t.split()
        note("boot %s: %s s wall, QEMU exit %s" % (MODE, secs, rc))
    for name, (rc, ms) in steps().items():
        note("step %s: exit %d, %.1f s" % (name, rc, ms / 1000))
    ok("boot %s: the guest ran to its end" % MODE, read("done") is not None,
       "no build/hosts/done" + cut_short() + "; see build/hosts/console-%s.log" % MODE)


def check_machine():
    g = read("guest-v2.txt") or ""
    mounts = re.search(r"^cgroup mounts: (.*)$", g, re.M)
    mounts = [m for m in (mounts.group(1).split(";") if mounts else []) if m.strip()]
    ok("the host: cgroup2 alone at /sys/fs/cgroup (no v1)",
       len(mounts) == 1 and mounts[0].split()[1:3] == ["/sys/fs/cgroup", "cgroup2"], "mounts: %r" % mounts)
    ctl = re.search(r"^root cgroup.controllers: (.*)$", g, re.M)
    sub = re.search(r"^root cgroup.subtree_control: (.*)$", g, re.M)
    ok("the host: every controller enabled in the root's cgroup.subtree_control",
       bool(ctl and sub and set(ctl.group(1).split()) == set(sub.group(1).split())
            and {"memory", "pids", "cpu"} <= set(sub.group(1).split())),
       "controllers: %s; subtree_control: %s" % (ctl and ctl.group(1), sub and sub.group(1)))
    own = re.search(r"^user@1000.service owner: (.*)$", g, re.M)
    dctl = re.search(r"^user@1000.service controllers: (.*)$", g, re.M)
    ok("the host: user@1000.service delegated the systemd way (+memory +pids +cpu, owned by 1000)",
       bool(own and own.group(1) == "1000:1000 procs 1000 subtree_control 1000 threads 1000" and dctl
            and {"memory", "pids", "cpu"} <= set(dctl.group(1).split())),
       "owner: %s; controllers: %s" % (own and own.group(1), dctl and dctl.group(1)))
    ucg = re.search(r"^user shell's cgroup: (.*)$", g, re.M)
    ok("the host: uid 1000's shell starts in a leaf of the delegated folder",
       bool(ucg and ucg.group(1).startswith("0::" + DELEGATED[len("/sys/fs/cgroup"):] + "/")), ucg and ucg.group(1))


WHO = {"root": "root", "user": "uid 1000", "scope": "uid 1000 in app.slice/lab.scope (systemd-run --user --scope)"}


def check_legit(who):
    d = load_json("legit-%s.json" % who, "run legit as %s" % WHO[who])
    if d is None:
        return
    mech = d.get("mechanisms") or ""
    note("%s: mechanisms: %s" % (who, mech or "(none)"))
    if d.get("error"):
        note("%s: error: %s" % (who, d["error"]))
    ok("run legit --on all as %s: RAN OK" % WHO[who], d.get("verdict") == "RAN OK",
       "verdict %s: %s" % (d.get("verdict"), d.get("headline")))
    lm = limits_mech(mech)
    note("%s: Resource-limits used: %s" % (who, lm))
    if who == "root":
        ok("as root, Resource-limits used cgroup v2 (%s)" % lm, lm.startswith("cgroup-v2"),
           "mechanisms: " + mech)
    else:
        ok("as %s, Resource-limits used the delegated subtree (%s)" % (WHO[who], lm),
           lm.startswith("cgroup-v2, delegated: " + DELEGATED),
           "expected 'cgroup-v2, delegated: %s/...' in the mechanisms" % DELEGATED)
    # the kernel started the sandbox in the run's cgroup: not one
    # instruction of it ran outside (issue 20 item 1)
    ok("as %s, the sandbox was started in its cgroup (clone3 CLONE_INTO_CGROUP)" % WHO[who],
       "CLONE_INTO_CGROUP" in mech, "mechanisms: " + mech)


def check_matrix(who):
    d = load_json("v2-%s.json" % who, "matrix as %s" % who)
    if d is None:
        return
    cells = d.get("cells") or []
    bad = [c for c in cells if c.get("verdict") != c.get("expected")]
    by = {}
    for c in cells:
        by.setdefault(c["snippet"], [0, 0])
        by[c["snippet"]][0] += 1
        by[c["snippet"]][1] += c.get("verdict") == c.get("expected")
    note("%s: matrix: %s cells, %s as expected (the lab's count: %s/%s), limits_mechanism %s, %s ms, "
         "rung %s, network mode %s" % (who, len(cells), len(cells) - len(bad), d.get("as_expected"),
                                       d.get("cells_total"), d.get("limits_mechanism"), d.get("elapsed_ms"),
                                       d.get("rung"), d.get("network_mode")))
    note("%s: per snippet: %s" % (who, ", ".join("%s %d/%d" % (k, v[1], v[0]) for k, v in sorted(by.items()))))
    for c in cells:
        if c["snippet"] == "resource-bomb" and all(c["layers"].values()):
            note("%s: resource-bomb, all on: %s — %s" % (who, c.get("verdict"), c.get("headline")))
    ok("matrix as %s: %d/%d cells as expected" % (who, len(cells) - len(bad), len(cells)),
       cells and not bad,
       *["%s %s: expected %s, got %s: %s" % (c["snippet"], ",".join(k for k, v in c["layers"].items() if v)
                                             or "none", c.get("expected"), c.get("verdict"), c.get("headline"))
         for c in bad[:8]])
    lm = d.get("limits_mechanism") or ""
    want = "cgroup-v2" if who == "root" else "cgroup-v2, delegated"
    ok("matrix as %s: limits_mechanism %s" % (who, want), lm.startswith(want), "limits_mechanism: %r" % lm)


def meminfo(who):
    marks = dict(l.split() for l in (read("swarm-%s.marks" % who) or "").splitlines() if len(l.split()) == 2)
    samples = [tuple(int(x) for x in l.split()) for l in (read("swarm-%s.meminfo" % who) or "").splitlines()
               if len(l.split()) == 2 and all(x.isdigit() for x in l.split())]
    if "start" not in marks or "end" not in marks or not samples:
        return None
    t0, t1 = int(marks["start"]), int(marks["end"])
    before = sorted(kb for t, kb in samples if t < t0)
    during = [kb for t, kb in samples if t0 <= t <= t1 + 500]
    if not before or not during:
        return None
    base = before[len(before) // 2]
    return base, min(during), len(during)


def check_swarm(who):
    d = load_json("swarm-%s.json" % who, "the swarm as %s" % WHO[who])
    if d is not None:
        ev = d.get("evidence") or []
        note("%s: swarm: %s by %s — %s" % (who, d.get("verdict"), d.get("caught_by"), d.get("headline")))
        for e in ev:
            note("%s: swarm evidence: %s" % (who, e))
        note("%s: swarm mechanisms: %s" % (who, d.get("mechanisms")))
        ok("the swarm (12 x 200 MiB) as %s: CONTAINED by Resource-limits" % WHO[who],
           d.get("verdict") == "CONTAINED" and d.get("caught_by") == "limits",
           "verdict %s, caught_by %s: %s" % (d.get("verdict"), d.get("caught_by"), d.get("headline")))
        ok("the swarm as %s: an OOM kill at 256 MiB (the cgroup's memory cap)" % WHO[who],
           any(e.startswith("OOM kill at 256 MiB") for e in ev), "evidence: %s" % "; ".join(ev))
    m = meminfo(who)
    if m is None:
        line("not ok", "the swarm as %s: the guest's MemAvailable sampled" % WHO[who],
             "no samples in build/hosts/swarm-%s.meminfo" % who)
        return
    base, low, n = m
    drop = (base - low) * 1024
    limit = CAP * 11 // 10
    note("%s: MemAvailable: %d MiB before, %d MiB at the lowest (%d samples during the run): fell %d MiB"
         % (who, base >> 10, low >> 10, n, drop >> 20))
    ok("the swarm as %s: MemAvailable fell %d MiB, no more than the cap + 10 %% (%d MiB)"
       % (WHO[who], drop >> 20, limit >> 20), drop <= limit, "the run took more than its cap from the machine")


def check_nouserns():
    g = read("guest-nouserns.txt") or ""
    ok("user.max_user_namespaces is 0 in the guest before anything runs",
       "after sysctl: user.max_user_namespaces = 0" in g, g.strip().splitlines()[-1:] or "no guest-nouserns.txt")
    st = steps()
    shown = False
    for who in ("root", "user"):
        for cmd, label in (("run", "run legit"), ("matrix", "matrix"), ("exec", "exec -- true")):
            name = "nouserns-%s-%s" % (who, cmd)
            what = "max_user_namespaces=0, %s as %s" % (label, "root" if who == "root" else "uid 1000")
            if name not in st:
                line("not ok", what + ": exit 4 and one line", "it never ran" + cut_short())
                continue
            rc = st[name][0]
            text = (read(name + ".out") or "") + (read(name + ".err") or "")
            lines = text.splitlines()
            hits = [l for l in lines if "user.max_user_namespaces" in l]
            if hits and not shown:
                note("the line: " + hits[0])
                shown = True
            ok("%s: exit %d (want 4), %d line(s) in all, %d naming user.max_user_namespaces (want 1 and 1), "
               "%.1f s" % (what, rc, len(lines), len(hits), st[name][1] / 1000),
               rc == 4 and len(hits) == 1 and len(lines) == 1, *["output: " + l for l in lines[:4]])


boot_header()
if MODE == "v2":
    check_machine()
    for who in ("root", "user"):
        check_legit(who)
    check_swarm("user")
    for who in ("root", "user"):
        check_matrix(who)
    note("uid 1000 again, as systemd-run --user --scope starts a program (the README's advice): in "
         "user@1000.service/app.slice/lab.scope, the user's manager having enabled +memory +pids +cpu")
    check_legit("scope")
    check_swarm("scope")
elif MODE == "nouserns":
    check_nouserns()
print("%d passed, %d failed, %d skipped" % (counts["ok"], counts["not ok"], counts["skip"]))
sys.exit(1 if counts["not ok"] else 0)
