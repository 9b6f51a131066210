# not a snippet: the stranger for fd_handed_out.py, run as another uid, e.g.
#   setpriv --reuid=1234 --regid=1234 --clear-groups python3 fd_collector.py
import socket, os, array, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind('\0r16-collector'); s.listen(1); s.settimeout(30)
c, _ = s.accept()
msg, anc, flags, addr = c.recvmsg(16, socket.CMSG_LEN(8))
fds = array.array('i'); fds.frombytes(anc[0][2][:8])
c.sendall(b'got them'); c.close()
mfd, tmp = fds
print('collector: got fds', list(fds), flush=True)
time.sleep(5)
print('collector, 5 s later: memfd', os.readlink(f'/proc/self/fd/{mfd}'), os.fstat(mfd).st_size, 'bytes;',
      'run /tmp holds', os.listdir(f'/proc/self/fd/{tmp}'), flush=True)
print('collector reads the dead run\'s /tmp:', open(f'/proc/self/fd/{tmp}/left-in-the-runs-tmp').read().strip(), flush=True)
