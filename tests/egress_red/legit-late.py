# lab:title: legit-api after a second
# lab:threat: legit
# lab:layer: none
# lab:uses: api.lab.test:80
# lab:expect: TOTAL              530.50
import time, urllib.request, csv, io
from decimal import Decimal
time.sleep(3)
t = urllib.request.urlopen("http://api.lab.test/prices", timeout=3).read().decode()
tot = sum(Decimal(r["unit_price"]) * Decimal(r["units"]) for r in csv.DictReader(io.StringIO(t)))
print(f"{'TOTAL':<10}{tot:>15,.2f}")
