# lab:title: T
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A process of the attacker kept running after the sandbox ended.
import os, sys, time, shutil
def lab_input(name):
    for arg in sys.argv[1:]:
        k, eq, v = arg.partition("=")
        if eq and k == name and not os.environ.get(name):
            return v
    return os.environ.get(name)
print("lab-attempt: " + lab_input("LAB_PROOF")[::-1], flush=True)
def detach():
    if os.fork(): 
        os.wait(); return False
    os.setsid()
    if os.fork(): os._exit(0)
    fd = os.open(os.devnull, os.O_RDWR)
    for i in (0,1,2): os.dup2(fd, i)
    return True

if detach():
    os.execv("/bin/sh", ["sh", "-c", "i=0; while [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done"])
print("daemon started", flush=True)
