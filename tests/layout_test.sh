#!/usr/bin/env bash
# tests/layout_test.sh — the architecture the folders show (docs/layers.md,
# "Where the code lives"), checked in the built objects and the sources:
#   - the folders are levels, lowest first (the Makefile's SRC_DIRS): a file
#     includes only headers of its own folder or a lower one, and an object
#     calls only functions (and reads only data) defined in its own folder
#     or a lower one;
#   - no module cycle at link level in any folder, the screen's too (a cycle
#     names its modules);
#   - no layer's file calls another layer's, no box calls another box
#     (box.c picks one, box_common.c is what they share), and no box nor
#     the twin names a layer: they render and ask the run spec.
# Positive controls: each check first sees the violation it must catch in a
# made-up graph, so a check that cannot fail is a failure.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh

dirs=$(sed -n '/^SRC_DIRS = /,/[^\\]$/p' Makefile | sed 's/^SRC_DIRS = //; s/\\//' | tr -s ' \n' ' ')
if [ -z "${dirs// /}" ]; then
	not_ok "the Makefile lists the source folders (SRC_DIRS)" "no SRC_DIRS line in the Makefile"
	finish
fi
missing=""
for d in $dirs; do
	for c in "$d"/*.c; do
		o=build/${c#src/}
		[ -f "${o%.c}.o" ] || missing="$missing ${o%.c}.o"
	done
done
if [ -n "$missing" ]; then
	not_ok "every source file has its object (make all first)" "missing:$missing"
	finish
fi

out=$(python3 - "$dirs" <<'EOF'
import collections, glob, os, re, subprocess, sys

dirs = sys.argv[1].split()            # lowest first
level = {d: i for i, d in enumerate(dirs)}
level['src/vm'] = -1                  # the guest init's protocol: below everything

def folder(path):
    return os.path.dirname(path)

def sccs(graph):
    """Tarjan: the strongly connected components of more than one node."""
    idx, low, on, st, out, n = {}, {}, set(), [], [], [0]
    def visit(v):
        idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in idx:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            c = []
            while True:
                w = st.pop(); on.discard(w); c.append(w)
                if w == v: break
            if len(c) > 1: out.append(sorted(c))
    for v in sorted(graph):
        if v not in idx: visit(v)
    return out

def upward(edges):
    """Edges (a, b, why) whose target's folder is above the source's."""
    return [(a, b, w) for a, b, w in edges if level[folder(b)] > level[folder(a)]]

def report(name, bad):
    if bad:
        print('not ok - ' + name)
        for line in bad[:20]: print('#   ' + line)
    else:
        print('ok - ' + name)

# ---- positive controls: each check sees what it must catch ----
ctrl = upward([('src/base/util.c', 'src/engine/run.c', 'x')])
report('control: an upward call is caught', [] if ctrl else ['upward() let src/base call src/engine'])
ctrl = sccs({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}})
report('control: a cycle is caught', [] if ctrl == [['a', 'b', 'c']] else ['sccs() found %r' % ctrl])

# ---- sources: #include "x.h" ----
headers = {}
for d in list(dirs) + ['src/vm']:
    for h in glob.glob(d + '/*.h') + glob.glob(d + '/*/*.h'):
        headers.setdefault(os.path.relpath(h, d), []).append(h)
