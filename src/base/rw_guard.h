/* rw_guard.h — `exec --rw`'s guard against setuid files, device nodes and
 * file capabilities on the real disk (rw_guard.c). */
#ifndef LAB_RW_GUARD_H
#define LAB_RW_GUARD_H

/* Builds and loads the guard's seccomp filter in the calling process (the
 * range's child, which may: no_new_privs is set or it holds CAP_SYS_ADMIN
 * in its namespace). 0, or -errno. */
int rw_guard_load(void);

#endif
