/* vm/init.c — PID 1 of the microvm rung's guest (box_microvm.c), built
 * static as build/vm-init and put into the initramfs the lab writes for
 * each run. It is the guest's whole user space besides the snippet:
 *
 *   mount /proc /sys /dev; speak on /dev/ttyS0 (raw): our frames only
 *   report the guest kernel's release and boot id (before anything of the
 *     snippet runs: later frames cannot change them)
 *   load the modules (/lab/mod/NN-name.ko, in name order): virtio-mmio, 9p,
 *     and virtio-net when the run has a NIC
 *   walk the run spec's file-system steps ("fs" lines, in order): the 9p
 *     shares read-only (/usr, the task's folder, the home), /bin /lib ...
 *     as the host's links into /usr, folders, a minimal read-only /dev,
 *     tmpfs mounts with their sizes
 *   lo up; eth0 10.0.2.15/24 via 10.0.2.2 when the run has a NIC
 *   No-network's probe: connect() to the attacker, its errno reported
 *   the snippet's cgroup v2 group, which measures it; with Resource-limits
 *     on it holds memory.max and pids.max, and the rlimits are set in the
 *     snippet's process right before execve
 *   fork + exec the snippet, its stdout/stderr a pipe we relay as frames;
 *   report its raw wait status; power off.
 *
 * Frames on the serial line: 0xFE, a type byte, a 16-bit big-endian length,
 * the bytes. 'O' the snippet's output (exec: its stdout), 'e' exec's
 * stderr, 'R' a report line ("K release boot_id", "P errno", "R errno",
 * "C figures" (report_cgroup), "U ms" (the snippet's own CPU), "S status",
 * "E errno stage: what"). The
 * kernel is not given the serial line as its console, so nothing else is
 * on it. The other way (exec only) the lab sends 'I' frames, the command's
 * stdin (an empty one ends it): only we, PID 1, read the line.
 *
 * /lab/conf, one setting a line: the file-system steps ("fs share TAG
 * PATH", "fs link TARGET PATH", "fs dir PATH MODE", "fs tmpfs PATH BYTES
 * MODE", "fs proc PATH", "fs dev PATH"; box_microvm.c renders them from
 * the run spec), "net 1" (a NIC, default
 * route) or "net 2" (the allow-list's: one route, to the gateway), "probe
 * IP PORT", "route IP PORT" (the probe off the door), "exec 1", "limit
 * memory|pids N" (the guest cgroup's caps), "rlimit RLIMIT_NAME SOFT HARD"
 * (the run spec's rlimits, set on the snippet's process as listed), "cwd
 * PATH", "leak FILE"
 * (opened as the snippet's fd 3). /lab/argv and /lab/env: the command line
 * and the environment, one NUL-ended entry each.
 * Every failure is reported with its stage and path, then the guest powers
 * off. */
#define _GNU_SOURCE
#include "guest.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS   1024
#define MAX_FS     40
#define MAX_ENV    1024
#define PATH_CAP   4096
#define STDIN_PEND 65536 /* exec: the command's stdin held back while its pipe is full */

static int con = -1;

/* The rlimits /lab/conf may name (the run spec's, spec.h). */
static const struct {
	const char *name;
	int res;
} rlimit_names[] = {
    {"RLIMIT_AS", RLIMIT_AS},       {"RLIMIT_NPROC", RLIMIT_NPROC},   {"RLIMIT_CPU", RLIMIT_CPU},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE}, {"RLIMIT_NOFILE", RLIMIT_NOFILE}, {"RLIMIT_CORE", RLIMIT_CORE},
};

/* One file-system step of the run spec, as box_microvm.c rendered it */
struct fs_step {
	char kind[8]; /* share, link, dir, tmpfs, proc, dev */
	char a[256];  /* share: the 9p tag; link: its target */
	char path[PATH_CAP];
	unsigned long long size; /* tmpfs */
	unsigned mode;           /* dir, tmpfs */
};

struct conf {
	struct fs_step fs[MAX_FS];
	int n_fs;
	int net; /* 0 no NIC, 1 a NIC with a default route, 2 a NIC that reaches only the gateway */
	char probe_ip[32], route_ip[32];
	int probe_port, route_port;
	bool exec;                 /* `exec`: stdout and stderr apart, stdin from the serial line */
	unsigned long long memory; /* the guest cgroup's caps (0: none) */
	long pids;
	struct {
		int res;
		unsigned long long soft, hard;
	} rl[8];
	int n_rl;
	int cpu_scale; /* RLIMIT_CPU's scale in this guest: TCG_CPU_SCALE under TCG, else 1 */
	char *argv[MAX_ARGS + 1];
	int argc;
	char cwd[PATH_CAP];
	char leak[PATH_CAP]; /* Clean-env off: this file is the snippet's fd 3 */
	char *envp[MAX_ENV + 1];
	/* Isolation: the filter the snippet's process installs, and the calls
	 * it refuses (the rest its listener lets go on) */
	char filter[PATH_CAP];
	struct deny {
		int nr, err;
		char shape[8];
	} deny[GUEST_DENY_MAX];
	int n_deny;
};

