/*
 * suggest.h - the closest name in a list of names (the "did you mean" hint
 * for a misspelt config item). Knows nothing of config tables.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The index in known[0..n) of the name closest to name, or -1 when none is
// close: the same name but for case, '_' for '-', dashes missing or extra,
// or the words in another order; else the one with the fewest edits
// (Levenshtein distance), if at most max(2, L / 4) with L the length of
// the longer of the two names. Ties: the first. Names of ACT_MAX_NAME
// characters or more are close to nothing.
int suggest_closest(const char* name, const char* const* known, size_t n);
