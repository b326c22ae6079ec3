/*
 * health.h - a drive's health, as the log tells it (docs/health.md,
 * docs/log-format.md "Drive health"): the model of one sample, and the
 * decoding of the pages a drive gives it in - pure functions on bytes,
 * unit-tested on hand-built pages (tests/unit/test_health.c).
 *
 *   NVMe SMART / Health Information log page (Get Log Page, LID 02h;
 *   NVMe base specification 2.0, "SMART / Health Information"): 512
 *   bytes, little endian:
 *       0       critical warning (bits)
 *       1-2     composite temperature, kelvins
 *       3       available spare, %
 *       4       available spare threshold, %
 *       5       percentage used
 *       32-47   data units read (1 unit = 1000 x 512 bytes), 128 bits
 *       48-63   data units written, 128 bits
 *       160-175 media and data integrity errors, 128 bits
 *       176-191 number of error information log entries, 128 bits
 *       192-195 warning composite temperature time, minutes
 *       196-199 critical composite temperature time, minutes
 *       200-215 temperature sensors 1-8, kelvins each (0: not implemented)
 *       216-219 thermal management temperature 1 transition count
 *       220-223 thermal management temperature 2 transition count
 *       224-227 total time for thermal management temperature 1, seconds
 *       228-231 total time for thermal management temperature 2, seconds
 *   Identify Controller (opcode 06h, CNS 01h): 4096 bytes; WCTEMP (warning
 *   composite temperature threshold, kelvins) at 266-267, CCTEMP
 *   (critical) at 268-269.
 *   OCP Datacenter NVMe SSD specification, log page C0h ("SMART / Health
 *   Information Extended"): 512 bytes; physical media units written
 *   (bytes, 128 bits) at 0-15; the log page GUID at 496-511 (see
 *   health_ocp_guid).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

//==========================================================
// Typedefs & constants.
//

#define HEALTH_SMART_LEN 512
#define HEALTH_IDENTIFY_LEN 4096
#define HEALTH_OCP_LEN 512
#define HEALTH_N_SENSORS 8

// A 128-bit counter whose high half is not zero is told as this.
#define HEALTH_U128_MAX UINT64_MAX

// What a sample holds (health.have).
#define HEALTH_HAVE_SMART 0x1u    // the SMART log's fields
#define HEALTH_HAVE_LIMITS 0x2u   // wctemp, cctemp (Identify Controller)
#define HEALTH_HAVE_OCP 0x4u      // physical_written (OCP C0h)
#define HEALTH_HAVE_TEMP 0x8u     // temp_c only (hwmon)

// One sample of a drive's health. Temperatures in degrees Celsius (kelvins
// - 273); 128-bit counters as their low 64 bits, or HEALTH_U128_MAX.
typedef struct health_s {
	uint32_t have;             // HEALTH_HAVE_* bits
	uint8_t warning;           // critical warning byte
	int32_t temp_c;            // composite temperature
	uint32_t n_sensors;        // sensors up to the last implemented one
	int32_t sensor_c[HEALTH_N_SENSORS];
	bool sensor_on[HEALTH_N_SENSORS]; // implemented (not 0 K)
	uint8_t spare;             // available spare, %
	uint8_t spare_threshold;   // %
	uint8_t used;              // percentage used
	uint64_t media_errors;
	uint64_t error_log_entries;
	uint64_t units_read;       // data units (512000 bytes)
	uint64_t units_written;
	uint32_t warning_temp_min; // warning composite temperature time
	uint32_t critical_temp_min;
	uint32_t throttle_transitions[2]; // thermal management temp 1, 2
	uint32_t throttle_sec[2];
	int32_t wctemp_c;          // HEALTH_HAVE_LIMITS; 0: not reported
	int32_t cctemp_c;
	uint64_t physical_written; // HEALTH_HAVE_OCP: bytes
} health;

// The GUID of the OCP C0h page, bytes 496-511 as the page has them. The
// OCP Datacenter NVMe SSD specification (2.0, "SMART / Health Information
// Extended (Log Identifier C0h)", Log Page GUID) gives the value as the
// 128-bit number AFD514C97C6F4F9CA4F2BFEA2810AFC5h; like every field of
// the page it is little endian: byte 496 holds its lowest byte (C5h) and
// byte 511 its highest (AFh) - the order nvme-cli's OCP plugin checks.
extern const uint8_t health_ocp_guid[16];

//==========================================================
// Public API.
//

// Little-endian fields of a page.
uint16_t health_le16(const uint8_t* p);
uint32_t health_le32(const uint8_t* p);

// A 128-bit little-endian counter: its low 64 bits, or HEALTH_U128_MAX
// when its high half is not zero.
uint64_t health_le128(const uint8_t* p);

// Kelvins to degrees Celsius.
int32_t health_k_to_c(uint32_t k);

// Decode a SMART / Health Information page (len >= HEALTH_SMART_LEN) into
// *out, which it sets whole (have = HEALTH_HAVE_SMART). Returns false when
// the page is too short.
bool health_decode_smart(const uint8_t* page, size_t len, health* out);

// WCTEMP and CCTEMP of an Identify Controller page (len >=
// HEALTH_IDENTIFY_LEN) into *out (have |= HEALTH_HAVE_LIMITS). Returns
// false when the page is too short.
bool health_decode_identify(const uint8_t* page, size_t len, health* out);

// Whether an OCP C0h page (len >= HEALTH_OCP_LEN) is one: its GUID.
bool health_ocp_guid_ok(const uint8_t* page, size_t len);

// Physical media units written of an OCP C0h page into *out (have |=
// HEALTH_HAVE_OCP). Returns false when the page is short or its GUID is
// not the OCP one (nothing is set).
bool health_decode_ocp(const uint8_t* page, size_t len, health* out);

// A hwmon temperature (temp1_input: millidegrees Celsius, as text) into
// *out, set whole (have = HEALTH_HAVE_TEMP; rounded to the nearest
// degree). Returns false when text is not a number.
bool health_decode_hwmon(const char* text, health* out);