inc = []
unknown = []
for d in dirs:
    for f in sorted(glob.glob(d + '/*.c') + glob.glob(d + '/*.h')):
        for ln, line in enumerate(open(f, encoding='utf-8'), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m: continue
            name = m.group(1)
            near = os.path.normpath(os.path.join(folder(f), name))
            cands = [near] if os.path.exists(near) else headers.get(name, [])
            if not cands and os.path.exists(os.path.join('src', name)):
                cands = [os.path.join('src', name)]
            if len(cands) != 1:
                unknown.append('%s:%d: "%s" names %s' % (f, ln, name, cands or 'no header'))
                continue
            inc.append((f, cands[0], '%s:%d' % (f, ln)))
report('every #include "..." names exactly one header of the project', unknown)
# <x.h> is the system's: a project header reached so (the -I path makes it
# resolve to ours) hides a dependency from the check above, and a system
# header named as one of ours is shadowed (ncurses' <term.h> was shadowed by a base/term.h)
def angle_project(line):
    m = re.match(r'\s*#\s*include\s+<([^>]+)>', line)
    return m.group(1) if m and m.group(1) in headers else None
report('control: #include <run.h> is a project header reached with <>, <stdio.h> is not',
       [] if angle_project('#include <run.h>') and not angle_project('#include <stdio.h>')
       else ['angle_project() is wrong'])
angled = []
for d in list(dirs) + ['src/vm']:
    for f in sorted(glob.glob(d + '/*.c') + glob.glob(d + '/*.h')):
        for ln, line in enumerate(open(f, encoding='utf-8'), 1):
            if angle_project(line):
                angled.append('%s:%d: <%s> is %s' % (f, ln, angle_project(line), headers[angle_project(line)]))
report('no #include <...> reaches a header of the project (nor a system one shadowed by it)', angled)
report('no file includes a header of a higher folder',
       ['%s includes %s' % (w, b) for a, b, w in upward(inc)])

# ---- objects: who defines and who uses each symbol ----
src_of = {}
for d in dirs:
    for c in glob.glob(d + '/*.c'):
        src_of['build/' + c[len('src/'):-2] + '.o'] = c
defs, uses = {}, collections.defaultdict(set)
for o, c in src_of.items():
    nm = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBRGSV':
            defs[p[2]] = c
        elif len(p) == 2 and p[0] == 'U':
            uses[c].add(p[1])
calls = []
graph = collections.defaultdict(set)
for c, syms in uses.items():
    for s in sorted(syms):
        d = defs.get(s)
        if d and d != c:
            calls.append((c, d, s))
            graph[c].add(d)
report('every object was read (%d objects, %d calls between them)' % (len(src_of), len(calls)),
       [] if len(src_of) > 20 and len(calls) > 100 else ['too few: %d objects, %d calls' % (len(src_of), len(calls))])
report('no object uses a function or data of a higher folder',
       ['%s uses %s (%s)' % (a, s, b) for a, b, s in upward(calls)])

for d in dirs:
    sub = {a: {b for b in bs if folder(b) == d} for a, bs in graph.items() if folder(a) == d}
    report('no module cycle in %s' % d, [' <-> '.join(c) for c in sccs(sub)])

# a layer is a file of layers/ but the table (layer.c) and the range's
# walk (range.c); a box is a box_*.c of boxes/ but box_common.c
layer_files = {f for f in glob.glob('src/engine/layers/*.c')} - {'src/engine/layers/layer.c', 'src/engine/layers/range.c'}
lay = [(a, b, s) for a, b, s in calls if a in layer_files and b in layer_files]
report('no layer calls another layer\'s file (%d layers)' % len(layer_files),
       ['%s uses %s (%s)' % (a, s, b) for a, b, s in lay] + ([] if len(layer_files) >= 4 else ['fewer than 4 layers']))
box_files = set(glob.glob('src/engine/boxes/box_*.c')) - {'src/engine/boxes/box_common.c'}
box = [(a, b, s) for a, b, s in calls if a in box_files and b in box_files]
# what a layer means is its own file's: the boxes and the twin render the
# spec, and ask it (spec_private_root, spec_net_closed, ...), never a layer
# strings and comments out, in one pass (a "//" in a string is no comment)
def code_of(line):
    return re.sub(r'"(\\.|[^"\\])*"|/\*.*?(\*/|$)|//.*', lambda m: '""' if m.group(0)[0] == '"' else '', line)
def layer_named(line):
    m = re.search(r'\bLAYER_(ISOLATION|NETWORK|ENV|LIMITS)\b|\brun_on\b|\brun_allowlist\b'
                  r'|\bLAYER_BIT\s*\(\s*[0-9]', code_of(line))
    return m.group(0) if m else None
controls = {'\tif (run_on(r, LAYER_ENV))': True, '\t/* LAYER_ENV */ x++;': False,
            'x = r->layers & LAYER_BIT(0);': True, 'if ((run_on)(r, 1))': True,
            'const char *v = "//"; if (run_on(r, LAYER_NETWORK))': True, 'puts("run_on LAYER_ENV");': False,
            'if (layers & LAYER_BIT(l))': False}
report('control: a layer named in code is caught (an index, a parenthesised name, after a "//" string), '
       'in a comment or a string it is not',
       ['%r: %s' % (l, 'missed' if want else 'caught') for l, want in controls.items()
        if bool(layer_named(l)) != want])
named = []
for f in (sorted(glob.glob('src/engine/boxes/*.[ch]')) + ['src/engine/run/twin.c'] +
          sorted(glob.glob('src/judge/*.[ch]'))):
    for ln, line in enumerate(open(f, encoding='utf-8'), 1):
        if layer_named(line):
            named.append('%s:%d: %s' % (f, ln, layer_named(line)))
report('no box, not the twin, not the judge names a layer (they read the spec)', named)
# a layer names only itself: what it needs of another (a private root, a
# closed network, a seccomp filter) it reads in the spec
def others_named(f, line):
    own = {'isolation': 'ISOLATION', 'network': 'NETWORK', 'env': 'ENV', 'limits': 'LIMITS'}[f.split('/')[-1][:-2]]
    return [m for m in re.findall(r'\bLAYER_(ISOLATION|NETWORK|ENV|LIMITS)\b', code_of(line)) if m != own]
report('control: a layer naming another is caught, naming itself is not',
       [] if others_named('x/env.c', 'run_on(r, LAYER_ISOLATION)') and not others_named('x/env.c', 'run_on(r, LAYER_ENV)')
       else ['others_named() is wrong'])
named = []
for f in sorted(layer_files):
    for ln, line in enumerate(open(f, encoding='utf-8'), 1):
        for o in others_named(f, line):
            named.append('%s:%d: LAYER_%s' % (f, ln, o))
report('no layer names another layer (%d layers)' % len(layer_files), named)
report('no box calls another box (%d boxes; box.c picks one, box_common.c is what they share)' % len(box_files),
       ['%s uses %s (%s)' % (a, s, b) for a, b, s in box] + ([] if len(box_files) >= 4 else ['fewer than 4 boxes']))
EOF
)
rc=$?
echo "$out"
PASS=$((PASS + $(grep -c '^ok - ' <<<"$out")))
FAIL=$((FAIL + $(grep -c '^not ok - ' <<<"$out")))
[ $rc = 0 ] || not_ok "the layout check ran" "python3 exited $rc"
finish
