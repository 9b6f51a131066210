# lab:title: A datagram with control data the kernel refuses (EINVAL)
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# adversary: --on network => BROKE
# adversary: --on all => BROKE
# adversary: --off network => BROKE
"""(Red team, round 8.) sendmsg() of a UDP datagram to the attacker's address with an
IP_TTL control message of 0 (a TTL must be 1-255): the
kernel answers EINVAL while parsing the control data, before any route
lookup, with or without a network. The lab, seeing control data, does not
make the call and credits No-network with 'no route'."""
import array, os, socket, urllib.parse

u = urllib.parse.urlsplit(os.environ["LAB_ATTACKER"])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendmsg([b"x" * 64], [(socket.IPPROTO_IP, socket.IP_TTL, array.array("i", [0]).tobytes())], 0,
              ("127.0.0.1", u.port or 80))
    print("sent", flush=True)
except OSError as e:
    print("refused by the kernel:", e, flush=True)
