/*
 * test_health.c - Description: a drive's health decoded from hand-built
 * pages (common/health.h): the NVMe SMART / Health Information log page,
 * Identify Controller's WCTEMP / CCTEMP, the OCP C0h page (its GUID
 * checked), a hwmon temperature - every field, and the fields of the
 * log's sample lines (ll_health_fields).
 *
 * The pages are written byte by byte at the offsets of the NVMe base
 * specification and the OCP Datacenter NVMe SSD specification, little
 * endian (not through the decoder's own constants): 128-bit counters with
 * and without a high half, temperature sensors with gaps, a GUID in the
 * wrong byte order, short pages.
 */

#include <stdlib.h>
#include <string.h>

#include "common/health.h"
#include "common/loglines.h"
#include "unit.h"

//==========================================================
// Typedefs & constants.
//

#define FIELDS_LEN 1024

// One SMART page to build and what it decodes to.
typedef struct smart_case_s {
	const char* name;
	// What is written into the page (0: left zero).
	uint8_t warning;
	uint16_t temp_k;
	uint8_t spare, spare_threshold, used;
	uint8_t units_read[16], units_written[16], media[16], error_log[16];
	uint32_t warn_min, crit_min;
	uint16_t sensor_k[8];
	uint32_t tmt_count[2], tmt_sec[2];
	// What it decodes to, and the fields of its sample line.
	health want;
	const char* fields;
} smart_case;

// A 128-bit little-endian number from its low and high 64 bits.
#define BYTE(v, n) (uint8_t)((uint64_t)(v) >> (8 * (n)))
#define U128(lo, hi) { \
	BYTE(lo, 0), BYTE(lo, 1), BYTE(lo, 2), BYTE(lo, 3), \
	BYTE(lo, 4), BYTE(lo, 5), BYTE(lo, 6), BYTE(lo, 7), \
	BYTE(hi, 0), BYTE(hi, 1), BYTE(hi, 2), BYTE(hi, 3), \
	BYTE(hi, 4), BYTE(hi, 5), BYTE(hi, 6), BYTE(hi, 7) }

