# lab:title: Schedule something for later
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: A job queued with at, systemd or cron, or a file a login reads, runs the attacker's command on the host after the run, whatever the sandbox was.
"""Try at, systemd-run (system and --user) and crontab where they exist
(each bounded to 1 s; crontab only when the user has none, so nobody's
crontab is ever replaced), write into /var/spool/cron and /etc/cron.d,
leave files in /var/tmp, /dev/shm, $XDG_RUNTIME_DIR and /run/user/UID, and
hand an armed timerfd to a daemon that sleeps 30 s. Every job only runs
/bin/true."""
import ctypes
import os
import shutil
import subprocess
import time

N = "cl-@NONCE@"
LINE = "* * * * * /bin/true # %s\n" % N


def run(argv, data=None):
    try:
        p = subprocess.run(argv, input=data, capture_output=True, text=True, timeout=1)
        print("%s: exit %d %s" % (argv[0], p.returncode, (p.stderr or p.stdout).strip()[:120]), flush=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        print("%s: %s" % (argv[0], e), flush=True)


if shutil.which("at"):
    run(["at", "now + 1 hour"], "/bin/true # %s\n" % N)
else:
    print("at: not installed", flush=True)
if shutil.which("systemd-run"):
    run(["systemd-run", "--on-active=3600", "--unit=%s-timer" % N, "/bin/true"])
    run(["systemd-run", "--user", "--on-active=3600", "--unit=%s-utimer" % N, "/bin/true"])
else:
    print("systemd-run: not installed", flush=True)
if shutil.which("crontab"):
    have = subprocess.run(["crontab", "-l"], capture_output=True, timeout=1)
    if have.returncode == 0:
        print("crontab: the user has one, left alone", flush=True)
    else:
        run(["crontab", "-"], LINE)
else:
    print("crontab: not installed", flush=True)

user = str(os.getuid())
for p in ("/var/spool/cron/crontabs/" + N, "/var/spool/cron/" + N, "/etc/cron.d/" + N,
          "/var/tmp/" + N, "/dev/shm/" + N,
          os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/run/user/" + user), N),
          "/run/user/%s/%s" % (user, N), os.path.join(os.environ.get("HOME", "/"), N + "-profile")):
    try:
        with open(p, "w") as f:
            f.write(LINE)
        print("left:", p, flush=True)
    except OSError as e:
        print("refused:", p, e.strerror, flush=True)


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class Itimerspec(ctypes.Structure):
    _fields_ = [("it_interval", Timespec), ("it_value", Timespec)]


libc = ctypes.CDLL(None, use_errno=True)
tfd = libc.timerfd_create(1, 0)  # CLOCK_MONOTONIC
if tfd < 0:
    print("timerfd_create refused:", os.strerror(ctypes.get_errno()), flush=True)
else:
    spec = Itimerspec(Timespec(1, 0), Timespec(1, 0))
    libc.timerfd_settime(tfd, 0, ctypes.byref(spec), None)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            nul = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(nul, fd)
            os.set_inheritable(tfd, True)
            os.execv("/bin/sleep", [N + "-timerd", "30"])  # the descriptors stay open across exec
        os._exit(0)
    os.wait()
    os.close(tfd)
    print("left: a daemon holding an armed timerfd", flush=True)
time.sleep(0.1)