static void put_all(const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = write(con, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void frame(char type, const void *buf, size_t n)
{
	while (n > 0) {
		size_t k = n > 65535 ? 65535 : n;
		unsigned char h[4] = {0xFE, (unsigned char)type, (unsigned char)(k >> 8), (unsigned char)k};
		put_all(h, sizeof h);
		put_all(buf, k);
		buf = (const char *)buf + k;
		n -= k;
	}
}

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
	char line[1024]; /* the longest "X" line is ~720 bytes */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof line) /* cut, but never its newline: the next line would join it */
		line[sizeof line - 2] = '\n', n = (int)sizeof line - 1;
	if (n > 0)
		frame('R', line, (size_t)n);
}

static void __attribute__((noreturn)) power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void __attribute__((noreturn)) fail(const char *stage, const char *what, int err)
{
	report("E %d %s: %s\n", err, stage, what);
	if (getpid() != 1) /* the snippet's process (set_limit, put_file): see child_fail */
		_exit(127);
	power_off();
}

static void must_mount(const char *src, const char *dst, const char *type, unsigned long flags, const char *data)
{
	if (mkdir(dst, 0755) < 0 && errno != EEXIST)
		fail("mkdir", dst, errno);
	if (mount(src, dst, type, flags, data) < 0)
		fail(type, dst, errno);
}

static void open_console(void)
{
	con = open("/dev/ttyS0", O_RDWR | O_NOCTTY | O_CLOEXEC);
	/* ours alone: the snippet (uid 65534) must not speak on it */
	static const char *const ttys[] = {"/dev/ttyS0", "/dev/ttyS1",   "/dev/ttyS2",
	                                   "/dev/ttyS3", "/dev/console", "/dev/tty"};
	for (size_t i = 0; i < sizeof ttys / sizeof *ttys; i++)
		(void)chmod(ttys[i], 0600);
	if (con < 0)
		power_off(); /* no way to say anything: the lab sees no report */
	struct termios t;
	if (tcgetattr(con, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(con, TCSANOW, &t);
	}
}

static void report_kernel(void)
{
	struct utsname u;
	char id[64] = "";
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, id, sizeof id - 1);
		id[n > 0 ? n : 0] = '\0';
		id[strcspn(id, "\n")] = '\0';
		close(fd);
	}
	if (uname(&u) < 0)
		fail("uname", "", errno);
	report("K %s %s\n", u.release, id);
}

/* The whole small file at path, NUL-terminated; n gets its length. Read
 * to its end, not to its size: a /proc file says size 0. */
static char *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		fail("open", path, errno);
	size_t cap = (size_t)st.st_size + 4096, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		fail("malloc", path, ENOMEM);
	for (;;) {
		ssize_t got = read(fd, buf + len, cap - 1 - len);
		if (got < 0)
			fail("read", path, errno);
		if (got == 0)
			break;
		len += (size_t)got;
		if (len + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			fail("malloc", path, ENOMEM);
	}
	close(fd);
	buf[len] = '\0';
	*n = len;
	return buf;
}

/* "root /", "share TAG PATH", "link TARGET PATH", "dir PATH MODE", "tmpfs
 * PATH BYTES MODE", "proc PATH", "dev PATH" */
static void read_fs_step(struct conf *c, const char *val)
{
	if (c->n_fs >= MAX_FS)
		fail("read /lab/conf", "more file-system steps than the guest takes", E2BIG);
	struct fs_step *st = &c->fs[c->n_fs];
	int n = 0;
	if (sscanf(val, "%7s", st->kind) != 1)
		fail("read /lab/conf", val, EINVAL);
	if (!strcmp(st->kind, "share") || !strcmp(st->kind, "link"))
		n = sscanf(val, "%*s %255s %4095s", st->a, st->path) == 2;
	else if (!strcmp(st->kind, "dir"))
		n = sscanf(val, "%*s %4095s %o", st->path, &st->mode) == 2;
	else if (!strcmp(st->kind, "tmpfs"))
		n = sscanf(val, "%*s %4095s %llu %o", st->path, &st->size, &st->mode) == 3;
	else if (!strcmp(st->kind, "proc") || !strcmp(st->kind, "dev") || !strcmp(st->kind, "root"))
		n = sscanf(val, "%*s %4095s", st->path) == 1;
	if (!n || st->path[0] != '/')
		fail("read /lab/conf", val, EINVAL);
	c->n_fs++;
}

