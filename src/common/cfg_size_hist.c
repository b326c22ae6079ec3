/*
 * cfg_size_hist.c - the value of a record-size histogram item (cfg.h,
 * cfg_parse_size_hist; docs/advanced-sizing.md): percentages over 2^k
 * bytes, non-increasing, the last one 0.
 */

#include "common/cfg.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//==========================================================
// Public API.
//

int
cfg_parse_size_hist(const char* item, const char* text, cfg_size_hist* h,
		char* err, size_t err_len)
{
	const char* p = text;

	h->n = 0;

	while (true) {
		while (*p == ' ' || *p == '\t') {
			p++;
		}

		// A decimal number: digits, optionally '.' and digits. No sign,
		// no exponent.
		const char* start = p;
		size_t n_digits = strspn(p, "0123456789");

		p += n_digits;

		if (*p == '.') {
			size_t n_frac = strspn(p + 1, "0123456789");

			n_digits += n_frac;
			p += 1 + n_frac;
		}

		while (*p == ' ' || *p == '\t') {
			p++;
		}

		if (n_digits == 0 || (*p != ',' && *p != '\0')) {
			size_t bad = strcspn(start, ",");

			snprintf(err, err_len, "config item '%s': value %u '%.*s' is not a "
					"percentage", item, h->n + 1, (int)(bad > 32 ? 32 : bad),
					start);
			return -1;
		}

		if (h->n == CFG_SIZE_HIST_MAX) {
			snprintf(err, err_len, "config item '%s': more than %d values",
					item, CFG_SIZE_HIST_MAX);
			return -1;
		}

		double v = strtod(start, NULL);

		if (v > 100.0) {
			snprintf(err, err_len, "config item '%s': value %u (%.2f) is over "
					"100", item, h->n + 1, v);
			return -1;
		}

		if (h->n != 0 && v > h->p[h->n - 1]) {
			snprintf(err, err_len, "config item '%s': value %u (%.2f) is larger "
					"than value %u (%.2f) - the percentages over each size can "
					"only decrease", item, h->n + 1, v, h->n, h->p[h->n - 1]);
			return -1;
		}

		h->p[h->n++] = v;

		if (*p == '\0') {
			break;
		}

		p++; // the comma
	}

	if (h->p[h->n - 1] != 0.0) {
		snprintf(err, err_len, "config item '%s': the last value (value %u, "
				"%.2f) must be 0", item, h->n, h->p[h->n - 1]);
		return -1;
	}

	return 0;
}
