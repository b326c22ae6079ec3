/*
 * cli.h - the command lines of the three programs. act_storage and
 * act_index: "PROG [--set NAME=VALUE]... CONFIG-FILE", "PROG --check
 * [--print-config] [--set NAME=VALUE]... CONFIG-FILE" (check the config
 * and its devices, writing nothing; print the head of the log a run would
 * write), "PROG --help | --version | --config-help". --set items override
 * the file's (docs/act_storage.md, "The command line").
 * act_prep: "act_prep [--size BYTES] [--max-stall-sec SEC] [--] DEVICE...".
 * In both, "--" ends the options.
 *
 * --help names the example config and act_latency.py where they really
 * are: installed (make install: PREFIX/bin, PREFIX/share/act/config) or in
 * the source tree (target/bin). A bad argument is named before the usage;
 * a mistyped option gets a "did you mean".
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/cfg.h"
#include "common/limits.h"

typedef struct cli_program_s {
	const char* name;          // "act_storage"
	const char* about;         // --help: what the program does
	const cfg_table* table;    // for --config-help
} cli_program;

// At most this many --set items.
#define CLI_MAX_SETS 256

// What the command line of act_storage or act_index asks for.
typedef struct cli_run_s {
	cfg_source src;            // the config file and the --set items
	bool check;                // --check
	bool print_config;         // --print-config (only with --check)
	const char* sets[CLI_MAX_SETS]; // src.sets points here
} cli_run;

// Returns -1 to go on with *out filled, else the exit status (0 after
// --help, --version or --config-help; EXIT_USAGE for a bad command line,
// said on stderr before the usage).
int cli_args(int argc, char* argv[], const cli_program* p, cli_run* out);

// act_prep's command line.
#define CLI_PREP_MAX_STALL_SEC 60  // --max-stall-sec default

typedef struct cli_prep_s {
	uint64_t size;             // --size (0: not given)
	uint32_t max_stall_sec;    // --max-stall-sec
	const char* names[ACT_MAX_DEVICES];
	uint32_t n;
} cli_prep;

// Returns -1 to go on with *out filled, else the exit status (0 after
// --help or --version; EXIT_USAGE for a bad command line, said on stderr).
int cli_prep_args(int argc, char* argv[], cli_prep* out);
