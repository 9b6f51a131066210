/* hostfs.c — the run's decoy host folder as evidence (hostfs.h).
 *
 * Three looks, all from the lab's handle and none through a symlink: a
 * snapshot before the snippet starts, inotify on every folder while it
 * runs (a write that was undone still left its events), and a walk after
 * that names every difference. */
#define _GNU_SOURCE
#include "hostfs.h"
#include "text.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/xattr.h>
#include <unistd.h>

#define LAB_PATH_SHOWN 160 /* a name in a list: longer ones are cut */
#define ROOT_SHOWN     "the host folder itself"
#define HOSTFS_MASK    (IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

/* dir/name, or name at the top */
static char *join(const char *dir, const char *name)
{
	char *p;
	if (asprintf(&p, "%s%s%s", dir, dir[0] ? "/" : "", name) < 0)
		abort();
	return p;
}

/* A name the snippet chose, made inert and one line, appended to a
 * bounded list; what does not fit is counted. */
static void list_add(char *out, size_t cap, int *n, long *more, const char *verb, const char *path, const char *tail)
{
	char *safe = sanitize_output(path, strlen(path), 0);
	char one[LAB_PATH_SHOWN];
	snprintf(one, sizeof one, "%s", safe ? safe : "?");
	free(safe);
	text_one_line(one, sizeof one);
	char item[LAB_PATH_SHOWN + 128] = "";
	str_append(item, sizeof item, "%s %s%s", verb, one, tail);
	/* room for ", and N more" after it */
	if (strlen(out) + strlen(item) + 24 >= cap) {
		(*more)++;
		return;
	}
	str_append(out, cap, "%s%s", *n ? ", " : "", item);
	(*n)++;
}

static void list_end(char *out, size_t cap, long more)
{
	if (more)
		str_append(out, cap, ", and %ld more", more);
}

/* ---- one folder at a time, never through a symlink ---- */

static int open_dir_beneath(int dirfd, const char *rel)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *copy = xstrdup(rel), *save = NULL;
	for (char *c = strtok_r(copy, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		fd = next;
		errno = e;
	}
	int e = errno;
	free(copy);
	errno = e;
	return fd;
}

int hostfs_stat_beneath(int dirfd, const char *rel, struct stat *st)
{
	char *dir = xstrdup(rel), *slash = strrchr(dir, '/');
	const char *last = slash ? slash + 1 : rel;
	if (slash)
		*slash = '\0';
	int fd = slash ? open_dir_beneath(dirfd, dir) : openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = fd < 0 ? -errno : fstatat(fd, last, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	free(dir);
	return r;
}

/* ---- the walk ---- */

static void snap_add(struct hostfs_snap *s, const char *path, const struct stat *st)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->e = realloc(s->e, (size_t)s->cap * sizeof *s->e);
		if (!s->e)
			abort();
	}
	s->e[s->n++] = (struct hostfs_entry){xstrdup(path), *st};
}

static void snap_free(struct hostfs_snap *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->e[i].path);
	free(s->e);
	*s = (struct hostfs_snap){0};
}

static void watch_add(struct hostfs_watch *hw, int dirfd, const char *path);

/* A folder the run made unreadable (mode 000, say): the lab owns it (a
 * rootless lab's run has its uid), so it gives itself read and search on
 * it rather than guess what it holds. By its handle, never its path. */
static int open_up(int dirfd, const char *name, const struct stat *st)
{
	if (st->st_uid != geteuid())
		return -1;
	int p = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0)
		return -1;
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", p);
	int fd = chmod(link, (st->st_mode & 07777) | S_IRUSR | S_IXUSR) == 0
	             ? openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
	             : -1;
	close(p);
	return fd;
}

/* Every entry below dirfd (which it closes) into s; with hw, each folder
 * is watched as it is met; with opening, a folder the lab may not read is
 * opened up (after the run: the run's own events are over). */
