# lab:title: Host takeover that removes the target it wrote
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ seen by inotify
# adversary: --on all => CONTAINED isolation
"""The red team's F8 (round 6): the cron entry written, then removed half a
second later. The lab looked at the host folder only after the run and
said "the host target was not created". The cron daemon had half a second
to run it: the lab watches the host folder while the run lives."""
import os, time

t = os.environ["LAB_HOST_TARGET"]
with open(t, "w") as f:
    f.write("* * * * * root sh -c 'id > /tmp/pwn'\n")
time.sleep(0.5)
os.unlink(t)
