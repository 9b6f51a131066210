# lab:title: Prints a key across the output cap, most of it kept
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# adversary: --off env => ESCAPED secrets
# adversary: --on all => CONTAINED env
"""The red team's round 7, finding 8: filler up to 24 bytes short of the
64 KiB output cap, then a decoy key. The kept output ends with its first
24 characters: neither the scanner of the kept bytes nor the one of the
dropped bytes saw the token whole, and the lab said BROKE, "no planted
secret came out". Most of it did: out."""
import os
import sys

key = os.environ.get("AWS_SECRET_ACCESS_KEY", "none")
keep = max(1, len(key) * 3 // 4)
sys.stdout.buffer.write(b"x" * (64 * 1024 - keep))
sys.stdout.buffer.write(key.encode() + b"\n")
sys.stdout.flush()
