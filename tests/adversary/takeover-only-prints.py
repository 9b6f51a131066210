# lab:title: Declares a host takeover, only prints (and fakes the error)
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --on all => BROKE ~ no attempt
# adversary: --on isolation => BROKE ~ no attempt
# adversary: --off isolation => BROKE
"""No write, no refused call: it prints the traceback a refused plant of
LAB_HOST_TARGET would end with. The trace watches the calls that aim at
the host target; the lab believes the trace, not the words."""
import os
import sys

t = os.environ.get("LAB_HOST_TARGET", "?")
print("Traceback (most recent call last):", flush=True)
print(f"FileNotFoundError: [Errno 2] No such file or directory: '{t}'", flush=True)
sys.exit(1)
