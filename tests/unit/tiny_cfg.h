/*
 * tiny_cfg.h - a small config table for the cfg unit tests: one item of
 * each kind (a required device list, a plain number, a number with a
 * computed default, a power of 2, a flag, an item echoed with the flag, a
 * word, a size histogram, a legacy item). It passes cfg_table_check
 * (test_cfg_tables) and its help layout is known exactly (test_cfg_help).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg.h"

typedef struct {
	uint32_t n;
	uint32_t m;
	bool f;
	const char* w;
	cfg_names d;
	cfg_size_hist h;
} tiny_cfg;

#define D(f) offsetof(tiny_cfg, f)
#define N(a) (uint32_t)(sizeof(a) / sizeof(a[0]))

static const char* const WORDS2[] = { "one", "two", NULL };

#define OK_NUM(nm) { .name = nm, .type = CFG_U32, .offset = D(n), .def = 1, \
	.min = 0, .max = 10, .help = "a number" }
#define OK_FLAG(nm) { .name = nm, .type = CFG_FLAG, .offset = D(f), \
	.help = "a flag" }

static const cfg_item TINY[] = {
	{ .name = "devs", .type = CFG_NAMES, .offset = D(d),
		.flags = CFG_REQUIRED | CFG_DEFAULT_NONE, .def_text = "none (required)",
		.help = "devices" },
	OK_NUM("num"),
	{ .name = "threads", .type = CFG_U32, .offset = D(m), .min = 1, .max = 9,
		.flags = CFG_DEFAULT_NONE, .def_text = "5 x online CPUs",
		.help = "computed default" },
	{ .name = "kb", .type = CFG_U32, .offset = D(m), .def = 128, .min = 1,
		.max = 8192, .pow2 = true, .help = "a power of 2" },
	OK_FLAG("flag"),
	{ .name = "gated", .type = CFG_U32, .offset = D(m), .max = 5,
		.flags = CFG_ECHO_IF, .echo_if = "flag", .help = "echoed with flag" },
	{ .name = "mode", .type = CFG_WORD, .offset = D(w), .def = 1,
		.words = WORDS2, .help = "a word" },
	{ .name = "hist", .type = CFG_SIZE_HIST, .offset = D(h),
		.flags = CFG_DEFAULT_NONE | CFG_ECHO_SET, .def_text = "unset",
		.help = "a histogram" },
	{ .name = "old", .type = CFG_LEGACY, .offset = D(m),
		.help = "nothing replaces it" },
};
