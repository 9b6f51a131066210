/* tests/bench_bare_init.c — `make bench`'s bare microVM: built static, it is
 * the whole initramfs of a QEMU microvm boot of the lab's guest kernel, and
 * powers the guest off at once, so the boot's cost can be set beside the
 * lab's microvm rung (which loads its modules, mounts its shares and runs a
 * command). Run on the host as `bench_bare_init tsc` it prints the TSC's
 * frequency in kHz, measured as the lab measures it for the guest's command
 * line (box_microvm.c host_tsc_khz), so both boots get the same line. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "tsc")) {
		struct timespec a, b, pause = {0, 20000000L};
		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		unsigned long long t0 = __rdtsc();
		nanosleep(&pause, NULL);
		unsigned long long t1 = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		long long ns = (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
		printf("%lld\n", ns > 0 && t1 > t0 ? (long long)((t1 - t0) * 1000000ULL / (unsigned long long)ns) : 0);
		return 0;
	}
	sync();
	reboot(RB_POWER_OFF);
	return 1;
}
