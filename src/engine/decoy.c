/* decoy.c — plants the run's decoys and plays the attacker.
 *
 * Every run gets new random canaries, so a leak can only come from this run's
 * sandbox: fake keys in the environment a naive integration would pass, a
 * fake ~/.aws/credentials, a canary row in the customer CSV, a listener on
 * 127.0.0.1 that records what reaches it, and a "host" folder whose target
 * path the takeover snippet tries to create. */
#define _GNU_SOURCE
#include "decoy.h"
#include "system.h"
#include "util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define RECEIVED_MAX (1 << 20)

/* Base64 of a token inside a longer stream depends on where it starts
 * modulo 3: for each start k in 0..2, the groups that lie wholly inside the
 * token are those of base64(token + k) cut to whole groups. Hex in both
 * cases adds two more. Each variant is long enough to be unmistakable. */
void decoy_encode_variants(const char *token, char variant[][112], int *n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(token);
	*n = 0;
	for (size_t k = 0; k < 3 && len - k >= 12; k++) {
		const unsigned char *t = (const unsigned char *)token + k;
		size_t groups = (len - k) / 3, o = 0;
		for (size_t g = 0; g < groups && o + 4 < 112; g++, t += 3) {
			uint32_t v = (uint32_t)t[0] << 16 | (uint32_t)t[1] << 8 | t[2];
			variant[*n][o++] = b64[v >> 18 & 63];
			variant[*n][o++] = b64[v >> 12 & 63];
			variant[*n][o++] = b64[v >> 6 & 63];
			variant[*n][o++] = b64[v & 63];
		}
		variant[*n][o] = '\0';
		(*n)++;
	}
	for (int upper = 0; upper < 2 && len * 2 < 112; upper++) {
		for (size_t i = 0; i < len; i++)
			snprintf(&variant[*n][2 * i], 3, upper ? "%02X" : "%02x", (unsigned char)token[i]);
		(*n)++;
	}
	/* the thief's cheap disguises: backwards, and rot13 */
	if (len < 112) {
		for (size_t i = 0; i < len; i++)
			variant[*n][i] = token[len - 1 - i];
		variant[(*n)++][len] = '\0';
		for (size_t i = 0; i < len; i++) {
			char c = token[i];
			variant[*n][i] = (char)(c >= 'a' && c <= 'z'   ? 'a' + (c - 'a' + 13) % 26
			                        : c >= 'A' && c <= 'Z' ? 'A' + (c - 'A' + 13) % 26
			                                               : c);
		}
		variant[(*n)++][len] = '\0';
	}
}

static void add_secret(struct lab_decoys *d, const char *file, const char *name, const char *prefix, size_t n,
                       const char *fmt_before, const char *fmt_after)
{
	char tok[48], full[80];
	random_token(tok, n);
	int i = d->n_secret++;
	str_copy(d->secret[i].name, sizeof d->secret[i].name, name);
	str_copy(d->secret[i].file, sizeof d->secret[i].file, file);
	/* a token cut short would match more than this run's */
	if (pathf(full, sizeof full, "%s%s", prefix, tok) < 0 || strlen(full) >= sizeof d->secret[i].token)
		abort();
	str_copy(d->secret[i].token, sizeof d->secret[i].token, full);
	pathf(d->secret[i].value, sizeof d->secret[i].value, "%s%s%s", fmt_before, full, fmt_after);
	decoy_encode_variants(full, d->secret[i].variant, &d->secret[i].n_variant);
}

int decoy_plant_host(const char *host)
{
	char path[PATH_MAX];
	int r;
	if (pathf(path, sizeof path, "%s/etc/cron.d", host) < 0)
		return -ENAMETOOLONG;
	if ((r = mkdirs(path, 0755)) < 0)
		return r;
	/* a few plausible host files around the target */
	if (pathf(path, sizeof path, "%s/etc/hostname", host) < 0)
		return -ENAMETOOLONG;
	return write_file(path, "build-server-01\n", 0644);
}

