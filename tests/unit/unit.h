/*
 * unit.h - a tiny table-driven unit test harness.
 *
 * Each unit test is one program per module. CHECK_* macros print the case,
 * the expected and the actual value on failure and count it; unit_end()
 * prints a summary line and returns the exit status (0 pass, 1 fail).
 */
#pragma once

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int g_unit_checks = 0;
static int g_unit_failures = 0;

#define CHECK(cond, ...) do { \
	g_unit_checks++; \
	if (! (cond)) { \
		g_unit_failures++; \
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define CHECK_U64(ctx, expected, actual) do { \
	uint64_t e_ = (uint64_t)(expected); \
	uint64_t a_ = (uint64_t)(actual); \
	CHECK(e_ == a_, "%s: expected %" PRIu64 ", got %" PRIu64, (ctx), e_, \
			a_); \
} while (0)

#define CHECK_STR(ctx, expected, actual) do { \
	const char* e_ = (expected); \
	const char* a_ = (actual); \
	CHECK(strcmp(e_, a_) == 0, "%s:\n--- expected ---\n%s\n--- got ---\n%s", \
			(ctx), e_, a_); \
} while (0)

#define CHECK_CONTAINS(ctx, needle, haystack) do { \
	const char* n_ = (needle); \
	const char* h_ = (haystack); \
	CHECK(strstr(h_, n_) != NULL, "%s: expected to contain '%s', got '%s'", \
			(ctx), n_, h_); \
} while (0)

static inline int
unit_end(const char* name)
{
	printf("%s: %d checks, %d failed\n", name, g_unit_checks,
			g_unit_failures);

	return g_unit_failures == 0 ? 0 : 1;
}
