/*
 * health.c - a drive's health: the model of a sample and the decoding of
 * the pages it is read from (pure).
 */

#include "common/health.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

//==========================================================
// Typedefs & constants.
//

// Offsets in the SMART / Health Information page (health.h).
#define SMART_WARNING 0
#define SMART_TEMP 1
#define SMART_SPARE 3
#define SMART_SPARE_THRESHOLD 4
#define SMART_USED 5
#define SMART_UNITS_READ 32
#define SMART_UNITS_WRITTEN 48
#define SMART_MEDIA_ERRORS 160
#define SMART_ERROR_LOG_ENTRIES 176
#define SMART_WARNING_TEMP_TIME 192
#define SMART_CRITICAL_TEMP_TIME 196
#define SMART_SENSORS 200
#define SMART_TMT_COUNT 216     // two u32: TMT1, TMT2
#define SMART_TMT_TIME 224      // two u32: TMT1, TMT2

// In Identify Controller.
#define IDENTIFY_WCTEMP 266
#define IDENTIFY_CCTEMP 268

// In the OCP C0h page.
#define OCP_PHYSICAL_WRITTEN 0
#define OCP_GUID 496

#define KELVIN_0C 273

//==========================================================
// Globals.
//

const uint8_t health_ocp_guid[16] = {
	0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
	0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF
};

//==========================================================
// Public API.
//

uint16_t
health_le16(const uint8_t* p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

uint32_t
health_le32(const uint8_t* p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			(uint32_t)p[3] << 24;
}

uint64_t
health_le128(const uint8_t* p)
{
	uint64_t low = 0;

	for (int i = 7; i >= 0; i--) {
		low = low << 8 | p[i];
	}

	for (int i = 8; i < 16; i++) {
		if (p[i] != 0) {
			return HEALTH_U128_MAX;
		}
	}

	return low;
}

int32_t
health_k_to_c(uint32_t k)
{
	return (int32_t)k - KELVIN_0C;
}

bool
health_decode_smart(const uint8_t* page, size_t len, health* out)
{
	if (len < HEALTH_SMART_LEN) {
		return false;
	}

	memset(out, 0, sizeof(*out));
	out->have = HEALTH_HAVE_SMART;
	out->warning = page[SMART_WARNING];
	out->temp_c = health_k_to_c(health_le16(page + SMART_TEMP));
	out->spare = page[SMART_SPARE];
	out->spare_threshold = page[SMART_SPARE_THRESHOLD];
	out->used = page[SMART_USED];
	out->units_read = health_le128(page + SMART_UNITS_READ);
	out->units_written = health_le128(page + SMART_UNITS_WRITTEN);
	out->media_errors = health_le128(page + SMART_MEDIA_ERRORS);
	out->error_log_entries = health_le128(page + SMART_ERROR_LOG_ENTRIES);
	out->warning_temp_min = health_le32(page + SMART_WARNING_TEMP_TIME);
	out->critical_temp_min = health_le32(page + SMART_CRITICAL_TEMP_TIME);

	for (uint32_t i = 0; i < HEALTH_N_SENSORS; i++) {
		uint16_t k = health_le16(page + SMART_SENSORS + 2 * i);

		// 0 K: the sensor is not implemented.
		out->sensor_on[i] = k != 0;
		out->sensor_c[i] = k != 0 ? health_k_to_c(k) : 0;

		if (k != 0) {
			out->n_sensors = i + 1;
		}
	}

	for (uint32_t i = 0; i < 2; i++) {
		out->throttle_transitions[i] = health_le32(page + SMART_TMT_COUNT +
				4 * i);
		out->throttle_sec[i] = health_le32(page + SMART_TMT_TIME + 4 * i);
	}

	return true;
}

bool
health_decode_identify(const uint8_t* page, size_t len, health* out)
{
	if (len < HEALTH_IDENTIFY_LEN) {
		return false;
	}

	uint16_t wc = health_le16(page + IDENTIFY_WCTEMP);
	uint16_t cc = health_le16(page + IDENTIFY_CCTEMP);

	// 0: the controller reports no such threshold.
	out->wctemp_c = wc != 0 ? health_k_to_c(wc) : 0;
	out->cctemp_c = cc != 0 ? health_k_to_c(cc) : 0;
	out->have |= HEALTH_HAVE_LIMITS;

	return true;
}

bool
health_ocp_guid_ok(const uint8_t* page, size_t len)
{
	return len >= HEALTH_OCP_LEN && memcmp(page + OCP_GUID, health_ocp_guid,
			sizeof(health_ocp_guid)) == 0;
}

bool
health_decode_ocp(const uint8_t* page, size_t len, health* out)
{
	if (! health_ocp_guid_ok(page, len)) {
		return false;
	}

	out->physical_written = health_le128(page + OCP_PHYSICAL_WRITTEN);
	out->have |= HEALTH_HAVE_OCP;

	return true;
}

bool
health_decode_hwmon(const char* text, health* out)
{
	char* end = NULL;

	errno = 0;

	long long milli = strtoll(text, &end, 10);

	if (end == text || errno != 0 || (*end != '\0' && *end != '\n') ||
			milli > 1000000000LL || milli < -1000000000LL) {
		return false;
	}

	memset(out, 0, sizeof(*out));
	out->have = HEALTH_HAVE_TEMP;
	// Rounded to the nearest degree, halves away from zero.
	out->temp_c = (int32_t)((milli + (milli < 0 ? -500 : 500)) / 1000);

	return true;
}