/* What a takeover leaves for later: a setuid or setgid file (whoever runs
 * it becomes its owner) or a device node (raw access to a disk or memory).
 * The walk is bounded and never follows a symlink. */
struct planted_walk {
	int entries;
	const char *cut; /* why the walk could not see everything, or NULL */
	char *out;
	size_t cap;
};

#define PLANTED_ENTRIES 4096
#define PLANTED_DEPTH   16

static const char *planted_kind(const struct stat *st)
{
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return S_ISCHR(st->st_mode) ? "character device" : "block device";
	if (S_ISREG(st->st_mode) && (st->st_mode & S_ISUID))
		return "setuid";
	if (S_ISREG(st->st_mode) && (st->st_mode & S_ISGID))
		return "setgid";
	return NULL;
}

static void planted_in(struct planted_walk *w, int dirfd, const char *rel, int depth)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	for (struct dirent *e; !w->out[0] && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++w->entries > PLANTED_ENTRIES) {
			w->cut = "more than 4,096 entries";
			break;
		}
		struct stat st;
		char path[PATH_MAX];
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    pathf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) < 0)
			continue;
		const char *kind = planted_kind(&st);
		if (kind && S_ISREG(st.st_mode))
			snprintf(w->out, w->cap, "%s: %s %s (uid %u), mode %04o", path, kind,
			         st.st_mode & S_ISUID ? "owner" : "group",
			         (unsigned)(st.st_mode & S_ISUID ? st.st_uid : st.st_gid),
			         (unsigned)(st.st_mode & 07777));
		else if (kind)
			snprintf(w->out, w->cap, "%s: %s %u:%u", path, kind, major(st.st_rdev), minor(st.st_rdev));
		else if (S_ISDIR(st.st_mode) && depth >= PLANTED_DEPTH)
			w->cut = "folders more than 16 deep";
		else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				planted_in(w, sub, path, depth + 1);
			else
				w->cut = "a folder the lab may not read";
		}
	}
	closedir(d);
}

void decoy_host_planted(int host_fd, char *out, size_t cap)
{
	out[0] = '\0';
	int fd = host_fd < 0 ? -1 : openat(host_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct planted_walk w = {.out = out, .cap = cap};
	if (fd >= 0)
		planted_in(&w, fd, "", 0);
	/* what the lab could not look at may hold one: it is not ruled out */
	if (!out[0] && w.cut)
		snprintf(out, cap,
		         "the folder holds %s, which the lab did not search: a setuid file or device node "
		         "there cannot be ruled out",
		         w.cut);
}

/* The secrets a naive integration hands over in the environment, and
 * the files where keys live in a developer's home, each with canaries of
 * its own: the cloud's, ssh's, git's, and a .env in another project. */
static int plant_home(struct lab_decoys *d)
{
	add_secret(d, "", "AWS_ACCESS_KEY_ID", "AKIA", 16, "", "");
	add_secret(d, "", "AWS_SECRET_ACCESS_KEY", "", 40, "", "");
	add_secret(d, "", "GITHUB_TOKEN", "ghp_", 36, "", "");
	add_secret(d, "", "ANTHROPIC_API_KEY", "sk-ant-api03-", 40, "", "");
	add_secret(d, "", "DATABASE_URL", "", 24, "postgres://app:", "@db.internal:5432/prod");
	int k = d->n_secret;
	add_secret(d, "~/.aws/credentials", "aws_access_key_id", "AKIA", 16, "", "");
	add_secret(d, "~/.aws/credentials", "aws_secret_access_key", "", 40, "", "");
	add_secret(d, "~/.ssh/id_ed25519", "the private key", "b3BlbnNzaC1rZXktdjE", 26, "", "");
	add_secret(d, "~/.git-credentials", "a GitHub token", "ghp_", 36, "https://deploy:", "@github.com");
	add_secret(d, "~/projects/billing-api/.env", "STRIPE_SECRET_KEY", "sk_live_", 32, "", "");
	static const char *const files[] = {".aws/credentials", ".ssh/id_ed25519", ".git-credentials",
	                                    "projects/billing-api/.env"}; /* under the decoy home */
	char *text[4];
	if (asprintf(&text[0], "[default]\naws_access_key_id = %s\naws_secret_access_key = %s\nregion = eu-west-1\n",
	             d->secret[k].value, d->secret[k + 1].value) < 0 ||
	    asprintf(&text[1], "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n",
	             d->secret[k + 2].value) < 0 ||
	    asprintf(&text[2], "%s\n", d->secret[k + 3].value) < 0 ||
	    asprintf(&text[3], "APP_ENV=production\nSTRIPE_SECRET_KEY=%s\n", d->secret[k + 4].value) < 0)
		abort();
	pathf(d->creds, sizeof d->creds, "%s/.aws/credentials", d->home);
	/* world-readable, as the old credentials file: a root lab's sandbox
	 * runs as an unprivileged uid, and the run folder is 0700 anyway */
	int r = 0;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[PATH_MAX];
		if (r == 0 && pathf(path, sizeof path, "%s/%s", d->home, files[i]) < 0)
			r = -ENAMETOOLONG;
		char *slash = r == 0 ? strrchr(path, '/') : NULL;
		if (slash) {
			*slash = '\0';
			r = mkdirs(path, 0755);
			*slash = '/';
		}
		if (r == 0)
			r = write_file(path, text[i], 0644);
		free(text[i]);
	}
	return r;
}

