/*
 * strbuf.h - bounded string building.
 *
 * Appends never write past the buffer; a strbuf that ran out of room
 * remembers it (sb_overflowed) so callers can report rather than print a
 * silently truncated line.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf_s {
	char* buf;
	size_t cap;
	size_t len;
	bool overflow;
} strbuf;

void sb_init(strbuf* sb, char* buf, size_t cap);
void sb_printf(strbuf* sb, const char* fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool sb_overflowed(const strbuf* sb);