static void read_conf(struct conf *c)
{
	size_t n;
	char *text = slurp("/lab/conf", &n);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *val = strchr(line, ' ');
		if (!val)
			fail("read /lab/conf", line, EINVAL);
		*val++ = '\0';
		if (!strcmp(line, "fs")) {
			read_fs_step(c, val);
		} else if (!strcmp(line, "net")) {
			c->net = atoi(val);
		} else if (!strcmp(line, "exec")) {
			c->exec = atoi(val) != 0;
		} else if (!strcmp(line, "probe")) {
			if (sscanf(val, "%31s %d", c->probe_ip, &c->probe_port) != 2)
				fail("read /lab/conf", val, EINVAL);
		} else if (!strcmp(line, "route")) {
			if (sscanf(val, "%31s %d", c->route_ip, &c->route_port) != 2)
				fail("read /lab/conf", val, EINVAL);
		} else if (!strcmp(line, "limit")) {
			char name[32];
			unsigned long long v;
			if (sscanf(val, "%31s %llu", name, &v) != 2)
				fail("read /lab/conf", val, EINVAL);
			if (!strcmp(name, "memory"))
				c->memory = v;
			else if (!strcmp(name, "pids"))
				c->pids = (long)v;
		} else if (!strcmp(line, "rlimit")) {
			char name[32];
			unsigned long long soft, hard;
			int res = -1;
			if (sscanf(val, "%31s %llu %llu", name, &soft, &hard) != 3)
				fail("read /lab/conf", val, EINVAL);
			for (size_t k = 0; k < sizeof rlimit_names / sizeof *rlimit_names; k++)
				if (!strcmp(name, rlimit_names[k].name))
					res = rlimit_names[k].res;
			if (res < 0 || c->n_rl >= (int)(sizeof c->rl / sizeof *c->rl))
				fail("read /lab/conf", val, EINVAL);
			c->rl[c->n_rl].res = res;
			c->rl[c->n_rl].soft = soft;
			c->rl[c->n_rl++].hard = hard;
		} else if (!strcmp(line, "leak")) {
			snprintf(c->leak, sizeof c->leak, "%s", val);
		} else if (!strcmp(line, "seccomp")) {
			snprintf(c->filter, sizeof c->filter, "%s", val);
		} else if (!strcmp(line, "deny") && c->n_deny < GUEST_DENY_MAX) {
			struct deny *d = &c->deny[c->n_deny];
			if (sscanf(val, "%d %d %7s", &d->nr, &d->err, d->shape) != 3)
				fail("read /lab/conf", val, EINVAL);
			c->n_deny++;
		} else if (!strcmp(line, "cwd")) {
			snprintf(c->cwd, sizeof c->cwd, "%s", val);
		}
	}
	/* argv and the environment: NUL-ended entries, so an argument may
	 * hold any byte but NUL (a newline too) */
	char *args = slurp("/lab/argv", &n);
	for (size_t i = 0; i < n && c->argc < MAX_ARGS; i += strlen(args + i) + 1)
		c->argv[c->argc++] = args + i;
	if (!c->argc)
		fail("read /lab/argv", "no command", EINVAL);
	char *env = slurp("/lab/env", &n);
	int k = 0;
	for (size_t i = 0; i < n && k < MAX_ENV; i += strlen(env + i) + 1)
		c->envp[k++] = env + i;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void load_modules(void)
{
	struct dirent **list;
	int n = scandir("/lab/mod", &list, NULL, by_name);
	if (n < 0)
		fail("scandir", "/lab/mod", errno);
	for (int i = 0; i < n; i++) {
		char p[300];
		if (list[i]->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "/lab/mod/%s", list[i]->d_name);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail("open a module", p, errno);
		if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
			fail("finit_module", p, errno);
		close(fd);
	}
}

/* Every folder on the way to path (exec's current folder may be deep). */
static void make_parents(const char *path)
{
	char p[PATH_CAP];
	snprintf(p, sizeof p, "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fail("mkdir", p, errno);
		*s = '/';
	}
}

/* Under TCG (the lab's supervisor says so on the kernel command line:
 * lab.tcg=1) RLIMIT_CPU is scaled by TCG_CPU_SCALE (guest.h says why). */
static void scale_cpu_for_tcg(struct conf *c)
{
	size_t n = 0;
	char *line = slurp("/proc/cmdline", &n);
	bool tcg = strstr(line, " lab.tcg=1") != NULL;
	free(line);
	c->cpu_scale = tcg ? TCG_CPU_SCALE : 1;
	for (int i = 0; tcg && i < c->n_rl; i++)
		if (c->rl[i].res == RLIMIT_CPU) {
			unsigned long long grace = c->rl[i].hard - c->rl[i].soft;
			c->rl[i].soft *= TCG_CPU_SCALE;
			c->rl[i].hard = c->rl[i].soft + grace;
		}
}

/* The spec's minimal /dev (rootfs.c's): null, zero, full, random and
 * urandom, the fd links, read-only; over the devtmpfs the init spoke on
 * (its console stays open). */
static void minimal_dev(const char *path)
{
	static const struct {
		const char *name;
		unsigned minor;
	} nodes[] = {{"null", 3}, {"zero", 5}, {"full", 7}, {"random", 8}, {"urandom", 9}};
	static const char *const links[][2] = {{"fd", "/proc/self/fd"},
	                                       {"stdin", "/proc/self/fd/0"},
	                                       {"stdout", "/proc/self/fd/1"},
	                                       {"stderr", "/proc/self/fd/2"}};
	char p[PATH_CAP];
	must_mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k");
	for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
		snprintf(p, sizeof p, "%s/%s", path, nodes[i].name);
		if (mknod(p, S_IFCHR | 0666, makedev(1, nodes[i].minor)) < 0 || chmod(p, 0666) < 0)
			fail("mknod", p, errno);
	}
	for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
		snprintf(p, sizeof p, "%s/%s", path, links[i][0]);
		if (symlink(links[i][1], p) < 0)
			fail("symlink", p, errno);
	}
	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
		fail("remount read-only", path, errno);
}