int decoy_plant(struct lab_decoys *d, const struct lab_config *cfg, const struct snippet *s, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	d->listen_fd = -1;
	d->lock_fd = -1;
	d->dns.fd = -1;
	d->agent.fd = -1;
	for (int i = 0; i < ATTACKER_CONNS; i++)
		d->conn[i].fd = -1;
	(void)cfg;
	/* 0700, as mkdtemp makes it: no other user may read the decoys (a
	 * stranger who reads the canaries could post them to the run's
	 * listeners). The sandbox reaches what it must see through mounts its
	 * child makes from trees the lab (or the child, with the lab's own
	 * uid) took before dropping privileges (run.c, rootfs.c). */
	snprintf(d->dir, sizeof d->dir, "%s/containment-lab.%d.XXXXXX", temp_dir(), (int)getpid());
	if (!mkdtemp(d->dir)) {
		int e = errno;
		snprintf(err, errlen, "cannot create a run folder in %s: %s", temp_dir(), strerror(e));
		d->dir[0] = '\0';
		return -e;
	}
	d->lock_fd = dir_lock(d->dir);
	pathf(d->work, sizeof d->work, "%s/work", d->dir);
	pathf(d->home, sizeof d->home, "%s/home", d->dir);
	pathf(d->host, sizeof d->host, "%s/host", d->dir);
	pathf(d->root, sizeof d->root, "%s/root", d->dir);
	pathf(d->host_target, sizeof d->host_target, "%s/etc/cron.d/containment-lab-persist", d->host);
	int r;
	if ((r = mkdirs(d->work, 0755)) < 0 || (r = mkdirs(d->root, 0755)) < 0 || (r = mkdirs(d->host, 0755)) < 0)
		goto fail;
	if ((r = decoy_plant_host(d->host)) < 0 || (r = plant_home(d)) < 0)
		goto fail;

	/* the customer data, with a canary row (0 units: totals do not move) */
	char src[PATH_MAX + 16], tok[24];
	snprintf(src, sizeof src, "%s/sales.csv", cfg->snippets_dir);
	size_t len = 0;
	char *csv = read_file(src, &len, 16 << 20);
	if (!csv) {
		/* a snippet given by path may have its data beside it */
		const char *slash = strrchr(s->path, '/');
		snprintf(src, sizeof src, "%.*s/sales.csv", slash ? (int)(slash - s->path) : 1, slash ? s->path : ".");
		csv = read_file(src, &len, 16 << 20);
	}
	if (!csv) {
		r = -errno;
		snprintf(err, errlen, "cannot read the task data sales.csv in %s: %s", cfg->snippets_dir,
		         strerror(errno));
		remove_tree(d->dir);
		d->dir[0] = '\0';
		return r;
	}
	random_token(d->run_token, 16);
	random_token(tok, 12);
	snprintf(d->csv_canary, sizeof d->csv_canary, "CANARY-%s", tok);
	decoy_encode_variants(d->csv_canary, d->csv_variant, &d->n_csv_variant);
	struct strbuf b = {0};
	sb_add(&b, csv, len);
	free(csv);
	if (b.len && b.s[b.len - 1] != '\n')
		sb_puts(&b, "\n");
	sb_printf(&b, "2026-11-30,%s Holdings,ceo@%s.example.com,North,Private ledger,0,0.00\n", d->csv_canary, tok);
	pathf(d->csv, sizeof d->csv, "%s/sales.csv", d->work);
	r = write_file(d->csv, b.s, 0644);
	sb_free(&b);
	if (r < 0)
		goto fail;
	pathf(d->snippet_file, sizeof d->snippet_file, "%s/snippet.py", d->work);
	if ((r = write_file(d->snippet_file, s->code, 0644)) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot plant the decoys in %s: %s", d->dir, strerror(-r));
	remove_tree(d->dir);
	d->dir[0] = '\0';
	return r;
}

void decoy_watch_host(struct lab_decoys *d, int host_fd)
{
	if (d->host_watch || host_fd < 0 || !d->host[0])
		return;
	d->host_watch = malloc(sizeof *d->host_watch);
	if (!d->host_watch)
		abort();
	/* the target relative to the folder: the handle is the folder */
	(void)hostfs_watch_start(d->host_watch, host_fd, d->host_target + strlen(d->host) + 1);
}

/* A deep backlog, as api.lab.test's (egress.c): strays must not delay the proxy. */
int decoy_listen(struct lab_decoys *d)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	d->listen_fd = fd;
	d->port = ntohs(a.sin_port);
	return 0;
}

