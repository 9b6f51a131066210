#!/bin/bash
# usage (root; the stage folder /tmp/r16 holds containment-lab, layers.ini, show.py, this folder's .py):
#   RESOLV_TARGET=/run/resolv.conf unshare -m --propagation private ./resolv_in_run_setup.sh
# (RESOLV_TARGET=/run/systemd/resolve/stub-resolv.conf, the Ubuntu default, holds: only that folder returns)
# private mount namespace: /etc and /run are tmpfs copies of this ns only

rm -rf /tmp/r16/etc.copy; mkdir -p /tmp/r16/etc.copy && cp -a /etc/. /tmp/r16/etc.copy/
mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/resolve
mount --bind /tmp/r16/etc.copy /etc
rm -f /etc/resolv.conf
echo "nameserver 10.255.255.53" > "$RESOLV_TARGET"
ln -s "$RESOLV_TARGET" /etc/resolv.conf
python3 -c '
import socket, os, sys
s = socket.socket(socket.AF_UNIX); s.bind("/run/r16-daemon.sock"); os.chmod("/run/r16-daemon.sock", 0o777); s.listen()
if os.fork() == 0:
    s.settimeout(20)
    try:
        while True:
            c, _ = s.accept(); d = c.recv(100); c.sendall(b"daemon got: " + d); c.close()
    except Exception: pass
    os._exit(0)
'
cd /tmp/r16
for u in 0 65534; do
  echo "== uid $u, resolv.conf -> $RESOLV_TARGET"
  setpriv --reuid=$u --regid=$u --clear-groups ./containment-lab --config /tmp/r16/layers.ini run /tmp/r16/resolv_in_run_probe.py --on none --json > o.$u.json
  python3 show.py o.$u.json | sed -n 1,5p
  setpriv --reuid=$u --regid=$u --clear-groups ./containment-lab --config /tmp/r16/layers.ini run legit --on none 2>&1 | sed -n 4,5p
done
