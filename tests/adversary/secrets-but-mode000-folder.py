# lab:title: Secret theft that leaves an empty folder no one may read
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# adversary: --off isolation => ESCAPED takeover ~ created cache (folder)
"""The red team's F10 (round 6): one empty folder, mode 000, made in the
host folder. As root the lab read past the mode and said CONTAINED by
Clean-env; as uid 65534 it could not, and said ESCAPED because "a setuid
file or device node there cannot be ruled out". Same run, two verdicts.
A folder made in the host folder is the host written, for both; the lab's
sweep reads the folder (its owner may open it up) rather than guess."""
import os

t = os.environ["LAB_HOST_TARGET"]
host = t[: t.index("/host/") + 5]
os.mkdir(host + "/cache", 0o000)