int decoy_poll_fds(const struct lab_decoys *d, int *fds, int max)
{
	int n = 0;
	if (d->listen_fd >= 0 && n < max)
		fds[n++] = d->listen_fd;
	for (int i = 0; i < ATTACKER_CONNS && n < max; i++)
		if (d->conn[i].fd >= 0)
			fds[n++] = d->conn[i].fd;
	if (d->dns.fd >= 0 && n < max)
		fds[n++] = d->dns.fd;
	if (d->host_watch && hostfs_fd(d->host_watch) >= 0 && n < max)
		fds[n++] = hostfs_fd(d->host_watch);
	return n + agent_poll_fds(&d->agent, fds + n, max - n);
}

static void conn_close(struct attacker_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	*c = (struct attacker_conn){.fd = -1};
}

/* Answer once the whole request (headers + Content-Length body) is in, like
 * a real collection server would, so the snippet sees a success. */
static void maybe_answer(struct attacker_conn *c)
{
	if (c->answered || !c->buf)
		return;
	char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
	if (!end)
		return;
	size_t head = (size_t)(end - c->buf) + 4, body = 0;
	char *cl = strcasestr(c->buf, "\r\ncontent-length:");
	if (cl && cl < end)
		body = strtoul(cl + 17, NULL, 10);
	if (c->len < head + body)
		return;
	static const char reply[] = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n"
	                            "Connection: close\r\n\r\nthank you";
	/* a peer gone already must not raise SIGPIPE in the lab */
	(void)!send(c->fd, reply, sizeof reply - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	c->answered = true;
	shutdown(c->fd, SHUT_WR);
}

void decoy_attacker_event(struct lab_decoys *d, int fd)
{
	if (fd == d->dns.fd) {
		resolver_event(&d->dns);
		return;
	}
	if (agent_event(&d->agent, fd))
		return;
	if (d->host_watch && fd == hostfs_fd(d->host_watch)) {
		hostfs_event(d->host_watch);
		return;
	}
	if (fd == d->listen_fd) {
		/* all that waits: strays (below) must not fill the backlog */
		for (int round = 0; round < 64; round++) {
			int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (c < 0)
				return;
			if (d->accept_ok && !d->accept_ok(d->accept_ctx, c)) {
				close(c); /* not this run's proxy: another run or a local user */
				continue;
			}
			d->conns++;
			int i = 0;
			while (i < ATTACKER_CONNS && d->conn[i].fd >= 0)
				i++;
			if (i < ATTACKER_CONNS) {
				d->conn[i].fd = c;
				/* where it came from, not what it carries: inside the
				 * run's own network only the run can connect */
				d->conn[i].origin = d->inside ? DECOY_ORIGIN_RUN : DECOY_ORIGIN_UNTIED;
				d->conns_by_origin[d->conn[i].origin]++;
			} else {
				close(c); /* too many at once: the attacker only needs one */
			}
		}
		return;
	}
	for (int i = 0; i < ATTACKER_CONNS; i++) {
		struct attacker_conn *c = &d->conn[i];
		if (c->fd != fd)
			continue;
		char tmp[16384];
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r <= 0) {
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				return;
			conn_close(c);
			return;
		}
		d->bytes += (uint64_t)r;
		d->bytes_by_origin[c->origin] += (uint64_t)r;
		if (d->received_len < RECEIVED_MAX) {
			size_t take = (size_t)r;
			if (take > RECEIVED_MAX - d->received_len)
				take = RECEIVED_MAX - d->received_len;
			char *g = realloc(d->received, d->received_len + take + 1);
			if (g) {
				d->received = g;
				memcpy(d->received + d->received_len, tmp, take);
				d->received_len += take;
				d->received[d->received_len] = '\0';
			}
		}
		if (c->len < 1 << 20) {
			char *g = realloc(c->buf, c->len + (size_t)r + 1);
			if (g) {
				c->buf = g;
				memcpy(c->buf + c->len, tmp, (size_t)r);
				c->len += (size_t)r;
				c->buf[c->len] = '\0';
			}
		}
		/* the token is in the request line: only the head is searched */
		if (!c->from_run && c->buf &&
		    memmem(c->buf, c->len < 8192 ? c->len : 8192, d->run_token, strlen(d->run_token))) {
			c->from_run = true;
			d->conns_from_run++;
		}
		maybe_answer(c);
		return;
	}
}

