/*
 * cli.c - the command line of act_storage and act_index.
 */

#include "common/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cfg_help.h"
#include "common/log.h"
#include "common/run.h"
#include "common/suggest.h"
#include "common/version.h"

//==========================================================
// Globals.
//

static const char PREP_USAGE[] =
	"usage: act_prep [--size BYTES] [--max-stall-sec SEC] DEVICE...\n"
	"       act_prep --help | --version\n"
	"\n"
	"Prepares each DEVICE for an ACT test: writes zeros over every byte\n"
	"(cleaning), then random data over every byte (salting). Several\n"
	"devices are prepared in parallel.\n"
	"\n"
	"ALL DATA ON THE DEVICES IS DESTROYED. A device that is mounted, swap,\n"
	"or held by md/LVM/dm is refused before anything is written.\n"
	"\n"
	"  DEVICE        a block device, or a regular file (prepared over its\n"
	"                current size)\n"
	"  --size BYTES  set a file's size to BYTES first (created if missing,\n"
	"                grown or shrunk if not); a suffix K, M, G or T means\n"
	"                KiB, MiB, GiB, TiB (default: the file's current size)\n"
	"  --max-stall-sec SEC\n"
	"                stop with exit status 3 when a device completes no\n"
	"                write for SEC seconds - a hung drive (default 60,\n"
	"                0: wait for ever)\n"
	"  -V, --version\n"
	"                print the program's name and act's version, and exit\n"

	"\n"
	"stdout: the size of each device and the phases; stderr: progress\n"
	"(a live line on a terminal, a line every 5% otherwise).\n"
	"exit status: 0 every byte of every device written, 1 usage error,\n"
	"2 device error, 3 a device stopped responding (--max-stall-sec),\n"
	"4 write error, 5 the output could not be written,\n"
	"128+n stopped by signal n\n";

// The long options, for "did you mean" (a mistyped short option gets no
// suggestion: one letter is close to every other).
static const char* const RUN_OPTIONS[] = {
	"--set", "--check", "--print-config", "--config-help", "--help",
	"--version", NULL
};

static const char* const PREP_OPTIONS[] = {
	"--size", "--max-stall-sec", "--help", "--version", NULL
};

//==========================================================
// Forward declarations.
//

static void usage(const cli_program* p, FILE* out);
static void unknown_option(const char* arg, const char* const* known);
static const char* opt_value(int argc, char* argv[], int* i,
		const char* name);
static int parse_size(const char* text, uint64_t* out);
static int parse_sec(const char* text, uint32_t* out);
static void find_companion(const char* name, char* conf, size_t conf_len,
		char* latency, size_t latency_len);
static void find_file(const char* base, const char* const* dirs,
		const char* stem, const char* ext, char* out, size_t len);

//==========================================================
// Public API.
//