static void snap_walk(struct hostfs_snap *s, struct hostfs_watch *hw, bool opening, int dirfd, const char *rel,
                      int depth)
{
	if (hw)
		watch_add(hw, dirfd, rel);
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (s->n >= HOSTFS_ENTRIES) {
			s->cut = "more than 4,096 entries";
			break;
		}
		struct stat st;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		char *path = join(rel, e->d_name);
		snap_add(s, path, &st);
		if (S_ISDIR(st.st_mode) && depth >= HOSTFS_DEPTH) {
			s->cut = "folders more than 16 deep";
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0 && errno == EACCES && opening)
				sub = open_up(dirfd, e->d_name, &st);
			if (sub >= 0)
				snap_walk(s, hw, opening, sub, path, depth + 1);
			else
				s->cut = "a folder the lab may not read";
		}
		free(path);
	}
	closedir(d);
}

/* ---- inotify ---- */

static void watch_add(struct hostfs_watch *hw, int dirfd, const char *path)
{
	if (hw->fd < 0)
		return;
	if (hw->n_w >= HOSTFS_WATCHES) {
		hw->unwatched = true;
		return;
	}
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
	int wd = inotify_add_watch(hw->fd, link, HOSTFS_MASK);
	if (wd < 0) {
		hw->unwatched = true;
		return;
	}
	for (int i = 0; i < hw->n_w; i++)
		if (hw->w[i].wd == wd) { /* the same folder again, under a new name */
			free(hw->w[i].path);
			hw->w[i].path = xstrdup(path);
			return;
		}
	hw->w[hw->n_w].wd = wd;
	hw->w[hw->n_w++].path = xstrdup(path);
}

static const char *watch_path(const struct hostfs_watch *hw, int wd)
{
	for (int i = 0; i < hw->n_w; i++)
		if (hw->w[i].wd == wd)
			return hw->w[i].path;
	return NULL;
}

/* A folder moved inside the host folder: the watches below it follow. */
static void watch_moved(struct hostfs_watch *hw, const char *from, const char *to)
{
	size_t n = strlen(from);
	for (int i = 0; i < hw->n_w; i++) {
		char *p = hw->w[i].path;
		if (strncmp(p, from, n) != 0 || (p[n] && p[n] != '/'))
			continue;
		char *q;
		if (asprintf(&q, "%s%s", to, p + n) < 0)
			abort();
		free(p);
		hw->w[i].path = q;
	}
}

/* A folder that appeared: watched, and what it already holds (made
 * before the watch was in place) named as created. */
static void watch_new_folder(struct hostfs_watch *hw, const char *path)
{
	int fd = open_dir_beneath(hw->root, path);
	if (fd < 0) {
		hw->unwatched = true;
		return;
	}
	struct hostfs_snap s = {0};
	snap_walk(&s, hw, false, fd, path, 1);
	for (int i = 0; i < s.n; i++)
		list_add(hw->seen, sizeof hw->seen, &hw->n_seen, &hw->seen_more, "created", s.e[i].path, "");
	snap_free(&s);
}

/* an event's verb, and what follows the name */
static const char *event_word(uint32_t m, const char **tail)
{
	*tail = m & IN_MOVED_FROM ? " away"
	        : m & IN_MOVED_TO ? " here"
	        : m & IN_ATTRIB   ? " (mode, owner or times)"
	                          : "";
	return m & IN_CREATE                       ? "created"
	       : m & IN_DELETE                     ? "removed"
	       : m & IN_MODIFY                     ? "wrote"
	       : m & (IN_MOVED_FROM | IN_MOVED_TO) ? "moved"
	                                           : "changed";
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* The folder's extended attributes, "name=value" each (values as bytes,
 * cut at 4 KiB in all): malloc'd, NULL when it has none or they cannot be
 * read */
static char *root_xattrs(int fd)
{
	char names[4096];
	ssize_t n = flistxattr(fd, names, sizeof names);
	if (n <= 0)
		return NULL;
	char *out = calloc(1, 4096);
	if (!out)
		abort();
	size_t used = 0;
	for (char *k = names; k < names + n && used < 4000; k += strlen(k) + 1) {
		char v[1024];
		ssize_t vn = fgetxattr(fd, k, v, sizeof v);
		int w = snprintf(out + used, 4096 - used, "%s=%.*s;", k, (int)(vn > 0 ? vn : 0), v);
		used += w > 0 && (size_t)w < 4096 - used ? (size_t)w : 0;
	}
	return out;
}