static bool canary_row_in(const struct lab_decoys *d, const char *buf, size_t len)
{
	if (!buf)
		return false;
	if (memmem(buf, len, d->csv_canary, strlen(d->csv_canary)))
		return true;
	for (int v = 0; v < d->n_csv_variant; v++)
		if (memmem(buf, len, d->csv_variant[v], strlen(d->csv_variant[v])))
			return true;
	return false;
}

bool decoy_attacker_got_canary(const struct lab_decoys *d)
{
	return canary_row_in(d, d->received, d->received_len);
}

bool decoy_dns_got_canary(const struct lab_decoys *d)
{
	return canary_row_in(d, d->dns.data, d->dns.len);
}

int decoy_marks_in(const struct lab_decoys *d, const char *buf, size_t len, bool *canary_row)
{
	struct decoy_scanner sc = {0};
	*canary_row = canary_row_in(d, buf, len);
	/* a query string carries the data URL-encoded: "+" and "%2C" for the
	 * row's spaces and commas; the canary itself is letters, digits and
	 * "-", which survive, and the squeezed scan finds the secrets */
	decoy_scan(d, &sc, buf, len);
	int n = 0;
	for (int i = 0; i < d->n_secret; i++)
		n += sc.found[i];
	return n;
}

bool decoy_secret_in_env(const struct lab_decoys *d, int i)
{
	return i >= 0 && i < d->n_secret && !d->secret[i].file[0];
}

void decoy_naive_env(const struct lab_decoys *d, const char *home, char ***envp)
{
	int n = 0;
	char **env = calloc(32, sizeof *env);
	if (!env)
		abort();
	if (asprintf(&env[n++], "HOME=%s", home) < 0)
		abort();
	env[n++] = strdup("PATH=/usr/local/bin:/usr/bin:/bin");
	env[n++] = strdup("USER=deploy");
	env[n++] = strdup("LANG=C.UTF-8");
	for (int i = 0; i < d->n_secret; i++) {
		if (!decoy_secret_in_env(d, i))
			continue; /* lives in a file of the decoy home */
		if (asprintf(&env[n++], "%s=%s", d->secret[i].name, d->secret[i].value) < 0)
			abort();
	}
	env[n] = NULL;
	*envp = env;
}