/* The run spec's file-system steps, in order, each failure naming its
 * step and path. The guest's own /proc is the run's (the init mounted it
 * first, to speak): a proc step elsewhere mounts one there. */
static void walk_fs(const struct conf *c)
{
	char tmpfs_opts[64];
	bool root = false;
	for (int i = 0; i < c->n_fs; i++) {
		const struct fs_step *st = &c->fs[i];
		make_parents(st->path);
		if (!strcmp(st->kind, "root")) {
			root = true; /* read-only once built, below */
		} else if (!strcmp(st->kind, "share")) {
			must_mount(st->a, st->path, "9p", MS_RDONLY | MS_NODEV | MS_NOSUID,
			           "trans=virtio,version=9p2000.L,msize=262144,cache=loose");
		} else if (!strcmp(st->kind, "link")) {
			if (symlink(st->a, st->path) < 0 && errno != EEXIST)
				fail("symlink", st->path, errno);
		} else if (!strcmp(st->kind, "dir")) {
			if ((mkdir(st->path, st->mode) < 0 && errno != EEXIST) || chmod(st->path, st->mode) < 0)
				fail("mkdir", st->path, errno);
		} else if (!strcmp(st->kind, "tmpfs")) {
			snprintf(tmpfs_opts, sizeof tmpfs_opts, "size=%llu,mode=%o", st->size, st->mode);
			must_mount("tmpfs", st->path, "tmpfs", MS_NOSUID | MS_NODEV, tmpfs_opts);
		} else if (!strcmp(st->kind, "proc")) {
			if (strcmp(st->path, "/proc") != 0)
				must_mount("proc", st->path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		} else if (!strcmp(st->kind, "dev")) {
			minimal_dev(st->path);
		} else {
			fail("walk the file-system steps", st->kind, EINVAL);
		}
	}
	/* the root, the initramfs: no one's to write in once built (the
	 * kernel made it 1777) */
	if (root && (chmod("/", 0755) < 0 || mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY, NULL) < 0))
		fail("remount read-only", "/", errno);
}

static void if_up(int s, const char *name)
{
	struct ifreq ifr = {0};
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		fail("SIOCGIFFLAGS", name, errno);
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		fail("SIOCSIFFLAGS", name, errno);
}

static void set_addr(int s, unsigned long req, const char *ifname, const char *ip, const char *stage)
{
	struct ifreq ifr = {0};
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	struct sockaddr_in *a = (struct sockaddr_in *)&ifr.ifr_addr;
	a->sin_family = AF_INET;
	inet_pton(AF_INET, ip, &a->sin_addr);
	if (ioctl(s, req, &ifr) < 0)
		fail(stage, ip, errno);
}

static void setup_network(const struct conf *c)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		fail("socket", "AF_INET", errno);
	if_up(s, "lo");
	if (c->net == 2) {
		/* the allow-list's NIC: an address of its own (/32) and one
		 * route, to the gateway (QEMU's 127.0.0.1, in the run's own
		 * network namespace, where only the lab's egress proxy listens):
		 * any other address is unreachable from the guest itself */
		set_addr(s, SIOCSIFADDR, "eth0", "10.0.2.15", "SIOCSIFADDR eth0");
		set_addr(s, SIOCSIFNETMASK, "eth0", "255.255.255.255", "SIOCSIFNETMASK eth0");
		if_up(s, "eth0");
		struct rtentry rt = {0};
		struct sockaddr_in *dst = (struct sockaddr_in *)&rt.rt_dst;
		struct sockaddr_in *mask = (struct sockaddr_in *)&rt.rt_genmask;
		dst->sin_family = mask->sin_family = AF_INET;
		inet_pton(AF_INET, "10.0.2.2", &dst->sin_addr);
		inet_pton(AF_INET, "255.255.255.255", &mask->sin_addr);
		rt.rt_flags = RTF_UP | RTF_HOST;
		rt.rt_dev = (char *)"eth0";
		if (ioctl(s, SIOCADDRT, &rt) < 0)
			fail("SIOCADDRT", "10.0.2.2 dev eth0", errno);
	} else if (c->net) {
		set_addr(s, SIOCSIFADDR, "eth0", "10.0.2.15", "SIOCSIFADDR eth0");
		set_addr(s, SIOCSIFNETMASK, "eth0", "255.255.255.0", "SIOCSIFNETMASK eth0");
		if_up(s, "eth0");
		struct rtentry rt = {0};
		struct sockaddr_in *gw = (struct sockaddr_in *)&rt.rt_gateway;
		struct sockaddr_in *dst = (struct sockaddr_in *)&rt.rt_dst;
		struct sockaddr_in *mask = (struct sockaddr_in *)&rt.rt_genmask;
		gw->sin_family = dst->sin_family = mask->sin_family = AF_INET;
		inet_pton(AF_INET, "10.0.2.2", &gw->sin_addr);
		rt.rt_flags = RTF_UP | RTF_GATEWAY;
		if (ioctl(s, SIOCADDRT, &rt) < 0)
			fail("SIOCADDRT", "default via 10.0.2.2", errno);
	}
	close(s);
}

