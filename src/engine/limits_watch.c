/* limits_watch.c — Resource-limits' watch (limits_watch.h): where a cap
 * of the layer's meets the run, read from the kernel's own figures while
 * the caller is stopped in the call, which then goes on (CONTINUE) for the
 * kernel to answer.
 *
 * RLIMIT_AS and RLIMIT_NPROC refuse a call and keep no count the lab could
 * read afterwards, and RLIMIT_CPU's kill of a process its parent reaps
 * leaves nothing either. So the lab looks at the moment of the call:
 * - a mapping of LAB_WATCH_MAP_MIN or more (mmap, mremap): the caller's
 *   address space (VmSize, the kernel's total_vm) and what the call adds,
 *   against the cap, as may_expand_vm() compares them; only a call whose
 *   other checks the lab can tell pass (anonymous, known flags, a range it
 *   sees in /proc/PID/maps). A thread of the same process that unmapped in
 *   the microseconds between the lab's read and the call could let one it
 *   counted through: the address space stays under the cap either way.
 * - a new task (clone, clone3, fork, vfork): the tasks of the caller's
 *   user in the caller's user namespace, in the run, zombies included (the
 *   kernel's count drops at the reap), against the cap: the new one makes
 *   one more. Not for a caller the kernel exempts (real root; or
 *   CAP_SYS_RESOURCE or CAP_SYS_ADMIN, which the lab credits to no cap).
 * - a wait (wait4, waitid): the caller's children that ended, each read
 *   while still a zombie, which its parent cannot reap while it is stopped
 *   here: its exit status (/proc/PID/stat) and its own CPU (its PROF clock,
 *   the one RLIMIT_CPU compares with the cap). A wait that would block on
 *   a live child is held until a child it waits for ends (its pidfd says
 *   when), so that the child is still there to read.
 * A cap the caller lowered itself is its own doing: a call is counted
 * only when it is past the layer's cap, with the caller's limit no higher.
 * Every figure is kept only if the notification is still the caller's
 * afterwards: a pid reused meanwhile is another process. */
#define _GNU_SOURCE
#include "limits_watch.h"

#include "lab.h"
#include "proc.h"
#include "run.h"
#include "system.h"
#include "trace.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define PAGE         4096ULL
#define PAGE_UP(n)   (((n) + PAGE - 1) & ~(PAGE - 1))
#define MAP_LARGEST  (1ULL << 40) /* past this, the lack of room, not RLIMIT_AS, may refuse a mapping */
#define TASKS_MAX    1024         /* processes of the run the count reads (the cap is at most 4096 tasks) */
#define CHILDREN_MAX 256

/* The kernel checks RLIMIT_CPU at a tick and signals once the clock has
 * reached the cap: the figure read afterwards is at least the cap, give
 * or take a tick of rounding (as evidence.c's RLIMIT_CPU_SLACK_MS). */
#define CPU_SLACK_MS 20
/* ...and the process can run on a little after the kernel's signal, to
 * the next tick of a loaded machine's: past that, the signal was not the
 * cap's */
#define CPU_TICK_MS 150

/* ---------------- what /proc says of a task ---------------- */

struct task_status {
	pid_t tgid;
	long uid;               /* real uid, as the lab's user namespace maps it */
	long threads;           /* tasks of the process */
	unsigned long long vm;  /* VmSize, bytes */
	unsigned long long lck; /* VmLck, bytes: mlock()ed memory (a locked mapping meets RLIMIT_MEMLOCK first) */
	unsigned long long cap_eff;
	int depth;      /* PID namespaces it is seen in, from the lab's down */
	pid_t nspid[8]; /* its pid in each */
};

static bool task_status(pid_t pid, struct task_status *st)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	char *text = read_file(p, NULL, 1 << 16);
	if (!text)
		return false;
	*st = (struct task_status){.uid = -1, .threads = 1};
	const char *v;
	if ((v = strstr(text, "\nTgid:")))
		st->tgid = (pid_t)strtol(v + 6, NULL, 10);
	if ((v = strstr(text, "\nUid:")))
		st->uid = strtol(v + 5, NULL, 10);
	if ((v = strstr(text, "\nThreads:")))
		st->threads = strtol(v + 9, NULL, 10);
	if ((v = strstr(text, "\nVmSize:")))
		st->vm = strtoull(v + 8, NULL, 10) << 10;
	if ((v = strstr(text, "\nVmLck:")))
		st->lck = strtoull(v + 7, NULL, 10) << 10;
	if ((v = strstr(text, "\nCapEff:")))
		st->cap_eff = strtoull(v + 8, NULL, 16);
	if ((v = strstr(text, "\nNSpid:"))) {
		char *end;
		for (v += 7; st->depth < 8; v = end) {
			long n = strtol(v, &end, 10);
			if (end == v)
				break;
			st->nspid[st->depth++] = (pid_t)n;
		}
	}
	free(text);
	return st->tgid > 0;
}

