/* box_common.c — what every box that starts its own init shares (the
 * container, gvisor and wrapper boxes): the child's first steps, the init's
 * loop as PID 1 of the run's namespace, the uid maps, closing the parent's
 * ends after clone(), and sampling the run's process tree. */
#define _GNU_SOURCE
#include "box.h"
#include "proc.h"
#include "sockmem.h"
#include "system.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------- child side ---------------- */

/* The worker's handlers and mask must not reach the snippet. */

void box_child_begin(struct run *r, int lab_sync_end)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	close(lab_sync_end);
	close(r->rep[0]);
	if (r->out[0] >= 0)
		close(r->out[0]);
	if (r->have_decoys && r->d.listen_fd >= 0)
		close(r->d.listen_fd);
	if (r->eg.api_fd >= 0) /* the small internet is the lab's, not the run's */
		close(r->eg.api_fd);
	if (r->term.master >= 0) /* exec's pty: the lab's end */
		close(r->term.master);
	box_child_arm_death_signal(r);
}

void box_child_own_keyring(struct run *r)
{
	/* an anonymous session keyring, gone with the run's last process */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
		run_fail(r, "join a session keyring of its own (keyctl)", "the caller's is not the run's", errno);
}

void box_child_await_lab(struct run *r, int child_sync_end)
{
	char c;
	if (read(child_sync_end, &c, 1) != 1)
		run_fail(r, "wait for the lab", "sync pipe", EPIPE);
	close(child_sync_end);
}

void box_child_fresh_proc(struct run *r)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		run_fail(r, "make mounts private", "/", errno);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		run_fail(r, "mount", "a fresh /proc", errno);
}

/* If the lab dies, the sandbox dies (this survives execve). Armed again
 * after the id change, which clears it. Should the lab already be gone,
 * its end of the sync socket is closed and "go" never comes. */
void box_child_arm_death_signal(struct run *r)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		run_fail(r, "prctl", "PR_SET_PDEATHSIG", errno);
}

static void init_on_signal(int sig)
{
	(void)sig;
}

/* Memory the run holds in its IPC namespace, which no sampler of
 * /proc/PID sees whole: SysV segments, semaphore sets and queued messages.
 * Read by PID 1, which is in the run's IPC namespace (the lab may not enter
 * it rootless).
 *
 * A segment's resident and swapped bytes, attached or not: an attached one
 * whose pages its process touched is in that process's share too (counted
 * twice: the figure errs high, never low); one attached and never touched
 * by its holder is in nobody's. */
static uint64_t shm_line_bytes(const char *l)
{
	unsigned long long rss, swap;
	/* key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime rss swap */
	if (sscanf(l, "%*d %*d %*o %*u %*d %*d %*u %*u %*u %*u %*u %*u %*u %*u %llu %llu", &rss, &swap) == 2)
		return rss + swap;
	return 0;
}

/* A semaphore set: its header and 64 bytes a semaphore (struct sem). */
static uint64_t sem_line_bytes(const char *l)
{
	unsigned long long nsems;
	/* key semid perms nsems uid gid cuid cgid otime ctime */
	if (sscanf(l, "%*d %*d %*o %llu", &nsems) == 1)
		return 256 + (nsems << 6);
	return 0;
}

/* Sums fn over the lines of a /proc/sysvipc file but its header. */
static uint64_t sysvipc_sum(const char *path, uint64_t (*fn)(const char *))
{
	uint64_t sum = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[4096];
	size_t have = 0;
	bool header = true;
	for (ssize_t n; fd >= 0 && (n = read(fd, buf + have, sizeof buf - 1 - have)) > 0;) {
		have += (size_t)n;
		buf[have] = '\0';
		char *l = buf, *nl;
		while ((nl = strchr(l, '\n'))) {
			*nl = '\0';
			if (!header)
				sum += fn(l);
			header = false;
			l = nl + 1;
		}
		have = (size_t)(buf + have - l);
		memmove(buf, l, have);
		if (have == sizeof buf - 1)
			have = 0; /* no line is that long: skip it */
	}
	if (fd >= 0)
		close(fd);
	return sum;
}

/* No allocation here: the init runs this under the snippet's rlimits
 * (RLIMIT_AS among them), which the lab's own code must never depend on.
 * Messages: their bytes and a header each, a 48-byte struct msg_msg in a
 * 64-byte slab object (an empty message costs one too), and each queue's
 * own. With a network namespace of the run's own, what its sockets hold in
 * kernel buffers too (sockmem.c). */
