/* run_uid.h — a uid of its own for a root lab's sandbox.
 *
 * A root lab's sandbox maps root inside to an unprivileged uid outside. A
 * shared one (65534, nobody) is also every service's that runs as nobody
 * and every rootless lab's of another user: any process of it may signal
 * the sandbox. So by default ([isolation] outside_uid = auto) each run of
 * a root lab takes a uid (and the gid of the same number) of its own from
 * a block reserved for the lab, RUN_UID_FIRST..RUN_UID_LAST, just below
 * 2^31: above systemd's container and "foreign" ranges, below the upper
 * half that some software takes for negative, and handed out by no
 * distribution. A candidate is taken only when
 *   - no /etc/passwd or /etc/group entry has it (nor an NSS source),
 *   - no range of /etc/subuid or /etc/subgid holds it,
 *   - no process on the machine runs as it (any of its real, effective,
 *     saved or file-system uids or gids),
 *   - and the lab can bind the abstract unix socket
 *     "@containment-lab/uid/N": the claim. The kernel refuses a second
 *     bind of a name, so two root labs (or two runs of one) never share a
 *     uid, and the name goes with the last descriptor on it: when the run
 *     ends, or the lab dies (SIGKILL included), with nothing left behind.
 *
 * Life cycle: run_uid_claim (parent, before the clone) -> the run ->
 * run_uid_release. The claim's descriptor is close-on-exec; the run's init
 * (a fork that never execs) holds a copy until it is gone, so the uid stays
 * claimed while any process of the run may still hold it. */
#ifndef LAB_RUN_UID_H
#define LAB_RUN_UID_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define RUN_UID_FIRST 2147418112L /* 0x7FFF0000 */
#define RUN_UID_LAST  2147483646L /* 0x7FFFFFFE */

struct run_uid {
	long uid; /* also the gid; -1 before a claim */
	int fd;   /* the claim's socket, -1 when none */
};

/* Finds an unused uid of the block and claims it. 0, or -1 with err
 * saying why (nothing free, /proc unreadable...). */
int run_uid_claim(struct run_uid *c, char *err, size_t cap);
void run_uid_release(struct run_uid *c);

/* Why id is not free, "" when it is (without claiming it): for tests and
 * the claim's own loop. */
void run_uid_why_taken(long id, char *why, size_t cap);

#endif
