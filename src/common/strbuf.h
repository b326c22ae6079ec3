/*
 * strbuf.h - bounded string building.
 *
 * Two kinds of buffer:
 *  - fixed (sb_init): appends never write past the caller's buffer; one
 *    that ran out of room remembers it (sb_overflowed), so the caller can
 *    report rather than print a silently truncated text;
 *  - growing (sb_init_grow): the buffer is allocated and doubled as needed
 *    (sb_free releases it); it overflows only when memory runs out.
 * Every text of unbounded length that goes into the log (config echo,
 * device lines, histogram names, reports) is built in a growing strbuf and
 * checked with sb_overflowed before it is written.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf_s {
	char* buf;
	size_t cap;
	size_t len;
	bool overflow;
	bool grow;       // buf is ours, realloc'ed as needed
} strbuf;

void sb_init(strbuf* sb, char* buf, size_t cap);
void sb_init_grow(strbuf* sb);
void sb_free(strbuf* sb);
void sb_printf(strbuf* sb, const char* fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool sb_overflowed(const strbuf* sb);
