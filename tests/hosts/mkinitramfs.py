#!/usr/bin/env python3
"""tests/hosts/mkinitramfs.py OUT INIT RELEASE — the test host's initramfs
(cpio newc, written here: no cpio tool needed), its whole small root:

  /init                 build/hosts-init (tests/hosts/init.c)
  /mod/NN-name.ko       the guest kernel's virtio-mmio and 9p modules, in the
                        order they must be inserted
  /etc                  passwd and group (root, user 1000, nobody), hosts,
                        nsswitch.conf, the host's ld.so.cache (it describes
                        the host's /usr, which the guest mounts), localtime
  /bin /lib /lib64 /sbin  links into /usr (Debian's merged /usr)
  /proc /sys /dev /tmp /run /usr /lab /out /root /home/user /var/tmp
                        mount points and homes

Standard library only. Exits 2 with one line when a module is missing."""
import os
import stat
import sys

MODULES = ["drivers/virtio/virtio_ring", "drivers/virtio/virtio", "drivers/virtio/virtio_mmio",
           "fs/netfs/netfs", "fs/fscache/fscache", "net/9p/9pnet", "net/9p/9pnet_virtio", "fs/9p/9p"]


class Cpio:
    def __init__(self, f):
        self.f, self.ino = f, 1

    def entry(self, name, mode, data=b"", uid=0, gid=0, rdev=(0, 0)):
        n = name.encode() + b"\0"
        nlink = 2 if stat.S_ISDIR(mode) else 1
        hdr = "070701" + "".join("%08X" % v for v in (
            self.ino, mode, uid, gid, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(n), 0))
        self.ino += 1
        self.f.write(hdr.encode() + n)
        self.f.write(b"\0" * ((4 - (110 + len(n)) % 4) % 4))
        if data:
            self.f.write(data)
            self.f.write(b"\0" * ((4 - len(data) % 4) % 4))

    def dir(self, name, perm=0o755, uid=0, gid=0):
        self.entry(name, stat.S_IFDIR | perm, uid=uid, gid=gid)

    def file(self, name, data, perm=0o644):
        self.entry(name, stat.S_IFREG | perm, data if isinstance(data, bytes) else data.encode())

    def link(self, name, target):
        self.entry(name, stat.S_IFLNK | 0o777, target.encode())


def main():
    out, init, release = sys.argv[1:4]
    mods = []
    builtin = ""
    try:
        builtin = open("/lib/modules/%s/modules.builtin" % release).read()
    except OSError:
        pass
    for m in MODULES:
        p = "/lib/modules/%s/kernel/%s.ko" % (release, m)
        if os.access(p, os.R_OK):
            mods.append((m.rsplit("/", 1)[1], open(p, "rb").read()))
        elif "kernel/%s.ko\n" % m not in builtin:
            print("the guest kernel %s has no %s module under /lib/modules/%s" % (release, m, release))
            sys.exit(2)
    with open(out, "wb") as f:
        c = Cpio(f)
        for d in ("dev", "proc", "sys", "tmp", "run", "usr", "lab", "out", "mod", "etc", "var", "var/tmp",
                  "home"):
            c.dir(d, 0o1777 if d in ("tmp", "var/tmp") else 0o755)
        c.dir("root", 0o700)
        c.dir("home/user", 0o755, 1000, 1000)
        c.entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
        c.file("init", open(init, "rb").read(), 0o755)
        for i, (name, data) in enumerate(mods):
            c.file("mod/%02d-%s.ko" % (i + 10, name), data)
        for l in ("bin", "lib", "lib64", "sbin"):
            c.link(l, "usr/" + l)
        c.file("etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
                             "user:x:1000:1000:test user:/home/user:/bin/bash\n"
                             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
        c.file("etc/group", "root:x:0:\nuser:x:1000:\nnogroup:x:65534:\n")
        c.file("etc/hosts", "127.0.0.1 localhost\n::1 localhost\n")
        c.file("etc/hostname", "lab-host\n")
        c.file("etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files\n")
        if os.path.exists("/etc/ld.so.cache"):
            c.file("etc/ld.so.cache", open("/etc/ld.so.cache", "rb").read())
        c.link("etc/localtime", "/usr/share/zoneinfo/Etc/UTC")
        c.entry("TRAILER!!!", 0)


main()
