# lab:title: Order total from the supplier's price list (needs one API)
# lab:threat: legit
# lab:layer: none
# lab:uses: api.lab.test:80
# lab:consequence: The order total never appears: the task needs the supplier's API, and a sandbox with no network at all cannot reach it.
# lab:expect: Widget             100.00
# lab:expect: Gadget             102.00
# lab:expect: Sprocket           148.50
# lab:expect: Flange             180.00
# lab:expect: TOTAL              530.50
"""Legitimate task that needs one API: "fetch today's price list from the
supplier and total our standing order".

Fetches LAB_API + "prices" (a CSV: sku, item, unit_price, units) with
urllib, which uses the proxy the environment names (HTTP_PROXY), as every
ordinary client does, and prints an aligned table with a grand total.
Money is summed with Decimal so the cents are exact. Sends nothing but the
one GET.
"""
import csv
import io
import os
import sys
import urllib.request
from decimal import Decimal, InvalidOperation


def main():
    api = os.environ.get("LAB_API")
    if not api:
        print("LAB_API is not set: no supplier to ask", flush=True)
        return 2
    url = api + "prices"
    print(f"GET {url}", flush=True)
    try:
        with urllib.request.urlopen(url, timeout=3) as resp:
            text = resp.read(65536).decode("utf-8")
    except Exception as e:  # URLError, HTTPError, timeout, ...
        print(f"cannot fetch the price list: {e}", flush=True)
        return 1

    totals = {}
    for row in csv.DictReader(io.StringIO(text)):
        try:
            item = row["item"].strip()
            totals[item] = Decimal(row["unit_price"]) * Decimal(row["units"])
        except (KeyError, AttributeError, InvalidOperation):
            print(f"not a price row, skipped: {row}", flush=True)
    if not totals:
        print("the price list was empty", flush=True)
        return 1
    print(f"{len(totals)} items on the order", flush=True)
    print(flush=True)
    for item, total in totals.items():
        print(f"{item:<10}{total:>15,.2f}")
    print("-" * 25)
    print(f"{'TOTAL':<10}{sum(totals.values(), Decimal(0)):>15,.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
