/*
 * version.h - the version and notice printed by every act binary.
 *
 * The log's second line is "ACT version <ACT_VERSION>"; analysis tools
 * check 6.0 <= V < 7.0, so our own version numbers stay in that range.
 */
#pragma once

#define ACT_VERSION "6.7"
#define ACT_NOTICE \
	"act - an independent reimplementation of ACT. MIT licence, no warranty."