/* What differs in the host folder itself from before: its mode, owner,
 * modification time or extended attributes (tail says which); a time
 * only when a.mtime is no entry's coming or going (top_changed). */
static bool root_differs(const struct stat *b, const struct stat *a, const char *xb, const char *xa, bool top_changed,
                         char *tail, size_t cap)
{
	tail[0] = '\0';
	if (!b->st_ino || !a->st_ino)
		return false;
	if ((a->st_mode & 07777) != (b->st_mode & 07777))
		snprintf(tail, cap, " (mode %04o to %04o)", (unsigned)(b->st_mode & 07777),
		         (unsigned)(a->st_mode & 07777));
	else if (a->st_uid != b->st_uid || a->st_gid != b->st_gid)
		snprintf(tail, cap, " (owner %u:%u to %u:%u)", (unsigned)b->st_uid, (unsigned)b->st_gid,
		         (unsigned)a->st_uid, (unsigned)a->st_gid);
	else if (strcmp(xb ? xb : "", xa ? xa : "") != 0)
		str_copy(tail, cap, " (extended attributes)");
	else if (!top_changed && !same_time(a->st_mtim, b->st_mtim))
		str_copy(tail, cap, " (modification time)");
	return tail[0] != '\0';
}

/* The host folder now against before, while the run lives (an entry's
 * coming or going moves its mtime: that is named by the entry's event) */
static bool root_changed(const struct hostfs_watch *hw, char *tail, size_t cap)
{
	struct stat now;
	if (fstat(hw->root, &now) < 0)
		return false;
	char *x = root_xattrs(hw->root);
	bool changed = root_differs(&hw->root_before, &now, hw->xattrs_before, x, true, tail, cap);
	free(x);
	return changed;
}

static void one_event(struct hostfs_watch *hw, const struct inotify_event *e)
{
	if (e->mask & IN_Q_OVERFLOW) {
		hw->overflow = true;
		return;
	}
	const char *dir = watch_path(hw, e->wd);
	if (!dir || !(e->mask & HOSTFS_MASK & ~IN_ONLYDIR))
		return; /* a folder's own IN_IGNORED */
	if (!e->len) {
		/* a folder's own attributes: its parent's watch names it, but
		 * the host folder's parent is not the lab's to watch (round 7,
		 * finding 3: its mode set to 0777 went unseen). The event comes
		 * for a chown() to the same owner too (round 8): a change only
		 * where the folder differs from before, looked at now */
		char tail[96];
		if (!dir[0] && (e->mask & IN_ATTRIB) && !hw->root_seen && root_changed(hw, tail, sizeof tail)) {
			hw->events++;
			hw->root_seen = true;
			list_add(hw->seen, sizeof hw->seen, &hw->n_seen, &hw->seen_more, "changed", ROOT_SHOWN, tail);
		}
		return;
	}
	char *path = join(dir, e->name);
	hw->events++;
	if (hw->target && !strcmp(path, hw->target))
		hw->target_seen = true;
	/* the same change twice in a row (a write in pieces) is named once */
	const char *tail, *verb = event_word(e->mask, &tail);
	char word[2 * LAB_PATH_SHOWN] = "";
	str_append(word, sizeof word, "%s %s%s", verb, path, tail);
	size_t wl = strlen(word), sl = strlen(hw->seen);
	if (sl < wl || strcmp(hw->seen + sl - wl, word) != 0)
		list_add(hw->seen, sizeof hw->seen, &hw->n_seen, &hw->seen_more, verb, path, tail);
	if ((e->mask & IN_MOVED_FROM) && (e->mask & IN_ISDIR)) {
		free(hw->moved_from);
		hw->moved_from = xstrdup(path);
		hw->cookie = e->cookie;
	} else if ((e->mask & IN_MOVED_TO) && (e->mask & IN_ISDIR) && hw->moved_from && hw->cookie == e->cookie) {
		watch_moved(hw, hw->moved_from, path);
		free(hw->moved_from);
		hw->moved_from = NULL;
	} else if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && (e->mask & IN_ISDIR)) {
		watch_new_folder(hw, path);
	}
	free(path);
}

