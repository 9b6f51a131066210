# lab:title: /run comes back whole when resolv.conf's folder is /run
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: test
# rootfs.c's resolv_under_run() puts back the folder of realpath(resolv.conf)
# when it is under /run. For /etc/resolv.conf -> /run/resolv.conf that folder
# is /run itself: the cover is undone, every daemon socket in /run is back
# (read-only mounts do not stop connect()). Set up by resolv_in_run_setup.sh
# in a private mount namespace with a stand-in daemon at /run/r16-daemon.sock.
import os, socket
print('resolv.conf ->', os.path.realpath('/etc/resolv.conf'))
print('/run holds:', sorted(os.listdir('/run')))
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('/run/r16-daemon.sock'); s.sendall(b'hello from the run\n'); print('daemon says:', s.recv(100))
except OSError as e:
    print('connect /run/r16-daemon.sock:', e)
