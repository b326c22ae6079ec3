/*
 * Description: config parsing - numbers (decimal with leading zeros, no
 * junk, 32-bit overflow), flags, separators, comments, duplicates, device
 * lists, unknown / other-program / legacy items, the "did you mean" hint
 * in the message for a misspelt item (both programs; which item is
 * suggested: test_cfg_help), and every item of the act_storage
 * table accepted at its limits and rejected just beyond them (and, for
 * power-of-2 items, off a power of 2) with a message naming the item and
 * the value. Items of the command line (--set NAME=VALUE, cfg_source):
 * applied after the file, the last one winning, a device list with the
 * file's separators, a required item given only there, the echo; and each
 * bad file line of the cases above refused by --set with the same message,
 * " (--set NAME=VALUE)" in place of " (line N)".
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg.h"
#include "index/index_cfg.h"
#include "storage/storage_cfg.h"
#include "unit.h"

typedef struct {
	const char* text;
	bool ok;
	uint32_t value;
} u32_case;

static const u32_case U32S[] = {
	{ "0", true, 0 },
	{ "1", true, 1 },
	{ "093", true, 93 },
	{ "0000000000000000000007", true, 7 },
	{ "4294967295", true, 4294967295u },
	{ "4294967296", false, 0 },
	{ "99999999999999999999999", false, 0 },
	{ "2000abc", false, 0 },
	{ "5e1", false, 0 },
	{ "", false, 0 },
	{ "-1", false, 0 },
	{ "+1", false, 0 },
	{ " 1", false, 0 },
	{ "1.5", false, 0 },
	{ "0x10", false, 0 },
};

typedef struct {
	const char* text;
	bool ok;
	bool value;
} flag_case;

static const flag_case FLAGS[] = {
	{ "yes", true, true }, { "y", true, true }, { "true", true, true },
	{ "YES", true, true }, { "Yes", true, true }, { "TRUE", true, true },
	{ "Y", true, true }, { "no", true, false }, { "n", true, false },
	{ "false", true, false }, { "NO", true, false }, { "False", true, false },
	{ "N", true, false }, { "maybe", false, false }, { "", false, false },
	{ "1", false, false }, { "0", false, false }, { "yess", false, false },
	{ "on", false, false },
};

// A minimal valid config that the cases below add one line to.
#define BASE "device-names: /dev/x\ntest-duration-sec: 10\n" \
	"read-reqs-per-sec: 2000\nwrite-reqs-per-sec: 1000\nservice-threads: 4\n"

typedef struct {
	const char* what;
	const char* text;
	const char* error;  // NULL: must parse; else a substring of the error
} text_case;

static const text_case TEXTS[] = {
	{ "colon and space", BASE "record-bytes: 100\n", NULL },
	{ "space only", BASE "record-bytes 100\n", NULL },
	{ "colon only", BASE "record-bytes:100\n", NULL },
	{ "space colon space", BASE "record-bytes : 100\n", NULL },
	{ "tab", BASE "record-bytes\t100\n", NULL },
	{ "indented, trailing comment", BASE "   record-bytes: 100   # c\n", NULL },
	{ "comment lines and blanks", "# a comment\n\n" BASE "\n# x: 1\n"
		"record-bytes: 100\n\n", NULL },
	{ "duplicate: last wins", BASE "record-bytes: 5\nrecord-bytes: 100\n",
		NULL },
	{ "no final newline", BASE "record-bytes: 100", NULL },
	{ "CRLF line ends", "device-names: /dev/x\r\ntest-duration-sec: 10\r\n"
		"read-reqs-per-sec: 2000\r\nservice-threads: 4\r\n"
		"record-bytes: 100\r\n", NULL },
	{ "unknown item, close to one", BASE "record-byte: 100\n",
		"unknown config item 'record-byte' - did you mean 'record-bytes'? "
		"(line 6)" },
	{ "unknown item, nothing close", BASE "no-such-item: 100\n",
		"unknown config item 'no-such-item' (line 6)" },
	{ "large block not a power of 2", BASE "large-block-op-kbytes: 100\n",
		"config item 'large-block-op-kbytes': 100 is not a power of 2 "
		"(line 6)" },
	{ "large block not a power of 2, then one", BASE
		"large-block-op-kbytes: 3\nlarge-block-op-kbytes: 256\n",
		"config item 'large-block-op-kbytes': 3 is not a power of 2 "
		"(line 6)" },
	{ "index-only item", BASE "cache-threads: 8\n",
		"config item 'cache-threads' applies to act_index only (line 6)" },
	{ "junk after number", BASE "record-bytes: 2000abc\n",
		"config item 'record-bytes': '2000abc' is not a decimal number" },
	{ "exponent", BASE "record-bytes: 5e1\n",
		"config item 'record-bytes': '5e1' is not a decimal number" },
	{ "negative", BASE "update-pct: -1\n",
		"config item 'update-pct': '-1' is not a decimal number" },
	{ "overflow", BASE "read-reqs-per-sec: 4294967296\n",
		"config item 'read-reqs-per-sec': '4294967296' is larger than "
		"4294967295" },
	{ "bad flag", BASE "tomb-raider: maybe\n",
		"config item 'tomb-raider': 'maybe' is not yes or no" },
	{ "no value", BASE "record-bytes:\n",
		"config item 'record-bytes' has no value" },
	{ "no value, comment", BASE "record-bytes: # 100\n",
		"config item 'record-bytes' has no value" },
	{ "bad word", BASE "scheduler-mode: fast\n",
		"config item 'scheduler-mode': 'fast' is not one of noop, none" },
	{ "missing device-names", "test-duration-sec: 10\nread-reqs-per-sec: 1\n",
		"config item 'device-names' is required but missing" },
	{ "missing test-duration-sec", "device-names: /dev/x\n"
		"read-reqs-per-sec: 1\n",
		"config item 'test-duration-sec' is required but missing" },
	{ "empty device list", BASE "device-names: , ;\n",
		"config item 'device-names' names no device" },
	{ "device twice", BASE "device-names: /dev/a,/dev/b,/dev/a\n",
		"config item 'device-names': device /dev/a is named twice" },
	{ "name too long", BASE "device-names: /dev/"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"\n", "is 145 characters, at most 127" },
};

static void
test_numbers(void)
{
	for (size_t i = 0; i < sizeof(U32S) / sizeof(U32S[0]); i++) {
		uint32_t v = 12345;
		bool ok = cfg_parse_u32(U32S[i].text, &v);
		char ctx[96];

		snprintf(ctx, sizeof(ctx), "number '%s' accepted", U32S[i].text);
		CHECK_U64(ctx, U32S[i].ok, ok);

		if (U32S[i].ok) {
			snprintf(ctx, sizeof(ctx), "number '%s' value", U32S[i].text);
			CHECK_U64(ctx, U32S[i].value, v);
		}
	}
}

static void
test_flags(void)
{
	for (size_t i = 0; i < sizeof(FLAGS) / sizeof(FLAGS[0]); i++) {
		bool v = ! FLAGS[i].value;
		bool ok = cfg_parse_flag(FLAGS[i].text, &v);
		char ctx[96];

		snprintf(ctx, sizeof(ctx), "flag '%s' accepted", FLAGS[i].text);
		CHECK_U64(ctx, FLAGS[i].ok, ok);

		if (FLAGS[i].ok) {
			snprintf(ctx, sizeof(ctx), "flag '%s' value", FLAGS[i].text);
			CHECK_U64(ctx, FLAGS[i].value, v);
		}
	}
}

static void
test_texts(void)
{
	for (size_t i = 0; i < sizeof(TEXTS) / sizeof(TEXTS[0]); i++) {
		storage_cfg* c = calloc(1, sizeof(*c));
		char err[CFG_ERR_LEN] = "";
		int rv = storage_cfg_load_text(c, TEXTS[i].text, 2, err, sizeof(err));

		if (TEXTS[i].error == NULL) {
			CHECK(rv == 0, "%s: expected to parse, got error '%s'",
					TEXTS[i].what, err);

			if (rv == 0) {
				CHECK_U64(TEXTS[i].what, 100, c->record_bytes);
			}
		}
		else {
			CHECK(rv != 0, "%s: expected error '%s', parsed", TEXTS[i].what,
					TEXTS[i].error);
			CHECK_CONTAINS(TEXTS[i].what, TEXTS[i].error, err);
		}

		free(c);
	}
}

static void
test_device_list(void)
{
	storage_cfg* c = calloc(1, sizeof(*c));
	char err[CFG_ERR_LEN] = "";
	int rv = storage_cfg_load_text(c, BASE
			"device-names: /dev/a,/dev/b; /dev/c  /dev/d\t/dev/e,\n", 2, err,
			sizeof(err));

	CHECK(rv == 0, "device list: %s", err);
	CHECK_U64("number of devices", 5, c->common.devices.n);
	CHECK_STR("device 3", "/dev/c", c->common.devices.names[2]);

	char buf[8192];
	strbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	cfg_echo(&g_storage_cfg_table, c, &c->set, &sb);
	CHECK_CONTAINS("echo joins with spaces",
			"device-names: /dev/a /dev/b /dev/c /dev/d /dev/e\n"
			"num-devices: 5\n", buf);

	// 128 devices is the limit; 129 is an error.
	char* text = malloc(128 * 16 + 256);

	for (uint32_t n = 128; n <= 129; n++) {
		strbuf t;

		sb_init(&t, text, 128 * 16 + 256);
		sb_printf(&t, BASE "device-names:");

		for (uint32_t d = 0; d < n; d++) {
			sb_printf(&t, " /dev/d%u", d);
		}

		sb_printf(&t, "\n");
		rv = storage_cfg_load_text(c, text, 2, err, sizeof(err));

		if (n == 128) {
			CHECK(rv == 0 && c->common.devices.n == 128, "128 devices: %s",
					err);
		}
		else {
			CHECK(rv != 0, "129 devices accepted");
			CHECK_CONTAINS("129 devices", "more than 128 devices", err);
		}
	}

	free(text);
	free(c);
}

// Every numeric item of the table: accepted at its limits, rejected just
// outside them, with the item and the value in the message.
static void
test_every_item_limits(void)
{
	const cfg_table* t = &g_storage_cfg_table;

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];

		if (item->type != CFG_U32) {
			continue;
		}

		uint64_t bad[2];
		int n_bad = 0;

		if (item->min > 0) {
			bad[n_bad++] = (uint64_t)item->min - 1;
		}

		if (item->max < UINT32_MAX) {
			bad[n_bad++] = (uint64_t)item->max + 1;
		}

		for (int b = 0; b < n_bad; b++) {
			storage_cfg* c = calloc(1, sizeof(*c));
			cfg_set set;
			char line[128];
			char err[CFG_ERR_LEN] = "";
			char want[128];

			cfg_defaults(t, c, &set);
			snprintf(line, sizeof(line), "%s: %" PRIu64, item->name, bad[b]);
			CHECK(cfg_apply_line(t, c, &set, line, err, sizeof(err)) != 0,
					"'%s' accepted", line);
			snprintf(want, sizeof(want), "config item '%s': %" PRIu64
					" is out of range (%" PRIu32 " to %" PRIu32 ")", item->name,
					bad[b], item->min, item->max);
			CHECK_STR(line, want, err);
			free(c);
		}

		// A power-of-2 item refuses the first non-power of 2 in range.
		if (item->pow2) {
			uint32_t v = item->min < 3 ? 3 : item->min;

			while (v <= item->max && (v & (v - 1)) == 0) {
				v++;
			}

			storage_cfg* c = calloc(1, sizeof(*c));
			cfg_set set;
			char line[128];
			char err[CFG_ERR_LEN] = "";
			char want[128];

			cfg_defaults(t, c, &set);
			snprintf(line, sizeof(line), "%s: %" PRIu32, item->name, v);
			CHECK(cfg_apply_line(t, c, &set, line, err, sizeof(err)) != 0,
					"'%s' accepted", line);
			snprintf(want, sizeof(want), "config item '%s': %" PRIu32
					" is not a power of 2", item->name, v);
			CHECK_STR(line, want, err);
			free(c);
		}

		uint32_t good[2] = { item->min, item->max };

		for (int g = 0; g < 2; g++) {
			storage_cfg* c = calloc(1, sizeof(*c));
			cfg_set set;
			char line[128];
			char err[CFG_ERR_LEN] = "";

			cfg_defaults(t, c, &set);
			snprintf(line, sizeof(line), "%s:%" PRIu32, item->name, good[g]);
			CHECK(cfg_apply_line(t, c, &set, line, err, sizeof(err)) == 0,
					"'%s' rejected: %s", line, err);
			CHECK_U64(line, good[g],
					*(uint32_t*)((char*)c + item->offset));
			CHECK(set.set[i], "'%s' not marked set", line);
			free(c);
		}
	}
}

// Every flag item accepts yes/no and rejects anything else.
static void
test_every_flag(void)
{
	const cfg_table* t = &g_storage_cfg_table;

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];

		if (item->type != CFG_FLAG) {
			continue;
		}

		storage_cfg* c = calloc(1, sizeof(*c));
		cfg_set set;
		char line[128];
		char err[CFG_ERR_LEN] = "";
		bool* f = (bool*)((char*)c + item->offset);

		cfg_defaults(t, c, &set);
		snprintf(line, sizeof(line), "%s: Yes", item->name);
		CHECK(cfg_apply_line(t, c, &set, line, err, sizeof(err)) == 0 && *f,
				"'%s': %s", line, err);
		snprintf(line, sizeof(line), "%s: false", item->name);
		CHECK(cfg_apply_line(t, c, &set, line, err, sizeof(err)) == 0 && ! *f,
				"'%s': %s", line, err);
		snprintf(line, sizeof(line), "%s: 1", item->name);
		CHECK(cfg_apply_line(t, c, &set, line, err, sizeof(err)) != 0,
				"'%s' accepted", line);
		CHECK_CONTAINS(line, "is not yes or no", err);
		free(c);
	}
}

// "Did you mean" in the whole message of cfg_apply_line (the suggestion
// itself: test_cfg_help).
typedef struct {
	const cfg_table* t;
	const char* line;
	const char* error;  // the whole message
} unknown_case;

static const unknown_case UNKNOWNS[] = {
	{ &g_storage_cfg_table, "read-req-per-sec: 2000",
		"unknown config item 'read-req-per-sec' - did you mean "
		"'read-reqs-per-sec'?" },
	{ &g_storage_cfg_table, "no-such-item: 5",
		"unknown config item 'no-such-item'" },
	{ &g_storage_cfg_table, "cache-threads: 8",
		"config item 'cache-threads' applies to act_index only" },
	{ &g_storage_cfg_table, "cache-thread: 8",
		"unknown config item 'cache-thread'" },
	{ &g_index_cfg_table, "cache-thread: 8",
		"unknown config item 'cache-thread' - did you mean 'cache-threads'?" },
	{ &g_index_cfg_table, "tomb-raider: yes",
		"config item 'tomb-raider' applies to act_storage only" },
	{ &g_index_cfg_table, "direct-frees: 5",
		"config item 'direct-frees' applies to act_storage only" },
	{ &g_index_cfg_table, "record-byte: 5",
		"unknown config item 'record-byte'" },
};

static void
test_unknown(void)
{
	for (size_t i = 0; i < sizeof(UNKNOWNS) / sizeof(UNKNOWNS[0]); i++) {
		const unknown_case* k = &UNKNOWNS[i];
		// Large enough for either program's config struct.
		static char base[sizeof(storage_cfg) > sizeof(index_cfg) ?
				sizeof(storage_cfg) : sizeof(index_cfg)];
		cfg_set set;
		char err[CFG_ERR_LEN] = "";
		char ctx[160];

		cfg_defaults(k->t, base, &set);
		snprintf(ctx, sizeof(ctx), "%s: '%s'", k->t->program, k->line);
		CHECK(cfg_apply_line(k->t, base, &set, k->line, err, sizeof(err)) != 0,
				"%s accepted", ctx);
		CHECK_STR(ctx, k->error, err);
	}
}

static void
test_legacy(void)
{
	storage_cfg* c = calloc(1, sizeof(*c));
	char err[CFG_ERR_LEN] = "";
	int rv = storage_cfg_load_text(c, "device-names: /dev/x\n"
			"test-duration-sec: 10\nread-reqs-per-sec: 2000\n"
			"num-queues: 2\nthreads-per-queue: 3\nuse-valloc: yes\n"
			"queue-per-device: no\nmax-reqs-queued: 100000\n", 4, err,
			sizeof(err));

	CHECK(rv == 0, "legacy config: %s", err);
	CHECK_U64("service-threads from num-queues x threads-per-queue", 6,
			c->common.service_threads);
	// The parser prints nothing: each legacy item is a warning given back.
	CHECK_U64("one warning per legacy item", 5, c->set.n_warnings);
	CHECK_STR("legacy warning text", "config item 'num-queues' is obsolete "
			"(ACT 4) - service-threads replaces it", c->set.warnings[0]);
	CHECK_U64("no CPU line when legacy items give service-threads", 0,
			c->n_cpus);

	rv = storage_cfg_load_text(c, "device-names: /dev/x\n"
			"test-duration-sec: 10\nread-reqs-per-sec: 2000\n"
			"num-queues: 2\nthreads-per-queue: 3\nservice-threads: 9\n", 4, err,
			sizeof(err));
	CHECK(rv == 0 && c->common.service_threads == 9,
			"service-threads wins over legacy items: %u",
			c->common.service_threads);

	rv = storage_cfg_load_text(c, "device-names: /dev/x\n"
			"test-duration-sec: 10\nread-reqs-per-sec: 2000\n"
			"num-queues: 2\n", 4, err, sizeof(err));
	CHECK(rv == 0 && c->common.service_threads == 20 && c->n_cpus == 4,
			"num-queues alone: default 5 x CPUs, got %u",
			c->common.service_threads);
	free(c);
}

// Warnings come back in the cfg_set, in file order; past
// CFG_MAX_WARNINGS the last one counts the rest.
static void
test_warnings(void)
{
	storage_cfg* c = calloc(1, sizeof(storage_cfg));
	char err[CFG_ERR_LEN] = "";
	char buf[CFG_WARNING_LEN];

	int rv = storage_cfg_load_text(c, "##########\nact config file\n"
			"##########\ndevice-names: /dev/x\ntest-duration-sec: 10\n"
			"use-valloc: 1\nread-reqs-per-sec: 2000\n", 4, err, sizeof(err));

	CHECK(rv == 0, "banner config: %s", err);
	CHECK_U64("banner + legacy: two warnings", 2, c->set.n_warnings);
	CHECK_STR("banner warning first", "config line 2 is inside a '#####' "
			"banner: read as a comment: act config file",
			cfg_warning(&c->set, 0, buf, sizeof(buf)));
	CHECK_STR("then the legacy one", "config item 'use-valloc' is obsolete "
			"(ACT 4) - buffers are always aligned",
			cfg_warning(&c->set, 1, buf, sizeof(buf)));

	char text[8192] = "device-names: /dev/x\ntest-duration-sec: 10\n"
			"read-reqs-per-sec: 2000\n";

	for (int i = 0; i < CFG_MAX_WARNINGS + 5; i++) {
		strcat(text, "use-valloc: 1\n");
	}

	rv = storage_cfg_load_text(c, text, 4, err, sizeof(err));
	CHECK(rv == 0, "many legacy lines: %s", err);
	CHECK_U64("every warning counted", CFG_MAX_WARNINGS + 5,
			c->set.n_warnings);
	CHECK_STR("the last shown counts the rest", "6 more config warnings "
			"not shown", cfg_warning(&c->set, CFG_MAX_WARNINGS - 1, buf,
			sizeof(buf)));
	free(c);
}

// --set items over a file (cfg_source): BASE, then the sets in order.
typedef struct {
	const char* what;
	const char* text;          // the file
	const char* sets[4];       // NULL-terminated
	const char* error;         // NULL: must parse; else the whole message
	uint32_t record_bytes;     // when it parses (0: not checked)
	uint32_t n_devices;        // when it parses (0: not checked)
} set_case;

static const set_case SETS[] = {
	{ "override the file", BASE "record-bytes: 5\n",
		{ "record-bytes=100" }, NULL, 100, 1 },
	{ "the last --set wins", BASE "record-bytes: 5\n",
		{ "record-bytes=7", "record-bytes=100" }, NULL, 100, 0 },
	{ "not given in the file", BASE, { "record-bytes=100" }, NULL, 100, 0 },
	{ "a device list, the file's separators", BASE,
		{ "device-names=/dev/a,/dev/b; /dev/c  /dev/d\t/dev/e," }, NULL, 0,
		5 },
	{ "a required item given only by --set",
		"test-duration-sec: 10\nread-reqs-per-sec: 1\nservice-threads: 1\n",
		{ "device-names=/dev/x" }, NULL, 0, 1 },
	{ "a comment, as in the file", BASE, { "record-bytes=100 # c" }, NULL,
		100, 0 },
	{ "a value with '='", BASE, { "device-names=/dev/a=b" }, NULL, 0, 1 },
	{ "bad value", BASE, { "read-reqs-per-sec=20x" },
		"config item 'read-reqs-per-sec': '20x' is not a decimal number "
		"(--set read-reqs-per-sec=20x)", 0, 0 },
	{ "bad value after a good one", BASE,
		{ "record-bytes=100", "large-block-op-kbytes=100" },
		"config item 'large-block-op-kbytes': 100 is not a power of 2 "
		"(--set large-block-op-kbytes=100)", 0, 0 },
	{ "unknown item, close to one", BASE, { "record-byte=100" },
		"unknown config item 'record-byte' - did you mean 'record-bytes'? "
		"(--set record-byte=100)", 0, 0 },
	{ "the other program's item", BASE, { "cache-threads=8" },
		"config item 'cache-threads' applies to act_index only "
		"(--set cache-threads=8)", 0, 0 },
	{ "no value", BASE, { "record-bytes=" },
		"config item 'record-bytes' has no value (--set record-bytes=)", 0,
		0 },
	{ "no '='", BASE, { "record-bytes" },
		"'record-bytes' is not NAME=VALUE (--set record-bytes)", 0, 0 },
	{ "no name", BASE, { "=5" }, "'=5' is not NAME=VALUE (--set =5)", 0, 0 },
	{ "not a name", BASE, { "record bytes=5" },
		"'record bytes' is not a config item name (--set record bytes=5)", 0,
		0 },
	{ "a name with ':'", BASE, { "record-bytes:=5" },
		"'record-bytes:' is not a config item name (--set record-bytes:=5)",
		0, 0 },
	{ "the file's error comes first", BASE "record-bytes: x\n",
		{ "record-bytes=100" },
		"config item 'record-bytes': 'x' is not a decimal number (line 6)", 0,
		0 },
	{ "still required", "test-duration-sec: 10\nread-reqs-per-sec: 1\n",
		{ "record-bytes=100" },
		"config item 'device-names' is required but missing", 0, 0 },
};

static void
test_sets(void)
{
	for (size_t i = 0; i < sizeof(SETS) / sizeof(SETS[0]); i++) {
		const set_case* k = &SETS[i];
		storage_cfg* c = calloc(1, sizeof(*c));
		char err[CFG_ERR_LEN] = "";
		cfg_source src = { .text = k->text, .sets = k->sets };

		while (src.n_sets < 4 && k->sets[src.n_sets] != NULL) {
			src.n_sets++;
		}

		int rv = storage_cfg_load(c, &src, 2, err, sizeof(err));

		if (k->error != NULL) {
			CHECK(rv != 0, "%s: expected error '%s', parsed", k->what,
					k->error);
			CHECK_STR(k->what, k->error, err);
			free(c);
			continue;
		}

		CHECK(rv == 0, "%s: expected to parse, got error '%s'", k->what,
				err);

		if (rv == 0 && k->record_bytes != 0) {
			CHECK_U64(k->what, k->record_bytes, c->record_bytes);
			CHECK(cfg_is_set(&g_storage_cfg_table, &c->set, "record-bytes"),
					"%s: record-bytes not marked set", k->what);
		}

		if (rv == 0 && k->n_devices != 0) {
			CHECK_U64(k->what, k->n_devices, c->common.devices.n);
		}

		free(c);
	}

	// The echo shows the effective values: an item echoed only when given
	// (CFG_ECHO_SET) is echoed when given by --set.
	storage_cfg* c = calloc(1, sizeof(*c));
	char err[CFG_ERR_LEN] = "";
	const char* sets[] = { "read-reqs-per-sec=3000",
		"storage-read-histogram=100,50,0", "read-size-offset=50" };
	int rv = storage_cfg_load(c, &(cfg_source){ .text = BASE,
			.sets = sets, .n_sets = 3 }, 2, err, sizeof(err));
	char buf[8192];
	strbuf sb;

	CHECK(rv == 0, "echo config: %s", err);
	sb_init(&sb, buf, sizeof(buf));
	storage_cfg_echo(c, &sb);
	CHECK_CONTAINS("echo: --set value", "read-reqs-per-sec: 3000\n", buf);
	CHECK_CONTAINS("echo: --set histogram",
			"storage-read-histogram: 100.00,50.00,0.00\n", buf);
	CHECK_CONTAINS("echo: --set item echoed when set",
			"read-size-offset: 50\n", buf);
	CHECK_CONTAINS("derived from the --set value",
			"internal-read-reqs-per-sec: 3000\n", buf);

	// A legacy item by --set is a warning, as in the file.
	const char* legacy[] = { "use-valloc=yes" };

	rv = storage_cfg_load(c, &(cfg_source){ .text = BASE, .sets = legacy,
			.n_sets = 1 }, 2, err, sizeof(err));
	CHECK(rv == 0 && c->set.n_warnings == 1, "legacy --set: %d, %u "
			"warnings: %s", rv, c->set.n_warnings, err);
	free(c);
}

// Every bad one-line case of TEXTS (BASE and one line "NAME: VALUE") is
// refused by --set NAME=VALUE with the same message: the file's " (line 6)"
// becomes " (--set NAME=VALUE)".
static void
test_set_same_refusal(void)
{
	size_t base_len = strlen(BASE);
	uint32_t compared = 0;

	for (size_t i = 0; i < sizeof(TEXTS) / sizeof(TEXTS[0]); i++) {
		const text_case* k = &TEXTS[i];
		const char* suffix = " (line 6)";
		const char* at;

		if (k->error == NULL || strncmp(k->text, BASE, base_len) != 0) {
			continue;
		}

		const char* line = k->text + base_len;
		const char* colon = strstr(line, ": ");

		if (colon == NULL || strchr(line, '\n') != line + strlen(line) - 1 ||
				strchr(line, '#') != NULL) {
			continue;
		}

		char arg[512];
		char file_err[CFG_ERR_LEN] = "";
		char set_err[CFG_ERR_LEN] = "";
		char want[CFG_ERR_LEN + 600];
		storage_cfg* c = calloc(1, sizeof(*c));

		// "NAME: VALUE\n" -> "NAME=VALUE"
		snprintf(arg, sizeof(arg), "%.*s=%.*s", (int)(colon - line), line,
				(int)(strlen(colon + 2) - 1), colon + 2);

		const char* sets[] = { arg };
		int file_rv = storage_cfg_load_text(c, k->text, 2, file_err,
				sizeof(file_err));
		int set_rv = storage_cfg_load(c, &(cfg_source){ .text = BASE,
				.sets = sets, .n_sets = 1 }, 2, set_err, sizeof(set_err));

		CHECK(file_rv != 0 && set_rv != 0, "%s: file %d, --set %d",
				k->what, file_rv, set_rv);

		if ((at = strstr(file_err, suffix)) != NULL) {
			snprintf(want, sizeof(want), "%.*s (--set %s)%s",
					(int)(at - file_err), file_err, arg, at + strlen(suffix));
		}
		else {
			snprintf(want, sizeof(want), "%s", file_err);
		}

		CHECK_STR(k->what, want, set_err);
		compared++;
		free(c);
	}

	CHECK(compared >= 10, "only %u cases compared", compared);
}

int
main(void)
{
	test_numbers();
	test_flags();
	test_texts();
	test_device_list();
	test_every_item_limits();
	test_every_flag();
	test_unknown();
	test_legacy();
	test_warnings();
	test_sets();
	test_set_same_refusal();

	return unit_end("test_cfg");
}
