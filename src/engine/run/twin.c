/* twin.c — `containment-lab twin`: the chosen layers as a `docker run` or a
 * `bwrap` command line. First the command, ready to paste; then each flag
 * again with the layer it stands for and what it stops; then the gaps both
 * ways. The numbers come from the config (layers.ini's caps), so the twin
 * says what this lab really applies. */
#define _GNU_SOURCE
#include "twin.h"
#include "names.h" /* report_layers_label */
#include "range.h" /* spec_build */
#include "run_uid.h"
#include "spec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWIN_FLAGS_MAX 80

struct twin_flag {
	char *flag;      /* whole, however long (a python path, an allow-list) */
	const char *why; /* one line: the layer, what it stops */
};

struct twin {
	struct twin_flag f[TWIN_FLAGS_MAX];
	int n;
};

static void add(struct twin *t, const char *why, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(struct twin *t, const char *why, const char *fmt, ...)
{
	if (t->n >= TWIN_FLAGS_MAX)
		abort(); /* the lab's own list: more flags than room is a bug */
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&t->f[t->n].flag, fmt, ap) < 0)
		abort();
	va_end(ap);
	t->f[t->n++].why = why;
}

/* 268435456 -> "256m": docker's and prlimit's spelling of a size */
static void size_word(uint64_t v, char *out, size_t len, bool upper)
{
	fmt_size_exact(out, len, v, upper ? "GMK" : "gmk", "", "");
}

static const struct spec_fs_op *fs_find(const struct run_spec *s, enum spec_fs_kind kind, const char *dst)
{
	for (int i = 0; i < s->n_fs; i++)
		if (s->fs[i].kind == kind && (!dst || (s->fs[i].dst && !strcmp(s->fs[i].dst, dst))))
			return &s->fs[i];
	return NULL;
}

static long twin_uid(const struct run_spec *s)
{
	return s->outside_uid == LAB_OUTSIDE_UID_AUTO ? RUN_UID_FIRST : s->outside_uid;
}

/* The run spec (spec.h) as docker flags: docker has no list of mount
 * steps, so the private root is --read-only with its /tmp, and the rest of
 * the view is the image's. */