static uint64_t init_ipc_bytes(bool sockets)
{
	uint64_t sum =
	    sysvipc_sum("/proc/sysvipc/shm", shm_line_bytes) + sysvipc_sum("/proc/sysvipc/sem", sem_line_bytes);
	struct msginfo mi;
	if (msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&mi) >= 0)
		sum += (uint64_t)mi.msgtql + (uint64_t)mi.msgmap * 64 + (uint64_t)mi.msgpool * 256;
	bool complete;
	if (sockets)
		sum += sockmem_netns_bytes(&complete);
	return sum;
}

static void init_report_ipc(struct run *r, const struct box_init *bi, uint64_t *last)
{
	uint64_t now = init_ipc_bytes(bi->sock_report);
	if (now != *last)
		run_report(r, "M %llu\n", (unsigned long long)now);
	*last = now;
}

/* Who sent a signal we pass on, for the lab to name outside interference
 * (run.c): "X SIG CODE PID UID" as our namespaces see it: pid 0 is a
 * sender outside the run's PID namespace. The kernel fills the sender in
 * for kill() and tgkill() (SI_USER, SI_TKILL), which no process can forge;
 * a queued siginfo (SI_QUEUE) is the sender's own words. A few a run: a
 * snippet that signals us in a loop must not fill the lab's memory. */
static void init_report_sender(struct run *r, int sig, const siginfo_t *si)
{
	static int told;
	if (told < 4) {
		told++;
		run_report(r, "X %d %d %d %u\n", sig, si->si_code, (int)si->si_pid, (unsigned)si->si_uid);
	}
}

/* The snippet's own CPU, "U MS": read from its process's CPU clock while
 * it is a zombie (waitid's WNOWAIT left it unreaped), so it is all its
 * threads' time and none of its children's, as RLIMIT_CPU counted it. The
 * judge credits RLIMIT_CPU with a kill only when this figure reached the
 * cap (evidence.h): the signal alone may be the snippet's own. */