static const smart_case SMART_CASES[] = {
	{
		.name = "a busy drive, sensors 1 and 3 (2 not implemented)",
		.warning = 0x04, .temp_k = 318, .spare = 97, .spare_threshold = 10,
		.used = 3, .units_read = U128(1234, 0),
		.units_written = U128(5678, 0), .media = U128(2, 0),
		.error_log = U128(12, 0), .warn_min = 7, .crit_min = 1,
		.sensor_k = { 317, 0, 320 }, .tmt_count = { 3, 1 },
		.tmt_sec = { 410, 20 },
		.want = { .have = HEALTH_HAVE_SMART, .warning = 0x04, .temp_c = 45,
				.n_sensors = 3, .sensor_c = { 44, 0, 47 },
				.sensor_on = { true, false, true }, .spare = 97,
				.spare_threshold = 10, .used = 3, .media_errors = 2,
				.error_log_entries = 12, .units_read = 1234,
				.units_written = 5678, .warning_temp_min = 7,
				.critical_temp_min = 1, .throttle_transitions = { 3, 1 },
				.throttle_sec = { 410, 20 } },
		.fields = "warning = 0x04, temp = 45 C, sensors = 44/-/47, "
				"spare = 97%, spare_threshold = 10%, used = 3%, "
				"media_errors = 2, error_log_entries = 12, units_read = 1234, "
				"units_written = 5678, warning_temp_time = 7 min, "
				"critical_temp_time = 1 min, throttle_transitions = 3/1, "
				"throttle_time = 410/20 sec"
	},
	{
		.name = "128-bit counters: a full low half, high halves not zero",
		.temp_k = 300, .spare = 100, .spare_threshold = 5,
		.units_read = U128(UINT64_MAX, 0),
		.units_written = U128(7, 1),
		.media = U128(0, 0x0100000000000000ULL),
		.error_log = U128(0x0123456789abcdefULL, 0),
		.want = { .have = HEALTH_HAVE_SMART, .temp_c = 27, .spare = 100,
				.spare_threshold = 5, .units_read = UINT64_MAX,
				.units_written = HEALTH_U128_MAX,
				.media_errors = HEALTH_U128_MAX,
				.error_log_entries = 0x0123456789abcdefULL },
		.fields = "warning = 0x00, temp = 27 C, sensors = -, spare = 100%, "
				"spare_threshold = 5%, used = 0%, "
				"media_errors = 18446744073709551615, "
				"error_log_entries = 81985529216486895, "
				"units_read = 18446744073709551615, "
				"units_written = 18446744073709551615, "
				"warning_temp_time = 0 min, critical_temp_time = 0 min, "
				"throttle_transitions = 0/0, throttle_time = 0/0 sec"
	},
	{
		.name = "only sensor 8, below 0 C; every byte of the u32 times",
		.warning = 0xff, .temp_k = 250, .used = 255,
		.sensor_k = { 0, 0, 0, 0, 0, 0, 0, 263 },
		.warn_min = 0x01020304, .crit_min = 0xa0b0c0d0,
		.tmt_count = { 0xffffffff, 0x00010000 },
		.tmt_sec = { 0x11223344, 0x80000000 },
		.want = { .have = HEALTH_HAVE_SMART, .warning = 0xff, .temp_c = -23,
				.used = 255, .n_sensors = 8,
				.sensor_c = { 0, 0, 0, 0, 0, 0, 0, -10 },
				.sensor_on = { false, false, false, false, false, false,
						false, true },
				.warning_temp_min = 0x01020304,
				.critical_temp_min = 0xa0b0c0d0,
				.throttle_transitions = { 0xffffffff, 0x00010000 },
				.throttle_sec = { 0x11223344, 0x80000000 } },
		.fields = "warning = 0xff, temp = -23 C, sensors = -/-/-/-/-/-/-/-10, "
				"spare = 0%, spare_threshold = 0%, used = 255%, "
				"media_errors = 0, error_log_entries = 0, units_read = 0, "
				"units_written = 0, warning_temp_time = 16909060 min, "
				"critical_temp_time = 2695938256 min, "
				"throttle_transitions = 4294967295/65536, "
				"throttle_time = 287454020/2147483648 sec"
	}
};

//==========================================================
// Local helpers.
//