int
cli_args(int argc, char* argv[], const cli_program* p, cli_run* out)
{
	memset(out, 0, sizeof(*out));
	out->src.sets = out->sets;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			strcmp(argv[1], "-h") == 0)) {
		usage(p, stdout);
		return EXIT_OK;
	}

	if (argc == 2 && (strcmp(argv[1], "--version") == 0 ||
			strcmp(argv[1], "-V") == 0)) {
		printf("%s %s\n", p->name, ACT_VERSION);
		return EXIT_OK;
	}

	if (argc == 2 && strcmp(argv[1], "--config-help") == 0) {
		cfg_help_print(p->table, stdout);
		return EXIT_OK;
	}

	const char* files[3];
	int n_files = 0;
	bool operands = false;
	char esc[256];
	char esc2[256];

	for (int i = 1; i < argc; i++) {
		const char* a = argv[i];
		const char* v;

		if (operands || a[0] != '-' || a[1] == '\0') {
			if (n_files < 3) {
				files[n_files] = a;
			}

			n_files++;
		}
		else if (strcmp(a, "--") == 0) {
			operands = true;
		}
		else if (strcmp(a, "--check") == 0) {
			out->check = true;
		}
		else if (strcmp(a, "--print-config") == 0) {
			out->print_config = true;
		}
		else if ((v = opt_value(argc, argv, &i, "--set")) != NULL) {
			const char* eq = strchr(v, '=');

			if (eq == NULL || eq == v) {
				fprintf(stderr, "ERROR: --set takes NAME=VALUE, not '%s'\n\n",
						log_escape(v, esc, sizeof(esc)));
				usage(p, stderr);
				return EXIT_USAGE;
			}

			if (out->src.n_sets == CLI_MAX_SETS) {
				fprintf(stderr, "ERROR: more than %d --set items\n\n",
						CLI_MAX_SETS);
				usage(p, stderr);
				return EXIT_USAGE;
			}

			out->sets[out->src.n_sets++] = v;
		}
		else {
			// Say what was wrong before the usage.
			unknown_option(a, RUN_OPTIONS);
			usage(p, stderr);
			return EXIT_USAGE;
		}
	}

	if (out->print_config && ! out->check) {
		fprintf(stderr, "ERROR: --print-config is used with --check "
				"(%s --check --print-config CONFIG-FILE)\n\n", p->name);
		usage(p, stderr);
		return EXIT_USAGE;
	}

	if (n_files != 1 || files[0][0] == '\0') {
		if (out->check && n_files <= 1) {
			fprintf(stderr, "ERROR: --check takes one config file\n\n");
		}
		else if (n_files == 0) {
			fprintf(stderr, "ERROR: no config file given\n\n");
		}
		else if (n_files == 1) {
			fprintf(stderr, "ERROR: the config file name is empty\n\n");
		}
		else {
			fprintf(stderr, "ERROR: one config file expected, got %d "
					"(%s, %s%s)\n\n", n_files,
					log_escape(files[0], esc, sizeof(esc)),
					log_escape(files[1], esc2, sizeof(esc2)),
					n_files > 2 ? ", ..." : "");
		}

		usage(p, stderr);
		return EXIT_USAGE;
	}

	out->src.path = files[0];

	return -1;
}

int
cli_prep_args(int argc, char* argv[], cli_prep* out)
{
	char err[256];
	bool operands = false;

	*out = (cli_prep){ .max_stall_sec = CLI_PREP_MAX_STALL_SEC };

	for (int i = 1; i < argc; i++) {
		const char* a = argv[i];

		if (! operands && a[0] == '-') {
			const char* v;

			if (strcmp(a, "--") == 0) {
				operands = true;
			}
			else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
				fputs(PREP_USAGE, stdout);
				return EXIT_OK;
			}
			else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
				printf("act_prep %s\n", ACT_VERSION);
				return EXIT_OK;
			}
			else if ((v = opt_value(argc, argv, &i, "--size")) != NULL) {
				if (parse_size(v, &out->size) != 0 || out->size == 0) {
					fprintf(stderr, "ERROR: --size: '%s' is not a size in "
							"bytes (e.g. 1073741824, 512M, 2G)\n",
							log_escape(v, err, sizeof(err)));
					return EXIT_USAGE;
				}
			}
			else if ((v = opt_value(argc, argv, &i, "--max-stall-sec")) !=
					NULL) {
				if (parse_sec(v, &out->max_stall_sec) != 0) {
					fprintf(stderr, "ERROR: --max-stall-sec: '%s' is not a "
							"number of seconds (0 to %u)\n",
							log_escape(v, err, sizeof(err)), UINT32_MAX);
					return EXIT_USAGE;
				}
			}
			else {
				unknown_option(a, PREP_OPTIONS);
				fputs(PREP_USAGE, stderr);
				return EXIT_USAGE;
			}

			continue;
		}

		if (out->n == ACT_MAX_DEVICES) {
			fprintf(stderr, "ERROR: more than %d devices\n", ACT_MAX_DEVICES);
			return EXIT_USAGE;
		}

		for (uint32_t j = 0; j < out->n; j++) {
			if (strcmp(out->names[j], a) == 0) {
				fprintf(stderr, "ERROR: device %s is named twice\n",
						log_escape(a, err, sizeof(err)));
				return EXIT_USAGE;
			}
		}

		out->names[out->n++] = a;
	}

	if (out->n == 0) {
		fputs(PREP_USAGE, stderr);
		return EXIT_USAGE;
	}

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
	fprintf(out, "usage: %s [--set NAME=VALUE]... CONFIG-FILE > LOG\n"
			"       %s --check [--print-config] [--set NAME=VALUE]... "
			"CONFIG-FILE\n"
			"       %s --help | --version | --config-help\n"
			"\n"
			"%s"
			"\n"
			"  CONFIG-FILE    the test's items, one 'name: value' per line;\n"
			"                 an example with every item and its default:\n"
			"                 %s\n"
			"  --set NAME=VALUE\n"
			"                 a config item on the command line, applied\n"
			"                 after the file's and checked as its line\n"
			"                 'NAME: VALUE' would be; repeatable, the last\n"
			"                 one of an item wins\n"
			"  --check        check the config, then claim, size and probe\n"
			"                 its devices as a run would - writing nothing;\n"
			"                 exit status 0 usable, 1 config error, 2 device\n"
			"                 error\n"
			"  --print-config\n"
			"                 with --check: print on stdout the head of the\n"
			"                 log the run would write - the config and\n"
			"                 derived config, the device lines, the drives'\n"
			"                 identity\n"
			"  --config-help  every config item with its default, range and\n"
			"                 meaning\n"
			"  -h, --help     print this help and exit\n"
			"  -V, --version  print the program's name and act's version,\n"
			"                 and exit\n"
			"  --             the next argument is the config file, even if\n"
			"                 it starts with '-'\n"
			"\n"
			"Analyse the log with: %s -l LOG\n"
			"\n"
			"WARNING: the test writes over the devices named in device-names;\n"
			"all data on them is destroyed.\n"
			"\n"
			"exit status: 0 done, 1 usage or config error, 2 device or setup\n"
			"error, 3 load not kept up or a hung I/O (max-lag-sec), 4 I/O\n"
			"errors (io-error-limit), 5 the log could not be written, 128+n\n"
			"stopped by signal n\n", p->name, p->name, p->name, p->about,
			conf, latency);
}

