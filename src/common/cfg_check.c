/*
 * cfg_check.c - the rules a config table must follow (cfg_table_check,
 * cfg.h): checked by the unit tests on every table, so a broken table is a
 * test failure, never a wrong parse.
 */

#include "common/cfg.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/bits.h"

//==========================================================
// Forward declarations.
//

static uint32_t n_words(const char* const* words);

//==========================================================
// Public API.
//

int
cfg_table_check(const cfg_table* t, char* err, size_t err_len)
{
	const char* prog = t->program != NULL ? t->program : "(no program)";

	if (t->n_items > CFG_MAX_ITEMS) {
		snprintf(err, err_len, "%s: %" PRIu32 " items, more than CFG_MAX_ITEMS "
				"(%d) - item '%s' is one too many", prog, t->n_items,
				CFG_MAX_ITEMS, t->items[CFG_MAX_ITEMS].name != NULL ?
				t->items[CFG_MAX_ITEMS].name : "(no name)");
		return -1;
	}

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];
		const char* name = item->name;
		bool none = (item->flags & CFG_DEFAULT_NONE) != 0;

		if (name == NULL || *name == '\0') {
			snprintf(err, err_len, "%s: item %" PRIu32 " (after '%s') has no "
					"name", prog, i + 1, i == 0 ? "(start)" :
					t->items[i - 1].name);
			return -1;
		}

		for (uint32_t j = 0; j < i; j++) {
			if (strcmp(t->items[j].name, name) == 0) {
				snprintf(err, err_len, "%s: item '%s' is listed twice (items "
						"%" PRIu32 " and %" PRIu32 ")", prog, name, j + 1, i + 1);
				return -1;
			}
		}

		if (item->help == NULL || *item->help == '\0') {
			snprintf(err, err_len, "%s: item '%s' has no help text", prog,
					name);
			return -1;
		}

		if (none != (item->def_text != NULL)) {
			snprintf(err, err_len, none ? "%s: item '%s' is CFG_DEFAULT_NONE "
					"but has no def_text saying what the default is" :
					"%s: item '%s' has a def_text but is not CFG_DEFAULT_NONE",
					prog, name);
			return -1;
		}

		if (! none && ((item->flags & CFG_REQUIRED) != 0 ||
				item->type == CFG_NAMES || item->type == CFG_SIZE_HIST)) {
			snprintf(err, err_len, "%s: item '%s' has no plain default (%s): "
					"it needs CFG_DEFAULT_NONE and a def_text", prog, name,
					(item->flags & CFG_REQUIRED) != 0 ? "required" :
					item->type == CFG_NAMES ? "a device list" :
					"a size histogram");
			return -1;
		}

		if (item->pow2 && item->type != CFG_U32) {
			snprintf(err, err_len, "%s: item '%s': pow2 on an item that is not "
					"a number", prog, name);
			return -1;
		}

		if (item->type == CFG_U32) {
			if (item->min > item->max) {
				snprintf(err, err_len, "%s: item '%s': min %" PRIu32 " is "
						"larger than max %" PRIu32, prog, name, item->min,
						item->max);
				return -1;
			}

			if (! none && (item->def < item->min || item->def > item->max)) {
				snprintf(err, err_len, "%s: item '%s': default %" PRIu32 " is "
						"outside its range %" PRIu32 "..%" PRIu32 " (a default "
						"that is not a plain value needs CFG_DEFAULT_NONE)",
						prog, name, item->def, item->min, item->max);
				return -1;
			}

			if (item->pow2 && ! none && ! bits_is_pow2(item->def)) {
				snprintf(err, err_len, "%s: item '%s': default %" PRIu32 " is "
						"not a power of 2", prog, name, item->def);
				return -1;
			}
		}

		if (item->type == CFG_WORD) {
			if (item->words == NULL || item->words[0] == NULL) {
				snprintf(err, err_len, "%s: item '%s' is CFG_WORD without "
						"words", prog, name);
				return -1;
			}

			if (item->def >= n_words(item->words)) {
				snprintf(err, err_len, "%s: item '%s': default %" PRIu32 " is "
						"not the index of one of its %" PRIu32 " words", prog,
						name, item->def, n_words(item->words));
				return -1;
			}
		}

		if ((item->flags & CFG_ECHO_IF) != 0) {
			const cfg_item* gate = item->echo_if != NULL ?
					cfg_find(t, item->echo_if) : NULL;

			if (gate == NULL || gate->type != CFG_FLAG) {
				snprintf(err, err_len, "%s: item '%s': CFG_ECHO_IF names '%s', "
						"which is not a flag item of the table", prog, name,
						item->echo_if != NULL ? item->echo_if : "(nothing)");
				return -1;
			}
		}

		if (item->type == CFG_NAMES && (t->max_devices == 0 ||
				t->max_devices > ACT_MAX_DEVICES)) {
			snprintf(err, err_len, "%s: item '%s': the table's max_devices %"
					PRIu32 " is not 1..%d", prog, name, t->max_devices,
					ACT_MAX_DEVICES);
			return -1;
		}
	}

	return 0;
}

//==========================================================
// Local helpers.
//

static uint32_t
n_words(const char* const* words)
{
	uint32_t n = 0;

	while (words[n] != NULL) {
		n++;
	}

	return n;
}
