/* rootfs.c — the two views a child can build of the file system, in its
 * own mount namespace, as one list of checked steps each:
 *
 *  - the private root (Isolation on): a fresh tmpfs with read-only binds of
 *    what the interpreter needs, a fresh /proc, a minimal read-only /dev, a
 *    private size-capped /tmp; pivot_root into it;
 *  - the range (Isolation off): the host's own view, made read-only, with a
 *    fresh /proc for the run's PID namespace, private size-capped /tmp and
 *    /dev/shm, the real home folders covered by empty ones, and the run's
 *    folder put back at /tmp/NAME with only its decoy "host" writable.
 *    Then a second user and mount namespace lock all of it in place: mounts
 *    that reach a less privileged mount namespace cannot be unmounted or
 *    made writable again, even by a snippet that is root with every
 *    capability of its namespace.
 * Every failure names the step and the path (bubblewrap style). */
#define _GNU_SOURCE
#include "run.h"
#include "system.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A writable mount the run keeps: nosuid and nodev all the same. */
static int rootfs_make_nosuid(const char *path)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	return mount_setattr(AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof attr);
}

static int rootfs_make_ro(const char *path, bool recursive)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	if (mount_setattr(AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr, sizeof attr) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* old kernels: a remount must repeat the flags the mount is locked with */
	struct statvfs sv;
	if (statvfs(path, &sv) < 0)
		return -1;
	unsigned long fl = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		fl |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		fl |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		fl |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		fl |= MS_RELATIME;
	return mount(NULL, path, NULL, fl, NULL);
}

static void mkdir_p(struct run *r, const char *path, mode_t mode)
{
	if (mkdirs(path, mode) < 0)
		run_fail(r, "mkdir", path, errno);
}

static void put_file(struct run *r, const char *root, const char *name, const char *text)
{
	char p[PATH_MAX];
	if (pathf(p, sizeof p, "%s%s", root, name) < 0)
		run_fail(r, "write a file in the new root", name, ENAMETOOLONG);
	if (write_file(p, text, 0644) < 0)
		run_fail(r, "write a file in the new root", p, errno);
}

static void mount_fs(struct run *r, const char *type, const char *target, unsigned long flags, const char *opts)
{
	if (mount(type, target, type, flags, opts) < 0)
		run_fail(r, type, target, errno);
}

void rootfs_bind(struct run *r, const char *src, const char *root, const char *dst, bool ro)
{
	char target[PATH_MAX];
	if (pathf(target, sizeof target, "%s%s", root, dst) < 0)
		run_fail(r, "bind-mount", dst, ENAMETOOLONG);
	struct stat st;
	if (stat(src, &st) < 0)
		return; /* nothing to bind on this host */
	if (S_ISDIR(st.st_mode)) {
		mkdir_p(r, target, 0755);
	} else {
		int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST && errno != EROFS)
			run_fail(r, "create a bind target", target, errno);
		if (fd >= 0)
			close(fd);
	}
	if (mount(src, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		run_fail(r, "bind-mount", src, errno);
	if (ro && rootfs_make_ro(target, true) < 0)
		run_fail(r, "make a bind mount read-only", target, errno);
}

static void symlink_in(struct run *r, const char *target, const char *root, const char *name)
{
	char p[PATH_MAX];
	if (pathf(p, sizeof p, "%s%s", root, name) < 0 || symlink(target, p) < 0)
		run_fail(r, "symlink", name, errno ? errno : ENAMETOOLONG);
}

static void mkdir_in(struct run *r, const char *root, const char *name, mode_t mode)
{
	char p[PATH_MAX];
	if (pathf(p, sizeof p, "%s%s", root, name) < 0)
		run_fail(r, "mkdir", name, ENAMETOOLONG);
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		run_fail(r, "mkdir", p, errno);
}

/* /proc/keys and /proc/key-users list the keys the reader may view (a
 * login's session keyring, the user keyrings) with their serials, which is
 * all keyctl needs to read or add to them: an empty file over each. */
static void hide_keys(struct run *r, const char *proc)
{
	static const char *const lists[] = {"keys", "key-users"};
	for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
		char p[PATH_MAX];
		if (pathf(p, sizeof p, "%s/%s", proc, lists[i]) < 0 || access(p, F_OK) < 0)
			continue; /* no keys in this kernel */
		/* read-only, but not nodev: /dev/null must still open (it reads empty) */
		struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID};
		if (mount("/dev/null", p, NULL, MS_BIND, NULL) < 0)
			run_fail(r, "hide the key lists (bind /dev/null)", p, errno);
		if (mount_setattr(AT_FDCWD, p, 0, &ro, sizeof ro) < 0)
			run_fail(r, "make read-only", p, errno);
	}
}
static int clone_tree(struct run *r, const char *path);