static void
put16(uint8_t* p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void
put32(uint8_t* p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

// The SMART / Health Information page of c, at the spec's offsets. Bytes
// the spec reserves are filled with 0xee: the decoder must not read them.
static void
build_smart(const smart_case* c, uint8_t* p)
{
	memset(p, 0xee, 512);
	p[0] = c->warning;
	put16(p + 1, c->temp_k);
	p[3] = c->spare;
	p[4] = c->spare_threshold;
	p[5] = c->used;
	memcpy(p + 32, c->units_read, 16);
	memcpy(p + 48, c->units_written, 16);
	memcpy(p + 160, c->media, 16);
	memcpy(p + 176, c->error_log, 16);
	put32(p + 192, c->warn_min);
	put32(p + 196, c->crit_min);

	for (int i = 0; i < 8; i++) {
		put16(p + 200 + 2 * i, c->sensor_k[i]);
	}

	put32(p + 216, c->tmt_count[0]);
	put32(p + 220, c->tmt_count[1]);
	put32(p + 224, c->tmt_sec[0]);
	put32(p + 228, c->tmt_sec[1]);
}

static void
check_health(const char* name, const health* want, const health* got)
{
	char ctx[256];

#define FIELD(f) do { \
	snprintf(ctx, sizeof(ctx), "%s: " #f, name); \
	CHECK_U64(ctx, (int64_t)want->f, (int64_t)got->f); \
} while (0)

	FIELD(have);
	FIELD(warning);
	FIELD(temp_c);
	FIELD(n_sensors);

	for (int i = 0; i < HEALTH_N_SENSORS; i++) {
		FIELD(sensor_on[i]);
		FIELD(sensor_c[i]);
	}

	FIELD(spare);
	FIELD(spare_threshold);
	FIELD(used);
	FIELD(media_errors);
	FIELD(error_log_entries);
	FIELD(units_read);
	FIELD(units_written);
	FIELD(warning_temp_min);
	FIELD(critical_temp_min);
	FIELD(throttle_transitions[0]);
	FIELD(throttle_transitions[1]);
	FIELD(throttle_sec[0]);
	FIELD(throttle_sec[1]);
	FIELD(wctemp_c);
	FIELD(cctemp_c);
	FIELD(physical_written);

#undef FIELD
}

//==========================================================
// The checks.
//

static void
smart_checks(void)
{
	uint8_t page[512];
	char fields[FIELDS_LEN];
	health got;

	for (size_t i = 0; i < sizeof(SMART_CASES) / sizeof(SMART_CASES[0]);
			i++) {
		const smart_case* c = &SMART_CASES[i];

		build_smart(c, page);
		memset(&got, 0x5a, sizeof(got));
		CHECK(health_decode_smart(page, sizeof(page), &got), "%s: not "
				"decoded", c->name);
		check_health(c->name, &c->want, &got);
		CHECK_STR(c->name, c->fields, ll_health_fields(fields,
				sizeof(fields), &got));
		printf("%s: %s\n", c->name, fields);
	}

	CHECK(! health_decode_smart(page, 511, &got), "a 511-byte SMART page "
			"decoded");
}

static void
identify_checks(void)
{
	uint8_t* page = calloc(1, 4096);
	char fields[FIELDS_LEN];
	health hl = { 0 };

	memset(page, 0xee, 4096);
	put16(page + 266, 343);
	put16(page + 268, 358);
	CHECK(health_decode_identify(page, 4096, &hl), "identify: not decoded");
	check_health("identify", &(health){ .have = HEALTH_HAVE_LIMITS,
			.wctemp_c = 70, .cctemp_c = 85 }, &hl);
	CHECK_STR("identify: fields", "wctemp = 70 C, cctemp = 85 C",
			ll_health_fields(fields, sizeof(fields), &hl));

	// 0: the controller reports no threshold - the field is left out.
	put16(page + 266, 0);
	hl = (health){ .have = HEALTH_HAVE_TEMP, .temp_c = 33 };
	CHECK(health_decode_identify(page, 4096, &hl), "identify 0: not "
			"decoded");
	check_health("identify, no WCTEMP", &(health){ .have = HEALTH_HAVE_TEMP |
			HEALTH_HAVE_LIMITS, .temp_c = 33, .cctemp_c = 85 }, &hl);
	CHECK_STR("identify, no WCTEMP: fields", "temp = 33 C, cctemp = 85 C",
			ll_health_fields(fields, sizeof(fields), &hl));
	CHECK(! health_decode_identify(page, 4095, &hl), "a 4095-byte Identify "
			"page decoded");
	free(page);
}

static void
ocp_checks(void)
{
	// The GUID as the OCP spec gives it, AFD514C97C6F4F9CA4F2BFEA2810AFC5h,
	// a little-endian 128-bit field: its last byte first.
	static const char GUID_HEX[] = "AFD514C97C6F4F9CA4F2BFEA2810AFC5";
	uint8_t guid[16];

	for (int i = 0; i < 16; i++) {
		unsigned int b;

		sscanf(GUID_HEX + 2 * (15 - i), "%2x", &b);
		guid[i] = (uint8_t)b;
	}

	CHECK(memcmp(guid, health_ocp_guid, 16) == 0, "health_ocp_guid is not "
			"%s little endian", GUID_HEX);

	uint8_t page[512];
	uint8_t written[16] = U128(123456789012ULL, 0);
	char fields[FIELDS_LEN];
	health hl = { .have = HEALTH_HAVE_SMART };

	memset(page, 0xee, sizeof(page));
	memcpy(page, written, 16);
	memcpy(page + 496, guid, 16);
	CHECK(health_ocp_guid_ok(page, sizeof(page)), "ocp: GUID not "
			"recognized");
	CHECK(health_decode_ocp(page, sizeof(page), &hl), "ocp: not decoded");
	CHECK_U64("ocp: physical_written", 123456789012ULL, hl.physical_written);
	CHECK_U64("ocp: have", HEALTH_HAVE_SMART | HEALTH_HAVE_OCP, hl.have);
	CHECK_CONTAINS("ocp: fields", ", physical_written = 123456789012 bytes",
			ll_health_fields(fields, sizeof(fields), &hl));

	uint8_t high[16] = U128(5, 1);

	memcpy(page, high, 16);
	CHECK(health_decode_ocp(page, sizeof(page), &hl), "ocp high: not "
			"decoded");
	CHECK_U64("ocp: physical_written, high half", HEALTH_U128_MAX,
			hl.physical_written);

	// The GUID in the order it is printed (big endian): not an OCP page.
	for (int i = 0; i < 16; i++) {
		page[496 + i] = guid[15 - i];
	}

	hl = (health){ 0 };
	CHECK(! health_ocp_guid_ok(page, sizeof(page)), "ocp: a reversed GUID "
			"recognized");
	CHECK(! health_decode_ocp(page, sizeof(page), &hl), "ocp: a reversed "
			"GUID decoded");
	CHECK_U64("ocp, wrong GUID: have", 0, hl.have);
	CHECK_U64("ocp, wrong GUID: physical_written", 0, hl.physical_written);

	memcpy(page + 496, guid, 16);
	page[511] ^= 1;
	CHECK(! health_decode_ocp(page, sizeof(page), &hl), "ocp: GUID with its "
			"last byte changed decoded");
	page[511] ^= 1;
	CHECK(! health_decode_ocp(page, 511, &hl), "ocp: a 511-byte page "
			"decoded");
}

static void
hwmon_checks(void)
{
	static const struct {
		const char* text;
		bool ok;
		int32_t temp_c;
	} CASES[] = {
		{ "38000\n", true, 38 },
		{ "37500", true, 38 },
		{ "37499\n", true, 37 },
		{ "-1500\n", true, -2 },
		{ "0\n", true, 0 },
		{ "", false, 0 },
		{ "abc\n", false, 0 },
		{ "38000x\n", false, 0 }
	};
	char fields[FIELDS_LEN];

	for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
		health hl;
		char ctx[128];

		memset(&hl, 0x5a, sizeof(hl));
		snprintf(ctx, sizeof(ctx), "hwmon '%s'", CASES[i].text);

		bool ok = health_decode_hwmon(CASES[i].text, &hl);

		CHECK(ok == CASES[i].ok, "%s: expected %s, got %s", ctx,
				CASES[i].ok ? "decoded" : "refused", ok ? "decoded" :
				"refused");

		if (ok && CASES[i].ok) {
			check_health(ctx, &(health){ .have = HEALTH_HAVE_TEMP,
					.temp_c = CASES[i].temp_c }, &hl);
		}
	}

	health hl;

	health_decode_hwmon("41000\n", &hl);
	CHECK_STR("hwmon: fields", "temp = 41 C", ll_health_fields(fields,
			sizeof(fields), &hl));
}

static void
line_checks(void)
{
	char text[2048];
	strbuf sb;
	health hl = { .have = HEALTH_HAVE_TEMP, .temp_c = 38 };

	sb_init(&sb, text, sizeof(text));
	ll_health_source(&sb, "/dev/sdb", LL_HEALTH_HWMON, false);
	ll_health_source(&sb, "/mnt/x", LL_HEALTH_FILE, true);
	ll_health_start(&sb, "/dev/sdb", &hl);
	ll_health_sample(&sb, "/dev/sdb", 60.0042, &hl);
	ll_health_unread(&sb, "/dev/sdb", 70.5, "no answer for 5.0 sec");
	CHECK_STR("lines", "health /dev/sdb: hwmon temperature\n"
			"health /mnt/x: none (a regular file)\n"
			"health /dev/sdb at start: temp = 38 C\n"
			"health /dev/sdb at 60.004 sec: temp = 38 C\n"
			"health /dev/sdb at 70.500 sec: not read - no answer for 5.0 sec\n",
			text);
}

//==========================================================
// Main.
//

int
main(void)
{
	smart_checks();
	identify_checks();
	ocp_checks();
	hwmon_checks();
	line_checks();

	return unit_end("test_health");
}
