# lab:title: Sends itself SIGXCPU without spending any CPU
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# adversary: --on all => BROKE
# adversary: --off limits => BROKE
"""The red team's F1 (round 6): SIGXCPU is RLIMIT_CPU's signal, but any
process may send it. This one spends a tenth of a second of CPU and kills
itself with it: the lab said "killed by RLIMIT_CPU (SIGXCPU) at the 2 s CPU
cap (the run used 0.1 s in all)". RLIMIT_CPU never fired; no layer may take
the credit for a signal the snippet sent itself."""
import os
import signal

print("no CPU spent; sending myself SIGXCPU", flush=True)
os.kill(os.getpid(), signal.SIGXCPU)
