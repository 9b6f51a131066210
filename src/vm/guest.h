/* vm/guest.h — what the lab (box_microvm.c) and the guest's init
 * (vm/init.c) must agree on, beside the framed protocol. */
#ifndef LAB_VM_GUEST_H
#define LAB_VM_GUEST_H

/* Under TCG the guest's CPU seconds are emulated ones, about 10 to 20 of
 * them for one of the host's (python's start and an upload: 0.11 s on the
 * host, 2.2 s in the guest). The run spec's RLIMIT_CPU is a cap in the
 * host's seconds: the guest init scales it by this when the kernel command
 * line says lab.tcg=1, and the lab's mechanisms line says so. */
#define TCG_CPU_SCALE 10

/* Isolation's deny list in the guest: at most this many calls in /lab/conf
 * ("deny NR ERRNO SHAPE"), and this many distinct refusals the init lists
 * ("X NR ERRNO COUNT A0..A5 S0..S5", after the snippet), the rest counted
 * ("X dropped N"). */
#define GUEST_DENY_MAX    96
#define GUEST_REFUSED_MAX 48

#endif