static void init_report_main_cpu(struct run *r, pid_t main)
{
	clockid_t clk;
	struct timespec ts;
	/* the process's PROF clock (utime+stime as the ticks charged them),
	 * which RLIMIT_CPU compares with its cap, not the precise SCHED clock
	 * clock_getcpuclockid gives: on a contended CPU the ticks run ahead of
	 * the precise time, and a real RLIMIT_CPU kill read under the cap
	 * (the red team's round 7). The clock's low three bits name it:
	 * SCHED 2, PROF 0. */
	if (clock_getcpuclockid(main, &clk) != 0)
		return;
	clk &= ~(clockid_t)7;
	if (clock_gettime(clk, &ts) < 0)
		return;
	run_report(r, "U %lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* The init's children that have ended, each reaped in turn: looked at
 * first without reaping (WNOWAIT), so the snippet's own figure can still
 * be read before it goes. */
static void init_reap(struct run *r, const struct box_init *bi)
{
	for (;;) {
		siginfo_t ci = {0};
		if (waitid(P_ALL, 0, &ci, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0 || ci.si_pid <= 0)
			return;
		pid_t w = ci.si_pid;
		if (w == bi->main && bi->cpu_report)
			init_report_main_cpu(r, w);
		int st;
		if (waitpid(w, &st, __WALL) != w)
			continue;
		if (w == bi->main) {
			bi->finish(r, st, bi->ctx);
			_exit(125); /* finish() never returns */
		}
		if (bi->reaped)
			bi->reaped(w, bi->ctx);
	}
}

void box_init_loop(struct run *r, const struct box_init *bi, const sigset_t *all)
{
	/* the command may share our uid: it must not reach our report pipe
	 * through /proc/1/fd */
	prctl(PR_SET_DUMPABLE, 0);
	struct sigaction sa = {.sa_handler = init_on_signal};
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &sa, NULL);
	/* the output pipe and the terminal belong to the command */
	for (int fd = 0; !bi->keep_stdio && fd < 3; fd++)
		close(fd);
	uint64_t ipc_last = 0;
	const struct timespec tick = {0, 10L * 1000 * 1000};
	for (;;) {
		siginfo_t si;
		int sig = bi->ipc_report ? sigtimedwait(all, &si, &tick) : sigwaitinfo(all, &si);
		if (sig < 0 && errno == EAGAIN)
			init_report_ipc(r, bi, &ipc_last);
		if (sig < 0)
			continue;
		if (sig == SIGTERM && si.si_code == SI_QUEUE && si.si_pid == bi->lab_as &&
		    si.si_value.sival_int == r->end_cookie) {
			/* the lab (a process inside can queue a siginfo of its
			 * choosing, pid and all, but not the cookie): end the run but
			 * stay to reap it, so its CPU time reaches our rusage and the
			 * lab's */
			bi->end_rest(r);
			continue;
		}
		/* from the terminal (exec's pty: Ctrl-C, a resize): it went to
		 * the command's process group, the command had it already */
		if (sig != SIGCHLD && si.si_code == SI_KERNEL)
			continue;
		if (sig != SIGCHLD) {
			init_report_sender(r, sig, &si);
			kill(bi->main, sig);
			continue;
		}
		init_reap(r, bi);
	}
}

int box_write_id_maps(const struct run *r, unsigned in_uid, long out_uid, unsigned in_gid, long out_gid,
                      bool deny_setgroups, struct lab_evidence *ev)
{
	char p[64], map[64];
	int e;
	snprintf(p, sizeof p, "/proc/%d/setgroups", r->child_pid);
	if (deny_setgroups && (e = file_put(p, "deny")) < 0)
		goto fail;
	snprintf(p, sizeof p, "/proc/%d/uid_map", r->child_pid);
	snprintf(map, sizeof map, "%u %ld 1\n", in_uid, out_uid);
	if ((e = file_put(p, map)) < 0)
		goto fail;
	snprintf(p, sizeof p, "/proc/%d/gid_map", r->child_pid);
	snprintf(map, sizeof map, "%u %ld 1\n", in_gid, out_gid);
	if ((e = file_put(p, map)) < 0)
		goto fail;
	return 0;
fail:
	snprintf(ev->error, sizeof ev->error, "cannot write %s (\"%.*s\"): %s", p, (int)strcspn(map, "\n"), map,
	         strerror(-e));
	return -1;
}

void box_after_clone(struct run *r, pid_t pid, int *child_sync_end)
{
	r->child_pid = pid;
	int *ends[] = {child_sync_end, &r->rep[1], &r->out[1]};
	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
		if (*ends[i] >= 0) {
			close(*ends[i]);
			*ends[i] = -1;
		}
	r->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
}

bool box_ask_init_to_end(const struct run *r)
{
	union sigval v = {.sival_int = r->end_cookie};
	return r->child_pid > 0 && sigqueue(r->child_pid, SIGTERM, v) == 0;
}

/* A "Key:   N kB" field of a /proc file, in bytes; 0 if absent. */
static uint64_t proc_kb(const char *path, const char *key)
{
	char *text = read_file(path, NULL, 1 << 16);
	if (!text)
		return 0;
	uint64_t v = 0;
	const char *p = strstr(text, key);
	if (p)
		v = strtoull(p + strlen(key), NULL, 10) << 10;
	free(text);
	return v;
}

/* What a tmpfs holds: its used blocks, and about 1 KiB of kernel memory
 * (inode and dentry) for each file or folder in it, which the block count
 * misses (a hundred thousand empty folders cost ~100 MiB of slab). */
static uint64_t tmpfs_bytes(const struct statvfs *sv)
{
	uint64_t blocks = sv->f_blocks > sv->f_bfree ? (uint64_t)(sv->f_blocks - sv->f_bfree) * sv->f_frsize : 0;
	uint64_t inodes = sv->f_files > sv->f_ffree ? (uint64_t)(sv->f_files - sv->f_ffree) : 0;
	return blocks + (inodes << 10);
}

static uint64_t tmpfs_used(pid_t pid, const char *where)
{
	char p[64];
	struct statvfs sv;
	snprintf(p, sizeof p, "/proc/%d/root%s", pid, where);
	return statvfs(p, &sv) < 0 ? 0 : tmpfs_bytes(&sv);
}

/* Memory a process holds in memfds, mapped or not (a memfd need not be
 * mapped to hold pages): each one counted once across the run. */
struct seen_files {
	ino_t ino[256];
	int n;
};

static uint64_t memfd_bytes(pid_t pid, struct seen_files *seen)
{
	char p[64], link[64];
	uint64_t sum = 0;
	snprintf(p, sizeof p, "/proc/%d/fd", pid);
	DIR *d = opendir(p);
	for (struct dirent *e; d && (e = readdir(d));) {
		char fdp[64 + sizeof e->d_name];
		snprintf(fdp, sizeof fdp, "%s/%s", p, e->d_name);
		ssize_t n = readlink(fdp, link, sizeof link - 1);
		struct stat st;
		if (n < 7 || strncmp(link, "/memfd:", 7) != 0 || stat(fdp, &st) < 0)
			continue;
		bool dup = false;
		for (int i = 0; i < seen->n && !dup; i++)
			dup = seen->ino[i] == st.st_ino;
		if (dup)
			continue;
		if (seen->n < 256)
			seen->ino[seen->n++] = st.st_ino;
		sum += (uint64_t)st.st_blocks * 512;
	}
	if (d)
		closedir(d);
	return sum;
}

/* Shared memory a process maps whose pages no /proc file of ours shows:
 * shared anonymous memory (its object keeps every page a madvise() or a
 * partial munmap() took out of the process's share) and memfds no
 * descriptor of the run holds (the object's size is in its inode, which
 * only /proc/PID/map_files reaches, and that takes CAP_SYS_ADMIN). A
 * memory cgroup charges them; the lab's own sum cannot. */
static int shmem_unseen(pid_t pid, const struct seen_files *seen)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/maps", pid);
	FILE *f = fopen(p, "re");
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	while (f && getline(&line, &cap, f) > 0) {
		char perms[8] = "", path[64] = "";
		unsigned long long ino = 0;
		/* start-end perms offset dev inode path */
		if (sscanf(line, "%*s %7s %*s %*s %llu %63s", perms, &ino, path) < 3 || perms[3] != 's')
			continue;
		bool memfd = strncmp(path, "/memfd:", 7) == 0;
		bool held = false;
		for (int i = 0; memfd && i < seen->n && !held; i++)
			held = seen->ino[i] == (ino_t)ino;
		if ((memfd && !held) || strcmp(path, "/dev/zero") == 0)
			n++;
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

/* A process's tasks (its threads: pids.max and RLIMIT_NPROC count every
 * one) and its peak address space (VmPeak, a high-water mark: a sample
 * after the peak still sees it), from /proc/PID/status. A process gone
 * meanwhile still counts as the one task it was. */
static void proc_status_figures(pid_t pid, long *tasks, uint64_t *vm_peak)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	char *text = read_file(p, NULL, 1 << 16);
	const char *t = text ? strstr(text, "\nThreads:") : NULL;
	const char *v = text ? strstr(text, "\nVmPeak:") : NULL;
	*tasks = t ? strtol(t + 9, NULL, 10) : 0;
	if (*tasks < 1)
		*tasks = 1;
	*vm_peak = v ? strtoull(v + 8, NULL, 10) << 10 : 0;
	free(text);
}

uint64_t box_pss(pid_t pid)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/smaps_rollup", pid);
	return proc_kb(p, "\nPss:");
}

void box_sample_tree(const struct run *r, bool memory, bool private_tmp, struct box_sample *out)
{
	pid_t pids[512];
	*out = (struct box_sample){0};
	if (r->child_pid <= 0)
		return;
	int n = proc_descendants(r->child_pid, pids, 512, true);
	/* tasks, as the caps count them: a process of 64 threads is 64 */
	out->procs = n > 512 ? n - 512 : 0;
	for (int i = 0; i < n && i < 512; i++) {
		long tasks;
		uint64_t vm;
		proc_status_figures(pids[i], &tasks, &vm);
		out->procs += tasks;
		if (vm > out->vm_peak)
			out->vm_peak = vm;
	}
	if (!memory)
		return;
	struct seen_files seen = {.n = 0};
	for (int i = 0; i < n && i < 512; i++)
		out->mem += memfd_bytes(pids[i], &seen);
	for (int i = 0; i < n && i < 512; i++) {
		out->unseen += shmem_unseen(pids[i], &seen);
		out->mem += box_pss(pids[i]);
	}
	/* files parked in the run's private /tmp and /dev/shm (a box whose
	 * init shares the host's /tmp would count the host's files) */
	if (n > 0 && private_tmp)
		out->mem += tmpfs_used(pids[0], "/tmp") + tmpfs_used(pids[0], "/dev/shm");
	/* and the range's own host folder, a tmpfs too (Isolation off) */
	struct statvfs sv;
	if (r->host_fd >= 0 && fstatvfs(r->host_fd, &sv) == 0)
		out->mem += tmpfs_bytes(&sv);
}
