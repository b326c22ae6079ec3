/*
 * cfg_help.c - what a config table tells a person: the config help
 * (--config-help). The "did you mean" hint is cfg_suggest (cfg.c, on
 * suggest.c).
 */

#include "common/cfg_help.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"

//==========================================================
// Forward declarations.
//

static void default_text(const cfg_item* item, char* out, size_t len);
static void values_text(const cfg_table* t, const cfg_item* item, char* out,
		size_t len);
static void print_wrapped(FILE* out, const char* text, int indent,
		int width);

//==========================================================
// Public API.
//

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
