/*
 * cfg_priv.h - what the files of the cfg module (cfg.c, cfg_load.c,
 * cfg_echo.c) share: not for any other module.
 */
#pragma once

#include "common/cfg.h"

// Add a warning to the set (printf format; counted past CFG_MAX_WARNINGS).
void cfg_add_warning(cfg_set* set, const char* fmt, ...)
	__attribute__((format(printf, 2, 3)));

// Where an item's value lives in the config struct at base.
static inline void*
cfg_field(void* base, const cfg_item* item)
{
	return (char*)base + item->offset;
}

static inline const void*
cfg_cfield(const void* base, const cfg_item* item)
{
	return (const char*)base + item->offset;
}