/* The soft limit of /proc/PID/limits' line named what ("Max processes"):
 * ULLONG_MAX for unlimited, 0 when unreadable. */
static unsigned long long soft_limit(pid_t pid, const char *what)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/limits", pid);
	char *text = read_file(p, NULL, 1 << 14);
	const char *l = text ? strstr(text, what) : NULL;
	unsigned long long v = 0;
	if (l) {
		char word[32] = "";
		if (sscanf(l + strlen(what), " %31s", word) == 1)
			v = !strcmp(word, "unlimited") ? ULLONG_MAX : strtoull(word, NULL, 10);
	}
	free(text);
	return v;
}

/* The user namespace a task is in, by its link ("user:[4026531837]"). */
static bool user_ns(pid_t pid, char *out, size_t cap)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/ns/user", pid);
	ssize_t n = readlink(p, out, cap - 1);
	if (n <= 0)
		return false;
	out[n] = '\0';
	return true;
}

/* One process's fields of /proc/PID/stat the watch reads: its state, its
 * start time (a reused pid is another process) and its exit status (a
 * zombie's: a signal's number in its low bits). */
struct proc_stat {
	unsigned long long start;
	int exit_code;
	int exit_signal; /* the signal its parent gets at its end (SIGCHLD, or a clone's own) */
	char state;
};

static bool proc_stat(pid_t pid, struct proc_stat *ps)
{
	char p[64], buf[1024];
	snprintf(p, sizeof p, "/proc/%d/stat", pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: the fields follow the last ')' */
	char *f = strrchr(buf, ')');
	if (!f)
		return false;
	*ps = (struct proc_stat){.state = f[2]};
	/* field 3 is the state; the start time is 22, the exit status 52 */
	int field = 3;
	for (char *s = f + 2; *s && field < 52; s++)
		if (*s == ' ') {
			field++;
			if (field == 22)
				ps->start = strtoull(s + 1, NULL, 10);
			else if (field == 38)
				ps->exit_signal = (int)strtol(s + 1, NULL, 10);
			else if (field == 52)
				ps->exit_code = (int)strtol(s + 1, NULL, 10);
		}
	return true;
}

/* The children of every thread of process tgid (lab's pids); how many. */
static int children_of(pid_t tgid, pid_t *out, int max)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/task", tgid);
	DIR *d = opendir(p);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char cp[64 + sizeof e->d_name];
		snprintf(cp, sizeof cp, "/proc/%d/task/%s/children", tgid, e->d_name);
		char *text = read_file(cp, NULL, 1 << 16);
		for (char *s = text, *end; s && *s; s = end) {
			long c = strtol(s, &end, 10);
			if (end == s)
				break;
			if (n < max)
				out[n] = (pid_t)c;
			n++;
		}
		free(text);
	}
	if (d)
		closedir(d);
	return n < max ? n : max;
}

/* The run's processes, its init first, then what descends from it
 * (zombies too): by the children files, else (a kernel without them) by
 * the parent chain of every process in /proc. */
static int run_processes(pid_t init, pid_t *out, int max)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/task/%d/children", init, init);
	if (access(p, R_OK) != 0) {
		int n = proc_descendants(init, out + 1, max - 1, false);
		out[0] = init;
		return 1 + (n < max - 1 ? n : max - 1);
	}
	int n = 1;
	out[0] = init;
	for (int i = 0; i < n && n < max; i++)
		n += children_of(out[i], out + n, max - n);
	return n;
}

/* ---------------- answering ---------------- */

static bool still_valid(const struct run *r, unsigned long long id)
{
	return r->tr.notify_fd >= 0 && seccomp_notify_id_valid(r->tr.notify_fd, id) == 0;
}

/* ---------------- RLIMIT_AS: a mapping ---------------- */

/* Whether the lab may read a process's maps now: at most MAPS_PER_S
 * times a second for the whole run, whatever the snippet calls (a call
 * past it is not counted: a refusal unseen, never one invented) */
#define MAPS_PER_S 20
static bool maps_budget(void)
{
	static long second, used;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (ts.tv_sec != second) {
		second = ts.tv_sec;
		used = 0;
	}
	return used++ < MAPS_PER_S;
}