static int try_connect(const char *ip, int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;
	if (fd < 0)
		return errno;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, ip, &a.sin_addr);
	e = connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ? errno : 0;
	close(fd);
	return e;
}

/* No-network's probes: the attacker's address ("P"), and behind the
 * allow-list an address off the door's ("R"): their errnos are evidence. */
static void probe(const struct conf *c)
{
	if (c->probe_port)
		report("P %d\n", try_connect(c->probe_ip, c->probe_port));
	if (c->route_port)
		report("R %d\n", try_connect(c->route_ip, c->route_port));
}

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail("write", path, errno);
	close(fd);
}

/* The snippet's own group in the guest's cgroup v2 (this kernel has no v1
 * hierarchy mounted), whatever the layers: it measures (memory.peak,
 * pids.peak, the events, CPU) for the lab, and with Resource-limits on it
 * holds memory.max and pids.max too. */
static void setup_cgroup(const struct conf *c)
{
	char v[32];
	must_mount("cgroup2", "/sys/fs/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	put_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory +pids");
	if (mkdir("/sys/fs/cgroup/snippet", 0755) < 0)
		fail("mkdir", "/sys/fs/cgroup/snippet", errno);
	if (!c->memory)
		return;
	snprintf(v, sizeof v, "%llu", c->memory);
	put_file("/sys/fs/cgroup/snippet/memory.max", v);
	put_file("/sys/fs/cgroup/snippet/memory.swap.max", "0");
	snprintf(v, sizeof v, "%ld", c->pids);
	put_file("/sys/fs/cgroup/snippet/pids.max", v);
}

/* A number from a cgroup file: the whole file, or the value of KEY in a
 * "key value" file; -1 if absent (pids.peak is 6.1's, memory.peak 5.19's). */
static long long cg_value(const char *file, const char *key)
{
	char p[96], buf[1024];
	snprintf(p, sizeof p, "/sys/fs/cgroup/snippet/%s", file);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!key)
		return strtoll(buf, NULL, 10);
	size_t k = strlen(key);
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, k) && l[k] == ' ')
			return strtoll(l + k + 1, NULL, 10);
	return -1;
}

/* What the snippet's group took, for the lab: "C memory.peak pids.peak
 * oom_kill memory.max-events pids.max-events usage_usec". Sent by us, PID
 * 1, after the snippet is gone: the snippet cannot write to the serial
 * line, so it cannot forge a figure. */
static void report_cgroup(void)
{
	report("C %lld %lld %lld %lld %lld %lld\n", cg_value("memory.peak", NULL), cg_value("pids.peak", NULL),
	       cg_value("memory.events", "oom_kill"), cg_value("memory.events", "max"), cg_value("pids.events", "max"),
	       cg_value("cpu.stat", "usage_usec"));
}

/* The snippet's (or exec's command's) descriptors: fds[0] its stdin (-1:
 * /dev/null), fds[1] its stdout, fds[2] its stderr. */
/* A failure in the snippet's own process (our fork, maybe uid 65534
 * already): reported, then that process ends; only PID 1 may power off,
 * once it has reaped it (a reboot() here would fail and hang the run). */
static void __attribute__((noreturn)) child_fail(const char *stage, const char *what, int err)
{
	report("E %d %s: %s\n", err, stage, what);
	_exit(127);
}

/* Isolation's filter on the snippet's process, the last thing before
 * execve: its listener goes to our PID 1 over sock (SCM_RIGHTS), which
 * answers every call it stops. Should PID 1 be gone, the kernel answers
 * ENOSYS: a refusal never depends on the listener. */
