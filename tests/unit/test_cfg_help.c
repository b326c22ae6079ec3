/*
 * Description: cfg_suggest - the "did you mean" suggestion for misspelt items
 * of both programs (case, '_' for '-', missing or extra dashes, words in
 * another order, a few edits; nothing for legacy items, the other
 * program's items or names too far off), and the config help: its exact
 * layout on a small table (columns, wrapping at 79, the obsolete list) and
 * its listing of the real tables (every item, echo order, legacy items
 * last, the lines --config-help shows for a few items).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg.h"
#include "common/cfg_help.h"
#include "index/index_cfg.h"
#include "storage/storage_cfg.h"
#include "tiny_cfg.h"
#include "unit.h"

//==========================================================
// Did you mean.
//

typedef struct {
	const cfg_table* t;
	const char* name;
	const char* want;
} suggest_case;

static const suggest_case SUGGESTS[] = {
	{ &g_storage_cfg_table, "read-req-per-sec", "read-reqs-per-sec" },
	{ &g_storage_cfg_table, "record-byte", "record-bytes" },
	{ &g_storage_cfg_table, "recordbytes", "record-bytes" },
	{ &g_storage_cfg_table, "record--bytes", "record-bytes" },
	{ &g_storage_cfg_table, "bytes-record", "record-bytes" },
	{ &g_storage_cfg_table, "Record-Bytes", "record-bytes" },
	{ &g_storage_cfg_table, "read_reqs_per_sec", "read-reqs-per-sec" },
	{ &g_storage_cfg_table, "wrte-reqs-per-sec", "write-reqs-per-sec" },
	{ &g_storage_cfg_table, "large-block-kbytes", "large-block-op-kbytes" },
	{ &g_storage_cfg_table, "microsecond-histogram",
		"microsecond-histograms" },
	{ &g_storage_cfg_table, "tombraider", "tomb-raider" },
	{ &g_storage_cfg_table, "raider-tomb-sleep-usec",
		"tomb-raider-sleep-usec" },
	{ &g_storage_cfg_table, "test-duration", "test-duration-sec" },
	{ &g_storage_cfg_table, "service-thread", "service-threads" },
	{ &g_storage_cfg_table, "storage-read-histo", "storage-read-histogram" },
	{ &g_storage_cfg_table, "no-such-item", NULL },
	{ &g_storage_cfg_table, "rate", NULL },
	{ &g_storage_cfg_table, "x", NULL },
	{ &g_storage_cfg_table, "num-queue", NULL },        // legacy: not offered
	{ &g_storage_cfg_table, "max-reqs-queue", NULL },   // legacy: not offered
	{ &g_storage_cfg_table, "cache-thread", NULL },     // act_index's
	{ &g_index_cfg_table, "cache-thread", "cache-threads" },
	{ &g_index_cfg_table, "threads-cache", "cache-threads" },
	{ &g_index_cfg_table, "read-req-per-sec", "read-reqs-per-sec" },
	{ &g_index_cfg_table, "record-byte", NULL },        // act_storage's
	{ &g_index_cfg_table, "update-pc", NULL },
};

static void
test_suggest(void)
{
	for (size_t i = 0; i < sizeof(SUGGESTS) / sizeof(SUGGESTS[0]); i++) {
		const suggest_case* k = &SUGGESTS[i];
		const cfg_item* got = cfg_suggest(k->t, k->name);
		char ctx[160];

		snprintf(ctx, sizeof(ctx), "%s: suggestion for '%s'", k->t->program,
				k->name);
		CHECK_STR(ctx, k->want != NULL ? k->want : "(none)",
				got != NULL ? got->name : "(none)");
	}
}

//==========================================================
// cfg_help_print.
//

static char*
help_of(const cfg_table* t)
{
	char* buf = NULL;
	size_t len = 0;
	FILE* f = open_memstream(&buf, &len);

	if (f == NULL) {
		return NULL;
	}

	cfg_help_print(t, f);
	fclose(f);

	return buf;
}

static const char TINY_HELP[] =
	"tiny config items (name: value per line, '#' starts a comment):\n"
	"\n"
	"ITEM     DEFAULT          VALUES\n"
	"devs     none (required)  1 to 4 names\n"
	"    devices\n"
	"num      1                0..10\n"
	"    a number\n"
	"threads  5 x online CPUs  1..9\n"
	"    computed default\n"
	"kb       128              1..8192, power of 2\n"
	"    a power of 2\n"
	"flag     no               yes/no\n"
	"    a flag\n"
	"gated    0                0..5\n"
	"    echoed with flag\n"
	"mode     two              one, two\n"
	"    a word\n"
	"hist     unset            1 to 27 percentages\n"
	"    a histogram\n"
	"\n"
	"obsolete (ACT 4) items, accepted with a warning:\n"
	"old      nothing replaces it\n";

static const cfg_item WRAP[] = {
	{ .name = "long-help", .type = CFG_FLAG, .offset = D(f), .def = 1,
		.help = "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll "
		"mmmm nnnn oooo pppp qqqq rrrr ssss tttt uuuu" },
};

static const char WRAP_HELP[] =
	"wrap config items (name: value per line, '#' starts a comment):\n"
	"\n"
	"ITEM       DEFAULT  VALUES\n"
	"long-help  yes      yes/no\n"
	"    aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn "
	"oooo\n"
	"    pppp qqqq rrrr ssss tttt uuuu\n";

static void
check_real_help(const cfg_table* t)
{
	char* help = help_of(t);
	char want[128];

	CHECK(help != NULL, "%s: no help", t->program);

	if (help == NULL) {
		return;
	}

	snprintf(want, sizeof(want), "%s config items (name: value per line, "
			"'#' starts a comment):\n\nITEM ", t->program);
	CHECK(strncmp(help, want, strlen(want)) == 0, "%s help starts with '%.80s'",
			t->program, help);

	const char* obsolete = strstr(help, "\n\nobsolete (ACT 4) items, accepted "
			"with a warning:\n");

	CHECK(obsolete != NULL, "%s help: no obsolete list", t->program);

	// Every item at the start of a line, followed by 2 spaces, in table
	// order; legacy ones after the obsolete heading.
	const char* last = help;

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];
		const char* at = NULL;

		snprintf(want, sizeof(want), "\n%s  ", item->name);
		at = strstr(last, want);

		CHECK(at != NULL, "%s help: '%s' missing or out of echo order",
				t->program, item->name);

		if (at == NULL) {
			continue;
		}

		bool legacy = item->type == CFG_LEGACY;

		CHECK(obsolete == NULL || (at > obsolete) == legacy, "%s help: '%s' "
				"is in the wrong section", t->program, item->name);

		if (! legacy) {
			// The help text follows on the next lines (its first word).
			const char* eol = strchr(at + 1, '\n');
			char first[64];

			snprintf(first, sizeof(first), "\n    %.*s", (int)strcspn(item->help,
					" "), item->help);
			CHECK(eol != NULL && strncmp(eol, first, strlen(first)) == 0,
					"%s help: '%s' not followed by its help", t->program,
					item->name);
		}

		last = at + 1;
	}

	// No line longer than the widest item line needs (values of
	// scheduler-mode) - help text is wrapped at 79.
	for (const char* p = help; *p != '\0'; ) {
		size_t n = strcspn(p, "\n");

		if (p[0] == ' ') {
			CHECK(n <= 79, "%s help: help line of %zu columns: %.*s",
					t->program, n, (int)n, p);
		}

		p += n + (p[n] == '\n');
	}

	free(help);
}

static void
test_help(void)
{
	cfg_table good = { .program = "tiny", .items = TINY, .n_items = N(TINY),
			.max_devices = 4 };
	cfg_table wrap = { .program = "wrap", .items = WRAP, .n_items = N(WRAP) };
	char* h = help_of(&good);

	CHECK_STR("help layout", TINY_HELP, h != NULL ? h : "");
	free(h);
	h = help_of(&wrap);
	CHECK_STR("help wrapping, no legacy list", WRAP_HELP, h != NULL ? h : "");
	free(h);

	check_real_help(&g_storage_cfg_table);
	check_real_help(&g_index_cfg_table);

	// What act_storage --config-help will show for a few items.
	h = help_of(&g_storage_cfg_table);
	CHECK(h != NULL, "no storage help");

	if (h != NULL) {
		CHECK(strstr(h, "\nlarge-block-op-kbytes    128              1..8192, "
				"power of 2\n") != NULL, "large-block-op-kbytes line:\n%s", h);
		CHECK(strstr(h, "\nservice-threads          5 x online CPUs  "
				"1..4294967295\n") != NULL, "service-threads line:\n%s", h);
		CHECK(strstr(h, "\ndevice-names             none (required)  1 to 128 "
				"names\n") != NULL, "device-names line:\n%s", h);
		CHECK(strstr(h, "\nscheduler-mode           noop             noop, "
				"none, cfq, mq-deadline, deadline, bfq, kyber\n") != NULL,
				"scheduler-mode line:\n%s", h);
		CHECK(strstr(h, "\ntotal-lbw-per-sec        unset            "
				"1..4294967295\n") != NULL, "total-lbw-per-sec line:\n%s", h);
		CHECK(strstr(h, "\nnum-queues               service-threads replaces "
				"it\n") != NULL, "num-queues line:\n%s", h);
		CHECK(strstr(h, "cache-threads") == NULL, "act_index's item listed");
		free(h);
	}

	h = help_of(&g_index_cfg_table);
	CHECK(h != NULL, "no index help");

	if (h != NULL) {
		CHECK(strstr(h, "\ndevice-names            none (required)  1 to 16 "
				"names\n") != NULL, "index device-names line:\n%s", h);
		CHECK(strstr(h, "\ncache-threads           8                "
				"1..4294967295\n") != NULL, "cache-threads line:\n%s", h);
		CHECK(strstr(h, "record-bytes") == NULL, "act_storage's item listed");
		free(h);
	}
}

int
main(void)
{
	test_suggest();
	test_help();

	return unit_end("test_cfg_help");
}
