/*
 * Description: bounded string building - a fixed buffer never writes past
 * its end and remembers that it overflowed; a growing buffer holds texts of
 * any length (the config echo of 128 long device names) byte for byte.
 */

#include <stdlib.h>

#include "common/strbuf.h"
#include "unit.h"

typedef struct {
	const char* what;
	size_t cap;
	const char* parts[4];
	const char* want;      // buffer content after the appends
	bool overflow;
} fixed_case;

static const fixed_case FIXED[] = {
	{ "fits", 16, { "abc", "def", NULL }, "abcdef", false },
	{ "exactly full", 7, { "abc", "def", NULL }, "abcdef", false },
	{ "one too many", 6, { "abc", "def", NULL }, "abcde", true },
	{ "stays overflowed", 4, { "abcdef", "x", NULL }, "abc", true },
	{ "empty append", 1, { "", NULL }, "", false },
	{ "no room at all", 1, { "a", NULL }, "", true },
};

static void
test_fixed(void)
{
	for (size_t i = 0; i < sizeof(FIXED) / sizeof(FIXED[0]); i++) {
		const fixed_case* c = &FIXED[i];
		char buf[32];
		strbuf sb;

		memset(buf, 'Z', sizeof(buf));
		sb_init(&sb, buf, c->cap);

		for (size_t k = 0; c->parts[k] != NULL; k++) {
			sb_printf(&sb, "%s", c->parts[k]);
		}

		CHECK_STR(c->what, c->want, sb.buf);
		CHECK_U64(c->what, strlen(c->want), sb.len);
		CHECK(sb_overflowed(&sb) == c->overflow, "%s: overflow expected %d, "
				"got %d", c->what, c->overflow, sb_overflowed(&sb));
		CHECK(buf[c->cap] == 'Z', "%s: wrote past the buffer", c->what);
	}
}

// 128 device names of 100 characters each, as a config echo prints them:
// far beyond any fixed buffer the log used to have.
static void
test_grow(void)
{
	strbuf sb;
	size_t want_len = 0;

	sb_init_grow(&sb);
	sb_printf(&sb, "device-names:");
	want_len += strlen("device-names:");

	for (int d = 0; d < 128; d++) {
		sb_printf(&sb, " /dev/disk/by-id/%083d", d);
		want_len += 1 + 16 + 83;
	}

	sb_printf(&sb, "\nnum-devices: %d\n", 128);
	want_len += strlen("\nnum-devices: 128\n");

	CHECK(! sb_overflowed(&sb), "growing buffer overflowed");
	CHECK_U64("grown length", want_len, sb.len);
	CHECK_U64("strlen matches", sb.len, strlen(sb.buf));
	CHECK_CONTAINS("last name kept", "00000127\nnum-devices: 128\n", sb.buf);
	CHECK(strncmp(sb.buf, "device-names: /dev/disk/by-id/000", 33) == 0,
			"start kept: %.40s", sb.buf);

	sb_free(&sb);
	CHECK(sb.buf == NULL && sb.len == 0, "sb_free resets");

	// Nothing appended: an empty growing buffer is valid and frees.
	sb_init_grow(&sb);
	CHECK(! sb_overflowed(&sb), "empty growing buffer overflowed");
	CHECK_U64("empty length", 0, sb.len);
	sb_free(&sb);
}

int
main(void)
{
	test_fixed();
	test_grow();

	return unit_end("test_strbuf");
}
