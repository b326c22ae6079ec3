/*
 * strbuf.c - bounded string building.
 */

#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>

//==========================================================
// Public API.
//

void
sb_init(strbuf* sb, char* buf, size_t cap)
{
	sb->buf = buf;
	sb->cap = cap;
	sb->len = 0;
	sb->overflow = false;

	if (cap != 0) {
		buf[0] = '\0';
	}
}

void
sb_printf(strbuf* sb, const char* fmt, ...)
{
	if (sb->overflow || sb->cap == 0) {
		sb->overflow = true;
		return;
	}

	va_list ap;

	va_start(ap, fmt);

	int n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);

	va_end(ap);

	if (n < 0 || (size_t)n >= sb->cap - sb->len) {
		sb->overflow = true;
		sb->len = sb->cap - 1;
		sb->buf[sb->len] = '\0';
		return;
	}

	sb->len += (size_t)n;
}

bool
sb_overflowed(const strbuf* sb)
{
	return sb->overflow;
}
