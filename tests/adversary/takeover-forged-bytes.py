# lab:title: Declares a host takeover, forges an error full of hostile bytes
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --on all => BROKE
# adversary: --on none => BROKE
"""The red team's F2 (round 5): a traceback whose path carries bytes that
are not UTF-8 (0xff 0xfe), an escape sequence, a quote and a bar. The
lab quotes that path in its evidence and its record: `run --json` wrote
the raw bytes, and a strict JSON reader refused the whole document. What
the lab writes is valid UTF-8 whatever the snippet chose; the judge finds
an error on a path that is not the host target: it failed by itself."""
import sys

sys.stderr.buffer.write(
    b'Traceback (most recent call last):\n  File "/work/snippet.py", line 1, in <module>\n'
    b"PermissionError: [Errno 13] Permission denied: '/x<script>\xff\xfe\x1b[2J|\"'\n")
sys.exit(1)
