/*
 * cfg_help.h - what a config table (cfg.h) tells a person: the "did you
 * mean" hint for a misspelt item, and the config help (--config-help).
 */
#pragma once

#include <stdio.h>

#include "cfg.h"

// The known item (not a legacy one) closest to an unknown name, or NULL
// when none is close: the same name but for case, '_' for '-', dashes
// missing or extra, or the words in another order; else the one with the
// fewest edits (Levenshtein distance), if at most max(2, L / 4) with L the
// length of the longer of the two names. Ties: the first in the table.
const cfg_item* cfg_help_suggest(const cfg_table* t, const char* name);

// Print every item with its default, its values and its help, in echo
// order, then the obsolete items (--config-help).
void cfg_help_print(const cfg_table* t, FILE* out);
