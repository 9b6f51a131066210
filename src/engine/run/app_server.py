"""The lab's app server: the rung below the container (--rung in-process).

The lesson's exercise 2: "a teammate runs the agent's generated Python with
exec() inside your FastAPI server because it's faster". This is that server,
small but shaped like a real one: it reads its configuration at start-up
and keeps it in module globals, holds a keep-alive client for the supplier's
API, has the customer data loaded, and then handles one request: the
agent's code, run with exec() in this process, in this module's globals.

No layer of the lab's can apply here: namespaces, filters, a clean
environment and limits all need a process boundary, and exec() has none.
What the app holds, the snippet holds. The lab's range still surrounds this
process, so the machine stays safe; the lab judges from its own evidence.

The lab writes this file into the run's work folder and runs it as
    python3 -u app_server.py SNIPPET.py
Standard library only.
"""

import csv
import http.client
import os
import sys
import traceback
import urllib.parse

# --- configuration, read once at start-up, as apps do -----------------------
# The database URL (with its password) stays in the environment too: most
# apps read it from there and keep a copy.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
# The session-signing secret is taken out of the environment after it is
# read, a common "hardening": it lives on only in this module's globals.
SESSION_TOKEN = os.environ.pop("LAB_APP_SESSION", "")

# --- the client for the supplier's API (api.lab.test) -----------------------
# One keep-alive connection for the app's requests, made at start-up as
# apps do; http.client opens its socket on the first request (a socket
# opened here and left idle would only wait for the small internet to give
# up on it).
API_URL = os.environ.get("LAB_API", "")
API = None
if API_URL:
    _u = urllib.parse.urlsplit(API_URL)
    API = http.client.HTTPConnection(_u.hostname, _u.port or 80, timeout=3)

# --- the customer data, loaded in memory --------------------------------------
CUSTOMERS = []
try:
    with open(os.environ.get("LAB_DATA", "sales.csv"), newline="") as _f:
        CUSTOMERS = list(csv.DictReader(_f))
except OSError as e:
    print(f"app server: no customer data: {e}", file=sys.stderr)


def handle_generated_code(path):
    """The handler the teammate wrote: the model's code, exec()'d here."""
    with open(path) as f:
        generated = f.read()
    sys.argv = [path]
    # exec(generated), as the lesson shows it: the app's own globals, its
    # own process, its own privileges
    exec(compile(generated, path, "exec"), globals())


if __name__ == "__main__" and len(sys.argv) == 2:
    try:
        handle_generated_code(sys.argv[1])
    except SystemExit:
        # the snippet's sys.exit() ends the whole server, as it would in a
        # real one that does not catch it
        raise
    except BaseException:  # a crash in the generated code is the server's crash
        traceback.print_exc()
        sys.exit(1)