/* Of /proc/PID/maps: how many mappings, the bytes of them inside
 * [lo, hi), and the one holding addr (its end, and whether it is
 * anonymous: no file, the heap, or a named anonymous one). */
struct maps_view {
	long count;
	unsigned long long overlap;
	unsigned long long holder_end;
	bool holder_anon;
};

static bool read_maps(pid_t pid, unsigned long long lo, unsigned long long hi, unsigned long long addr,
                      struct maps_view *m)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/maps", pid);
	FILE *f = maps_budget() ? fopen(p, "re") : NULL;
	if (!f)
		return false;
	*m = (struct maps_view){0};
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long s, e;
		char path[64] = "";
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %63s", &s, &e, path) < 2)
			continue;
		m->count++;
		if (s < hi && e > lo)
			m->overlap += (e < hi ? e : hi) - (s > lo ? s : lo);
		if (s <= addr && addr < e) {
			m->holder_end = e;
			m->holder_anon = !path[0] || !strcmp(path, "[heap]") || !strncmp(path, "[anon:", 6);
		}
	}
	free(line);
	fclose(f);
	return true;
}

/* A number of /proc/sys/vm (max_map_count, mmap_min_addr), else dflt. */
static unsigned long long vm_sysctl(const char *name, unsigned long long dflt)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/sys/vm/%s", name);
	char *t = read_file(p, NULL, 64);
	unsigned long long v = t ? strtoull(t, NULL, 10) : 0;
	free(t);
	return v > 0 ? v : dflt;
}

/* What mmap() would add to the address space, 0 when the lab cannot tell
 * that RLIMIT_AS is the check it would meet (a file mapping, flags whose
 * own checks come first, a hint past where the lab looks). */
static unsigned long long mmap_growth(pid_t pid, const unsigned long long a[6], struct maps_view *m)
{
	const unsigned long long known = 0x0f /* MAP_TYPE */ | MAP_FIXED | MAP_ANONYMOUS | MAP_NORESERVE |
	                                 MAP_POPULATE | MAP_NONBLOCK | MAP_STACK | MAP_DENYWRITE | MAP_EXECUTABLE |
	                                 MAP_FIXED_NOREPLACE;
	unsigned long long addr = a[0], len = PAGE_UP(a[1]), flags = a[3] & 0xffffffffULL, type = flags & 0x0f;
	if (!(flags & MAP_ANONYMOUS) || (flags & ~known) || (type != MAP_SHARED && type != MAP_PRIVATE) ||
	    (a[2] & ~(unsigned long long)(PROT_READ | PROT_WRITE | PROT_EXEC)) || (a[5] & (PAGE - 1)) || !len ||
	    len > MAP_LARGEST)
		return 0;
	/* the file offset's pages past the end of the page count: EOVERFLOW */
	if ((a[5] >> 12) + (len >> 12) < (a[5] >> 12))
		return 0;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	/* a fixed address: aligned (EINVAL), below the top of user space and
	 * not under mmap_min_addr (ENOMEM, EPERM) */
	if (fixed &&
	    ((addr & (PAGE - 1)) || addr + len > (1ULL << 47) - PAGE || addr < vm_sysctl("mmap_min_addr", 65536)))
		return 0;
	/* only a fixed address may overlap what is mapped (a hint never does) */
	if (!fixed)
		return len;
	if (!read_maps(pid, addr, addr + len, 0, m) || ((flags & MAP_FIXED_NOREPLACE) && m->overlap))
		return 0; /* EEXIST */
	return len - (flags & MAP_FIXED ? m->overlap : 0);
}

/* What mremap() would add: only growing an anonymous mapping in place or
 * by moving it (MREMAP_MAYMOVE), the old range inside one mapping. */
static unsigned long long mremap_growth(pid_t pid, const unsigned long long a[6], struct maps_view *m)
{
	unsigned long long addr = a[0], old = PAGE_UP(a[1]), len = PAGE_UP(a[2]), flags = a[3] & 0xffffffffULL;
	if ((flags & ~1ULL) || (addr & (PAGE - 1)) || !old || len <= old || len > MAP_LARGEST)
		return 0;
	/* the old range's mapping, read at most a few times a second: a loop
	 * of mremap() calls must not make the lab read a long maps file at
	 * each (round 9: 1.5 MB a call kept the lab at a full core) */
	if (!read_maps(pid, 0, 0, addr, m) || !m->holder_anon || addr + old > m->holder_end)
		return 0;
	return len - old;
}

