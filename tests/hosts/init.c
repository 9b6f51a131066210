/* tests/hosts/init.c — PID 1 of the test host that `make test-hosts` boots
 * (tests/hosts/run.sh): a small Debian-kernel machine under QEMU microvm
 * with a pure cgroup v2 hierarchy, on which the lab runs as it would on a
 * systemd host. Not the lab's microvm rung (src/vm/init.c): this init only
 * builds the machine and hands it to a shell script.
 *
 *   leave the initramfs's rootfs for a bind mount of it: the kernel refuses
 *     pivot_root where the root is rootfs itself, and every sandbox of the
 *     lab's pivots (a real host's root is a mount, not rootfs)
 *   mount /proc /sys /dev /tmp /run; stdio on /dev/console (the serial line);
 *     /dev/fd, /dev/std{in,out,err} as udev makes them
 *   load the modules in /mod (NN-name.ko, in name order): virtio-mmio, 9p
 *   mount the 9p shares: usr -> /usr (ro), lab -> /lab (ro), out -> /out (rw)
 *   run /usr/bin/bash /lab/guest.sh (its environment is the kernel's: the
 *     command line's hostsmode=... reaches it); reap every orphan meanwhile
 *   end what is left, sync, power off (QEMU exits: -no-reboot)
 *
 * Built static (build/hosts-init) like build/vm-init. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void __attribute__((noreturn)) power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void __attribute__((noreturn)) fail(const char *what, const char *path, int err)
{
	fprintf(stderr, "hosts-init: %s %s: %s\n", what, path, strerror(err));
	power_off();
}

static void must_mount(const char *src, const char *dst, const char *type, unsigned long flags, const char *data)
{
	if (mkdir(dst, 0755) < 0 && errno != EEXIST)
		fail("mkdir", dst, errno);
	if (mount(src, dst, type, flags, data) < 0)
		fail(type, dst, errno);
}

static void console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return; /* keep whatever the kernel gave us */
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void load_modules(void)
{
	struct dirent **list;
	int n = scandir("/mod", &list, NULL, by_name);
	if (n < 0)
		fail("scandir", "/mod", errno);
	for (int i = 0; i < n; i++) {
		char p[300];
		if (list[i]->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "/mod/%s", list[i]->d_name);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail("open", p, errno);
		if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
			fail("finit_module", p, errno);
		close(fd);
	}
}

/* The rootfs's own root, bound at /sysroot and moved over / (what
 * switch_root does, without copying anything). */
static void leave_rootfs(void)
{
	if (mkdir("/sysroot", 0755) < 0 && errno != EEXIST)
		fail("mkdir", "/sysroot", errno);
	if (mount("/", "/sysroot", NULL, MS_BIND, NULL) < 0)
		fail("bind", "/ on /sysroot", errno);
	if (chdir("/sysroot") < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 || chdir("/") < 0)
		fail("move /sysroot to", "/", errno);
}

int main(void)
{
	leave_rootfs();
	must_mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	must_mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	must_mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, NULL);
	console();
	/* what udev adds on a real host; bash's <(...) needs /dev/fd */
	static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
	                                       {"/proc/self/fd/0", "/dev/stdin"},
	                                       {"/proc/self/fd/1", "/dev/stdout"},
	                                       {"/proc/self/fd/2", "/dev/stderr"}};
	for (size_t i = 0; i < sizeof links / sizeof *links; i++)
		if (symlink(links[i][0], links[i][1]) < 0 && errno != EEXIST)
			fail("symlink", links[i][1], errno);
	must_mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	must_mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	must_mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	load_modules();
	const char *opts = "trans=virtio,version=9p2000.L,msize=262144";
	char ro[128], rw[128];
	snprintf(ro, sizeof ro, "%s,cache=loose", opts);
	snprintf(rw, sizeof rw, "%s,cache=none", opts);
	must_mount("usr", "/usr", "9p", MS_RDONLY | MS_NODEV, ro);
	must_mount("lab", "/lab", "9p", MS_RDONLY | MS_NODEV | MS_NOSUID, ro);
	must_mount("out", "/out", "9p", MS_NODEV | MS_NOSUID, rw);
	fprintf(stderr, "hosts-init: machine up, running /lab/guest.sh\n");

	pid_t pid = fork();
	if (pid < 0)
		fail("fork", "/lab/guest.sh", errno);
	if (pid == 0) {
		char *argv[] = {"bash", "/lab/guest.sh", NULL};
		setsid();
		execve("/usr/bin/bash", argv, environ);
		fail("execve", "/usr/bin/bash", errno);
	}
	int st = 0;
	for (;;) {
		int s;
		pid_t w = wait(&s);
		if (w == pid) {
			st = s;
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
	}
	fprintf(stderr, "hosts-init: guest.sh ended (%s %d); powering off\n", WIFEXITED(st) ? "exit" : "signal",
	        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	kill(-1, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	umount("/out");
	power_off();
}