static void install_filter(const char *path, int sock)
{
	size_t n;
	char *bpf = slurp(path, &n);
	struct sock_fprog prog = {.len = (unsigned short)(n / sizeof(struct sock_filter)),
	                          .filter = (struct sock_filter *)bpf};
	if (n == 0 || n % sizeof(struct sock_filter) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail("load the seccomp filter", path, n ? errno : EINVAL);
	int lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (lfd < 0)
		child_fail("install the seccomp filter", path, errno);
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	char one = 'L';
	struct iovec iov = {&one, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &lfd, sizeof lfd);
	if (sendmsg(sock, &msg, 0) != 1)
		child_fail("hand the seccomp listener to the init", path, errno);
	close(lfd);
	close(sock);
	free(bpf);
}

static void __attribute__((noreturn)) snippet_main(const struct conf *c, const int fds[4])
{
	int in = fds[0] >= 0 ? fds[0] : open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[2], 2) < 0)
		child_fail("set up stdio", "stdin and the output pipes", errno);
	signal(SIGPIPE, SIG_DFL); /* ours is ignored: the command's is its own */
	setsid();
	if (c->leak[0]) {
		int fd = open(c->leak, O_RDONLY);
		if (fd >= 0 && fd != 3 && (dup2(fd, 3) < 0 || close(fd) < 0))
			child_fail("hand over the leaked credentials handle", c->leak, errno);
	}
	put_file("/sys/fs/cgroup/snippet/cgroup.procs", "0");
	if (c->cwd[0] && chdir(c->cwd) < 0)
		child_fail("chdir", c->cwd, errno);
	/* The serial line carries the lab's evidence: the snippet runs as an
	 * unprivileged uid, which can neither open it, nor lift the guest's
	 * cgroup and rlimits, nor make a device node of its own. */
	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
		child_fail("drop to uid 65534", "the snippet", errno);
	for (int i = 0; i < c->n_rl; i++) {
		struct rlimit rl = {c->rl[i].soft, c->rl[i].hard};
		if (setrlimit(c->rl[i].res, &rl) < 0)
			child_fail("setrlimit", "a limit of the run spec's", errno);
	}
	if (c->filter[0])
		install_filter(c->filter, fds[3]);
	/* a bare name is looked up in the command's own PATH, as the
	 * container rung's execvpe does */
	if (strchr(c->argv[0], '/'))
		execve(c->argv[0], c->argv, c->envp);
	else
		execvpe(c->argv[0], c->argv, c->envp);
	child_fail("execve", c->argv[0], errno);
}

/* exec's stdin, from the lab: "I" frames on the serial line (an empty one
 * is its end), held in pend until the command's stdin pipe takes them. */
struct stdin_relay {
	int pipe;                    /* the write end, non-blocking; -1 once closed */
	bool eof;                    /* the lab's stdin ended: close the pipe once pend is out */
	unsigned char in[4 + 65535]; /* what the serial line gave, not yet a whole frame */
	size_t n_in;
	char pend[STDIN_PEND];
	size_t n_pend;
};

static void stdin_frames(struct stdin_relay *sr)
{
	size_t i = 0;
	while (i < sr->n_in) {
		if (sr->in[i] != 0xFE) {
			i++;
			continue;
		}
		if (sr->n_in - i < 4)
			break;
		size_t len = ((size_t)sr->in[i + 2] << 8) | sr->in[i + 3];
		if (sr->n_in - i < 4 + len || sr->n_pend + len > sizeof sr->pend)
			break;
		if (sr->in[i + 1] == 'I' && len == 0)
			sr->eof = true;
		else if (sr->in[i + 1] == 'I')
			memcpy(sr->pend + sr->n_pend, sr->in + i + 4, len), sr->n_pend += len;
		i += 4 + len;
	}
	memmove(sr->in, sr->in + i, sr->n_in - i);
	sr->n_in -= i;
}