/* mlockall(MCL_FUTURE): the process's later mappings are locked, and
 * RLIMIT_MEMLOCK's check comes before RLIMIT_AS's. Remembered by pid for
 * the rest of the run (an exec ends it: counting fewer is the safe side). */
static bool locks_future(const struct limits_watch *lw, pid_t tgid)
{
	int n = lw->n_locking < LIMITS_WATCH_LOCKING_MAX ? lw->n_locking : LIMITS_WATCH_LOCKING_MAX;
	for (int i = 0; i < n; i++)
		if (lw->locking[i] == tgid)
			return true;
	return false;
}

static void watch_mlockall(struct limits_watch *lw, const struct seccomp_notif *req, const struct task_status *st)
{
	if ((req->data.args[0] & MCL_FUTURE) && !locks_future(lw, st->tgid))
		lw->locking[lw->n_locking++ % LIMITS_WATCH_LOCKING_MAX] = st->tgid;
}

static void trace_mapping(struct run *r, struct lab_trace *t, bool mremap, unsigned long long growth,
                          unsigned long long vm)
{
	char size[32], cap[32], call[64], by[96];
	fmt_bytes(size, sizeof size, growth);
	fmt_bytes(cap, sizeof cap, r->cfg->limits.memory);
	snprintf(call, sizeof call, mremap ? "mremap(+%s, anonymous)" : "mmap(%s, anonymous)", size);
	snprintf(by, sizeof by, "RLIMIT_AS %s, seen at the call (Resource-limits)", cap);
	trace_add(t, call, "-1 ENOMEM", by);
	if (t->as_refused++ == 0) {
		t->as_len = (long long)growth;
		t->as_vm = (long long)vm;
		t->as_mremap = mremap;
	}
}

static void watch_mapping(struct run *r, struct lab_trace *t, const struct seccomp_notif *req,
                          const struct task_status *st)
{
	bool mremap = req->data.nr == SCMP_SYS(mremap);
	struct maps_view m = {0};
	unsigned long long cap = r->cfg->limits.memory;
	unsigned long long growth =
	    mremap ? mremap_growth(st->tgid, req->data.args, &m) : mmap_growth(st->tgid, req->data.args, &m);
	/* may_expand_vm(): total_vm + npages > rlimit >> PAGE_SHIFT. A
	 * process that locks its mappings (mlockall(MCL_FUTURE), or memory
	 * locked already) meets RLIMIT_MEMLOCK first: not counted */
	if (!growth || (st->vm + growth) / PAGE <= cap / PAGE || st->lck || locks_future(&r->tr.lw, st->tgid) ||
	    soft_limit(st->tgid, "Max address space") > cap)
		return;
	/* the map count's own ENOMEM comes first */
	if (!m.count && !read_maps(st->tgid, 0, 0, 0, &m))
		return;
	if ((unsigned long long)m.count > vm_sysctl("max_map_count", 65530) || !still_valid(r, req->id))
		return;
	trace_mapping(r, t, mremap, growth, st->vm);
}

/* ---------------- RLIMIT_NPROC: a new task ---------------- */

/* The flags a fork or a thread is made with (glibc's fork, vfork,
 * pthread_create, posix_spawn), the only ones counted: with any other
 * (a namespace, whose new user namespace counts its tasks apart;
 * CLONE_PARENT, CLONE_PIDFD, CLONE_INTO_CGROUP...) a check of its own may
 * refuse the call before RLIMIT_NPROC's. */
#define CLONE_COUNTED                                                                                                  \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_VFORK | CLONE_THREAD | CLONE_SYSVSEM |              \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | CLONE_IO)

/* clone3's struct clone_args, its first version (64 bytes): flags,
 * pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls */
static bool clone3_flags(const struct run *r, const struct seccomp_notif *req, unsigned long long *flags)
{
	unsigned long long ca[11] = {0};
	size_t size = req->data.args[1];
	if (size < 64 || size > sizeof ca) /* past the 88 bytes of version 2: E2BIG unless zero */
		return false;
	char p[64];
	snprintf(p, sizeof p, "/proc/%u/mem", req->pid);
	int mem = open(p, O_RDONLY | O_CLOEXEC);
	bool ok = mem >= 0 && pread(mem, ca, size, (off_t)req->data.args[0]) == (ssize_t)size;
	if (mem >= 0)
		close(mem);
	if (!ok || !still_valid(r, req->id))
		return false;
	*flags = ca[0];
	/* clone3_args_valid(): the exit signal apart (none for a thread), no
	 * CSIGNAL bits, a stack with a size, no set_tid (version 1) */
	return !(ca[0] & CSIGNAL) && ca[4] <= 64 && !((ca[0] & CLONE_THREAD) && ca[4]) && !ca[5] == !ca[6] &&
	       (size < 80 || !ca[9]);
}

