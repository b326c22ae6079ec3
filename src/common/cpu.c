/*
 * cpu.c - how busy the host's CPUs were (from /proc/stat).
 */

#include "common/cpu.h"

#include <inttypes.h>
#include <stdio.h>

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