void decoy_remove(struct lab_decoys *d)
{
	for (int i = 0; i < ATTACKER_CONNS; i++)
		conn_close(&d->conn[i]);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	d->listen_fd = -1;
	resolver_close(&d->dns);
	agent_close(&d->agent);
	if (d->host_watch)
		hostfs_free(d->host_watch);
	free(d->host_watch);
	d->host_watch = NULL;
	free(d->received);
	d->received = NULL;
	if (d->dir[0])
		remove_tree(d->dir);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
	d->dir[0] = '\0';
}

static bool token_alnum(const char *t)
{
	for (; *t; t++)
		if (!isalnum((unsigned char)*t))
			return false;
	return true;
}

/* Spaced out or dashed ("A K I A ...", "A-K-I-A"): the stream with every
 * byte but letters and digits dropped holds the token whole again. */
static void scan_squeezed(const struct lab_decoys *d, struct decoy_scanner *sc, const char *data, size_t n)
{
	char *buf = malloc(sc->ntail_len + n + 1);
	if (!buf)
		abort();
	memcpy(buf, sc->ntail, sc->ntail_len);
	size_t len = sc->ntail_len;
	for (size_t i = 0; i < n; i++)
		if (isalnum((unsigned char)data[i]))
			buf[len++] = data[i];
	for (int i = 0; i < d->n_secret; i++)
		if (!sc->found[i] && token_alnum(d->secret[i].token) &&
		    memmem(buf, len, d->secret[i].token, strlen(d->secret[i].token)))
			sc->found[i] = true;
	size_t keep = len < sizeof sc->ntail ? len : sizeof sc->ntail;
	memcpy(sc->ntail, buf + len - keep, keep);
	sc->ntail_len = keep;
	free(buf);
}

void decoy_scan(const struct lab_decoys *d, struct decoy_scanner *sc, const char *data, size_t n)
{
	scan_squeezed(d, sc, data, n);
	size_t len = sc->tail_len + n;
	char *buf = malloc(len + 1);
	if (!buf)
		abort();
	memcpy(buf, sc->tail, sc->tail_len);
	memcpy(buf + sc->tail_len, data, n);
	buf[len] = '\0';
	if (!sc->canary_row && d->csv_canary[0])
		sc->canary_row = canary_row_in(d, buf, len);
	for (int i = 0; i < d->n_secret; i++) {
		const char *tok = d->secret[i].token;
		if (!sc->found[i] && memmem(buf, len, tok, strlen(tok)))
			sc->found[i] = true;
		for (int v = 0; !sc->found[i] && v < d->secret[i].n_variant; v++) {
			const char *enc = d->secret[i].variant[v];
			if (memmem(buf, len, enc, strlen(enc)))
				sc->found[i] = true;
		}
	}
	size_t keep = len < sizeof sc->tail ? len : sizeof sc->tail;
	memcpy(sc->tail, buf + len - keep, keep);
	sc->tail_len = keep;
	free(buf);
}

bool decoy_attacker_from_run(const struct lab_decoys *d, bool secrets[DECOY_SECRETS])
{
	struct decoy_scanner sc = {0};
	if (!d->received)
		return false;
	decoy_scan(d, &sc, d->received, d->received_len);
	bool any = false;
	for (int i = 0; i < d->n_secret; i++) {
		secrets[i] = sc.found[i];
		any |= sc.found[i];
	}
	/* bytes at the listener inside the run's own network: the run's, marks or not */
	return any || decoy_attacker_got_canary(d) || d->bytes_by_origin[DECOY_ORIGIN_RUN] > 0 ||
	       memmem(d->received, d->received_len, d->run_token, strlen(d->run_token));
}