static bool clone_flags(const struct run *r, const struct seccomp_notif *req, unsigned long long *flags)
{
	int nr = req->data.nr;
	if (nr == SCMP_SYS(fork))
		*flags = SIGCHLD;
	else if (nr == SCMP_SYS(vfork))
		*flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
	else if (nr == SCMP_SYS(clone))
		*flags = req->data.args[0] & ~(unsigned long long)CSIGNAL; /* the exit signal, in the low byte */
	else if (!clone3_flags(r, req, flags))
		return false;
	unsigned long long f = *flags;
	/* copy_process()'s own EINVAL: a thread shares the signal handlers,
	 * which share the memory */
	return !(f & ~(unsigned long long)CLONE_COUNTED) && !((f & CLONE_THREAD) && !(f & CLONE_SIGHAND)) &&
	       !((f & CLONE_SIGHAND) && !(f & CLONE_VM));
}

/* A thread of a process whose next children go to another PID namespace
 * than its own (unshare(CLONE_NEWPID)) is EINVAL. */
static bool same_pid_ns_for_children(pid_t tid)
{
	char p[64], a[64], b[64];
	snprintf(p, sizeof p, "/proc/%d/ns/pid", tid);
	ssize_t na = readlink(p, a, sizeof a - 1);
	snprintf(p, sizeof p, "/proc/%d/ns/pid_for_children", tid);
	ssize_t nb = readlink(p, b, sizeof b - 1);
	return na > 0 && na == nb && !memcmp(a, b, (size_t)na);
}

/* The tasks of the caller's user, in its user namespace, in the run. */
static long user_tasks(const struct run *r, const struct task_status *caller, const char *caller_ns)
{
	pid_t *pids = malloc(TASKS_MAX * sizeof *pids);
	if (!pids)
		return -1;
	int n = run_processes(r->child_pid, pids, TASKS_MAX);
	long tasks = 0;
	for (int i = 0; i < n; i++) {
		struct task_status st;
		char ns[64];
		bool ns_read = user_ns(pids[i], ns, sizeof ns);
		if (!ns_read && pids[i] == r->child_pid) { /* the init: the namespace it forked the snippet in */
			str_copy(ns, sizeof ns, r->tr.lw.run_ns);
			ns_read = ns[0] != '\0';
		}
		if (ns_read && task_status(pids[i], &st) && st.uid == caller->uid && !strcmp(ns, caller_ns))
			tasks += st.threads > 0 ? st.threads : 1;
	}
	free(pids);
	return tasks;
}

#define CAP_SYS_ADMIN_BIT    21
#define CAP_SYS_RESOURCE_BIT 24

static void watch_task(struct run *r, struct lab_trace *t, const struct seccomp_notif *req,
                       const struct task_status *st)
{
	unsigned long long flags;
	long cap = r->cfg->limits.pids;
	char ns[64], own[64];
	if (!clone_flags(r, req, &flags) || !user_ns((pid_t)req->pid, ns, sizeof ns))
		return;
	/* exempt: real root, or the capabilities that lift the cap */
	bool lab_ns = user_ns(getpid(), own, sizeof own) && !strcmp(ns, own);
	if (st->uid == 0 || (lab_ns && (st->cap_eff & ((1ULL << CAP_SYS_ADMIN_BIT) | (1ULL << CAP_SYS_RESOURCE_BIT)))))
		return;
	if (soft_limit(st->tgid, "Max processes") > (unsigned long long)cap)
		return;
	long tasks = user_tasks(r, st, ns);
	if (tasks + 1 <= cap || ((flags & CLONE_THREAD) && !same_pid_ns_for_children((pid_t)req->pid)) ||
	    !still_valid(r, req->id))
		return;
	char by[96];
	snprintf(by, sizeof by, "RLIMIT_NPROC %ld, seen at the call (Resource-limits)", cap);
	trace_add(t, flags & CLONE_THREAD ? "clone(CLONE_THREAD): a thread" : "fork()", "-1 EAGAIN", by);
	if (t->nproc_refused++ == 0)
		t->nproc_tasks = tasks;
}

/* ---------------- RLIMIT_CPU: the ends of children ---------------- */

