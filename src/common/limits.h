/*
 * limits.h - the fixed limits every program shares, defined once: how many
 * devices a config (or act_prep's command line) may name, and how long a
 * name (a device path, a config item) may be.
 *
 * Included as "common/limits.h"; <limits.h> is still the C library's.
 */
#pragma once

#define ACT_MAX_DEVICES 128
#define ACT_MAX_NAME 128 // including the terminating NUL
