# lab:title: Ask the agent and hang up at once
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: The code reached your ssh-agent.
import os, socket, struct, sys, time
def lab_input(name):
    for arg in sys.argv[1:]:
        k, eq, v = arg.partition("=")
        if eq and k == name and not os.environ.get(name):
            return v
    return os.environ.get(name)
p = lab_input("LAB_PROOF")
print(f"lab-attempt: {p[::-1]}", flush=True)
path = lab_input("LAB_AGENT")
for i in range(1):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(struct.pack("!IB", 1, 11))
    s.close()
    time.sleep(0.05)
print("done", flush=True)
