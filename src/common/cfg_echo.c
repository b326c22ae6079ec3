/*
 * cfg_echo.c - the config echo (cfg.h, cfg_echo): the log's "name: value"
 * lines, in table order, by each item's echo rule.
 */

#include "common/cfg.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "common/cfg_priv.h"

//==========================================================
// Forward declarations.
//

static bool is_default(const cfg_item* item, const void* f);

//==========================================================
// Public API.
//

void
cfg_echo(const cfg_table* t, const void* base, const cfg_set* set,
		strbuf* sb)
{
	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];
		const void* f = cfg_cfield(base, item);

		if (item->type == CFG_LEGACY || (item->flags & CFG_NO_ECHO) != 0) {
			continue;
		}

		if ((item->flags & CFG_ECHO_NONDEF) != 0 && is_default(item, f)) {
			continue;
		}

		if ((item->flags & CFG_ECHO_SET) != 0 && ! set->set[i]) {
			continue;
		}

		if ((item->flags & CFG_ECHO_IF) != 0) {
			const cfg_item* gate = cfg_find(t, item->echo_if);

			if (gate != NULL && ! *(const bool*)cfg_cfield(base, gate)) {
				continue;
			}
		}

		switch (item->type) {
		case CFG_U32: {
			uint32_t v = *(const uint32_t*)f;

			if ((item->flags & CFG_ECHO_NONZERO) == 0 || v != 0) {
				sb_printf(sb, "%s: %" PRIu32 "\n", item->name, v);
			}
			break;
		}
		case CFG_FLAG:
			sb_printf(sb, "%s: %s\n", item->name,
					*(const bool*)f ? "yes" : "no");
			break;
		case CFG_WORD:
			sb_printf(sb, "%s: %s\n", item->name, *(const char* const*)f);
			break;
		case CFG_NAMES: {
			const cfg_names* names = f;

			sb_printf(sb, "%s:", item->name);

			for (uint32_t d = 0; d < names->n; d++) {
				sb_printf(sb, " %s", names->names[d]);
			}

			sb_printf(sb, "\nnum-devices: %" PRIu32 "\n", names->n);
			break;
		}
		case CFG_SIZE_HIST: {
			const cfg_size_hist* h = f;

			sb_printf(sb, "%s: ", item->name);

			for (uint32_t k = 0; k < h->n; k++) {
				sb_printf(sb, "%s%.2f", k == 0 ? "" : ",", h->p[k]);
			}

			sb_printf(sb, "\n");
			break;
		}
		case CFG_LEGACY:
			break;
		}
	}
}

//==========================================================
// Local helpers.
//

static bool
is_default(const cfg_item* item, const void* f)
{
	switch (item->type) {
	case CFG_U32:
		return *(const uint32_t*)f == item->def;
	case CFG_FLAG:
		return *(const bool*)f == (item->def != 0);
	case CFG_WORD:
		return strcmp(*(const char* const*)f, item->words[item->def]) == 0;
	default:
		return false;
	}
}
