# lab:title: Host takeover that points the host's /etc at a file the lab can see
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ replaced etc (folder by symlink)
"""The red team's F9 (round 6): /etc removed from the host folder and a
symlink planted in its place, aimed at a folder outside it that already
holds cron.d/containment-lab-persist ("old", 4 bytes). The lab followed
the snippet's symlink and said the run planted that file: the run wrote
not one byte of it. The lab never follows a symlink in the host folder;
what the run did (a folder replaced by a symlink) is the evidence.

The foreign folder: adversary_test.sh makes @ADVERSARY_TMP@/X/fake under
its own temp folder (and writes its path here) before the runs. The run
never sees it (its /tmp is private): only the lab, outside, could follow
the link there."""
import os, shutil

t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
shutil.rmtree(host + "/etc")
os.symlink("@ADVERSARY_TMP@/X/fake", host + "/etc")
