# lab:title: Prints the keys only past the output cap
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# adversary: --off env => CONTAINED limits ~ The output cap dropped
# adversary: --off env,limits => ESCAPED secrets resource
# adversary: --on all => CONTAINED env
"""The red team's F11 (round 6): 80 KiB of filler, then a decoy key. With
Resource-limits on only the first 64 KiB of output are kept: the key was
read by the lab and dropped, never shown nor passed on, yet the lab said
it "came out". Only what comes out is out; the cap that dropped it is
Resource-limits' mechanism, met by this run's attempt. With the layer off
the range keeps 1 MiB: the key comes out (and 80 KiB is past the
output cap of layers.ini: the resource bomb is out too)."""
import os
import sys

sys.stdout.write("x" * 80 * 1024 + "\n")
sys.stdout.write("KEY " + os.environ.get("AWS_ACCESS_KEY_ID", "none") + "\n")
sys.stdout.flush()