static void docker_flags(const struct run_spec *s, const struct lab_config *cfg, struct twin *t)
{
	char mem[32], tmp[32];
	const struct spec_fs_op *op;

	if (fs_find(s, SPEC_FS_ROOT, NULL))
		add(t, "Isolation: the root file system cannot be written (host takeover)", "--read-only");
	if (fs_find(s, SPEC_FS_ROOT, NULL) && (op = fs_find(s, SPEC_FS_TMPFS, "/tmp"))) {
		size_word(op->size, tmp, sizeof tmp, false);
		add(t, "Isolation: a private, bounded /tmp, gone with the container", "--tmpfs /tmp:size=%s", tmp);
	}
	if (s->caps_dropped) {
		add(t, "Isolation: no capabilities, so no mount, no raw sockets, no ptrace", "--cap-drop ALL");
		if (s->outside_uid == LAB_OUTSIDE_UID_AUTO)
			add(t,
			    "Isolation: never root on the host, and a uid nobody else has (the lab gives each run one "
			    "of its own from this block; docker takes the one you name)",
			    "--user %ld:%ld", twin_uid(s), twin_uid(s));
		else
			add(t,
			    "Isolation: never root on the host (the lab maps the sandbox's root to this uid outside)",
			    "--user %ld:%ld", twin_uid(s), twin_uid(s));
	}
	if (s->no_new_privs)
		add(t, "Isolation: setuid binaries cannot raise privileges", "--security-opt no-new-privileges");
	if (s->ns & SPEC_NS_UTS)
		add(t, "Isolation: its own host name (UTS namespace)", "--hostname %s", s->hostname);
	if (s->caps_dropped && s->setup.rung == RUNG_GVISOR)
		add(t, "gvisor rung: gVisor's Sentry answers the system calls, not the host kernel", "--runtime runsc");
	if (fs_find(s, SPEC_FS_HOSTDIR, NULL))
		add(t,
		    "Isolation off, the naive integration: the project folder writable in the container "
		    "(the lab's host takeover writes into the host's folder)",
		    "-v \"$PWD\":/work");
	if (s->net == SPEC_NET_ALLOWLIST) {
		/* no one flag: an internal network whose only way out is a proxy */
		add(t,
		    "No-network, allowlist: a network made with `docker network create --internal lab-egress`: no "
		    "route out, only the containers on it",
		    "--network lab-egress");
		add(t,
		    "No-network, allowlist: the proxy container on lab-egress and on the outside is the one door; "
		    "it must allow only layers.ini's [network] allow",
		    "--env HTTP_PROXY=http://egress-proxy:3128 --env HTTPS_PROXY=http://egress-proxy:3128 --env "
		    "NO_PROXY=");
	} else if (s->net == SPEC_NET_NONE) {
		add(t, "No-network: only loopback inside; the upload to the attacker cannot connect", "--network none");
	}
	if (s->env == SPEC_ENV_ALLOW) {
		char names[LAB_ENV_ALLOW_MAX * (LAB_ENV_NAME_MAX + 8)] = "";
		for (int i = 0; i < cfg->n_env_allow; i++)
			str_append(names, sizeof names, "%s--env %s", i ? " " : "", cfg->env_allow[i]);
		if (cfg->n_env_allow)
			add(t, "Clean-env: only the allow-listed names pass (layers.ini [env] allow)", "%s", names);
		add(t, "Clean-env: HOME reset, no ~/.aws or .env in sight (secret theft)", "--env HOME=%s", s->home);
	} else {
		add(t, "Clean-env off, the naive integration: every secret in .env handed to the snippet",
		    "--env-file .env");
	}
	if (fs_find(s, SPEC_FS_HOME, NULL))
		add(t, "Clean-env off, the naive integration: the cloud credentials mounted for convenience",
		    "-v ~/.aws:/root/.aws:ro");
	if (s->cgroup) {
		size_word(s->cg_memory, mem, sizeof mem, false);
		add(t, "Resource-limits: memory cap (cgroup memory.max), no swap beyond it",
		    "--memory %s --memory-swap %s", mem, mem);
		add(t, "Resource-limits: CPU quota in cores (cgroup cpu.max)", "--cpus %g", s->cg_cpu);
		add(t, "Resource-limits: processes at once (cgroup pids.max): the fork bomb stops", "--pids-limit %ld",
		    s->cg_pids);
	}
	for (int i = 0; i < s->n_rl; i++)
		if (s->rl[i].ulimit && strcmp(s->rl[i].ulimit, "as") != 0) /* docker has no address-space ulimit */
			add(t, "Resource-limits: a limit per process (setrlimit; soft:hard)", "--ulimit %s=%llu:%llu",
			    s->rl[i].ulimit, s->rl[i].soft, s->rl[i].hard);
}

/* bwrap's file data (--ro-bind-data FD FILE): the descriptors come from
 * process substitutions after the command (bash). */
#define TWIN_DATA_FD 11

