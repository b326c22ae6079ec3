/*
 * cpu.c - the host's CPUs: how many, how many threads it can start, how
 * busy they were (from /proc/stat).
 */

#include "common/cpu.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

//==========================================================
// Typedefs & constants.
//

// Threads: never more than this, nor more than the host allows less a
// margin for the rest of the system.
#define HOST_THREADS_MAX 100000
#define HOST_THREADS_MARGIN 256

//==========================================================
// Public API.
//

bool
cpu_sample(cpu_times* t)
{
	FILE* f = fopen("/proc/stat", "r");

	if (f == NULL) {
		return false;
	}

	// cpu  user nice system idle iowait irq softirq steal ...
	uint64_t v[8] = { 0 };
	int n = fscanf(f, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			" %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1],
			&v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);

	fclose(f);

	if (n < 4) {
		return false;
	}

	t->total = 0;

	for (int i = 0; i < 8; i++) {
		t->total += v[i];
	}

	t->busy = t->total - v[3] - v[4];

	return true;
}

double
cpu_busy_pct(const cpu_times* from, const cpu_times* to)
{
	if (to->total <= from->total || to->busy < from->busy) {
		return -1.0;
	}

	return 100.0 * (double)(to->busy - from->busy) /
			(double)(to->total - from->total);
}

uint32_t
cpu_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (uint32_t)n;
}

uint64_t
cpu_thread_limit(void)
{
	uint64_t limit = HOST_THREADS_MAX;
	FILE* f = fopen("/proc/sys/kernel/threads-max", "r");
	unsigned long long v;

	if (f != NULL) {
		if (fscanf(f, "%llu", &v) == 1 && v < limit) {
			limit = v;
		}

		fclose(f);
	}

	struct rlimit rl;

	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
			(uint64_t)rl.rlim_cur < limit) {
		limit = (uint64_t)rl.rlim_cur;
	}

	return limit > 2 * HOST_THREADS_MARGIN ? limit - HOST_THREADS_MARGIN :
			limit / 2;
}
