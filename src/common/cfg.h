/*
 * cfg.h - table-driven config files ("name: value" lines).
 *
 * Each program describes its items once, in a table in echo order: name,
 * type, where the value lives in the program's config struct, default,
 * limits, echo rule and a one-line help. The same table drives parsing,
 * range validation, the config echo in the log - and, in cfg_help, the
 * "did you mean" hint for a misspelt item and the config help
 * (--config-help).
 *
 * Syntax: one item per line; name and value separated by a colon and/or
 * white space; '#' starts a comment anywhere; blank lines ignored; an item
 * given twice takes the last value. The parser prints nothing: errors come
 * back in err, warnings in the cfg_set. Numbers are plain decimal (leading
 * zeros allowed, "093" is 93) within 32 bits; flags are yes/y/true or
 * no/n/false in any case.
 *
 * Items given on the command line ("--set NAME=VALUE", cfg_source) are
 * applied after the file, in order, each exactly as the line
 * "NAME: VALUE" of the file would be (docs/act_storage.md, "--set").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/limits.h"
#include "common/strbuf.h"

#define CFG_MAX_ITEMS 64
#define CFG_ERR_LEN 512

typedef enum {
	CFG_U32,     // unsigned decimal, 32 bits
	CFG_FLAG,    // yes / no
	CFG_NAMES,   // device list, comma/semicolon/space separated
	CFG_WORD,    // one of a fixed set of words
	CFG_SIZE_HIST, // record-size histogram: percentages over 2^k bytes
	CFG_LEGACY   // obsolete number: accepted with a warning, not echoed
} cfg_type;

// Echo rules and default kinds (cfg_item.flags).
#define CFG_REQUIRED     0x01 // must be given
#define CFG_ECHO_NONZERO 0x02 // echoed only when the value is not 0
#define CFG_ECHO_NONDEF  0x04 // echoed only when not the default (our additions)
#define CFG_NO_ECHO      0x08 // never echoed
#define CFG_ECHO_IF      0x10 // echoed only when flag item echo_if is yes
#define CFG_ECHO_SET     0x20 // echoed only when given (our additions)
#define CFG_DEFAULT_NONE 0x40 // no plain default (required, computed or
                              // unset): def_text says what it is

typedef struct cfg_names_s {
	uint32_t n;
	char names[ACT_MAX_DEVICES][ACT_MAX_NAME];
} cfg_names;

// A record-size histogram (docs/advanced-sizing.md): p[k] is the percentage of
// operations larger than 2^k bytes, as the server's device-read-size and
// device-write-size histograms print them. 1..27 values, each 0..100,
// non-increasing, the last one 0.
#define CFG_SIZE_HIST_MAX 27

typedef struct cfg_size_hist_s {
	uint32_t n;
	double p[CFG_SIZE_HIST_MAX];
} cfg_size_hist;

// One item. Tables use designated initializers; fields left out are 0 /
// NULL / false:
//   { .name = "record-bytes", .type = CFG_U32, .offset = OFF(record_bytes),
//     .def = 1536, .min = 0, .max = STORAGE_MAX_RECORD_BYTES,
//     .help = "record size in bytes ..." }
// cfg_table_check() states the rules a table must follow.
typedef struct cfg_item_s {
	const char* name;
	cfg_type type;
	size_t offset;            // of the value in the config struct
	uint32_t def;             // default: number, flag, or index into words
	uint32_t min;             // CFG_U32: inclusive limits of a given value
	uint32_t max;
	bool pow2;                // CFG_U32: the value must be a power of 2
	uint32_t flags;           // CFG_REQUIRED, CFG_ECHO_..., CFG_DEFAULT_NONE
	const char* const* words; // CFG_WORD: NULL-terminated choices
	const char* echo_if;      // CFG_ECHO_IF: the flag item that enables it
	const char* def_text;     // CFG_DEFAULT_NONE: what the default is
	const char* help;         // one line for the config help and docs; for
	                          // CFG_LEGACY, the reason in the warning
} cfg_item;

typedef struct cfg_table_s {
	const char* program;          // "act_storage"
	const char* other_program;    // "act_index": an item of other_items
	const char* const* other_items; // (NULL-terminated) is reported as
	                              // "applies to <other_program> only"
	const cfg_item* items;
	uint32_t n_items;
	uint32_t max_devices;
} cfg_table;

// Warnings the parser gives back (it prints nothing itself): an obsolete
// item, a line read as a comment inside a '#####' banner. The caller prints
// them, "WARNING: " + each, in file order (cfg_warning).
#define CFG_MAX_WARNINGS 64
#define CFG_WARNING_LEN 192

typedef struct cfg_set_s {
	bool set[CFG_MAX_ITEMS];  // given in the file or by --set
	uint32_t n_warnings;      // all of them, also past CFG_MAX_WARNINGS
	char warnings[CFG_MAX_WARNINGS][CFG_WARNING_LEN];
} cfg_set;

// Parse a number / flag value (exposed for tests). Return false if the
// text is not a valid value.
bool cfg_parse_u32(const char* text, uint32_t* out);
bool cfg_parse_flag(const char* text, bool* out);

// Set every item of base to its default and clear set.
void cfg_defaults(const cfg_table* t, void* base, cfg_set* set);

// Apply one "name: value" line (comments and blanks allowed). Returns 0,
// or -1 with a message in err that names the item and the value. An
// unknown item that is the other program's says so; else a close known
// item is suggested ("- did you mean 'x'?").
int cfg_apply_line(const cfg_table* t, void* base, cfg_set* set,
		const char* line, char* err, size_t err_len);

// Apply one command-line item, "NAME=VALUE" (--set): exactly as the line
// "NAME: VALUE" (cfg_apply_line). Returns 0, or -1 with the line's message
// in err - or one saying arg is not NAME=VALUE.
int cfg_apply_set(const cfg_table* t, void* base, cfg_set* set,
		const char* arg, char* err, size_t err_len);

// Where a config comes from: a file (or the text of one), then the items
// of the command line, applied after it in order - a later one wins.
typedef struct cfg_source_s {
	const char* path;          // the config file, or NULL and:
	const char* text;          // the text of one (tests)
	const char* const* sets;   // n_sets "NAME=VALUE" (--set)
	uint32_t n_sets;
} cfg_source;

// Defaults, then every line of the file, then every --set item, then the
// required checks. Returns 0, or -1 with the message in err, which ends
// with where the item came from: " (line N)" or " (--set NAME=VALUE)".
int cfg_load(const cfg_table* t, const cfg_source* src, void* base,
		cfg_set* set, char* err, size_t err_len);

// cfg_load of the text of a whole file, no --set (tests).
int cfg_load_text(const cfg_table* t, const char* text, void* base,
		cfg_set* set, char* err, size_t err_len);

// The known item (not a legacy one) closest to an unknown name, or NULL
// when none is close (suggest_closest).
const cfg_item* cfg_suggest(const cfg_table* t, const char* name);

// Warning i (0 .. n_warnings - 1) of the last load, without "WARNING: ".
// Past CFG_MAX_WARNINGS, the last one says how many more there were.
const char* cfg_warning(const cfg_set* set, uint32_t i, char* buf,
		size_t len);

// The table entry of an item, or NULL.
const cfg_item* cfg_find(const cfg_table* t, const char* name);

// Whether the named item was given (in the file or by --set).
bool cfg_is_set(const cfg_table* t, const cfg_set* set, const char* name);

// Append the config echo ("name: value" lines, table order) to sb.
// device-names is followed by "num-devices: N".
void cfg_echo(const cfg_table* t, const void* base, const cfg_set* set,
		strbuf* sb);

// Check a table's own consistency (unit tests run it on every table):
// at most CFG_MAX_ITEMS items, unique names, help text on every item, U32
// limits min <= max and the default within them (unless CFG_DEFAULT_NONE),
// pow2 defaults powers of 2, CFG_WORD defaults indexing a word, CFG_ECHO_IF
// naming a flag item, CFG_DEFAULT_NONE exactly on the items with a
// def_text (required items, device lists and size histograms need it).
// Returns 0, or -1 with a message naming the item in err.
int cfg_table_check(const cfg_table* t, char* err, size_t err_len);

// Parse a size histogram value ("100.00, 85.5, 0"). Returns 0, or -1 with
// a message naming the item and the offending position.
int cfg_parse_size_hist(const char* item, const char* text, cfg_size_hist* h,
		char* err, size_t err_len);
