/*
 * cfg_help.c - what a config table tells a person: the "did you mean" hint
 * for a misspelt item, and the config help (--config-help).
 */

#include "cfg_help.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

//==========================================================
// Forward declarations.
//

static uint32_t close_score(const char* a, const char* b);
static void normalize(const char* in, char* out, size_t len, bool dashes);
static int cmp_str(const void* a, const void* b);
static void sorted_words(const char* in, char* out, size_t len);
static uint32_t edit_distance(const char* a, const char* b);
static void default_text(const cfg_item* item, char* out, size_t len);
static void values_text(const cfg_table* t, const cfg_item* item, char* out,
		size_t len);
static void print_wrapped(FILE* out, const char* text, int indent,
		int width);

//==========================================================
// Public API.
//

const cfg_item*
cfg_help_suggest(const cfg_table* t, const char* name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= CFG_MAX_NAME) {
		return NULL;
	}

	const cfg_item* best = NULL;
	uint32_t best_score = UINT32_MAX;

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];

		if (item->type == CFG_LEGACY) {
			continue;
		}

		size_t longer = strlen(item->name) > len ? strlen(item->name) : len;
		uint32_t limit = longer / 4 > 2 ? (uint32_t)(longer / 4) : 2;
		uint32_t score = close_score(name, item->name);

		if (score <= limit && score < best_score) {
			best = item;
			best_score = score;
		}
	}

	return best;
}

void
cfg_help_print(const cfg_table* t, FILE* out)
{
	char def[128];
	char values[256];
	int name_w = (int)strlen("ITEM");
	int def_w = (int)strlen("DEFAULT");
	bool any_legacy = false;

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];
		int n = (int)strlen(item->name);

		if (n > name_w) {
			name_w = n;
		}

		if (item->type == CFG_LEGACY) {
			any_legacy = true;
			continue;
		}

		default_text(item, def, sizeof(def));

		if ((int)strlen(def) > def_w) {
			def_w = (int)strlen(def);
		}
	}

	name_w += 2;
	def_w += 2;

	fprintf(out, "%s config items (name: value per line, '#' starts a "
			"comment):\n\n", t->program);
	fprintf(out, "%-*s%-*s%s\n", name_w, "ITEM", def_w, "DEFAULT", "VALUES");

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];

		if (item->type == CFG_LEGACY) {
			continue;
		}

		default_text(item, def, sizeof(def));
		values_text(t, item, values, sizeof(values));
		fprintf(out, "%-*s%-*s%s\n", name_w, item->name, def_w, def, values);
		print_wrapped(out, item->help, 4, 79);
	}

	if (! any_legacy) {
		return;
	}

	fprintf(out, "\nobsolete (ACT 4) items, accepted with a warning:\n");

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];

		if (item->type == CFG_LEGACY) {
			fprintf(out, "%-*s%s\n", name_w, item->name, item->help);
		}
	}
}

//==========================================================
// Did you mean.
//

// 0 when a and b are the same name but for case, '_' for '-', missing or
// extra dashes, or the order of the words; else their edit distance.
static uint32_t
close_score(const char* a, const char* b)
{
	char na[CFG_MAX_NAME];
	char nb[CFG_MAX_NAME];

	normalize(a, na, sizeof(na), false);
	normalize(b, nb, sizeof(nb), false);

	uint32_t d = edit_distance(na, nb);

	if (d == 0) {
		return 0;
	}

	char xa[CFG_MAX_NAME];
	char xb[CFG_MAX_NAME];

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
	char copy[CFG_MAX_NAME];
	const char* words[CFG_MAX_NAME];
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
// shorter than CFG_MAX_NAME.
static uint32_t
edit_distance(const char* a, const char* b)
{
	size_t la = strlen(a);
	size_t lb = strlen(b);
	uint32_t row[CFG_MAX_NAME + 1];

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

//==========================================================
// Help.
//

static void
default_text(const cfg_item* item, char* out, size_t len)
{
	if ((item->flags & CFG_DEFAULT_NONE) != 0) {
		snprintf(out, len, "%s", item->def_text);
		return;
	}

	switch (item->type) {
	case CFG_FLAG:
		snprintf(out, len, "%s", item->def != 0 ? "yes" : "no");
		break;
	case CFG_WORD:
		snprintf(out, len, "%s", item->words[item->def]);
		break;
	default:
		snprintf(out, len, "%" PRIu32, item->def);
		break;
	}
}

static void
values_text(const cfg_table* t, const cfg_item* item, char* out, size_t len)
{
	strbuf sb;

	sb_init(&sb, out, len);
	out[0] = '\0';

	switch (item->type) {
	case CFG_U32:
	case CFG_LEGACY:
		sb_printf(&sb, "%" PRIu32 "..%" PRIu32 "%s", item->min, item->max,
				item->pow2 ? ", power of 2" : "");
		break;
	case CFG_FLAG:
		sb_printf(&sb, "yes/no");
		break;
	case CFG_WORD:
		for (const char* const* w = item->words; *w != NULL; w++) {
			sb_printf(&sb, "%s%s", w == item->words ? "" : ", ", *w);
		}
		break;
	case CFG_NAMES:
		sb_printf(&sb, "1 to %" PRIu32 " names", t->max_devices);
		break;
	case CFG_SIZE_HIST:
		sb_printf(&sb, "1 to %d percentages", CFG_SIZE_HIST_MAX);
		break;
	}
}

// text, word-wrapped to width columns, each line indented.
static void
print_wrapped(FILE* out, const char* text, int indent, int width)
{
	const char* p = text;
	int col = 0;

	while (*p != '\0') {
		while (*p == ' ') {
			p++;
		}

		size_t n = strcspn(p, " ");

		if (n == 0) {
			break;
		}

		if (col != 0 && col + 1 + (int)n > width) {
			fputc('\n', out);
			col = 0;
		}

		if (col == 0) {
			col = fprintf(out, "%*s%.*s", indent, "", (int)n, p);
		}
		else {
			col += fprintf(out, " %.*s", (int)n, p);
		}

		p += n;
	}

	if (col != 0) {
		fputc('\n', out);
	}
}
