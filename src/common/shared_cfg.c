/*
 * shared_cfg.c - config items and rules that act_storage and act_index
 * share.
 */

#include "common/shared_cfg.h"

#include <stdio.h>
#include <string.h>

//==========================================================
// Globals.
//

// rate-process: index 0 is the default (docs/beyond.md, "Request timing").
const char* const g_rate_processes[] = {
	"aligned", "spread", "poisson", NULL
};

const char* const g_scheduler_modes[] = {
	"noop", "none", "cfq", "mq-deadline", "deadline", "bfq", "kyber", NULL
};

//==========================================================
// Public API.
//

uint32_t
shared_cfg_service_threads(const cfg_table* t, const cfg_set* set,
		shared_cfg* c, uint32_t n_cpus)
{
	if (cfg_is_set(t, set, "service-threads")) {
		return 0;
	}

	uint64_t legacy = (uint64_t)c->num_queues * c->threads_per_queue;

	if (cfg_is_set(t, set, "num-queues") &&
			cfg_is_set(t, set, "threads-per-queue") && legacy != 0 &&
			legacy <= UINT32_MAX) {
		c->service_threads = (uint32_t)legacy;
		return 0;
	}

	if (n_cpus == 0) {
		n_cpus = 1;
	}

	c->service_threads = 5 * n_cpus;

	return n_cpus;
}

int
shared_cfg_check_hist_names(const cfg_names* devices,
		const char* const* fixed, char* err, size_t err_len)
{
	static const char* const SUFFIXES[] = { "-reads", "-writes" };

	for (uint32_t d = 0; d < devices->n; d++) {
		const char* name = devices->names[d];
		size_t n = strlen(name);

		for (const char* const* f = fixed; *f != NULL; f++) {
			for (size_t k = 0; k < 2; k++) {
				if (strncmp(*f, name, n) == 0 &&
						strcmp(*f + n, SUFFIXES[k]) == 0) {
					snprintf(err, err_len, "config item 'device-names': device "
							"%s would give a histogram named %s, like the "
							"log's own %s - name the device by another path "
							"(e.g. ./%s)", name, *f, *f, name);
					return -1;
				}
			}
		}
	}

	return 0;
}
