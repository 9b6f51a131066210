/* agent.h — a stand-in for a host agent's unix socket, as `audit` serves
 * it in the decoy home (~/.ssh/agent.sock, named by SSH_AUTH_SOCK).
 *
 * On a developer's machine the environment and the home hold sockets that
 * act for the user: ssh-agent signs logins and pushes with the user's
 * keys, docker.sock starts root containers. Code that reaches one needs no
 * secret at all: it asks the agent. The lab's stand-in speaks enough of
 * the ssh-agent protocol (RFC draft-miller-ssh-agent) for a client to see
 * one key and get an answer: it lists a decoy ed25519 key and refuses
 * every other request. What it counts is the evidence: a connection
 * accepted from one of the snippet's own processes (its peer credentials:
 * the folder is 0700, but the wrapper around the snippet, and any process
 * of the same uid or root, could connect too) and the requests it
 * answered. It never talks to a real agent. */
#ifndef LAB_AGENT_H
#define LAB_AGENT_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define AGENT_CONNS    4
#define AGENT_POLL_MAX (AGENT_CONNS + 1)

struct lab_agent {
	int fd;         /* the listening socket, -1 when not served */
	char path[108]; /* sun_path */
	int conn[AGENT_CONNS];
	unsigned char buf[AGENT_CONNS][64]; /* a request's first bytes */
	size_t len[AGENT_CONNS];
	/* whose connection counts: the peer's pid (SO_PEERCRED, in the lab's
	 * PID namespace) is the run's snippet's; NULL counts every one */
	bool (*peer_ok)(void *ctx, pid_t pid);
	void *peer_ctx;
	long strays;   /* connections from anyone else: closed at once, not counted */
	long conns;    /* connections accepted */
	long requests; /* requests answered */
	long listed;   /* of those, REQUEST_IDENTITIES: the decoy key was listed */
	unsigned char key[32];
	char comment[64]; /* the decoy key's comment */
};

/* Makes the socket at path (0600, its folder must exist); 0 or -errno
 * (-ENAMETOOLONG when path does not fit a sun_path). */
int agent_open(struct lab_agent *a, const char *path, const char *comment);
int agent_poll_fds(const struct lab_agent *a, int *fds, int max);
/* Handles fd when it is the agent's (accept, read, answer): true, else
 * false and nothing done. */
bool agent_event(struct lab_agent *a, int fd);
void agent_close(struct lab_agent *a);
#endif