// "ERROR: unknown option 'ARG'", with the closest of the known options
// (NULL-terminated) when one is close (suggest_closest): "- did you mean
// '--check'?". A value after '=' is not compared.
static void
unknown_option(const char* arg, const char* const* known)
{
	char esc[256];
	char name[64];
	size_t n = 0;

	while (known[n] != NULL) {
		n++;
	}

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);

	int ix = suggest_closest(name, known, n);

	fprintf(stderr, "ERROR: unknown option '%s'%s%s%s\n\n",
			log_escape(arg, esc, sizeof(esc)), ix < 0 ? "" :
			" - did you mean '", ix < 0 ? "" : known[ix], ix < 0 ? "" : "'?");
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

// The value of option name at argv[*i] ("--name VALUE", *i moves past it,
// or "--name=VALUE"); NULL when argv[*i] is another argument. A missing
// value is "" (an error for every option's parser).
static const char*
opt_value(int argc, char* argv[], int* i, const char* name)
{
	const char* a = argv[*i];
	size_t len = strlen(name);

	if (strncmp(a, name, len) != 0) {
		return NULL;
	}

	if (a[len] == '=') {
		return a + len + 1;
	}

	if (a[len] != '\0') {
		return NULL;
	}

	return *i + 1 < argc ? argv[++*i] : "";
}

// Whole seconds, 0 to UINT32_MAX.
static int
parse_sec(const char* text, uint32_t* out)
{
	char* end;

	if (text[0] < '0' || text[0] > '9') {
		return -1;
	}

	errno = 0;

	unsigned long long v = strtoull(text, &end, 10);

	if (errno != 0 || *end != '\0' || v > UINT32_MAX) {
		return -1;
	}

	*out = (uint32_t)v;

	return 0;
}

// A size in bytes, with an optional suffix K, M, G or T (KiB ... TiB).
static int
parse_size(const char* text, uint64_t* out)
{
	char* end = NULL;

	errno = 0;

	if (text[0] < '0' || text[0] > '9') {
		return -1;
	}

	unsigned long long v = strtoull(text, &end, 10);
	uint64_t mult = 1;

	if (errno != 0) {
		return -1;
	}

	switch (*end) {
	case '\0':
		break;
	case 'K': case 'k':
		mult = 1ULL << 10;
		end++;
		break;
	case 'M': case 'm':
		mult = 1ULL << 20;
		end++;
		break;
	case 'G': case 'g':
		mult = 1ULL << 30;
		end++;
		break;
	case 'T': case 't':
		mult = 1ULL << 40;
		end++;
		break;
	default:
		return -1;
	}

	if (*end != '\0' || v > UINT64_MAX / mult) {
		return -1;
	}

	*out = (uint64_t)v * mult;

	return 0;
}
