/*
 * cli.h - the command line of act_storage and act_index:
 * "PROG CONFIG-FILE | --help | --version | --config-help".
 *
 * --help names the example config and act_latency.py where they really
 * are: installed (make install: PREFIX/bin, PREFIX/share/act/config) or in
 * the source tree (target/bin). A bad argument is named before the usage.
 */
#pragma once

#include "common/cfg.h"

typedef struct cli_program_s {
	const char* name;          // "act_storage"
	const char* about;         // --help: what the program does
	const cfg_table* table;    // for --config-help
} cli_program;

// Returns -1 to go on with *config_path set, else the exit status (0 after
// --help, --version or --config-help; EXIT_USAGE for a bad command line).
int cli_args(int argc, char* argv[], const cli_program* p,
		const char** config_path);
