/*
 * cli.c - the command line of act_storage and act_index.
 */

#include "common/cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cfg_help.h"
#include "common/log.h"
#include "common/run.h"
#include "common/version.h"

//==========================================================
// Forward declarations.
//

static void usage(const cli_program* p, FILE* out);
static void find_companion(const char* name, char* conf, size_t conf_len,
		char* latency, size_t latency_len);
static void find_file(const char* base, const char* const* dirs,
		const char* stem, const char* ext, char* out, size_t len);

//==========================================================
// Public API.
//

int
cli_args(int argc, char* argv[], const cli_program* p,
		const char** config_path)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			strcmp(argv[1], "-h") == 0)) {
		usage(p, stdout);
		return EXIT_OK;
	}

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("%s %s\n", p->name, ACT_VERSION);
		return EXIT_OK;
	}

	if (argc == 2 && strcmp(argv[1], "--config-help") == 0) {
		cfg_help_print(p->table, stdout);
		return EXIT_OK;
	}

	char esc[256];
	char esc2[256];

	// Say what was wrong before the usage.
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "ERROR: unknown option '%s'\n\n",
					log_escape(argv[i], esc, sizeof(esc)));
			usage(p, stderr);
			return EXIT_USAGE;
		}
	}

	if (argc != 2) {
		if (argc == 1) {
			fprintf(stderr, "ERROR: no config file given\n\n");
		}
		else {
			fprintf(stderr, "ERROR: one config file expected, got %d "
					"(%s, %s%s)\n\n", argc - 1,
					log_escape(argv[1], esc, sizeof(esc)),
					log_escape(argv[2], esc2, sizeof(esc2)),
					argc > 3 ? ", ..." : "");
		}

		usage(p, stderr);
		return EXIT_USAGE;
	}

	*config_path = argv[1];

	return -1;
}

//==========================================================
// Local helpers.
//

static void
usage(const cli_program* p, FILE* out)
{
	char conf[PATH_MAX];
	char latency[PATH_MAX];

	find_companion(p->name, conf, sizeof(conf), latency, sizeof(latency));
	fprintf(out, "usage: %s CONFIG-FILE > LOG\n"
			"       %s --help | --version | --config-help\n"
			"\n"
			"%s"
			"\n"
			"  CONFIG-FILE    the test's items, one 'name: value' per line;\n"
			"                 an example with every item and its default:\n"
			"                 %s\n"
			"  --config-help  every config item with its default, range and\n"
			"                 meaning\n"
			"\n"
			"Analyse the log with: %s -l LOG\n"
			"\n"
			"WARNING: the test writes over the devices named in device-names;\n"
			"all data on them is destroyed.\n"
			"\n"
			"exit status: 0 done, 1 usage or config error, 2 device or setup\n"
			"error, 3 load not kept up or a hung I/O (max-lag-sec), 4 I/O\n"
			"errors (io-error-limit), 5 the log could not be written, 128+n\n"
			"stopped by signal n\n", p->name, p->name, p->about, conf,
			latency);
}

// Where the example config and act_latency.py are, for this binary:
// installed (make install: PREFIX/bin and PREFIX/share/act/config), or in
// the source tree (target/bin, target/san-*/bin). Falls back on the source
// tree's relative paths.
static void
find_companion(const char* name, char* conf, size_t conf_len, char* latency,
		size_t latency_len)
{
	static const char* const CONF_DIRS[] = {
		"../share/act/config", "../../config", "../../../config", NULL
	};
	static const char* const LATENCY_DIRS[] = {
		".", "../../analysis", "../../../analysis", NULL
	};
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	snprintf(conf, conf_len, "config/%s.conf", name);
	snprintf(latency, latency_len, "analysis/act_latency.py");

	if (n <= 0) {
		return;
	}

	exe[n] = '\0';

	char* slash = strrchr(exe, '/');

	if (slash == NULL) {
		return;
	}

	*slash = '\0';
	find_file(exe, CONF_DIRS, name, ".conf", conf, conf_len);
	find_file(exe, LATENCY_DIRS, "act_latency", ".py", latency, latency_len);
}

// The first dir (relative to base) that holds stem + ext, as a clean
// absolute path into out (left as it was when none does).
static void
find_file(const char* base, const char* const* dirs, const char* stem,
		const char* ext, char* out, size_t len)
{
	for (const char* const* d = dirs; *d != NULL; d++) {
		char path[PATH_MAX * 2];
		char real[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s/%s%s", base, *d, stem, ext);

		if (realpath(path, real) != NULL) {
			snprintf(out, len, "%s", real);
			return;
		}
	}
}
