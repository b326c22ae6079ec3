/*
 * bench.c - what act_storage and act_index share around their run.
 */

#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "run.h"
#include "version.h"

//==========================================================
// Public API.
//

int
bench_args(int argc, char* argv[], const char* usage,
		const char** config_path)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			strcmp(argv[1], "-h") == 0)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("%s %s\n", argv[0], ACT_VERSION);
		return EXIT_OK;
	}

	if (argc != 2 || argv[1][0] == '-') {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}

	*config_path = argv[1];

	return -1;
}

void
bench_banner(const char* kind)
{
	log_out("\nACT version %s\n%s\n%s\n\n", ACT_VERSION, kind, ACT_NOTICE);
}

uint32_t
bench_n_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (uint32_t)n;
}

int
bench_open_devices(const cfg_names* names, const dev_opts* o, dev* devs)
{
	char err[1024];

	for (uint32_t i = 0; i < names->n; i++) {
		if (dev_check(names->names[i], o, err, sizeof(err)) != 0) {
			log_error("%s", err);
			return -1;
		}
	}

	for (uint32_t i = 0; i < names->n; i++) {
		if (dev_open(&devs[i], names->names[i], o, err, sizeof(err)) != 0) {
			log_error("%s", err);
			bench_close_devices(devs, i);
			return -1;
		}
	}

	return 0;
}

void
bench_close_devices(dev* devs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		dev_close(&devs[i]);
	}
}