/* The run spec's file-system view as bwrap steps, in the spec's order. */
static void bwrap_fs(const struct run_spec *s, const struct spec_host *h, struct twin *t, int *n_data)
{
	for (int i = 0; i < s->n_fs; i++) {
		const struct spec_fs_op *op = &s->fs[i];
		const char *link;
		switch (op->kind) {
		case SPEC_FS_ROOT: /* bwrap's root is a tmpfs of its own */
			break;
		case SPEC_FS_HOSTVIEW:
			add(t,
			    "Isolation off, the lab's range (always there, not a layer): its own user, PID and IPC "
			    "namespaces, the host's file system read-only, a fresh /proc, a minimal /dev, a private "
			    "/tmp, the homes and /run covered (read-only once what comes back is in)",
			    "--unshare-user --unshare-pid --unshare-ipc --ro-bind / / --proc /proc --dev-bind-try "
			    "/dev/null "
			    "/proc/keys --dev-bind-try /dev/null /proc/key-users --dev /dev --tmpfs /tmp --tmpfs /root "
			    "--tmpfs /home --tmpfs /run --tmpfs /var/tmp");
			break;
		case SPEC_FS_BIND:
			add(t, "Isolation: the system read-only, nothing of the home folder", "--ro-bind-try %s %s",
			    op->src, op->dst);
			break;
		case SPEC_FS_HOST_TOP:
			if (!spec_host_top(h, op->dst, &link))
				break;
			if (*link)
				add(t, "Isolation: the merged-/usr link, as on this host", "--symlink %s %s", link,
				    op->dst);
			else
				add(t, "Isolation: the system read-only", "--ro-bind %s %s", op->dst, op->dst);
			break;
		case SPEC_FS_DIR:
			add(t, "Isolation: a folder of the lab's", "--perms %04o --dir %s", op->mode, op->dst);
			break;
		case SPEC_FS_FILE:
			add(t, "Isolation: a file of the lab's, not the host's (its data after the command)",
			    "--ro-bind-data %d %s", TWIN_DATA_FD + (*n_data)++, op->dst);
			break;
		case SPEC_FS_PROC:
			add(t, "Isolation: /proc of its own PID namespace, the key lists (serials keyctl needs) hidden",
			    "--proc %s --dev-bind-try /dev/null %s/keys --dev-bind-try /dev/null %s/key-users", op->dst,
			    op->dst, op->dst);
			break;
		case SPEC_FS_DEV:
			add(t, "Isolation: a minimal /dev, no disks, no terminal (read-only at the end)", "--dev %s",
			    op->dst);
			break;
		case SPEC_FS_TMPFS:
			add(t, "Isolation: a private, bounded /tmp", "--size %llu --perms %04o --tmpfs %s",
			    (unsigned long long)op->size, op->mode, op->dst);
			break;
		case SPEC_FS_WORK:
			if (op->dst)
				add(t, "the task's folder, read-only, where the snippet starts",
				    "--ro-bind \"$PWD\" %s --chdir %s", op->dst, op->dst);
			break;
		case SPEC_FS_CWD:
			add(t, op->ro ? "the current folder, read-only" : "the current folder, writable (--rw)",
			    "--%s \"$PWD\" \"$PWD\"", op->ro ? "ro-bind" : "bind");
			break;
		case SPEC_FS_HOSTDIR:
			add(t, "Isolation off, the naive integration: the project folder writable (host takeover)",
			    "--bind \"$PWD\" \"$PWD\"");
			break;
		case SPEC_FS_HOME:
			add(t, "Clean-env off, the naive integration: the cloud credentials mounted",
			    "--ro-bind-try ~/.aws %s/.aws", op->dst ? op->dst : "~");
			break;
		}
	}
	/* what the lab makes read-only once the rest is in place */
	if (fs_find(s, SPEC_FS_ROOT, NULL))
		add(t, "Isolation: the new root read-only once built (only /tmp stays writable)", "--remount-ro /");
	if (fs_find(s, SPEC_FS_DEV, NULL))
		add(t, "Isolation: the minimal /dev read-only", "--remount-ro /dev");
	if (fs_find(s, SPEC_FS_HOSTVIEW, NULL))
		add(t, "the range: the covering folders and /dev read-only, now that what comes back is in",
		    "--remount-ro /root --remount-ro /home --remount-ro /run --remount-ro /var/tmp --remount-ro /dev");
}

static void bwrap_flags(const struct run_spec *s, const struct lab_config *cfg, const struct spec_host *h,
                        struct twin *t, int *n_data)
{
	char mem[32], rl[256] = "";