/* ---------------- the private root (Isolation) ---------------- */

/* minimal /dev: a few character devices, no terminal, then read-only */
static void private_dev(struct run *r, const char *root)
{
	char p[PATH_MAX];
	mkdir_in(r, root, "/dev", 0755);
	pathf(p, sizeof p, "%s/dev", root);
	mount_fs(r, "tmpfs", p, MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k");
	static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
	for (size_t i = 0; i < sizeof devs / sizeof *devs; i++)
		rootfs_bind(r, devs[i], root, devs[i], false);
	static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
	                                       {"/proc/self/fd/0", "/dev/stdin"},
	                                       {"/proc/self/fd/1", "/dev/stdout"},
	                                       {"/proc/self/fd/2", "/dev/stderr"}};
	for (size_t i = 0; i < sizeof links / sizeof *links; i++)
		symlink_in(r, links[i][0], root, links[i][1]);
	mkdir_in(r, root, "/dev/shm", 01777); /* the range mounts its private one here */
	if (rootfs_make_ro(p, false) < 0)
		run_fail(r, "make read-only", p, errno);
}

/* exec: the current folder, cloned before clone() by a root lab (root
 * inside is an unprivileged uid outside and may not be able to walk to it,
 * /root is 0700), or here, before /tmp is covered by the new root. */
