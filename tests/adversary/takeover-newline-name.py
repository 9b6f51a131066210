# lab:title: Host takeover whose planted file's name holds a newline
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --on none => ESCAPED takeover
"""The red team's F3 (round 5): a setuid file left in the host folder under
a name with a newline, an escape sequence, a byte that is not UTF-8 and a
quote in it. The lab names the file in its report: the newline split the
line, and "S 0" stood in the text report as a line of its own. A name is
one line of the report whatever bytes it holds (adversary_test checks the
text report too)."""
import os

d = os.path.dirname(os.environ["LAB_HOST_TARGET"]).encode()
p = os.path.join(d, b"\xff\x1b[31mevil\nS 0\n\"<b>")
with open(p, "wb") as f:
    f.write(b"#!/bin/sh\n")
os.chmod(p, 0o4755)
