#!/usr/bin/env bash
# tests/html_test.sh [BINARY] — `matrix --html FILE`: one self-contained
# page (no script, nothing fetched: a Content-Security-Policy forbids it,
# and no address appears), parsed strictly for its structure (a grid cell
# per cell of the matrix, each linking to its evidence), then opened in a
# real headless browser (Debian's chromium, with no network at all) whose
# screenshot must show the verdicts' colours. The picture is kept in
# build/test-output/matrix-html.png. The browser part is skipped, saying
# why, where chromium cannot be installed.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-html.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT
before=$(leftovers_snapshot)

# the legit task and a snippet whose header names the wrong layer: green,
# red and purple cells, some not as expected
mkdir "$T/snippets"
cp snippets/legit.py snippets/sales.csv "$T/snippets/"
sed -e 's/^# lab:threat: exfil$/# lab:threat: secrets/' -e 's/^# lab:layer: network$/# lab:layer: env/' \
	-e 's/^# lab:title: .*/# lab:title: Exfiltration under the wrong header <b>\&amp;/' \
	snippets/exfiltration.py >"$T/snippets/wrong-layer.py"
sed "s|^\[paths\]|[paths]\nsnippets = $T/snippets|" layers.ini >"$T/layers.ini"
"$BIN" --config "$T/layers.ini" matrix --snippet legit,wrong-layer --html "$T/m.html" --json >"$T/m.json"
rc=$?
expect_eq "matrix --html beside --json: exit 1 (cells differ)" "$rc" 1
check "matrix --html: the JSON on stdout is still whole" $PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/m.json"

# ---- the page itself, parsed ----
got=$($PY - "$T/m.html" "$T/m.json" <<'PY'
import json, re, sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding="utf-8").read()
cells = json.load(open(sys.argv[2]))["cells"]
class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.ids, self.links, self.tds, self.csp, self.bad = [], set(), [], 0, "", []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "img", "link", "iframe", "object", "embed"):
            self.bad.append(tag)
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content", "")
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "td" in self.stack:
            self.links.append(a.get("href", ""))
        if tag == "td":
            self.tds += 1
        if tag not in ("meta", "br", "img", "link"):
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if tag in ("meta", "br"):
            return
        if not self.stack or self.stack[-1] != tag:
            self.bad.append("unbalanced </%s> after <%s>" % (tag, self.stack[-1] if self.stack else ""))
        else:
            self.stack.pop()
p = P()
p.feed(page)
p.close()
problems = list(p.bad)
if p.stack:
    problems.append("unclosed: %s" % p.stack)
if "default-src 'none'" not in p.csp:
    problems.append("no CSP forbidding fetches")
if re.search(r"(https?:|//[a-z]|url\()", page.replace("<!DOCTYPE html>", "")):
    problems.append("an address or url() in the page")
if p.tds != len(cells):
    problems.append("%d grid cells for %d matrix cells" % (p.tds, len(cells)))
dangling = [h for h in p.links if not h.startswith("#") or h[1:] not in p.ids]
if dangling or len(p.links) != len(cells):
    problems.append("links: %d, dangling %s" % (len(p.links), dangling[:3]))
print("; ".join(problems) or "fine")
PY
)
expect_eq "the page: well formed, no script or fetch, a grid cell per matrix cell, each linking to its evidence" "$got" fine
page=$(cat "$T/m.html")
expect_contains "the page: a legend" "$page" "+ CONTAINED</span>"
expect_contains "the page: the machine it ran on" "$page" "on $(uname -n) ($(uname -s) $(uname -r) $(uname -m))"
expect_contains "the page: the summary" "$page" "24/32 cells as expected"
expect_contains "the page: a cell's evidence" "$page" "<li>also out, data exfiltration: the attacker&#39;s listener received"
expect_contains "the page: mechanisms" "$page" "mechanisms: userns (root inside"
expect_contains "the page: the header's markup is escaped, not markup" "$page" 'title="Exfiltration under the wrong header &lt;b&gt;&amp;amp;"'
expect_not_contains "the page: the header's markup never raw" "$page" "<b>&amp;"

# ---- in a real browser ----
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $CHROMIUM ]]; then
	skip "the page in a headless browser" "chromium is not installed (apt-get install chromium; make test-deps does)"
	finish
	exit
fi
# no network at all: whatever the page looked like, nothing could be fetched
net=(unshare --net)
"${net[@]}" true 2>/dev/null || net=()
mkdir -p build/test-output "$T/profile"
shot=build/test-output/matrix-html.png
rm -f "$shot"
HOME=$T timeout 300 "${net[@]}" "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$T/profile" --window-size=1280,720 --screenshot="$T/shot.png" "file://$T/m.html" >"$T/chromium.log" 2>&1
if [[ -s $T/shot.png ]]; then
	cp "$T/shot.png" "$shot"
	ok "chromium renders the page${net:+ with no network} (screenshot in $shot)"
else
	not_ok "chromium renders the page" "$(tail -5 "$T/chromium.log")"
fi
# the verdicts' colours, read back from the picture's pixels
got=$($PY - "$T/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, prev, counts = zlib.decompress(idat), w * bpp, bytearray(w * bpp), {}
want = {(0x1b, 0x7f, 0x3b): "contained", (0xc8, 0x10, 0x2e): "escaped", (0x7b, 0x3f, 0xa0): "broke",
        (0xd7, 0xe3, 0xf4): "ran-ok"}
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        k = want.get(tuple(line[x:x + 3]))
        if k:
            counts[k] = counts.get(k, 0) + 1
    prev = line
print(" ".join(k for k in ("contained", "escaped", "broke", "ran-ok") if counts.get(k, 0) > 400))
PY
)
expect_eq "the screenshot shows green, red, purple and pale-blue cells (the verdicts' colours)" "$got" "contained escaped broke ran-ok"

sleep 0.2
expect_eq "nothing left behind" "$(leftovers_snapshot)" "$before"
finish