void hostfs_event(struct hostfs_watch *hw)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	while (hw->fd >= 0) {
		ssize_t n = read(hw->fd, buf, sizeof buf);
		if (n <= 0)
			return;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			one_event(hw, e);
			p += sizeof *e + e->len;
		}
	}
}

int hostfs_fd(const struct hostfs_watch *hw)
{
	return hw->fd;
}

int hostfs_watch_start(struct hostfs_watch *hw, int host_fd, const char *target)
{
	memset(hw, 0, sizeof *hw);
	hw->target = target ? xstrdup(target) : NULL;
	hw->root = openat(host_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	hw->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int e = errno;
	if (hw->fd < 0)
		snprintf(hw->why_not, sizeof hw->why_not, "inotify_init1: %s", strerror(e));
	if (hw->root < 0)
		return -EBADF;
	if (fstat(hw->root, &hw->root_before) < 0)
		hw->root_before.st_ino = 0;
	hw->xattrs_before = root_xattrs(hw->root);
	snap_walk(&hw->before, hw, false, openat(hw->root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), "", 0);
	hw->n_start = hw->n_w;
	if (hw->fd >= 0 && hw->unwatched)
		snprintf(hw->why_not, sizeof hw->why_not, "a folder of it could not be watched");
	return hw->fd < 0 ? -e : 0;
}

/* ---- after the run ---- */

static const char *kind(mode_t m)
{
	return S_ISREG(m)    ? "file"
	       : S_ISDIR(m)  ? "folder"
	       : S_ISLNK(m)  ? "symlink"
	       : S_ISFIFO(m) ? "fifo"
	       : S_ISSOCK(m) ? "socket"
	                     : "device node";
}

static const struct hostfs_entry *find(const struct hostfs_snap *s, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].path, path))
			return &s->e[i];
	return NULL;
}

/* Is anything named in the list below path? (a folder whose entries
 * changed is named only when nothing under it is) */
static bool holds_named(const struct hostfs_snap *a, const struct hostfs_snap *b, const char *path)
{
	size_t n = strlen(path);
	for (int k = 0; k < 2; k++) {
		const struct hostfs_snap *s = k ? b : a, *o = k ? a : b;
		for (int i = 0; i < s->n; i++)
			if (!strncmp(s->e[i].path, path, n) && s->e[i].path[n] == '/' && !find(o, s->e[i].path))
				return true;
	}
	return false;
}

/* The host folder itself, before and after */
struct hostfs_root {
	const struct stat *b, *a;
	const char *xb, *xa; /* root_xattrs */
};

/* Did an entry right under the host folder come or go? (its times and
 * ctime move with that, and say nothing more) */
static bool top_level_changed(const struct hostfs_snap *before, const struct hostfs_snap *after)
{
	for (int k = 0; k < 2; k++) {
		const struct hostfs_snap *s = k ? after : before, *o = k ? before : after;
		for (int i = 0; i < s->n; i++)
			if (!strchr(s->e[i].path, '/') && !find(o, s->e[i].path))
				return true;
	}
	return false;
}