static void private_cwd(struct run *r, const char *root)
{
	char p[PATH_MAX];
	if (r->cwd_tree < 0)
		return;
	if (pathf(p, sizeof p, "%s%s", root, r->cwd) < 0)
		run_fail(r, "attach the current folder", r->cwd, ENAMETOOLONG);
	mkdir_p(r, p, 0755);
	if (move_mount(r->cwd_tree, "", AT_FDCWD, p, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		run_fail(r, "attach the current folder", p, errno);
	if (!r->setup.exec_rw ? rootfs_make_ro(p, true) < 0 : rootfs_make_nosuid(p) < 0)
		run_fail(r, r->setup.exec_rw ? "make nosuid,nodev" : "make read-only", p, errno);
}

/* The private root's first step (SPEC_FS_ROOT): mounts private, the trees
 * the new root will cover taken, and the root's own tmpfs. */
static void private_begin(struct run *r, uint64_t size)
{
	char opts[64];
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		run_fail(r, "make mounts private", "/", errno);
	if (r->kind == RUN_EXEC && r->cwd_tree < 0) {
		r->cwd_tree = open_tree(AT_FDCWD, r->cwd, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (r->cwd_tree < 0)
			run_fail(r, "take the current folder (open_tree needs Linux 5.2)", r->cwd, errno);
	}
	/* the run folder is 0700 and the new root covers /tmp: what the
	 * sandbox sees of it is taken now (a root lab took it already) */
	if (r->kind != RUN_EXEC && r->work_tree < 0)
		r->work_tree = clone_tree(r, r->d.work);
	if (spec_has_step(&r->spec, SPEC_FS_HOME) && r->home_tree < 0)
		r->home_tree = clone_tree(r, r->d.home);
	snprintf(opts, sizeof opts, "mode=0755,size=%llu", (unsigned long long)size);
	mount_fs(r, "tmpfs", r->d.root, MS_NOSUID | MS_NODEV, opts);
}

/* SPEC_FS_HOST_TOP: a merged-/usr host's symlink, or a read-only bind */
static void private_top(struct run *r, const char *root, const char *dst)
{
	const char *link;
	if (!spec_host_top(&r->host, dst, &link))
		return; /* nothing there on this host */
	if (*link)
		symlink_in(r, link, root, dst);
	else
		rootfs_bind(r, dst, root, dst, true);
}

static void private_proc(struct run *r, const char *root, const char *dst)
{
	char p[PATH_MAX];
	mkdir_in(r, root, dst, 0555);
	pathf(p, sizeof p, "%s%s", root, dst);
	mount_fs(r, "proc", p, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	hide_keys(r, p);
}

static void private_tmpfs(struct run *r, const char *root, const struct spec_fs_op *op)
{
	char p[PATH_MAX], opts[64];
	mkdir_in(r, root, op->dst, op->mode);
	pathf(p, sizeof p, "%s%s", root, op->dst);
	snprintf(opts, sizeof opts, "mode=%o,size=%llu", op->mode, (unsigned long long)op->size);
	mount_fs(r, "tmpfs", p, MS_NOSUID | MS_NODEV, opts);
}

/* The root itself becomes read-only (only /tmp is writable), then we enter
 * it and detach the old root stacked under it. After the layers have put
 * their own mounts in (Clean-env off adds the credentials). */
void rootfs_pivot(struct run *r)
{
	const char *root = r->d.root;
	if (rootfs_make_ro(root, false) < 0)
		run_fail(r, "make the new root read-only", root, errno);
	if (chdir(root) < 0)
		run_fail(r, "enter the new root", root, errno);
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		run_fail(r, "pivot_root", root, errno);
	if (umount2(".", MNT_DETACH) < 0)
		run_fail(r, "detach the old root", "/", errno);
	if (chdir("/") < 0)
		run_fail(r, "chdir", "/", errno);
}

/* ---------------- the range (Isolation off) ---------------- */

static int clone_tree(struct run *r, const char *path)
{
	int fd = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0)
		run_fail(r, "keep a folder for the range (open_tree needs Linux 5.2)", path, errno);
	return fd;
}

void rootfs_attach(struct run *r, int tree, const char *path, bool ro)
{
	mkdir_p(r, path, 0755);
	if (move_mount(tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		run_fail(r, "put a folder back into the range", path, errno);
	close(tree);
	if (ro && rootfs_make_ro(path, true) < 0)
		run_fail(r, "make read-only", path, errno);
}

/* An empty, read-only tmpfs over a folder that must not be seen. */
static void cover(struct run *r, const char *path, const char *opts, bool ro)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	mount_fs(r, "tmpfs", path, MS_NOSUID | MS_NODEV, opts);
	if (ro && rootfs_make_ro(path, false) < 0)
		run_fail(r, "make read-only", path, errno);
}

/* Whether path is below (or is) dir. */
static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || (n == 1 && dir[0] == '/'));
}

/* A fresh /proc for the run's PID namespace. A snippet of a root lab is
 * uid 0 (without Isolation), which is all /proc/sys and sysrq-trigger ask
 * of a writer: those, and the other host-wide knobs, are bound read-only
 * over themselves (the lock below then keeps them so). */
static void range_proc(struct run *r)
{
	mount_fs(r, "proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	hide_keys(r, "/proc");
	static const char *const knobs[] = {"/proc/sys",   "/proc/sysrq-trigger", "/proc/irq",  "/proc/bus",
	                                    "/proc/fs",    "/proc/acpi",          "/proc/scsi", "/proc/asound",
	                                    "/proc/kcore", "/proc/timer_list"};
	for (size_t i = 0; i < sizeof knobs / sizeof *knobs; i++) {
		if (access(knobs[i], F_OK) < 0)
			continue; /* not on this kernel */
		if (mount(knobs[i], knobs[i], NULL, MS_BIND | MS_REC, NULL) < 0)
			run_fail(r, "bind-mount", knobs[i], errno);
		if (rootfs_make_ro(knobs[i], true) < 0)
			run_fail(r, "make read-only", knobs[i], errno);
	}
}

/* The host's /dev holds its disks and terminals (a read-only mount does not
 * stop writes to a device): the range gets the private root's minimal one,
 * built aside in the private /tmp and moved over /dev. */
static void range_dev(struct run *r)
{
	char aside[64], dev[80];
	snprintf(aside, sizeof aside, "/tmp/.containment-lab-dev");
	snprintf(dev, sizeof dev, "%s/dev", aside);
	if (mkdir(aside, 0755) < 0)
		run_fail(r, "mkdir", aside, errno);
	private_dev(r, aside);
	if (mount(dev, "/dev", NULL, MS_MOVE, NULL) < 0)
		run_fail(r, "move the minimal /dev into place", "/dev", errno);
	if (rmdir(dev) < 0 || rmdir(aside) < 0)
		run_fail(r, "rmdir", aside, errno);
}

/* The decoy host folder, the one writable host-like place of the range: a
 * size-capped tmpfs of the run's own, nosuid and nodev, never a folder on
 * the real disk. A setuid copy of a shell planted there cannot be run from
 * outside (no other process can reach this mount), is not honoured inside,
 * and is gone with the run; the lab reads the evidence through the handle
 * it gets here ('h' on the sync socket), which keeps the tmpfs alive past
 * the run's end. */
static void range_host(struct run *r)
{
	char p[PATH_MAX], opts[64];
	pathf(p, sizeof p, "%s/host", r->inside_dir);
	mkdir_p(r, p, 0755);
	snprintf(opts, sizeof opts, "mode=0755,size=%llu", (unsigned long long)r->cfg->tmp_size);
	mount_fs(r, "tmpfs", p, MS_NOSUID | MS_NODEV, opts);
	int e = decoy_plant_host(p);
	if (e < 0)
		run_fail(r, "plant the decoy host files", p, -e);
	int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		run_fail(r, "open the host folder", p, errno);
	if ((e = fd_send(r->sync[0], fd, 'h')) < 0)
		run_fail(r, "hand the host folder to the lab", p, -e);
	close(fd);
}

/* /run holds the host's service sockets (systemd's, D-Bus, docker.sock):
 * the range covers it. /etc/resolv.conf may point into it
 * (systemd-resolved's stub, or /run/resolv.conf itself): that one file
 * comes back, read-only, never the folder it is in (a socket may sit
 * beside it). */
static bool resolv_under_run(char *file, size_t cap)
{
	char real[PATH_MAX];
	struct stat st;
	if (!realpath("/etc/resolv.conf", real) || !is_under(real, "/run") || stat(real, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return false;
	str_copy(file, cap, real);
	return true;
}

/* A file taken with open_tree() back at path, read-only: the folders and
 * an empty file to mount on are made in the covering tmpfs first. */
static void attach_file(struct run *r, int tree, const char *path)
{
	char dir[PATH_MAX];
	str_copy(dir, sizeof dir, path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir_p(r, dir, 0755);
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		run_fail(r, "create a bind target", path, errno);
	close(fd);
	if (move_mount(tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		run_fail(r, "put a file back into the range", path, errno);
	close(tree);
	if (rootfs_make_ro(path, false) < 0)
		run_fail(r, "make read-only", path, errno);
}

/* What the range takes before it covers /tmp and the homes, and puts back
 * after (SPEC_FS_HOSTVIEW's state). */
struct range_trees {
	int work, cwd, resolv;
	char resolv_file[PATH_MAX];
	const char *covered[5];
	size_t n_covered;
};

/* SPEC_FS_HOSTVIEW: the host's view read-only, fresh /proc, private /tmp,
 * /dev and /dev/shm, the homes covered; what comes back is taken first. */
static void range_begin(struct run *r, struct range_trees *t)
{
	char opts[64];
	*t = (struct range_trees){.work = -1, .cwd = -1, .resolv = -1};
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		run_fail(r, "make mounts private", "/", errno);
	if (r->have_decoys) {
		t->work = clone_tree(r, r->d.work);
		if (spec_has_step(&r->spec, SPEC_FS_HOME))
			r->home_tree = clone_tree(r, r->d.home);
	} else if (r->kind == RUN_EXEC) {
		t->cwd = clone_tree(r, r->cwd);
	}
	if (resolv_under_run(t->resolv_file, sizeof t->resolv_file))
		t->resolv = clone_tree(r, t->resolv_file);
	/* the whole host view read-only (devices still work: a read-only
	 * mount does not stop writes to /dev/null) */
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID};
	if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof ro) < 0)
		run_fail(r, "make the host's view read-only (mount_setattr needs Linux 5.12)", "/", errno);
	range_proc(r);
	snprintf(opts, sizeof opts, "mode=1777,size=%llu", (unsigned long long)r->cfg->tmp_size);
	cover(r, "/tmp", opts, false);
	range_dev(r);
	cover(r, "/dev/shm", opts, false);
	/* the real homes, and other runs' folders wherever $TMPDIR put them:
	 * covered, then read-only once what comes back is in place */
	const char *covered[] = {"/root", "/home", "/run", "/var/tmp", temp_dir()};
	t->n_covered = sizeof covered / sizeof *covered;
	if (is_under(covered[t->n_covered - 1], "/tmp"))
		t->n_covered--;
	for (size_t i = 0; i < t->n_covered; i++) {
		t->covered[i] = covered[i];
		cover(r, covered[i], "mode=0755,size=64k", false);
	}
}

static void range_end(struct run *r, struct range_trees *t)
{
	if (t->resolv >= 0)
		attach_file(r, t->resolv, t->resolv_file);
	for (size_t i = 0; i < t->n_covered; i++) {
		struct stat st;
		if (stat(t->covered[i], &st) == 0 && S_ISDIR(st.st_mode) && rootfs_make_ro(t->covered[i], false) < 0)
			run_fail(r, "make read-only", t->covered[i], errno);
	}
}

/* The view the spec asks for (spec.h), step by step, in its order: the
 * private root (Isolation on) or the range's host view (off), with what
 * the layers add. Every failure names the step and the path. */
void rootfs_build(struct run *r)
{
	const struct run_spec *s = &r->spec;
	const char *root = r->d.root;
	bool range = false;
	struct range_trees t = {.work = -1, .cwd = -1, .resolv = -1};
	char p[PATH_MAX + 16];

	/* the range's safety rests on this: a spec that starts with neither
	 * view (the in-process rung's, say) never runs on the host as it is */
	if (s->n_fs == 0 || (s->fs[0].kind != SPEC_FS_ROOT && s->fs[0].kind != SPEC_FS_HOSTVIEW))
		run_fail(r, "build the view", "the run spec starts with neither a private root nor the range's view",
		         EINVAL);
	for (int i = 0; i < s->n_fs; i++) {
		const struct spec_fs_op *op = &s->fs[i];
		switch (op->kind) {
		case SPEC_FS_ROOT:
			private_begin(r, op->size);
			break;
		case SPEC_FS_HOSTVIEW:
			range = true;
			range_begin(r, &t);
			break;
		case SPEC_FS_BIND:
			rootfs_bind(r, op->src, root, op->dst, op->ro);
			break;
		case SPEC_FS_HOST_TOP:
			private_top(r, root, op->dst);
			break;
		case SPEC_FS_DIR:
			mkdir_in(r, root, op->dst, op->mode);
			break;
		case SPEC_FS_FILE:
			put_file(r, root, op->dst, op->text);
			break;
		case SPEC_FS_PROC:
			private_proc(r, root, op->dst);
			break;
		case SPEC_FS_DEV:
			private_dev(r, root);
			break;
		case SPEC_FS_TMPFS:
			private_tmpfs(r, root, op);
			break;
		case SPEC_FS_WORK:
			if (range && t.work >= 0) {
				pathf(p, sizeof p, "%s/work", r->inside_dir);
				rootfs_attach(r, t.work, p, true);
			} else if (!range) {
				pathf(p, sizeof p, "%s%s", root, op->dst);
				rootfs_attach(r, r->work_tree, p, true);
				r->work_tree = -1;
			}
			break;
		case SPEC_FS_HOSTDIR:
			if (t.work >= 0) /* a run with decoys: the host they aim at */
				range_host(r);
			break;
		case SPEC_FS_CWD:
			if (!range) {
				private_cwd(r, root);
			} else if (t.cwd >= 0) {
				rootfs_attach(r, t.cwd, r->cwd, !r->setup.exec_rw);
				if (r->setup.exec_rw && rootfs_make_nosuid(r->cwd) < 0)
					run_fail(r, "make nosuid,nodev", r->cwd, errno);
			}
			break;
		case SPEC_FS_HOME:
			/* the naive integration mounts the user's credentials,
			 * taken before the view covered the run folder */
			if (r->home_tree < 0)
				break; /* no decoys: nothing of the user's to mount */
			if (range)
				pathf(p, sizeof p, "%s/home", r->inside_dir);
			else
				pathf(p, sizeof p, "%s%s", root, op->dst);
			rootfs_attach(r, r->home_tree, p, true);
			r->home_tree = -1;
			break;
		}
	}
	if (range)
		range_end(r, &t);
}

/* The lock: a user namespace below the range's, with the same ids, and a
 * mount namespace owned by it. Every mount above is now locked. */
void rootfs_lock_range(struct run *r)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		run_fail(r, "lock the range (unshare)", "user+mount namespace", errno);
	if (file_put("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		run_fail(r, "lock the range", "/proc/self/setgroups", errno);
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (file_put("/proc/self/uid_map", map) < 0)
		run_fail(r, "lock the range", "/proc/self/uid_map", errno);
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (file_put("/proc/self/gid_map", map) < 0)
		run_fail(r, "lock the range", "/proc/self/gid_map", errno);
}
