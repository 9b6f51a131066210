#!/usr/bin/env bash
# tests/config_test.sh [BINARY] — layers.ini and --on/--off read strictly:
# every problem at its own line with its own message, lines of any length,
# special files refused without hanging, no silent truncation, and ./ or
# XDG files used only when they can be trusted. Run from the repo root.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/lib.sh
BIN=$(realpath "${1:-./containment-lab}")
T=$(mktemp -d /tmp/cl-config.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"; suite_cleanup' EXIT

# load NAME TEXT: writes $T/NAME.ini, runs `list` with it; sets rc and err
load() {
	printf '%b' "$2" >"$T/$1.ini"
	err=$(timeout 10 "$BIN" --config "$T/$1.ini" list 2>&1 >/dev/null)
	rc=$?
}
long() { printf "$1%.0s" $(seq "$2"); } # long CHAR N

# ---- the key table: duplicates, headers, ranges, decimal only ----
load dup '[limits]\nmemory = 1G\n; other knobs\n\n\n\nmemory = 2G\n'
expect_eq "duplicate key: exit 2" "$rc" 2
expect_contains "duplicate key named with both lines" "$err" "dup.ini:7: 'memory' given twice (first at line 2)"
load dupsec '[limits]\npids = 5\n[safety]\ntimeout = 30s\n[limits]\npids = 6\n'
expect_contains "duplicate key across a repeated section" "$err" "dupsec.ini:6: 'pids' given twice (first at line 2)"
load bracket '[limits\nmemory = 1G\n'
expect_contains "missing ']' said at its line" "$err" "bracket.ini:1: [limits: missing ']'"
expect_not_contains "missing ']': no follow-on error for its keys" "$err" "bracket.ini:2:"
load range '[limits]\ntimeout = 2h\n'
expect_contains "out of range shows the bounds" "$err" "range.ini:2: timeout = 2h: out of range (100ms-1h)"
load malformed '[limits]\ntimeout = soon\n'
expect_contains "malformed duration is not out of range" "$err" "timeout = soon: expected a duration like 5s or 500ms"
load huge '[limits]\nmemory = 99999999999999999999G\n'
expect_contains "a size past 2^64 is out of range, not malformed" "$err" \
	"huge.ini:2: memory = 99999999999999999999G: out of range (16M-64G)"
load hugepids '[limits]\npids = 99999999999999999999999\n'
expect_contains "a huge count is out of range" "$err" "out of range (1-4096)"
load hex '[limits]\nmemory = 0x10\n'
expect_contains "hex size refused" "$err" "hex.ini:2: memory = 0x10: expected a size like 256M"
load hexcpu '[limits]\ncpu = 0x0.8\n'
expect_contains "hex cores refused" "$err" "hexcpu.ini:2: cpu = 0x0.8: expected cores"
load hexdur '[limits]\ntimeout = 0x10\n'
expect_contains "hex duration refused" "$err" "hexdur.ini:2: timeout = 0x10: expected a duration"
load exp '[limits]\ncpu = 5e-1\n'
expect_contains "exponent refused" "$err" "exp.ini:2: cpu = 5e-1: expected cores"
load tol '[audit]\ntolerance = 15%\n'
expect_eq "audit tolerance 15%: loads" "$rc" 0
load tolbare '[audit]\ntolerance = 5\n'
expect_eq "audit tolerance without %: loads" "$rc" 0
load tolhigh '[audit]\ntolerance = 60%\n'
expect_contains "audit tolerance out of range, with the bounds" "$err" "tolhigh.ini:2: tolerance = 60%: out of range (0%-50%)"
load tolbad '[audit]\ntolerance = 10%%\n'
expect_contains "audit tolerance malformed" "$err" "tolbad.ini:2: tolerance = 10%%: expected a percentage like 10%"
load tolsec '[limits]\ntolerance = 10%\n'
expect_contains "tolerance under [limits]: refused, the known keys named" "$err" "tolsec.ini:2: [limits] unknown key 'tolerance' (known: memory"
load twoerr '[limits]\nthis is garbage\nmemory = 12X\n'
expect_contains "garbage reported at its own line" "$err" "twoerr.ini:2: 'this is garbage': expected key = value or [section]"
expect_contains "the next problem at its own line" "$err" "twoerr.ini:3: memory = 12X: expected a size like 256M"
expect_not_contains "no message at the wrong line" "$err" "twoerr.ini:2: memory"
load outside 'memory = 1G\n'
expect_contains "key outside a section: where it belongs" "$err" "outside.ini:1: 'memory' is outside any section (it belongs under [limits])"

# ---- [paths] python checked at load ----
load nopy '[paths]\npython = /nonexistent/python3\n'
expect_eq "missing python: exit 2" "$rc" 2
expect_contains "missing python: key, file:line and path" "$err" "nopy.ini:2: python = /nonexistent/python3: no such file"
printf 'not a program\n' >"$T/plain" && chmod 644 "$T/plain"
load notexec "[paths]\npython = $T/plain\n"
expect_contains "python not executable" "$err" "notexec.ini:2: python = $T/plain: not executable"
load relpy '[paths]\npython = py3\n'
expect_contains "relative python: where it was looked for" "$err" "python = py3 ($T/py3): no such file"

# ---- lines of any length ----
load longcomment "[limits]\n; $(long x 300)\npids = 7\n"
expect_eq "a 300-character comment loads" "$rc" 0
load longcomment2 "[limits]\n; $(long x 250) = 5\n; $(long y 400)\nmemory = 12X\n"
expect_contains "no tail of a long comment parsed; later line right" "$err" "longcomment2.ini:4: memory = 12X"
expect_not_contains "no error about a comment's tail" "$err" "longcomment2.ini:2:"
PYDIR=$T/$(long d 240)
mkdir -p "$PYDIR" && ln -s /usr/bin/python3 "$PYDIR/python3"
load longpy "[paths]\npython = $PYDIR/python3 ; inline comment\n[limits]\nmemory = 12X\n"
expect_contains "long python path: later line numbers unchanged" "$err" "longpy.ini:4: memory = 12X"
expect_not_contains "long python path itself accepted" "$err" "longpy.ini:2:"
load longpyok "[paths]\npython = $PYDIR/python3\n"
expect_eq "a 270-character python path loads" "$rc" 0
load longkey "[limits]\n$(long k 300) = 5\n"
expect_contains "a long unknown key at its own line, cut visibly" "$err" "longkey.ini:2: [limits] unknown key 'kkkk"
expect_contains "the long key's length shown" "$err" "(300 characters)"
load indent '[limits]\nmemory = 1G\n    pids = 9x\n'
expect_contains "an indented line is its own key, not a continuation" "$err" "indent.ini:3: pids = 9x: expected a count"

# ---- special files never hang ----
for f in /dev/zero /dev/urandom /proc/self/mem; do
	err=$(timeout 10 "$BIN" --config "$f" list 2>&1 >/dev/null); rc=$?
	expect_eq "--config $f: exit 2 (not a hang)" "$rc" 2
	expect_contains "--config $f: says why" "$err" "$f: "
done
expect_contains "--config /dev/zero: a character device" \
	"$(timeout 10 "$BIN" --config /dev/zero list 2>&1)" "is a character device; a layers.ini must be a regular file"
mkfifo "$T/fifo.ini"
err=$(timeout 10 "$BIN" --config "$T/fifo.ini" list 2>&1 >/dev/null); rc=$?
expect_eq "--config FIFO: exit 2 (not a hang)" "$rc" 2
expect_contains "--config FIFO: says so" "$err" "fifo.ini: is a FIFO"
mkdir "$T/dir.ini"
err=$(timeout 10 "$BIN" --config "$T/dir.ini" list 2>&1 >/dev/null); rc=$?
expect_eq "--config DIR fails, not defaults" "$rc" 2
expect_contains "--config DIR: says so" "$err" "dir.ini: is a directory"
head -c 70000 /dev/zero | tr '\0' ';' >"$T/big.ini"
err=$(timeout 10 "$BIN" --config "$T/big.ini" list 2>&1 >/dev/null); rc=$?
expect_contains "a huge file refused with the cap" "$err" "big.ini: larger than 64 KiB"
printf '[limits]\npids = 5\0\n' >"$T/nul.ini"
err=$(timeout 10 "$BIN" --config "$T/nul.ini" list 2>&1 >/dev/null)
expect_contains "a NUL byte refused at its line" "$err" "nul.ini:2: contains a NUL byte"

# ---- no silent truncation ----
load allowlong "[env]\nallow = PATH $(long A 70)\n"
expect_contains "long env name refused with the limit" "$err" "allowlong.ini:2: allow: 'AAAA"
expect_contains "long env name: the limit" "$err" "(70 characters; at most 63)"
load allowmany "[env]\nallow = $(for i in $(seq 33); do printf 'V%d ' "$i"; done)\n"
expect_contains "too many env names refused with the limit" "$err" "allowmany.ini:2: allow: more than 32 names"
load allowlongline "[env]\nallow = $(for i in $(seq 32); do printf 'VARIABLE_%02d ' "$i"; done)\n"
expect_eq "32 names on a 400-character line load" "$rc" 0
load host "[isolation]\nhostname = $(long h 70)\n"
expect_contains "long hostname refused with the limit" "$err" "host.ini:2: hostname = hhhh"
expect_contains "long hostname: the limit" "$err" "too long (70 characters; at most 63)"
load home "[env]\nhome = /$(long h 200)\n"
expect_contains "long home refused with the limit" "$err" "too long (201 characters; at most 127)"

# ---- --on/--off lists of any length ----
CONF=$PWD/layers.ini
err=$("$BIN" --config "$CONF" run legit --on "$(long isolation, 25),,,,limits" 2>&1); rc=$?
expect_eq "long --on list with empty items: exit 2" "$rc" 2
expect_contains "long --on list: the empty item named" "$err" "empty item 26 in the layer list"
err=$("$BIN" --config "$CONF" run legit --off "isolation," 2>&1); rc=$?
expect_contains "trailing comma refused" "$err" "empty item 2"
err=$("$BIN" --config "$CONF" run legit --on "$(long x 300)" 2>&1); rc=$?
expect_contains "long unknown layer cut visibly" "$err" "unknown layer 'xxxxxxxxxx"
j=$("$BIN" --config "$CONF" run legit --json --on "$(long isolation, 30)limits" 2>&1)
expect_contains "a 300-character --on list keeps its last item" "$j" '"limits":true'

# ---- config you can trust: ./layers.ini and the XDG one ----
mkdir "$T/cwd" "$T/xdg" "$T/xdg/containment-lab"
printf '[limits]\npids = 7\n' >"$T/cwd/layers.ini"
chmod 644 "$T/cwd/layers.ini"
found() { (cd "$T/cwd" && XDG_CONFIG_HOME=$T/xdg timeout 10 "$BIN" list 2>&1 >/dev/null); }
err=$(found); rc=$?
expect_eq "own ./layers.ini used" "$rc" 0
chmod 666 "$T/cwd/layers.ini"
err=$(found); rc=$?
expect_eq "world-writable ./layers.ini refused" "$rc" 2
expect_contains "world-writable: says why and what to do" "$err" "writable by others (mode 0666)"
expect_contains "world-writable: --config to use it anyway" "$err" "pass --config layers.ini to use it anyway"
chmod 664 "$T/cwd/layers.ini"
expect_contains "group-writable ./layers.ini refused" "$(found)" "writable by its group (mode 0664)"
err=$(cd "$T/cwd" && timeout 10 "$BIN" --config layers.ini list 2>&1 >/dev/null); rc=$?
expect_eq "an explicit --config is the user's choice" "$rc" 0
if [[ $(id -u) -eq 0 ]]; then
	chmod 644 "$T/cwd/layers.ini"
	chown 65534 "$T/cwd/layers.ini"
	expect_contains "./layers.ini of another user refused" "$(found)" "belongs to uid 65534, neither you (uid 0) nor root"
fi
rm "$T/cwd/layers.ini"
mkdir "$T/cwd/layers.ini"
expect_contains "./layers.ini a directory: refused, not skipped" "$(found)" "layers.ini: is a directory"
rmdir "$T/cwd/layers.ini"
printf '[limits]\npids = 7\n' >"$T/xdg/containment-lab/layers.ini"
chmod 646 "$T/xdg/containment-lab/layers.ini"
expect_contains "world-writable XDG layers.ini refused" "$(found)" "$T/xdg/containment-lab/layers.ini: not used"
chmod 644 "$T/xdg/containment-lab/layers.ini"
err=$(found); rc=$?
expect_eq "own XDG layers.ini used" "$rc" 0

rm "$T/xdg/containment-lab/layers.ini"
mkdir "$T/bin" && cp "$BIN" "$T/bin/containment-lab"
err=$(cd "$T/cwd" && XDG_CONFIG_HOME=$T/xdg timeout 10 "$T/bin/containment-lab" list 2>&1 >/dev/null); rc=$?
# the control: the lab ran on its defaults, up to their snippets folder
# (installed or not on this machine), so no error below means something
if [[ $rc == 0 || $err == *"cannot open snippets folder"* ]]; then
	ok "no layers.ini anywhere: the lab ran on its defaults"
else
	not_ok "no layers.ini anywhere: the lab ran on its defaults" "exit $rc" "$err"
fi
expect_not_contains "no layers.ini anywhere: the defaults, no error about one" "$err" "layers.ini:"

# ---- another user's HOME (sudo -u, setpriv and su without - keep it) ----
# a folder on the way the user cannot search: skipped with one line; a file
# that exists but cannot be read: still refused
mkdir -p "$T/closed/.config/containment-lab" "$T/open/.config/containment-lab"
cp "$CONF" "$T/closed/.config/containment-lab/layers.ini"
chmod 700 "$T/closed"
printf '[limits]\nmemory = 1G\n' >"$T/open/.config/containment-lab/layers.ini"
chmod 600 "$T/open/.config/containment-lab/layers.ini"
chmod -R a+rX "$T/bin" "$T/cwd"
as_nobody() { (cd "$T/cwd" && HOME=$1 setpriv --reuid=65534 --regid=65534 --clear-groups timeout 10 "$T/bin/containment-lab" list 2>&1 >/dev/null); }
rm -f "$T/cwd/layers.ini"
cp -r snippets "$T/bin/" && chmod -R a+rX "$T/bin"
err=$(as_nobody "$T/closed"); rc=$?
expect_eq "HOME a folder the user cannot search: the lab starts" "$rc" 0
expect_contains "HOME a folder the user cannot search: one line says it was skipped" "$err" "layers.ini: skipped, a folder on the way cannot be searched"
expect_eq "HOME a folder the user cannot search: only that one line" "$(grep -c . <<<"$err")" 1
err=$(as_nobody "$T/open"); rc=$?
expect_eq "a layers.ini that exists but cannot be read: refused (exit 2)" "$rc" 2
expect_contains "a layers.ini that exists but cannot be read: says so" "$err" "$T/open/.config/containment-lab/layers.ini: cannot read: Permission denied"

# ---- the shipped file still loads, defaults unchanged ----
err=$("$BIN" --config "$CONF" list 2>&1 >/dev/null); rc=$?
expect_eq "shipped layers.ini loads" "$rc" 0

finish