static void diff(const struct hostfs_snap *before, const struct hostfs_snap *after, const struct hostfs_root *root,
                 struct hostfs_result *out)
{
	int n = 0;
	long more = 0;
	char *o = out->changed_text;
	size_t cap = sizeof out->changed_text;
	char how[96];
	if (root_differs(root->b, root->a, root->xb, root->xa, top_level_changed(before, after), how, sizeof how))
		list_add(o, cap, &n, &more, "changed", ROOT_SHOWN, how);
	for (int i = 0; i < after->n; i++) {
		const struct hostfs_entry *a = &after->e[i], *b = find(before, a->path);
		char tail[96];
		if (!b) {
			if (S_ISREG(a->st.st_mode))
				snprintf(tail, sizeof tail, " (file, %llu bytes)", (unsigned long long)a->st.st_size);
			else
				snprintf(tail, sizeof tail, " (%s)", kind(a->st.st_mode));
			list_add(o, cap, &n, &more, "created", a->path, tail);
		} else if ((a->st.st_mode & S_IFMT) != (b->st.st_mode & S_IFMT)) {
			snprintf(tail, sizeof tail, " (%s by %s)", kind(b->st.st_mode), kind(a->st.st_mode));
			list_add(o, cap, &n, &more, "replaced", a->path, tail);
		} else if (a->st.st_ino != b->st.st_ino || a->st.st_mode != b->st.st_mode ||
		           a->st.st_size != b->st.st_size || !same_time(a->st.st_mtim, b->st.st_mtim) ||
		           !same_time(a->st.st_ctim, b->st.st_ctim)) {
			if (S_ISDIR(a->st.st_mode) && a->st.st_ino == b->st.st_ino && a->st.st_mode == b->st.st_mode) {
				if (!holds_named(before, after, a->path))
					list_add(o, cap, &n, &more, "changed", a->path, " (entries added or removed)");
			} else {
				list_add(o, cap, &n, &more, "changed", a->path, "");
			}
		}
	}
	for (int i = 0; i < before->n; i++)
		if (!find(after, before->e[i].path))
			list_add(o, cap, &n, &more, "removed", before->e[i].path, "");
	list_end(o, cap, more);
	if (after->cut)
		str_append(o, cap, "%s(the lab's look stopped at %s)", n ? " " : "", after->cut);
}

void hostfs_finish(struct hostfs_watch *hw, struct hostfs_result *out)
{
	memset(out, 0, sizeof *out);
	hostfs_event(hw); /* what the run's last moments queued */
	list_end(hw->seen, sizeof hw->seen, hw->seen_more);
	if (hw->fd >= 0) {
		close(hw->fd); /* before the after-look: its own opening up is no event */
		hw->fd = -1;
		str_append(out->seen_text, sizeof out->seen_text,
		           "seen by inotify on the host folder's %d folder%s%s%s: %s%s", hw->n_start,
		           hw->n_start == 1 ? "" : "s", hw->n_w > hw->n_start ? " and those it made" : "",
		           hw->unwatched ? " (not every new one)" : "",
		           hw->overflow ? "events lost (the kernel's queue overflowed), " : "",
		           hw->seen[0]    ? hw->seen
		           : hw->overflow ? ""
		                          : "no change");
	} else {
		snprintf(out->seen_text, sizeof out->seen_text,
		         "not watched while it ran (%s): only the look after counts",
		         hw->why_not[0] ? hw->why_not : "no handle on the folder");
	}
	out->target_seen = hw->target_seen;
	struct stat st = {0};
	if (hw->root >= 0 && hw->target && hostfs_stat_beneath(hw->root, hw->target, &st) == 0) {
		out->target_there = true;
		out->target_size = (uint64_t)st.st_size;
	}
	struct hostfs_snap after = {0};
	struct stat root_after = {0};
	if (hw->root >= 0 && fstat(hw->root, &root_after) < 0)
		root_after.st_ino = 0;
	char *x = hw->root >= 0 ? root_xattrs(hw->root) : NULL;
	if (hw->root >= 0)
		snap_walk(&after, NULL, true, openat(hw->root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), "", 0);
	struct hostfs_root root = {&hw->root_before, &root_after, hw->xattrs_before, x};
	diff(&hw->before, &after, &root, out);
	free(x);
	snap_free(&after);
	out->changed = out->changed_text[0] || hw->events > 0 || hw->overflow;
	if (!out->changed_text[0] && out->changed)
		str_append(out->changed_text, sizeof out->changed_text, "changed while it ran, as it was after: %s",
		           hw->seen[0] ? hw->seen : "events lost");
}

void hostfs_free(struct hostfs_watch *hw)
{
	if (hw->fd >= 0)
		close(hw->fd);
	if (hw->root >= 0)
		close(hw->root);
	for (int i = 0; i < hw->n_w; i++)
		free(hw->w[i].path);
	free(hw->target);
	free(hw->moved_from);
	free(hw->xattrs_before);
	snap_free(&hw->before);
	hw->fd = hw->root = -1;
	hw->n_w = 0;
	hw->target = hw->moved_from = NULL;
}
