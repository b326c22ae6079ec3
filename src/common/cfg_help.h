/*
 * cfg_help.h - what a config table (cfg.h) tells a person: the config help
 * (--config-help).
 */
#pragma once

#include <stdio.h>

#include "common/cfg.h"

// Print every item with its default, its values and its help, in echo
// order, then the obsolete items (--config-help).
void cfg_help_print(const cfg_table* t, FILE* out);
