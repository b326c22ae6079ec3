/*
 * suggest.c - the closest name in a list of names: the "did you mean" of a
 * misspelt config item. Knows nothing of config tables.
 */

#include "common/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/strbuf.h"

//==========================================================
// Forward declarations.
//

static uint32_t close_score(const char* a, const char* b);
static void normalize(const char* in, char* out, size_t len, bool dashes);
static int cmp_str(const void* a, const void* b);
static void sorted_words(const char* in, char* out, size_t len);
static uint32_t edit_distance(const char* a, const char* b);

//==========================================================
// Public API.
//

int
suggest_closest(const char* name, const char* const* known, size_t n)
{
	size_t len = strlen(name);

	if (len == 0 || len >= ACT_MAX_NAME) {
		return -1;
	}

	int best = -1;
	uint32_t best_score = UINT32_MAX;

	for (size_t i = 0; i < n; i++) {
		size_t longer = strlen(known[i]) > len ? strlen(known[i]) : len;
		uint32_t limit = longer / 4 > 2 ? (uint32_t)(longer / 4) : 2;
		uint32_t score = close_score(name, known[i]);

		if (score <= limit && score < best_score) {
			best = (int)i;
			best_score = score;
		}
	}

	return best;
}

//==========================================================
// Local helpers.
//

// 0 when a and b are the same name but for case, '_' for '-', missing or
// extra dashes, or the order of the words; else their edit distance.
static uint32_t
close_score(const char* a, const char* b)
{
	char na[ACT_MAX_NAME];
	char nb[ACT_MAX_NAME];

	normalize(a, na, sizeof(na), false);
	normalize(b, nb, sizeof(nb), false);

	uint32_t d = edit_distance(na, nb);

	if (d == 0) {
		return 0;
	}

	char xa[ACT_MAX_NAME];
	char xb[ACT_MAX_NAME];

	normalize(a, xa, sizeof(xa), true);
	normalize(b, xb, sizeof(xb), true);

	if (strcmp(xa, xb) == 0) {
		return 0;
	}

	sorted_words(na, xa, sizeof(xa));
	sorted_words(nb, xb, sizeof(xb));

	return strcmp(xa, xb) == 0 ? 0 : d;
}

// Lower case, '_' as '-'; without the dashes if dashes is true.
static void
normalize(const char* in, char* out, size_t len, bool dashes)
{
	size_t n = 0;

	for (const char* p = in; *p != '\0' && n + 1 < len; p++) {
		char c = (char)tolower((unsigned char)*p);

		if (c == '_') {
			c = '-';
		}

		if (! (dashes && c == '-')) {
			out[n++] = c;
		}
	}

	out[n] = '\0';
}

static int
cmp_str(const void* a, const void* b)
{
	return strcmp(*(const char* const*)a, *(const char* const*)b);
}

// The dash-separated words of in, sorted, joined by '-'.
static void
sorted_words(const char* in, char* out, size_t len)
{
	char copy[ACT_MAX_NAME];
	const char* words[ACT_MAX_NAME];
	size_t n = 0;
	char* save = NULL;

	snprintf(copy, sizeof(copy), "%s", in);

	for (char* w = strtok_r(copy, "-", &save); w != NULL;
			w = strtok_r(NULL, "-", &save)) {
		words[n++] = w;
	}

	qsort(words, n, sizeof(words[0]), cmp_str);

	strbuf sb;

	sb_init(&sb, out, len);
	out[0] = '\0';

	for (size_t i = 0; i < n; i++) {
		sb_printf(&sb, "%s%s", i == 0 ? "" : "-", words[i]);
	}
}

// Levenshtein distance (insertions, deletions, substitutions); both
// shorter than ACT_MAX_NAME.
static uint32_t
edit_distance(const char* a, const char* b)
{
	size_t la = strlen(a);
	size_t lb = strlen(b);
	uint32_t row[ACT_MAX_NAME + 1];

	for (size_t j = 0; j <= lb; j++) {
		row[j] = (uint32_t)j;
	}

	for (size_t i = 1; i <= la; i++) {
		uint32_t diag = row[0];

		row[0] = (uint32_t)i;

		for (size_t j = 1; j <= lb; j++) {
			uint32_t up = row[j];
			uint32_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);

			if (up + 1 < best) {
				best = up + 1;
			}

			if (row[j - 1] + 1 < best) {
				best = row[j - 1] + 1;
			}

			diag = up;
			row[j] = best;
		}
	}

	return row[lb];
}
