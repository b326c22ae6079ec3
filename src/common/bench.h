/*
 * bench.h - what act_storage and act_index share around their run: the
 * command line, the banner, and opening the devices safely.
 */
#pragma once

#include <stdint.h>

#include "cfg.h"
#include "dev.h"

// Handle the command line "PROG CONFIG | --help | --version". Returns -1
// to go on with *config_path set, else the exit status (0 after --help or
// --version, EXIT_USAGE for bad usage).
int bench_args(int argc, char* argv[], const char* usage,
		const char** config_path);

// The banner: empty line, "ACT version V", the test kind, the notice, an
// empty line.
void bench_banner(const char* kind);

// Online CPUs (at least 1).
uint32_t bench_n_cpus(void);

// Check every device (nothing written), then open them all. Returns 0, or
// -1 having printed the ERROR line (devices opened so far are closed).
int bench_open_devices(const cfg_names* names, const dev_opts* o,
		dev* devs);

// Close all devices.
void bench_close_devices(dev* devs, uint32_t n);
