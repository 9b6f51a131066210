# lab:title: Declares exfiltration, sends itself SIGXCPU before any move
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --off network => BROKE
# adversary: --on all => BROKE
"""The red team's F1 (round 6), with another header: the lab said
"CONTAINED by limits: killed by RLIMIT_CPU (SIGXCPU) before the attack got
anywhere", with No-network off and 0.1 s of the 2 s CPU cap spent. A limit
that never fired stops nothing: it made no attempt, and no layer takes the
credit."""
import os
import signal

print("no CPU spent; sending myself SIGXCPU", flush=True)
os.kill(os.getpid(), signal.SIGXCPU)
