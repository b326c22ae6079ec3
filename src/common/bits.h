/*
 * bits.h - small integer helpers the config code shares: powers of two and
 * rounding up to a multiple.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

static inline bool
bits_is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

// v rounded up to a multiple of to (to > 0), computed without overflow.
static inline uint32_t
bits_round_up(uint32_t v, uint32_t to)
{
	return (uint32_t)(((uint64_t)v + to - 1) / to * to);
}
