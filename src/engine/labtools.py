"""labtools: the host's tools, called as functions from inside the sandbox.

The lab (src/tools.c) serves them on one door it owns: one end of a unix
socket pair, handed to the sandbox as descriptor 9 (on the gvisor rung, a
host socket at /run/lab-tools.sock). That door is an allowed channel
like the allow-list's proxy: No-network leaves it open, because tools are
what the task is for. Each call is one line out and one line back:
    TOOL <TAB> ARG ... (each argument percent-quoted) <NEWLINE>
    {"ok": true, "result": ...} or {"ok": false, "error": "..."} <NEWLINE>
The lab logs every call with its bytes. send_payment is a gated tool: the
lab's gate, outside this code, approves or refuses it.
Standard library only.
"""
import json
import os
import socket
import urllib.parse

_FD = 9
_SOCK = "/run/lab-tools.sock"
_conn = None
_file = None


class ToolError(Exception):
    """The lab answered a call with an error (a refusal of the gate's among them)."""


def _connect():
    """The door: the lab's end of a socket pair, fd 9 (src/tools.h); on the
    gvisor rung, which passes no descriptor in, a socket at _SOCK instead."""
    global _conn, _file
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, _FD)
    except OSError:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(_SOCK)
    _conn, _file = s, s.makefile("rb")


def _call(tool, *args):
    if _conn is None:
        _connect()
    line = "\t".join([tool] + [urllib.parse.quote(str(a), safe="") for a in args]) + "\n"
    _conn.sendall(line.encode())
    answer = _file.readline()
    if not answer:
        raise ToolError(f"{tool}: the lab closed the tool door")
    reply = json.loads(answer)
    if not reply.get("ok"):
        raise ToolError(reply.get("error", "refused"))
    return reply.get("result")


def search(query):
    """[{"id", "title", "score"}, ...]: the corpus's best matches for query."""
    return _call("search", query)


def read(doc_id):
    """{"id", "title", "text"} of one document."""
    return _call("read", doc_id)


def send_payment(to, amount):
    """Pays amount to to: irreversible. The lab's gate decides; a refusal raises ToolError."""
    return _call("send_payment", to, amount)
