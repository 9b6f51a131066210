# lab:title: hand a memfd and the run's /tmp to a process outside
# lab:threat: exfil
# lab:layer: network
# lab:consequence: test
# With No-network off the run shares the host's network namespace, abstract
# unix sockets included: a local process of ANY uid listening on one receives
# descriptors by SCM_RIGHTS. A memfd (memory) and the run's private /tmp (a
# tmpfs of the run's) then outlive the run, held by that stranger.
# The stranger: tests/red16/fd_collector.py, run as another uid.
import ctypes, os, socket, array
libc = ctypes.CDLL(None, use_errno=True)
mfd = libc.memfd_create(b'outlives-the-run', 0)
chunk = b'\x5a' * (1 << 20)
for i in range(64):
    os.write(mfd, chunk)
os.write(mfd, b'written by the run\n')
tmp = os.open('/tmp', os.O_RDONLY | os.O_DIRECTORY)
open('/tmp/left-in-the-runs-tmp', 'w').write('hello\n')
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect('\0r16-collector')
s.sendmsg([b'fds'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [mfd, tmp]))])
print('handed out a 64 MiB memfd and /tmp:', s.recv(64))