	if (s->cgroup) {
		/* bwrap has no resource flags: the caps go on the command in front */
		size_word(s->cg_memory, mem, sizeof mem, false);
		add(t, "Resource-limits: memory, CPU quota and processes in a cgroup (bwrap has no flag)",
		    "systemd-run --user --scope -p MemoryMax=%s -p CPUQuota=%g%% -p TasksMax=%ld", mem, s->cg_cpu * 100,
		    s->cg_pids);
	}
	/* not nproc: prlimit sets it on bwrap, and the kernel counts every
	 * process of the caller's uid (gaps: the cgroup's TasksMax holds) */
	for (int i = 0; i < s->n_rl; i++)
		if (s->rl[i].ulimit && strcmp(s->rl[i].ulimit, "nproc") != 0)
			str_append(rl, sizeof rl, " --%s=%llu:%llu", s->rl[i].ulimit, s->rl[i].soft, s->rl[i].hard);
	if (*rl)
		add(t,
		    "Resource-limits: the lab's rlimits, soft:hard (address space, CPU seconds, file size, "
		    "descriptors, core)",
		    "prlimit%s", rl);
	add(t, NULL, "bwrap");
	if (s->caps_dropped)
		add(t, "Isolation: own user, PID, IPC, UTS and cgroup namespaces", "--unshare-user --unshare-pid%s%s%s",
		    s->ns & SPEC_NS_IPC ? " --unshare-ipc" : "", s->ns & SPEC_NS_UTS ? " --unshare-uts" : "",
		    s->ns & SPEC_NS_CGROUP ? " --unshare-cgroup-try" : "");
	bwrap_fs(s, h, t, n_data);
	if (s->caps_dropped)
		add(t, "Isolation: no capabilities, not root inside", "--cap-drop ALL --uid %ld --gid %ld", twin_uid(s),
		    twin_uid(s));
	if (s->ns & SPEC_NS_UTS)
		add(t, "Isolation: its own host name", "--hostname %s", s->hostname);
	add(t, "the range: dies with the lab, a session of its own (no terminal to inject into)",
	    "--die-with-parent --new-session");
	if (s->seccomp)
		add(t,
		    "Isolation: a seccomp filter as compiled BPF on descriptor 10 (bwrap has none of its own; the "
		    "lab's filter would have to be exported)",
		    "--seccomp 10");
	if (s->net == SPEC_NET_ALLOWLIST) {
		add(t, "No-network, allowlist: an empty network namespace, and a proxy's unix socket bound in",
		    "--unshare-net --bind /run/egress-proxy.sock /run/egress-proxy.sock");
		add(t,
		    "No-network, allowlist: the proxy announced; something inside must bridge 127.0.0.1:3128 to the "
		    "socket",
		    "--setenv HTTP_PROXY http://127.0.0.1:3128 --setenv HTTPS_PROXY http://127.0.0.1:3128");
	} else if (s->net == SPEC_NET_NONE) {
		add(t, "No-network: an empty network namespace; the upload cannot connect", "--unshare-net");
	}
	if (s->env == SPEC_ENV_ALLOW) {
		add(t, "Clean-env: start from an empty environment", "--clearenv");
		for (int i = 0; i < cfg->n_env_allow; i++)
			add(t, "Clean-env: only the allow-listed names pass", "--setenv %s \"$%s\"", cfg->env_allow[i],
			    cfg->env_allow[i]);
		add(t, "Clean-env: HOME reset, no credentials in sight", "--setenv HOME %s", s->home);
	}
}

/* The data of the spec's files, for bwrap's --ro-bind-data descriptors:
 * bash process substitutions, one per file, after the command. */
static void bwrap_data(const struct run_spec *s, struct twin *t)
{
	int fd = TWIN_DATA_FD;
	for (int i = 0; i < s->n_fs; i++) {
		if (s->fs[i].kind != SPEC_FS_FILE)
			continue;
		char q[2 * SPEC_TEXT_MAX] = "";
		for (const char *c = s->fs[i].text; *c; c++)
			str_append(q, sizeof q, "%s", *c == '\n' ? "\\n" : *c == '\'' ? "'\\''" : (char[2]){*c, 0});
		add(t, NULL, "%d< <(printf '%s')", fd++, q);
	}
}

