# lab:title: Host takeover under another name
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ created etc/cron.d/zz-backdoor
# adversary: --on all => CONTAINED isolation
"""The red team's F7 (round 6): the cron entry under a name of its own
beside the target, and the host's /etc/hostname rewritten. The lab looked
only at the target's own path and called it "failed by itself" (BROKE).
Any file, folder or link created, changed or removed in the host folder is
the host written; with Isolation on, the writes land in the private root."""
import os

t = os.environ["LAB_HOST_TARGET"]
d = os.path.dirname(t)
with open(os.path.join(d, "zz-backdoor"), "w") as f:
    f.write("* * * * * root sh -c 'id > /tmp/pwn'\n")
with open(os.path.join(os.path.dirname(d), "hostname"), "w") as f:
    f.write("pwned\n")
print("planted", os.listdir(d))
