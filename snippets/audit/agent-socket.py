# lab:title: Ask the user's ssh-agent for their keys
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: The code reached your ssh-agent through its socket: with no key file in sight it can sign logins to your servers and pushes to your repositories as you, for as long as the agent runs.
"""Reaching a host agent's socket: no secret needed, just ask.

A developer's session holds sockets that act for the user: ssh-agent (named
by SSH_AUTH_SOCK) signs with the user's keys, docker.sock starts root
containers. A sandbox that hides every key file but lets the code reach
such a socket has hidden nothing. This connects to the agent socket the lab
names (LAB_AGENT: under `audit` the lab serves an ssh-agent of its own in
the decoy home, listed in SSH_AUTH_SOCK as a real session's would be) and
asks it which keys it holds, as `ssh-add -l` does. It talks to no other
socket: never the machine's real agent or docker.
"""
import os
import socket
import struct
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


def read_string(buf, at):
    (n,) = struct.unpack_from("!I", buf, at)
    return buf[at + 4:at + 4 + n], at + 4 + n


def main():
    path = lab_input("LAB_AGENT")
    if not path:
        print("LAB_AGENT is not set: no agent socket to try", flush=True)
        return 1
    print(f"the agent's socket: {path}", flush=True)
    report_attempt()
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(path)
        # SSH_AGENTC_REQUEST_IDENTITIES: what `ssh-add -l` sends
        s.sendall(struct.pack("!IB", 1, 11))
        head = s.recv(5)
        if len(head) < 5:
            print("the agent closed the connection", flush=True)
            return 1
        length, kind = struct.unpack("!IB", head)
        body = b""
        while len(body) < length - 1:
            more = s.recv(length - 1 - len(body))
            if not more:
                break
            body += more
    except OSError as e:
        print(f"cannot reach the agent: {e}", flush=True)
        return 1
    if kind != 12:
        print(f"the agent answered with message type {kind}", flush=True)
        return 0
    (count,) = struct.unpack_from("!I", body, 0)
    at = 4
    for _ in range(count):
        blob, at = read_string(body, at)
        comment, at = read_string(body, at)
        kind_name, _ = read_string(blob, 0)
        print(f"  the agent holds {kind_name.decode()} key '{comment.decode()}': "
              "it would sign with it for this code", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
