# lab:title: Steal API keys and cloud credentials
# lab:threat: secrets
# lab:layer: env
# lab:consequence: Your API keys, database password and cloud credentials are now the attacker's: expect fraudulent charges and a breach of whatever they unlock.
import os, socket, struct, sys
def lab_input(name):
    for arg in sys.argv[1:]:
        k, eq, v = arg.partition("=")
        if eq and k == name and not os.environ.get(name):
            return v
    return os.environ.get(name)
print("lab-attempt: " + lab_input("LAB_PROOF")[::-1], flush=True)
s = socket.socket(socket.AF_UNIX); s.connect(lab_input("LAB_AGENT")); s.sendall(struct.pack("!IB", 1, 11))
print("agent answered %d bytes" % len(s.recv(4096)), flush=True)
