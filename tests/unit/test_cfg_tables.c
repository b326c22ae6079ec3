/*
 * Description: the config tables themselves - cfg_table_check passes on
 * the act_storage and act_index tables and reports each of a set of
 * deliberately broken tables with a message naming the item; every item of
 * each table is in its example config (config/act_storage.conf,
 * config/act_index.conf; as "name: value" or "# name: value") with the
 * table's default where it has a plain one (but for the values to set
 * before "#-- rarely change": devices, load, duration), and every item
 * named there is an item of the table. Runs from the repository root.
 * (The help printed from a table: test_cfg_help.)
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg.h"
#include "index/index_cfg.h"
#include "storage/storage_cfg.h"
#include "tiny_cfg.h"
#include "unit.h"

//==========================================================
// The real tables.
//

static void check_other_items(const cfg_table* t, const cfg_table* other);

static void
test_real_tables(void)
{
	const cfg_table* tables[] = { &g_storage_cfg_table, &g_index_cfg_table };

	for (size_t i = 0; i < 2; i++) {
		char err[CFG_ERR_LEN] = "";
		int rv = cfg_table_check(tables[i], err, sizeof(err));

		CHECK(rv == 0, "%s table: %s", tables[i]->program, err);
		CHECK(strcmp(tables[i]->other_program, tables[1 - i]->program) == 0,
				"%s: other_program is not %s", tables[i]->program,
				tables[1 - i]->program);
		check_other_items(tables[i], tables[1 - i]);
	}
}

// t->other_items must be exactly the names of other's items that t does
// not have, in other's order: each program links only its own table, and
// this list is what names the other program's items.
static void
check_other_items(const cfg_table* t, const cfg_table* other)
{
	const char* const* p = t->other_items;

	CHECK(p != NULL, "%s: no other_items", t->program);

	if (p == NULL) {
		return;
	}

	for (uint32_t i = 0; i < other->n_items; i++) {
		const char* name = other->items[i].name;

		if (cfg_find(t, name) != NULL) {
			continue;
		}

		CHECK(*p != NULL && strcmp(*p, name) == 0, "%s: other_items lacks "
				"%s's item '%s' (or has '%s' in its place)", t->program,
				other->program, name, *p != NULL ? *p : "(end)");

		if (*p == NULL) {
			return;
		}

		p++;
	}

	CHECK(*p == NULL, "%s: other_items names '%s', which is not an item of "
			"%s only", t->program, *p, other->program);
}

//==========================================================
// Broken tables.
//

static const char* const NO_WORDS[] = { NULL };

static const cfg_item DUP[] = { OK_NUM("a"), OK_FLAG("b"), OK_NUM("a") };
static const cfg_item NO_HELP[] = { OK_NUM("a"),
	{ .name = "quiet", .type = CFG_U32, .offset = D(n), .max = 3 } };
static const cfg_item EMPTY_HELP[] = {
	{ .name = "blank", .type = CFG_FLAG, .offset = D(f), .help = "" } };
static const cfg_item LEGACY_NO_HELP[] = {
	{ .name = "ancient", .type = CFG_LEGACY, .offset = D(n) } };
static const cfg_item NO_NAME[] = { OK_NUM("first"),
	{ .type = CFG_U32, .offset = D(n), .max = 3, .help = "anonymous" } };
static const cfg_item DEF_LOW[] = {
	{ .name = "low", .type = CFG_U32, .offset = D(n), .def = 0, .min = 1,
		.max = 10, .help = "default below min" } };
static const cfg_item DEF_HIGH[] = {
	{ .name = "high", .type = CFG_U32, .offset = D(n), .def = 11, .min = 1,
		.max = 10, .help = "default above max" } };
static const cfg_item NO_MAX[] = {
	{ .name = "nomax", .type = CFG_U32, .offset = D(n), .def = 100,
		.help = "max left out" } };
static const cfg_item MIN_MAX[] = {
	{ .name = "crossed", .type = CFG_U32, .offset = D(n), .def = 5, .min = 6,
		.max = 4, .help = "min above max" } };
static const cfg_item POW2_DEF[] = {
	{ .name = "lb", .type = CFG_U32, .offset = D(n), .def = 100, .min = 1,
		.max = 8192, .pow2 = true, .help = "not a power of 2" } };
static const cfg_item POW2_ZERO[] = {
	{ .name = "lb0", .type = CFG_U32, .offset = D(n), .def = 0, .min = 0,
		.max = 8192, .pow2 = true, .help = "0 is no power of 2" } };
static const cfg_item POW2_FLAG[] = {
	{ .name = "pflag", .type = CFG_FLAG, .offset = D(f), .pow2 = true,
		.help = "pow2 on a flag" } };
static const cfg_item WORD_DEF[] = {
	{ .name = "mode", .type = CFG_WORD, .offset = D(w), .def = 2,
		.words = WORDS2, .help = "default past the words" } };
static const cfg_item WORD_NONE[] = {
	{ .name = "wordless", .type = CFG_WORD, .offset = D(w),
		.help = "no words" } };
static const cfg_item WORD_EMPTY[] = {
	{ .name = "wordless2", .type = CFG_WORD, .offset = D(w),
		.words = NO_WORDS, .help = "empty words" } };
static const cfg_item ECHO_MISSING[] = { OK_FLAG("flag"),
	{ .name = "gated", .type = CFG_U32, .offset = D(n), .max = 5,
		.flags = CFG_ECHO_IF, .echo_if = "flg", .help = "misspelt gate" } };
static const cfg_item ECHO_NOT_FLAG[] = { OK_NUM("num"),
	{ .name = "gated", .type = CFG_U32, .offset = D(n), .max = 5,
		.flags = CFG_ECHO_IF, .echo_if = "num", .help = "gate not a flag" } };
static const cfg_item ECHO_NULL[] = {
	{ .name = "gated", .type = CFG_U32, .offset = D(n), .max = 5,
		.flags = CFG_ECHO_IF, .help = "no gate" } };
static const cfg_item NONE_NO_TEXT[] = {
	{ .name = "threads", .type = CFG_U32, .offset = D(n), .min = 1, .max = 9,
		.flags = CFG_DEFAULT_NONE, .help = "computed, unsaid" } };
static const cfg_item TEXT_NOT_NONE[] = {
	{ .name = "chatty", .type = CFG_U32, .offset = D(n), .max = 9,
		.def_text = "zero", .help = "def_text on a plain default" } };
static const cfg_item REQUIRED_PLAIN[] = {
	{ .name = "duration", .type = CFG_U32, .offset = D(n), .min = 1,
		.max = 9, .def = 1, .flags = CFG_REQUIRED, .help = "required" } };
static const cfg_item NAMES_PLAIN[] = {
	{ .name = "devs", .type = CFG_NAMES, .offset = D(d),
		.help = "devices with a plain default" } };
static const cfg_item HIST_PLAIN[] = {
	{ .name = "hist", .type = CFG_SIZE_HIST, .offset = D(h),
		.help = "a histogram with a plain default" } };
static const cfg_item NAMES_ONLY[] = {
	{ .name = "devs", .type = CFG_NAMES, .offset = D(d),
		.flags = CFG_REQUIRED | CFG_DEFAULT_NONE, .def_text = "none (required)",
		.help = "devices" } };

typedef struct {
	const char* what;
	const cfg_item* items;
	uint32_t n;
	uint32_t max_devices;
	const char* error; // NULL: passes; else a substring of the message
} table_case;

static const table_case TABLES[] = {
	{ "a good table", TINY, N(TINY), 4, NULL },
	{ "name twice", DUP, N(DUP), 4, "item 'a' is listed twice" },
	{ "no help", NO_HELP, N(NO_HELP), 4, "item 'quiet' has no help text" },
	{ "empty help", EMPTY_HELP, N(EMPTY_HELP), 4,
		"item 'blank' has no help text" },
	{ "legacy without a reason", LEGACY_NO_HELP, N(LEGACY_NO_HELP), 4,
		"item 'ancient' has no help text" },
	{ "no name", NO_NAME, N(NO_NAME), 4, "item 2 (after 'first') has no name" },
	{ "default below min", DEF_LOW, N(DEF_LOW), 4,
		"item 'low': default 0 is outside its range 1..10" },
	{ "default above max", DEF_HIGH, N(DEF_HIGH), 4,
		"item 'high': default 11 is outside its range 1..10" },
	{ "max left out", NO_MAX, N(NO_MAX), 4,
		"item 'nomax': default 100 is outside its range 0..0" },
	{ "min above max", MIN_MAX, N(MIN_MAX), 4,
		"item 'crossed': min 6 is larger than max 4" },
	{ "pow2 default not a power of 2", POW2_DEF, N(POW2_DEF), 4,
		"item 'lb': default 100 is not a power of 2" },
	{ "pow2 default 0", POW2_ZERO, N(POW2_ZERO), 4,
		"item 'lb0': default 0 is not a power of 2" },
	{ "pow2 on a flag", POW2_FLAG, N(POW2_FLAG), 4,
		"item 'pflag': pow2 on an item that is not a number" },
	{ "word default past the words", WORD_DEF, N(WORD_DEF), 4,
		"item 'mode': default 2 is not the index of one of its 2 words" },
	{ "word item without words", WORD_NONE, N(WORD_NONE), 4,
		"item 'wordless' is CFG_WORD without words" },
	{ "word item with an empty list", WORD_EMPTY, N(WORD_EMPTY), 4,
		"item 'wordless2' is CFG_WORD without words" },
	{ "echo_if names no item", ECHO_MISSING, N(ECHO_MISSING), 4,
		"item 'gated': CFG_ECHO_IF names 'flg'" },
	{ "echo_if names a number", ECHO_NOT_FLAG, N(ECHO_NOT_FLAG), 4,
		"item 'gated': CFG_ECHO_IF names 'num', which is not a flag item" },
	{ "echo_if missing", ECHO_NULL, N(ECHO_NULL), 4,
		"item 'gated': CFG_ECHO_IF names '(nothing)'" },
	{ "CFG_DEFAULT_NONE without def_text", NONE_NO_TEXT, N(NONE_NO_TEXT), 4,
		"item 'threads' is CFG_DEFAULT_NONE but has no def_text" },
	{ "def_text without CFG_DEFAULT_NONE", TEXT_NOT_NONE, N(TEXT_NOT_NONE), 4,
		"item 'chatty' has a def_text but is not CFG_DEFAULT_NONE" },
	{ "required with a plain default", REQUIRED_PLAIN, N(REQUIRED_PLAIN), 4,
		"item 'duration' has no plain default (required)" },
	{ "device list with a plain default", NAMES_PLAIN, N(NAMES_PLAIN), 4,
		"item 'devs' has no plain default (a device list)" },
	{ "histogram with a plain default", HIST_PLAIN, N(HIST_PLAIN), 4,
		"item 'hist' has no plain default (a size histogram)" },
	{ "max_devices 0", NAMES_ONLY, N(NAMES_ONLY), 0,
		"item 'devs': the table's max_devices 0 is not 1..128" },
	{ "max_devices too many", NAMES_ONLY, N(NAMES_ONLY), ACT_MAX_DEVICES + 1,
		"item 'devs': the table's max_devices 129 is not 1..128" },
};

static void
test_broken_tables(void)
{
	for (size_t i = 0; i < sizeof(TABLES) / sizeof(TABLES[0]); i++) {
		const table_case* k = &TABLES[i];
		cfg_table t = { .program = "broken", .items = k->items, .n_items = k->n,
				.max_devices = k->max_devices };
		char err[CFG_ERR_LEN] = "";
		int rv = cfg_table_check(&t, err, sizeof(err));

		if (k->error == NULL) {
			CHECK(rv == 0, "%s: %s", k->what, err);
			continue;
		}

		CHECK(rv != 0, "%s: not reported", k->what);
		CHECK_CONTAINS(k->what, k->error, err);
		CHECK(strncmp(err, "broken: ", 8) == 0, "%s: message does not start "
				"with the program: '%s'", k->what, err);
	}

	// One item too many: the 65th is named.
	static cfg_item many[CFG_MAX_ITEMS + 1];
	static char names[CFG_MAX_ITEMS + 1][16];

	for (int i = 0; i <= CFG_MAX_ITEMS; i++) {
		snprintf(names[i], sizeof(names[i]), "item-%d", i + 1);
		many[i] = (cfg_item){ .name = names[i], .type = CFG_FLAG,
				.help = "one of many" };
	}

	for (uint32_t n = CFG_MAX_ITEMS; n <= CFG_MAX_ITEMS + 1; n++) {
		cfg_table t = { .program = "broken", .items = many, .n_items = n };
		char err[CFG_ERR_LEN] = "";
		int rv = cfg_table_check(&t, err, sizeof(err));

		if (n == CFG_MAX_ITEMS) {
			CHECK(rv == 0, "CFG_MAX_ITEMS items: %s", err);
		}
		else {
			CHECK(rv != 0, "CFG_MAX_ITEMS + 1 items: not reported");
			CHECK_CONTAINS("CFG_MAX_ITEMS + 1 items", "65 items, more than "
					"CFG_MAX_ITEMS (64) - item 'item-65' is one too many", err);
		}
	}
}

//==========================================================
// The example configs.
//

// The item lines of an example config: "name: value" (with or without
// the colon's space), or commented "# name: value" where the name has a
// dash and the value is one word - prose comments ("# histograms: % of
// ...") are not items. The example configs list every item with its
// default, except in their first blocks ("must change", "almost always
// change"), which hold values to set (the devices, the 1x load, 24 hours):
// those end at the "#-- rarely change" line.
#define SET_BLOCK_END "#-- rarely change"

typedef struct {
	char name[ACT_MAX_NAME];
	char value[1024];
	bool commented;
	bool to_set;     // in the first blocks: a value to set, not the default
	uint32_t line;
} conf_line;

static uint32_t
read_conf(const char* path, conf_line* out, uint32_t max)
{
	FILE* f = fopen(path, "r");
	char buf[4096];
	uint32_t n = 0;
	uint32_t line_no = 0;
	bool to_set = true;

	CHECK(f != NULL, "can't open %s (run from the repository root)", path);

	if (f == NULL) {
		return 0;
	}

	while (fgets(buf, sizeof(buf), f) != NULL && n < max) {
		char* p = buf;
		bool commented = false;

		line_no++;
		buf[strcspn(buf, "\r\n")] = '\0';

		if (strncmp(buf, SET_BLOCK_END, strlen(SET_BLOCK_END)) == 0) {
			to_set = false;
		}

		p += strspn(p, " \t");

		if (*p == '#') {
			commented = true;
			p++;
			p += strspn(p, " \t");
		}

		size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-");

		if (len == 0 || len >= ACT_MAX_NAME || p[len] != ':' ||
				! (*p >= 'a' && *p <= 'z')) {
			continue;
		}

		char* value = p + len + 1;

		value += strspn(value, " \t");

		char* hash = commented ? NULL : strchr(value, '#');

		if (hash != NULL) {
			*hash = '\0';
		}

		size_t vlen = strlen(value);

		while (vlen > 0 && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t')) {
			value[--vlen] = '\0';
		}

		if (commented && (memchr(p, '-', len) == NULL || vlen == 0 ||
				strpbrk(value, " \t") != NULL)) {
			continue;
		}

		conf_line* c = &out[n++];

		memcpy(c->name, p, len);
		c->name[len] = '\0';
		snprintf(c->value, sizeof(c->value), "%s", value);
		c->commented = commented;
		c->to_set = to_set;
		c->line = line_no;
	}

	fclose(f);

	CHECK(! to_set, "%s: no '%s' line after the values to set", path,
			SET_BLOCK_END);

	return n;
}

// The table's default as the example config would write it, or NULL when
// the item has no plain default.
static const char*
plain_default(const cfg_item* item, char* buf, size_t len)
{
	if ((item->flags & CFG_DEFAULT_NONE) != 0) {
		return NULL;
	}

	switch (item->type) {
	case CFG_U32:
		snprintf(buf, len, "%" PRIu32, item->def);
		return buf;
	case CFG_FLAG:
		return item->def != 0 ? "yes" : "no";
	case CFG_WORD:
		return item->words[item->def];
	default:
		return NULL;
	}
}

static void
check_example(const cfg_table* t, const char* path)
{
	static conf_line lines[256];
	uint32_t n = read_conf(path, lines, 256);

	CHECK(n > 0, "%s: no item lines", path);

	// Every item named there is an item of the table (not a legacy one).
	for (uint32_t k = 0; k < n; k++) {
		const cfg_item* item = cfg_find(t, lines[k].name);

		CHECK(item != NULL && item->type != CFG_LEGACY, "%s line %u: '%s' is "
				"not an item of %s", path, lines[k].line, lines[k].name,
				t->program);
	}

	// Every item of the table is there, once, with its default when it
	// has a plain one.
	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];

		if (item->type == CFG_LEGACY) {
			continue;
		}

		const conf_line* found = NULL;
		uint32_t times = 0;

		for (uint32_t k = 0; k < n; k++) {
			if (strcmp(lines[k].name, item->name) == 0) {
				found = &lines[k];
				times++;
			}
		}

		CHECK(found != NULL, "%s: item '%s' of %s is missing (as '%s: ...' "
				"or '# %s: ...')", path, item->name, t->program, item->name,
				item->name);
		CHECK(found == NULL || times == 1, "%s: item '%s' is there %u times",
				path, item->name, times);

		char buf[32];
		const char* def = plain_default(item, buf, sizeof(buf));

		if (found != NULL && def != NULL && ! found->to_set) {
			char ctx[256];

			snprintf(ctx, sizeof(ctx), "%s line %u: the value of %s is not "
					"the default", path, found->line, item->name);
			CHECK_STR(ctx, def, found->value);
		}
	}
}

static void
test_example_configs(void)
{
	check_example(&g_storage_cfg_table, "config/act_storage.conf");
	check_example(&g_index_cfg_table, "config/act_index.conf");

	// The reader itself: prose comments are not items.
	static conf_line lines[256];
	uint32_t n = read_conf("config/act_storage.conf", lines, 256);
	bool prose = false;

	for (uint32_t k = 0; k < n; k++) {
		prose = prose || strcmp(lines[k].name, "histograms") == 0;
	}

	CHECK(! prose, "read_conf took a prose comment for an item");
}

int
main(void)
{
	test_real_tables();
	test_broken_tables();
	test_example_configs();

	return unit_end("test_cfg_tables");
}