static void gaps(const struct run_spec *s, const struct lab_config *cfg, enum twin_tool tool, struct strbuf *b)
{
	const char *tn = tool == TWIN_DOCKER ? "docker" : "bwrap";
	char out[32], safety_out[32];
	size_word(s->output, out, sizeof out, true);
	size_word(cfg->safety_output, safety_out, sizeof safety_out, true);

	sb_printf(b, "\nwhat %s does not cover that the lab does:\n", tn);
	if (s->cgroup) {
		sb_printf(b,
		          "  - the wall clock (%.1f s): no %s flag; `timeout` in front of the client does not end "
		          "%s\n",
		          s->timeout_ms / 1000.0, tn,
		          tool == TWIN_DOCKER ? "the container (docker kill does)" : "what left its session");
		sb_printf(b, "  - the output cap (%s kept): no %s flag%s\n", out, tn,
		          tool == TWIN_DOCKER ? "; --log-opt max-size bounds only the log file" : "");
		if (tool == TWIN_BWRAP)
			sb_puts(b,
			        "  - RLIMIT_NPROC: prlimit would set it on bwrap itself, and the kernel counts every "
			        "process of your uid, so a desktop session would not start; the lab gives each run a "
			        "uid of its own. TasksMax (the cgroup) is the cap that holds here\n");
		if (tool == TWIN_DOCKER)
			sb_puts(b, "  - RLIMIT_AS, the address space: docker has no --ulimit for it (--memory caps the "
			           "cgroup); and --ulimit nproc counts every process of that uid on the host, so "
			           "--pids-limit is the cap that holds\n");
	}
	if (!spec_net_closed(s))
		sb_printf(b,
		          "  - No-network off: the lab still gives the run a network namespace of its own, where "
		          "only its small internet listens (the attacker's listener, api.lab.test); the %s command "
		          "is on %s\n",
		          tn, tool == TWIN_DOCKER ? "docker's default bridge" : "the host's own network");
	sb_printf(b, "  - the safety net, whatever the layers: no run outlives %.0f s or keeps more than %s\n",
	          cfg->safety_timeout_ms / 1000.0, safety_out);
	if (s->rung == RUNG_MICROVM)
		sb_printf(b,
		          "  - the microvm rung: no %s flag; a guest kernel of its own needs a microVM runtime "
		          "(Firecracker, or Kata Containers as a docker runtime)\n",
		          tn);
	if (s->rung == RUNG_GVISOR && tool == TWIN_BWRAP)
		sb_puts(b, "  - the gvisor rung: no bwrap flag; gVisor's `runsc do` runs a command under its Sentry\n");
	if (s->seccomp && tool == TWIN_DOCKER)
		sb_puts(b, "  - the lab's seccomp filter: docker applies its own default profile without a flag, a "
		           "different list; the lab's (new namespaces by clone/unshare, TIOCSTI, io_uring, ...) "
		           "would have to be written out for --security-opt seccomp=FILE.json\n");
	if (spec_private_root(s) && tool == TWIN_DOCKER)
		sb_puts(b, "  - a user namespace: docker maps container uids 1:1 to the host's unless the daemon is "
		           "set up with userns-remap; the lab always runs in one\n");
	if (s->net == SPEC_NET_ALLOWLIST)
		sb_printf(b,
		          "  - the allow-list itself: %s has no one-flag equivalent. %s The lab runs the proxy "
		          "(allow = the pairs of [network]), resolves names itself and logs every request as "
		          "evidence; what goes through an allowed host is not checked there either\n",
		          tn,
		          tool == TWIN_DOCKER
		              ? "It takes an --internal network plus a proxy container on it and outside (squid "
		                "with an `acl ... dstdomain` rule, say), started and kept by you."
		              : "It takes a proxy outside and a bridge inside: Anthropic's sandbox runtime (srt) "
		                "binds a unix socket in and runs socat inside to turn it into 127.0.0.1:3128.");
	sb_puts(b, "  - the evidence: planted secrets and canaries, the attacker's listener, the host target "
	           "checked from outside, and a verdict\n");

	sb_printf(b, "\nwhat %s does that the lab does not:\n", tn);
	if (tool == TWIN_DOCKER) {
		sb_puts(b, "  - an image: its own root file system and Python, pinned and shared through a registry\n");
		sb_puts(b, "  - the daemon's own defaults: an AppArmor/SELinux profile, masked /proc paths, a "
		           "bridge with port mapping when the network is on\n");
	} else {
		sb_puts(b, "  - bind exactly the folders you name, nothing else: the lab picks its view itself\n");
		sb_puts(b, "  - runs without a daemon or root, on any kernel with user namespaces\n");
	}
}

void twin_text(const struct lab_config *cfg, const struct lab_setup *setup, enum twin_tool tool, struct strbuf *b)
{
	struct spec_host host;
	spec_host_probe(&host);
	twin_text_on(cfg, setup, tool, &host, b);
}