static bool seen_before(struct limits_watch *lw, pid_t pid, unsigned long long start)
{
	int n = lw->n_seen < LIMITS_WATCH_SEEN_MAX ? lw->n_seen : LIMITS_WATCH_SEEN_MAX;
	for (int i = 0; i < n; i++)
		if (lw->seen[i].pid == pid && lw->seen[i].start == start)
			return true;
	lw->seen[lw->n_seen % LIMITS_WATCH_SEEN_MAX].pid = pid;
	lw->seen[lw->n_seen % LIMITS_WATCH_SEEN_MAX].start = start;
	lw->n_seen++;
	return false;
}

/* A process's own CPU (all its threads', none of its children's), on its
 * PROF clock, in ms; -1 if it cannot be read. */
static long prof_ms(pid_t pid)
{
	clockid_t clk;
	struct timespec ts;
	if (clock_getcpuclockid(pid, &clk) != 0)
		return -1;
	clk &= ~(clockid_t)7; /* the clock's low bits name it: PROF 0 (clock_getcpuclockid gives SCHED) */
	return clock_gettime(clk, &ts) < 0 ? -1 : (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A zombie child, read: whether RLIMIT_CPU ended it (SIGXCPU with its own
 * CPU at the soft cap, SIGKILL at the hard one a second later). */
static void child_ended(struct run *r, struct lab_trace *t, pid_t pid, const struct proc_stat *ps)
{
	long ms = prof_ms(pid);
	struct proc_stat again;
	/* still that zombie: the clock was its own */
	if (ms < 0 || !proc_stat(pid, &again) || again.state != 'Z' || again.start != ps->start)
		return;
	if (seen_before(&r->tr.lw, pid, ps->start) || pid == r->tr.lw.main_pid)
		return;
	t->ends_seen++;
	int sig = ps->exit_code & 0x7f;
	long soft = r->cfg->limits.cpu_time * 1000;
	/* the kernel's signals come at the cap (SIGXCPU at the soft one, once
	 * a second after it, SIGKILL at the hard one): one the process had
	 * at another figure was sent by someone (round 9: a parent's
	 * kill(SIGXCPU) at 2.4 s) */
	long hard = soft + 1000, past = ms - soft;
	bool at_tick = past + CPU_SLACK_MS >= 0 && past % 1000 <= CPU_TICK_MS;
	bool killed = (sig == SIGXCPU && ms < hard && at_tick) ||
	              (sig == SIGKILL && ms + CPU_SLACK_MS >= hard && ms - hard <= CPU_TICK_MS);
	if (!killed)
		return;
	char by[96];
	snprintf(by, sizeof by, "RLIMIT_CPU %ld s: its end read as a zombie (Resource-limits)",
	         r->cfg->limits.cpu_time);
	trace_add(t, sig == SIGXCPU ? "a child killed by SIGXCPU" : "a child killed by SIGKILL", "", by);
	if (t->cpu_kills++ == 0) {
		t->cpu_kill_ms = ms;
		t->cpu_kill_sig = sig;
	}
}

/* The caller's children: the ended ones read (kept only if the caller is
 * still stopped in the call afterwards: else they may be anyone's); how
 * many it waits for are alive, and whether one of those has ended. */
static void look_at_children(struct run *r, struct lab_trace *t, const struct limits_watch_held *h, int *alive,
                             bool *ended)
{
	pid_t kids[CHILDREN_MAX];
	struct proc_stat ps[CHILDREN_MAX];
	int n = children_of(h->tgid, kids, CHILDREN_MAX);
	*alive = 0;
	*ended = false;
	for (int i = 0; i < n; i++) {
		if (!proc_stat(kids[i], &ps[i]))
			ps[i].state = '?';
		bool target = !h->target || kids[i] == h->target;
		/* stopped, or stopped for a tracer: a wait may return for it,
		 * the lab lets it go (it holds only for an end) */
		if (target && ps[i].state && strchr("ZXtT", ps[i].state))
			*ended = true;
		/* a plain wait waits only for children that signal SIGCHLD */
		else if (target && ps[i].state != '?' && ps[i].exit_signal == SIGCHLD)
			(*alive)++;
	}
	if (!still_valid(r, h->id))
		return;
	for (int i = 0; i < n; i++)
		if (ps[i].state == 'Z')
			child_ended(r, t, kids[i], &ps[i]);
}

/* Whether the wait is one the lab may hold until a child ends: only the
 * plainest forms, whose answer it can tell (red team round 9: a wait for
 * a process group the only child had left, or with __WCLONE, is ECHILD at
 * once for the kernel, and was held until the wall clock): wait4() for
 * one child or any (pid > 0 or -1) with no option at all, waitid() for
 * P_PID or P_ALL with WEXITED alone. Any other goes on at once. */
static bool wait_blocks(const struct seccomp_notif *req)
{
	if (req->data.nr == SCMP_SYS(wait4))
		return req->data.args[2] == 0 && ((int)req->data.args[0] > 0 || (int)req->data.args[0] == -1);
	return (req->data.args[0] == 0 /* P_ALL */ || req->data.args[0] == 1 /* P_PID */) &&
	       (req->data.args[3] & 0xffffffffULL) == WEXITED;
}

/* The child a wait names (lab's pid), 0 for any of the caller's: a pid
 * in the caller's own PID namespace, matched by each child's NSpid. */
static pid_t wait_target(const struct seccomp_notif *req, const struct task_status *caller)
{
	long want = 0;
	if (req->data.nr == SCMP_SYS(wait4) && (int)req->data.args[0] > 0)
		want = (int)req->data.args[0];
	else if (req->data.nr == SCMP_SYS(waitid) && req->data.args[0] == 1 /* P_PID */)
		want = (int)req->data.args[1];
	if (want <= 0 || caller->depth < 1)
		return 0;
	pid_t kids[CHILDREN_MAX];
	int n = children_of(caller->tgid, kids, CHILDREN_MAX);
	for (int i = 0; i < n; i++) {
		struct task_status st;
		if (task_status(kids[i], &st) && st.depth >= caller->depth && st.nspid[caller->depth - 1] == want)
			return kids[i];
	}
	return -1; /* no such child: the kernel answers ECHILD */
}

/* Whether a thread of process tgid traces a task of the run: a tracer's
 * wait returns at each of its tracee's stops, which no pidfd tells. */
static bool traces_in_run(const struct run *r, pid_t tgid)
{
	pid_t *pids = malloc(TASKS_MAX * sizeof *pids);
	if (!pids)
		return true;
	int n = run_processes(r->child_pid, pids, TASKS_MAX);
	bool traces = false;
	for (int i = 0; i < n && !traces; i++) {
		char p[64];
		snprintf(p, sizeof p, "/proc/%d/task", pids[i]);
		DIR *d = opendir(p);
		for (struct dirent *e; d && !traces && (e = readdir(d));) {
			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			char sp[64 + sizeof e->d_name];
			snprintf(sp, sizeof sp, "/proc/%d/task/%s/status", pids[i], e->d_name);
			char *text = read_file(sp, NULL, 1 << 16);
			const char *v = text ? strstr(text, "\nTracerPid:") : NULL;
			pid_t tracer = v ? (pid_t)strtol(v + 11, NULL, 10) : 0;
			free(text);
			struct task_status st;
			traces = tracer > 0 && task_status(tracer, &st) && st.tgid == tgid;
		}
		if (d)
			closedir(d);
	}
	free(pids);
	return traces;
}

static bool let_go(struct run *r, unsigned long long id)
{
	return trace_continue(r, id);
}

static void watch_wait(struct run *r, struct lab_trace *t, const struct seccomp_notif *req,
                       const struct task_status *st)
{
	struct limits_watch *lw = &r->tr.lw;
	struct limits_watch_held h = {req->id, (pid_t)req->pid, st->tgid, wait_target(req, st)};
	int alive = 0;
	bool ended = false;
	if (h.target >= 0)
		look_at_children(r, t, &h, &alive, &ended);
	/* held only where nothing but an end returns from it: no tracer
	 * (Isolation's filter refuses ptrace) */
	if (h.target < 0 || ended || !alive || !wait_blocks(req) || lw->n_held >= LIMITS_WATCH_HELD_MAX ||
	    (r->tr.layer != LAYER_ISOLATION && traces_in_run(r, st->tgid))) {
		let_go(r, req->id);
		return;
	}
	/* a restarted wait comes with a new notification: the old is void */
	for (int i = 0; i < lw->n_held; i++)
		if (lw->held[i].tid == h.tid)
			lw->held[i--] = lw->held[--lw->n_held];
	lw->held[lw->n_held++] = h;
	lw->fresh = true; /* its children's pidfds, at once */
}

/* ---------------- the listener's side ---------------- */

static bool watch_takes(const struct run *r, const struct seccomp_notif *req)
{
	if (!r->tr.watch_limits)
		return false;
	int nr = req->data.nr;
	bool iso = r->tr.layer == LAYER_ISOLATION; /* its rules ride in the listener's filter */
	if (nr == SCMP_SYS(clone3))
		return !iso; /* Isolation refuses every clone3 (ENOSYS) */
	if (nr == SCMP_SYS(clone)) {
		const unsigned long long ns = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
		                              CLONE_NEWNET | CLONE_NEWCGROUP | CLONE_NEWTIME;
		return !(iso && (req->data.args[0] & ns));
	}
	return nr == SCMP_SYS(mmap) || nr == SCMP_SYS(mremap) || nr == SCMP_SYS(wait4) || nr == SCMP_SYS(waitid) ||
	       nr == SCMP_SYS(fork) || nr == SCMP_SYS(vfork) || nr == SCMP_SYS(mlockall);
}

bool limits_watch_call(struct run *r, struct lab_trace *t, const struct seccomp_notif *req)
{
	struct limits_watch *lw = &r->tr.lw;
	struct task_status st;
	int nr = req->data.nr;
	if (!watch_takes(r, req))
		return false;
	if (!task_status((pid_t)req->pid, &st) || !still_valid(r, req->id)) {
		let_go(r, req->id);
		return true;
	}
	if (!lw->main_pid && st.tgid != r->child_pid) {
		lw->main_pid = st.tgid;
		if (!user_ns(st.tgid, lw->run_ns, sizeof lw->run_ns) || !still_valid(r, req->id))
			lw->run_ns[0] = '\0';
	}
	if (nr == SCMP_SYS(wait4) || nr == SCMP_SYS(waitid)) {
		watch_wait(r, t, req, &st);
		return true;
	}
	if (nr == SCMP_SYS(mmap) || nr == SCMP_SYS(mremap))
		watch_mapping(r, t, req, &st);
	else if (nr == SCMP_SYS(mlockall))
		watch_mlockall(lw, req, &st);
	else
		watch_task(r, t, req, &st);
	let_go(r, req->id);
	return true;
}

bool limits_watch_holding(const struct run *r)
{
	return r->tr.lw.n_held > 0;
}

int limits_watch_poll(const struct run *r, struct pollfd *pfd, int max)
{
	const struct limits_watch *lw = &r->tr.lw;
	int n = 0;
	for (int i = 0; i < lw->n_pidfd && n < max; i++)
		pfd[n++] = (struct pollfd){lw->pidfd[i].fd, POLLIN, 0};
	return n;
}

static void close_pidfds(struct limits_watch *lw)
{
	for (int i = 0; i < lw->n_pidfd; i++)
		close(lw->pidfd[i].fd);
	lw->n_pidfd = 0;
}

/* pidfds of the live children a held wait waits for (the set is made
 * again each look: a child forked meanwhile by another thread joins it). */
static void watch_children(struct limits_watch *lw, const struct limits_watch_held *h)
{
	pid_t kids[CHILDREN_MAX];
	int n = h->target ? 1 : children_of(h->tgid, kids, CHILDREN_MAX);
	if (h->target)
		kids[0] = h->target;
	for (int i = 0; i < n && lw->n_pidfd < LIMITS_WATCH_PIDFD_MAX; i++) {
		bool have = false;
		for (int j = 0; j < lw->n_pidfd && !have; j++)
			have = lw->pidfd[j].pid == kids[i];
		int fd = have ? -1 : (int)syscall(SYS_pidfd_open, kids[i], 0);
		if (fd >= 0) {
			lw->pidfd[lw->n_pidfd].pid = kids[i];
			lw->pidfd[lw->n_pidfd++].fd = fd;
		}
	}
}

void limits_watch_recheck(struct run *r, struct lab_trace *t, bool woke, long now)
{
	struct limits_watch *lw = &r->tr.lw;
	if (!woke && !lw->fresh && now - lw->last_look < LIMITS_WATCH_LOOK_MS)
		return;
	lw->fresh = false;
	lw->last_look = now;
	close_pidfds(lw);
	for (int i = 0; i < lw->n_held; i++) {
		struct limits_watch_held *h = &lw->held[i];
		int alive = 0;
		bool ended = false;
		bool valid = still_valid(r, h->id);
		if (valid)
			look_at_children(r, t, h, &alive, &ended);
		if (valid && !ended && alive) {
			watch_children(lw, h);
			continue;
		}
		if (valid)
			let_go(r, h->id);
		lw->held[i--] = lw->held[--lw->n_held];
	}
}

void limits_watch_close(struct run *r)
{
	struct limits_watch *lw = &r->tr.lw;
	for (int i = 0; i < lw->n_held; i++)
		let_go(r, lw->held[i].id);
	lw->n_held = 0;
	close_pidfds(lw);
}
