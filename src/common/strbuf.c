/*
 * strbuf.c - bounded string building.
 */

#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

//==========================================================
// Typedefs & constants.
//

#define GROW_MIN 256

//==========================================================
// Forward declarations.
//

static bool make_room(strbuf* sb, size_t need);

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
	sb->grow = false;

	if (cap != 0) {
		buf[0] = '\0';
	}
}

void
sb_init_grow(strbuf* sb)
{
	sb_init(sb, NULL, 0);
	sb->grow = true;
}

void
sb_free(strbuf* sb)
{
	if (sb->grow) {
		free(sb->buf);
		sb->buf = NULL;
		sb->cap = sb->len = 0;
	}
}

void
sb_printf(strbuf* sb, const char* fmt, ...)
{
	if (sb->overflow) {
		return;
	}

	va_list ap;

	va_start(ap, fmt);

	int n = vsnprintf(sb->cap == 0 ? NULL : sb->buf + sb->len,
			sb->cap - sb->len, fmt, ap);

	va_end(ap);

	if (n < 0) {
		sb->overflow = true;
		return;
	}

	if ((size_t)n < sb->cap - sb->len) {
		sb->len += (size_t)n;
		return;
	}

	if (sb->grow && make_room(sb, (size_t)n)) {
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
		sb->len += (size_t)n;
		return;
	}

	sb->overflow = true;

	if (sb->cap != 0) {
		sb->len = sb->cap - 1;
		sb->buf[sb->len] = '\0';
	}
}

bool
sb_overflowed(const strbuf* sb)
{
	return sb->overflow;
}

//==========================================================
// Local helpers.
//

// Grow a growing buffer to hold need more characters and the NUL.
static bool
make_room(strbuf* sb, size_t need)
{
	size_t cap = sb->cap < GROW_MIN ? GROW_MIN : sb->cap;

	while (cap - sb->len <= need) {
		if (cap > ((size_t)-1) / 2) {
			return false;
		}

		cap *= 2;
	}

	char* bigger = realloc(sb->buf, cap);

	if (bigger == NULL) {
		return false;
	}

	if (sb->cap == 0) {
		bigger[0] = '\0';
	}

	sb->buf = bigger;
	sb->cap = cap;

	return true;
}