void twin_text_on(const struct lab_config *cfg, const struct lab_setup *setup, enum twin_tool tool,
                  const struct spec_host *host, struct strbuf *b)
{
	struct twin t = {0};
	char label[REPORT_LABEL_MAX];

	report_layers_label(setup->layers, true, label);
	if (setup->rung == RUNG_INPROCESS) {
		/* no command to show: the snippet never leaves the app's process */
		sb_printf(b,
		          "# the in-process rung has no %s twin: the snippet runs inside your own app server\n"
		          "\n"
		          "  exec(generated)      # in the app's own globals, process and privileges\n"
		          "\n"
		          "No flag applies: every one of them (--network none, --cap-drop ALL, --memory, a clean\n"
		          "env) sets up a process before it starts, and exec() starts none. The toggles (%s)\n"
		          "are n/a here. This is the lesson's exercise 2: remote code execution. The fix is any\n"
		          "rung above: press r for the container rung, and d shows its flags.\n",
		          tool == TWIN_DOCKER ? "docker" : "bwrap", label);
		return;
	}
	/* the twin renders the run spec, as the boxes do: what it shows is
	 * what the lab builds for these layers, on this host */
	struct run_spec spec;
	spec_build(&spec, cfg, setup);
	sb_printf(b, "# the %s twin of containment-lab with layers %s, rung %s%s\n",
	          tool == TWIN_DOCKER ? "docker" : "bwrap", label, lab_rung_key(setup->rung),
	          spec_private_root(&spec) ? "" : " (the rung matters only with Isolation on)");
	if (tool == TWIN_DOCKER) {
		add(&t, NULL, "docker run --rm -i");
		docker_flags(&spec, cfg, &t);
		add(&t, NULL, "python:3-slim python3 - < SNIPPET.py");
	} else {
		int n_data = 0;
		bwrap_flags(&spec, cfg, host, &t, &n_data);
		add(&t, NULL, "%s SNIPPET.py", cfg->python);
		bwrap_data(&spec, &t);
	}
	for (int i = 0; i < t.n; i++)
		sb_printf(b, "%s%s%s\n", i ? "  " : "", t.f[i].flag, i + 1 < t.n ? " \\" : "");
	sb_puts(b, "\nflag by flag, what each stops:\n");
	for (int i = 0; i < t.n; i++)
		if (t.f[i].why)
			sb_printf(b, "  %s\n      # %s\n", t.f[i].flag, t.f[i].why);
	for (int i = 0; i < t.n; i++)
		free(t.f[i].flag);
	if (tool == TWIN_DOCKER && !spec_net_closed(&spec))
		sb_puts(b, "  (no network flag: docker's default bridge network reaches the attacker's listener)\n");
	gaps(&spec, cfg, tool, b);
}

void twin_tools_text(enum twin_tool tool, struct strbuf *b)
{
	sb_puts(b, "\n# the tool snippets' door and gate, as a real agent's runtime has them\n\n"
	           "The lab's tools, as tool definitions (the shape of the Messages API's `tools`):\n\n"
	           "  {\"name\": \"search\", \"description\": \"Search the documents; returns ids and titles\",\n"
	           "   \"input_schema\": {\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"string\"}},\n"
	           "                    \"required\": [\"query\"]}}\n"
	           "  {\"name\": \"read\", \"description\": \"The text of one document\",\n"
	           "   \"input_schema\": {\"type\": \"object\", \"properties\": {\"doc_id\": {\"type\": \"string\"}},\n"
	           "                    \"required\": [\"doc_id\"]}}\n"
	           "  {\"name\": \"send_payment\", \"description\": \"Pay a supplier. Irreversible.\",\n"
	           "   \"input_schema\": {\"type\": \"object\", \"properties\": {\"to\": {\"type\": \"string\"},\n"
	           "                    \"amount\": {\"type\": \"integer\", \"minimum\": 1}}, \"required\": [\"to\", "
	           "\"amount\"]}}\n\n");
	sb_printf(b,
	          "Tools called as code: the tools are served to the sandbox through one door, so their\n"
	          "results stay in there and only the code's answer comes out. The lab's door is a socket\n"
	          "pair the sandbox gets as fd 9; %s.\n\n",
	          tool == TWIN_DOCKER ? "docker passes no descriptor in, so a runtime binds a unix socket\n"
	                                "into the container (-v /run/agent-tools.sock:/run/tools.sock) and serves it "
	                                "outside"
	                              : "bwrap passes a descriptor in as it is (one left open for the command),\n"
	                                "or binds a unix socket (--bind /run/agent-tools.sock /run/tools.sock)");
	sb_puts(b, "The gate: in the lab, send_payment comes through the door and the lab's gate decides it\n"
	           "outside the sandbox (--approve). In an agent's runtime it is best kept a discrete tool the\n"
	           "model calls by name, and the runtime asks a human before it runs it, showing the exact\n"
	           "arguments (as --approve ask does). The four layers cannot do this: the door is a channel\n"
	           "the task is allowed to use, so from inside the sandbox a poisoned call looks like an\n"
	           "honest one. No flag above replaces the gate.\n");
}
