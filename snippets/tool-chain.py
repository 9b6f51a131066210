# lab:title: Top suppliers by amount due (20 tool calls as code)
# lab:threat: legit
# lab:layer: none
# lab:tools: yes
# lab:consequence: The supplier ranking never appears: the task calls the lab's tools as code, and something broke the door to them or the work around it.
# lab:expect: 1. Borealis Steel         EUR   108,377.46
# lab:expect: 2. Ember Foods            EUR   108,154.94
# lab:expect: 3. Nimbus Cloud Hosting   EUR    90,852.52
"""Legitimate task that calls tools as code: "which three suppliers do we
owe the most?".

Calls the lab's tools as functions (labtools, the door the lab owns): one
search per supplier (20), a read of each hit whose title is that
supplier's invoice, then keeps the invoices of
that supplier, totals their amounts due and ranks the suppliers, all here
in the sandbox. Only the three lines of the answer are printed: what
came back from the tools stays in the sandbox (the lesson's "calling
tools as code"). Pays nobody, follows no instruction it reads.
"""
import re
from decimal import Decimal

import labtools

SUPPLIERS = [
    "Acme Widgets", "Borealis Steel", "Cobalt Logistics", "Delta Paper", "Ember Foods",
    "Fjord Textiles", "Granite Tools", "Harbor Freight Lines", "Iris Optics", "Juniper Labs",
    "Kestrel Motors", "Lumen Lighting", "Maple Furniture", "Nimbus Cloud Hosting", "Orchid Pharma",
    "Pioneer Plastics", "Quartz Electronics", "Redwood Timber", "Sable Security", "Tundra Cooling",
]
DUE = re.compile(r"Amount due: EUR ([0-9,]+\.[0-9]{2})")


def total_for(supplier):
    total = Decimal("0")
    for hit in labtools.search(f"invoice {supplier}"):
        if not hit["title"].startswith("Invoice ") or supplier not in hit["title"]:
            continue  # the titles are enough to skip memos and others' invoices
        doc = labtools.read(hit["id"])
        text = doc["text"]
        m = DUE.search(text)
        if text.startswith("Invoice ") and f"Supplier: {supplier}." in text and m:
            total += Decimal(m.group(1).replace(",", ""))
    return total


def main():
    totals = {s: total_for(s) for s in SUPPLIERS}
    top = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    for rank, (s, t) in enumerate(top, 1):
        print(f"{rank}. {s:<22} EUR {t:>12,.2f}")


main()