static void stdin_flush(struct stdin_relay *sr)
{
	if (sr->pipe >= 0 && sr->n_pend) {
		ssize_t w = write(sr->pipe, sr->pend, sr->n_pend);
		if (w > 0) {
			memmove(sr->pend, sr->pend + w, sr->n_pend - (size_t)w);
			sr->n_pend -= (size_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			sr->n_pend = 0; /* the command closed its stdin: the rest has nowhere to go */
			close(sr->pipe);
			sr->pipe = -1;
		}
	}
	if (sr->pipe >= 0 && sr->eof && !sr->n_pend) {
		close(sr->pipe);
		sr->pipe = -1;
	}
}

/* ---------------- Isolation's listener ---------------- */

/* What the snippet tried that the deny list refused: each distinct call
 * (its number, arguments and strings), how often. */
struct refusal {
	int nr, err;
	unsigned long long args[6];
	char strs[6][100]; /* hex of the bytes read, then '.' (whole) or '+' (cut); "-" NULL, "?" unreadable, "*" no
	                      string */
	long count;
};
struct listener {
	int fd; /* -1: none, or gone */
	struct refusal seen[GUEST_REFUSED_MAX];
	int n_seen;
	long dropped[GUEST_DENY_MAX]; /* refusals past the table, by the deny list's row */
	long answered;
};

static int take_listener(int sock)
{
	char one, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&one, 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	ssize_t n;
	while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	struct cmsghdr *cm = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
	int fd = -1;
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	return fd;
}

/* A string argument of the stopped caller's, read through its
 * /proc/PID/mem while the notification is still valid. */
static void read_arg_string(int mem, unsigned long long addr, char *out, size_t cap)
{
	unsigned char buf[47];
	ssize_t n = addr && mem >= 0 ? pread(mem, buf, sizeof buf, (off_t)addr) : -1;
	if (!addr || n <= 0) {
		snprintf(out, cap, "%s", addr ? "?" : "-");
		return;
	}
	size_t len = 0, k = 0;
	while (len < (size_t)n && buf[len])
		len++;
	for (size_t i = 0; i < len && k + 3 < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%02x", buf[i]);
	snprintf(out + k, cap - k, "%c", len < (size_t)n ? '.' : '+');
}

/* r as the trace shows it (trace.c's shapes, the deny line's SHAPE):
 * the arguments past the shape and the pointers of its strings are not
 * shown, so they do not tell two calls apart; "-": none is shown. */
static void as_shown(struct refusal *r, const char *shape)
{
	size_t shown = strcmp(shape, "-") ? strlen(shape) : 0;
	for (size_t i = 0; i < 6; i++) {
		if (i >= shown || shape[i] == 's')
			r->args[i] = 0;
		if (i >= shown || shape[i] != 's')
			snprintf(r->strs[i], sizeof r->strs[i], "*");
	}
}

/* One refusal in the table, keyed on what the trace shows; past its
 * rows, counted by its row of the deny list (row). */
static void note_refusal(struct listener *l, struct refusal *r, const char *shape, int row)
{
	as_shown(r, shape);
	for (int i = 0; i < l->n_seen; i++) {
		struct refusal *o = &l->seen[i];
		if (o->nr == r->nr && !memcmp(o->args, r->args, sizeof o->args) &&
		    !memcmp(o->strs, r->strs, sizeof o->strs)) {
			o->count++;
			return;
		}
	}
	if (l->n_seen < GUEST_REFUSED_MAX)
		l->seen[l->n_seen++] = *r;
	else
		l->dropped[row]++;
}

/* One stopped call: a listed one is refused with its errno and noted;
 * any other (connect(), sendto(), Landlock's, which the lab's filter stops
 * for the container's trace) goes on as the kernel makes it. */
static void answer_call(struct listener *l, const struct conf *c)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	memset(&req, 0, sizeof req);
	if (ioctl(l->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
		if (errno != EINTR && errno != ENOENT)
			close(l->fd), l->fd = -1; /* every process under the filter is gone */
		return;
	}
	const struct deny *d = NULL;
	int row = 0;
	for (; row < c->n_deny && !d; row++)
		if (c->deny[row].nr == req.data.nr)
			d = &c->deny[row];
	memset(&resp, 0, sizeof resp);
	resp.id = req.id;
	if (!d) {
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(l->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		return;
	}
	struct refusal r = {.nr = d->nr, .err = d->err, .count = 1};
	memcpy(r.args, req.data.args, sizeof r.args);
	char path[32];
	snprintf(path, sizeof path, "/proc/%u/mem", req.pid);
	int mem = strchr(d->shape, 's') ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	for (int i = 0; i < 6; i++) {
		if (i < (int)strlen(d->shape) && d->shape[i] == 's')
			read_arg_string(mem, req.data.args[i], r.strs[i], sizeof r.strs[i]);
		else
			snprintf(r.strs[i], sizeof r.strs[i], "*");
	}
	if (mem >= 0)
		close(mem);
	resp.error = -d->err;
	/* a caller that is gone was refused nothing: its pid is not it */
	if (ioctl(l->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0 &&
	    ioctl(l->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0) {
		note_refusal(l, &r, d->shape, row - 1);
		l->answered++;
	}
}

/* After the snippet: "X on", then each refusal, then "X dropped NR N" for
 * each call of the deny list refused past the table's rows. */
static void report_refusals(const struct listener *l, const struct conf *c, bool had)
{
	if (!had)
		return;
	report("X on %ld\n", l->answered);
	for (int i = 0; i < l->n_seen; i++) {
		const struct refusal *r = &l->seen[i];
		report("X %d %d %ld %llx %llx %llx %llx %llx %llx %s %s %s %s %s %s\n", r->nr, r->err, r->count,
		       r->args[0], r->args[1], r->args[2], r->args[3], r->args[4], r->args[5], r->strs[0], r->strs[1],
		       r->strs[2], r->strs[3], r->strs[4], r->strs[5]);
	}
	for (int i = 0; i < c->n_deny; i++)
		if (l->dropped[i])
			report("X dropped %d %ld\n", c->deny[i].nr, l->dropped[i]);
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Relays the snippet's output until its pipes close and it is reaped
 * (and, for exec, the lab's stdin to it); then ends what it left behind. */
/* The snippet's own CPU in ms, from its process's CPU clock while it is a
 * zombie (all its threads, none of its children): what RLIMIT_CPU counted,
 * in the host's seconds (the guest's cap was scaled by c->cpu_scale under
 * TCG). -1 if it cannot be read. */
static long long own_cpu_ms(pid_t pid, const struct conf *c)
{
	clockid_t clk;
	struct timespec ts;
	/* the PROF clock, which RLIMIT_CPU compares (box_common.c says why):
	 * the low three bits of a CPU clock's id name it, SCHED 2, PROF 0 */
	if (clock_getcpuclockid(pid, &clk) != 0)
		return -1;
	clk &= ~(clockid_t)7;
	if (clock_gettime(clk, &ts) < 0)
		return -1;
	return ((long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) / (c->cpu_scale > 0 ? c->cpu_scale : 1);
}

/* Reaps every child that has ended, each looked at first without reaping
 * it (WNOWAIT) so the snippet's own CPU is read before it goes: 1 once the
 * snippet (pid) is reaped, its status in *status; -1 when no child is
 * left (ECHILD); else 0. */
static int reap_children(pid_t pid, const struct conf *c, int *status, long long *cpu_ms)
{
	int got = 0;
	for (;;) {
		siginfo_t ci = {0};
		if (waitid(P_ALL, 0, &ci, WEXITED | WNOHANG | WNOWAIT) < 0)
			return got ? got : errno == ECHILD ? -1 : 0;
		if (ci.si_pid <= 0)
			return got;
		if (ci.si_pid == pid)
			*cpu_ms = own_cpu_ms(pid, c);
		int st;
		if (waitpid(ci.si_pid, &st, 0) == pid)
			*status = st, got = 1;
	}
}

static void run_snippet(const struct conf *c)
{
	int out[2], err[2] = {-1, -1}, in[2] = {-1, -1}, lsock[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) < 0 || (c->exec && (pipe2(err, O_CLOEXEC) < 0 || pipe2(in, O_CLOEXEC) < 0)))
		fail("pipe", "the command's pipes", errno);
	if (c->filter[0] && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, lsock) < 0)
		fail("socketpair", "the seccomp listener's way", errno);
	signal(SIGPIPE, SIG_IGN);
	pid_t pid = fork();
	if (pid < 0)
		fail("fork", "the snippet", errno);
	if (pid == 0) /* a run's snippet: stdout and stderr one stream, as on the container rung */
		snippet_main(c, (const int[4]){in[0], out[1], c->exec ? err[1] : out[1], lsock[1]});
	close(out[1]);
	static struct listener lis;
	lis.fd = -1;
	if (c->filter[0]) {
		close(lsock[1]);
		lis.fd = take_listener(lsock[0]); /* -1: the child failed before (it said why) */
		close(lsock[0]);
	}
	bool had_listener = lis.fd >= 0;
	if (c->exec) {
		close(err[1]);
		close(in[0]);
		fcntl(in[1], F_SETFL, O_NONBLOCK);
	}
	static struct stdin_relay sr;
	sr.pipe = in[1];
	int rd[2] = {out[0], err[0]};
	const char kind[2] = {'O', 'e'};
	int status = 0;
	bool done = false;
	long done_at = 0;
	long long cpu_ms = -1;
	char buf[4096];
	while (!done || rd[0] >= 0 || rd[1] >= 0) {
		struct pollfd pf[5] = {
		    {rd[0], POLLIN, 0}, {rd[1], POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLOUT, 0}, {lis.fd, POLLIN, 0}};
		if (c->exec && !sr.eof && sr.n_in < sizeof sr.in && sr.n_pend < sizeof sr.pend / 2)
			pf[2].fd = con;
		if (sr.pipe >= 0 && (sr.n_pend || sr.eof))
			pf[3].fd = sr.pipe;
		int n = poll(pf, 5, done ? 200 : 100);
		if (n > 0 && pf[4].revents & POLLIN)
			answer_call(&lis, c);
		else if (n > 0 && pf[4].revents && lis.fd >= 0)
			close(lis.fd), lis.fd = -1; /* no process under the filter is left */
		for (int k = 0; k < 2 && n > 0; k++)
			if (pf[k].revents) {
				ssize_t got = read(rd[k], buf, sizeof buf);
				if (got > 0)
					frame(kind[k], buf, (size_t)got);
				else if (got == 0 || errno != EINTR)
					close(rd[k]), rd[k] = -1;
			}
		/* a leftover holds a pipe open: the line quiet for 200 ms, or 200 ms
		 * after the snippet whatever the leftover does (writes, or calls the
		 * listener answers), and the run ends with the snippet */
		if (done && (n == 0 || now_ms() - done_at > 200)) {
			for (int k = 0; k < 2; k++)
				if (rd[k] >= 0)
					close(rd[k]), rd[k] = -1;
		}
		if (n > 0 && pf[2].revents) {
			ssize_t got = read(con, sr.in + sr.n_in, sizeof sr.in - sr.n_in);
			if (got > 0)
				sr.n_in += (size_t)got;
			else if (got == 0 || errno != EINTR)
				sr.eof = true; /* the line is gone: no more stdin */
			stdin_frames(&sr);
		}
		if (sr.pipe >= 0 && done)
			sr.n_pend = 0, sr.eof = true; /* nobody left to read it */
		stdin_flush(&sr);
		int reaped = reap_children(pid, c, &status, &cpu_ms);
		if (reaped > 0 && !done) {
			done = true;
			done_at = now_ms();
		}
		if (reaped < 0 && !done)
			fail("waitpid", "the snippet", ECHILD);
	}
	kill(-1, SIGKILL);
	if (lis.fd >= 0)
		close(lis.fd);
	report_refusals(&lis, c, had_listener);
	report_cgroup();
	if (cpu_ms >= 0)
		report("U %lld\n", cpu_ms);
	report("S %d\n", status);
}

int main(void)
{
	struct conf c = {0};
	must_mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	must_mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	must_mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, NULL);
	open_console();
	report_kernel();
	read_conf(&c);
	scale_cpu_for_tcg(&c);
	load_modules();
	walk_fs(&c);
	setup_network(&c);
	probe(&c);
	setup_cgroup(&c);
	run_snippet(&c);
	power_off();
}
