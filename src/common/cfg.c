/*
 * cfg.c - table-driven config files: one item - its value parsed and
 * checked against the table, applied from a line of the file or a --set
 * item; defaults, lookups, "did you mean", warnings. The whole file is
 * cfg_load.c, the echo cfg_echo.c, a size histogram's value
 * cfg_size_hist.c.
 */

#include "common/cfg.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/bits.h"
#include "common/cfg_priv.h"
#include "common/suggest.h"

//==========================================================
// Typedefs & constants.
//

#define DEVICE_SEPARATORS ",; \t"

static const char* const TRUE_WORDS[] = { "yes", "y", "true", NULL };
static const char* const FALSE_WORDS[] = { "no", "n", "false", NULL };

//==========================================================
// Forward declarations.
//

static int item_index(const cfg_table* t, const char* name);
static bool is_other_item(const cfg_table* t, const char* name);
static int apply_value(const cfg_table* t, const cfg_item* item,
		void* base, const char* value, char* err, size_t err_len);
static int parse_names(const cfg_table* t, const cfg_item* item,
		cfg_names* names, const char* value, char* err, size_t err_len);
static bool word_in(const char* const* words, const char* text);
static char* trim(char* s);
static const char* equals_sign(const char* p);
static void equals_error(const cfg_table* t, const char* line,
		size_t name_len, const char* eq, char* err, size_t err_len);

//==========================================================
// Public API.
//

bool
cfg_parse_u32(const char* text, uint32_t* out)
{
	if (*text == '\0') {
		return false;
	}

	uint64_t v = 0;

	for (const char* p = text; *p != '\0'; p++) {
		if (! isdigit((unsigned char)*p)) {
			return false;
		}

		v = v * 10 + (uint64_t)(*p - '0');

		if (v > UINT32_MAX) {
			return false;
		}
	}

	*out = (uint32_t)v;

	return true;
}

bool
cfg_parse_flag(const char* text, bool* out)
{
	if (word_in(TRUE_WORDS, text)) {
		*out = true;
		return true;
	}

	if (word_in(FALSE_WORDS, text)) {
		*out = false;
		return true;
	}

	return false;
}

void
cfg_defaults(const cfg_table* t, void* base, cfg_set* set)
{
	memset(set, 0, sizeof(*set));

	for (uint32_t i = 0; i < t->n_items; i++) {
		const cfg_item* item = &t->items[i];
		void* f = cfg_field(base, item);

		switch (item->type) {
		case CFG_U32:
		case CFG_LEGACY:
			*(uint32_t*)f = item->def;
			break;
		case CFG_FLAG:
			*(bool*)f = item->def != 0;
			break;
		case CFG_WORD:
			*(const char**)f = item->words[item->def];
			break;
		case CFG_NAMES:
			((cfg_names*)f)->n = 0;
			break;
		case CFG_SIZE_HIST:
			((cfg_size_hist*)f)->n = 0;
			break;
		}
	}
}

int
cfg_apply_line(const cfg_table* t, void* base, cfg_set* set,
		const char* line, char* err, size_t err_len)
{
	size_t len = strlen(line);
	char* copy = malloc(len + 1);

	if (copy == NULL) {
		snprintf(err, err_len, "out of memory reading the config");
		return -1;
	}

	memcpy(copy, line, len + 1);

	char* hash = strchr(copy, '#');

	if (hash != NULL) {
		*hash = '\0';
	}

	char* name = trim(copy);
	int rv = 0;

	if (*name == '\0') {
		goto done;
	}

	char* p = name;

	while (*p != '\0' && *p != ':' && *p != '=' &&
			! isspace((unsigned char)*p)) {
		p++;
	}

	const char* eq = equals_sign(p);

	if (eq != NULL) {
		equals_error(t, name, (size_t)(p - name), eq, err, err_len);
		rv = -1;
		goto done;
	}

	char* value = p;

	if (*p != '\0') {
		bool colon = *p == ':';

		*p = '\0';
		value = p + 1;

		while (isspace((unsigned char)*value)) {
			value++;
		}

		if (! colon && *value == ':') {
			value++;

			while (isspace((unsigned char)*value)) {
				value++;
			}
		}
	}

	int ix = item_index(t, name);

	if (ix < 0) {
		if (is_other_item(t, name)) {
			snprintf(err, err_len, "config item '%s' applies to %s only",
					name, t->other_program);
		}
		else {
			const cfg_item* hint = cfg_suggest(t, name);

			if (hint != NULL) {
				snprintf(err, err_len, "unknown config item '%s' - did you "
						"mean '%s'?", name, hint->name);
			}
			else {
				snprintf(err, err_len, "unknown config item '%s'", name);
			}
		}

		rv = -1;
		goto done;
	}

	const cfg_item* item = &t->items[ix];

	if (*value == '\0') {
		snprintf(err, err_len, "config item '%s' has no value", name);
		rv = -1;
		goto done;
	}

	rv = apply_value(t, item, base, value, err, err_len);

	if (rv == 0) {
		set->set[ix] = true;

		if (item->type == CFG_LEGACY) {
			cfg_add_warning(set, "config item '%s' is obsolete (ACT 4) - %s",
					item->name, item->help);
		}
	}

done:
	free(copy);

	return rv;
}

int
cfg_apply_set(const cfg_table* t, void* base, cfg_set* set,
		const char* arg, char* err, size_t err_len)
{
	const char* eq = strchr(arg, '=');

	if (eq == NULL || eq == arg) {
		snprintf(err, err_len, "'%.200s' is not NAME=VALUE", arg);
		return -1;
	}

	size_t name_len = (size_t)(eq - arg);

	if (strcspn(arg, ":# \t\r\n") < name_len) {
		snprintf(err, err_len, "'%.*s' is not a config item name",
				(int)(name_len > 200 ? 200 : name_len), arg);
		return -1;
	}

	// The line "NAME: VALUE", applied as a line of the file is.
	size_t len = strlen(arg);
	char* line = malloc(len + 2);

	if (line == NULL) {
		snprintf(err, err_len, "out of memory reading the config");
		return -1;
	}

	memcpy(line, arg, name_len);
	memcpy(line + name_len, ": ", 2);
	memcpy(line + name_len + 2, eq + 1, len - name_len);

	int rv = cfg_apply_line(t, base, set, line, err, err_len);

	free(line);

	return rv;
}

const char*
cfg_warning(const cfg_set* set, uint32_t i, char* buf, size_t len)
{
	if (i + 1 == CFG_MAX_WARNINGS && set->n_warnings > CFG_MAX_WARNINGS) {
		snprintf(buf, len, "%u more config warnings not shown",
				set->n_warnings - i);
		return buf;
	}

	if (i >= CFG_MAX_WARNINGS || i >= set->n_warnings) {
		return "";
	}

	return set->warnings[i];
}

const cfg_item*
cfg_suggest(const cfg_table* t, const char* name)
{
	const char* known[CFG_MAX_ITEMS];
	const cfg_item* items[CFG_MAX_ITEMS];
	size_t n = 0;

	for (uint32_t i = 0; i < t->n_items && n < CFG_MAX_ITEMS; i++) {
		if (t->items[i].type != CFG_LEGACY) {
			known[n] = t->items[i].name;
			items[n++] = &t->items[i];
		}
	}

	int ix = suggest_closest(name, known, n);

	return ix < 0 ? NULL : items[ix];
}

const cfg_item*
cfg_find(const cfg_table* t, const char* name)
{
	int ix = item_index(t, name);

	return ix < 0 ? NULL : &t->items[ix];
}

bool
cfg_is_set(const cfg_table* t, const cfg_set* set, const char* name)
{
	int ix = item_index(t, name);

	return ix >= 0 && set->set[ix];
}

//==========================================================
// Module API (cfg_priv.h).
//

void
cfg_add_warning(cfg_set* set, const char* fmt, ...)
{
	if (set->n_warnings < CFG_MAX_WARNINGS) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(set->warnings[set->n_warnings], CFG_WARNING_LEN, fmt, ap);
		va_end(ap);
	}

	set->n_warnings++;
}

//==========================================================
// Local helpers.
//

static int
item_index(const cfg_table* t, const char* name)
{
	for (uint32_t i = 0; i < t->n_items; i++) {
		if (strcmp(t->items[i].name, name) == 0) {
			return (int)i;
		}
	}

	return -1;
}

static bool
is_other_item(const cfg_table* t, const char* name)
{
	if (t->other_items == NULL) {
		return false;
	}

	for (const char* const* p = t->other_items; *p != NULL; p++) {
		if (strcmp(*p, name) == 0) {
			return true;
		}
	}

	return false;
}

static int
apply_value(const cfg_table* t, const cfg_item* item, void* base,
		const char* value, char* err, size_t err_len)
{
	void* f = cfg_field(base, item);

	switch (item->type) {
	case CFG_LEGACY: {
		uint32_t v = 0;

		// Accepted whatever the value; a number is kept (num-queues and
		// threads-per-queue can still set service-threads).
		*(uint32_t*)f = cfg_parse_u32(value, &v) ? v : 0;
		return 0; // cfg_apply_line adds the warning
	}
	case CFG_U32: {
		uint32_t v;

		if (! cfg_parse_u32(value, &v)) {
			bool digits = strspn(value, "0123456789") == strlen(value);

			snprintf(err, err_len, digits ?
					"config item '%s': '%s' is larger than 4294967295" :
					"config item '%s': '%s' is not a decimal number",
					item->name, value);
			return -1;
		}

		if (v < item->min || v > item->max) {
			snprintf(err, err_len, "config item '%s': %" PRIu32
					" is out of range (%" PRIu32 " to %" PRIu32 ")",
					item->name, v, item->min, item->max);
			return -1;
		}

		if (item->pow2 && ! bits_is_pow2(v)) {
			snprintf(err, err_len, "config item '%s': %" PRIu32
					" is not a power of 2", item->name, v);
			return -1;
		}

		*(uint32_t*)f = v;
		return 0;
	}
	case CFG_FLAG:
		if (! cfg_parse_flag(value, (bool*)f)) {
			snprintf(err, err_len, "config item '%s': '%s' is not yes or no",
					item->name, value);
			return -1;
		}
		return 0;
	case CFG_WORD:
		for (const char* const* w = item->words; *w != NULL; w++) {
			if (strcmp(*w, value) == 0) {
				*(const char**)f = *w;
				return 0;
			}
		}
		{
			char choices[256];
			strbuf sb;

			sb_init(&sb, choices, sizeof(choices));

			for (const char* const* w = item->words; *w != NULL; w++) {
				sb_printf(&sb, "%s%s", w == item->words ? "" : ", ", *w);
			}

			snprintf(err, err_len, "config item '%s': '%s' is not one of %s",
					item->name, value, choices);
		}
		return -1;
	case CFG_NAMES:
		return parse_names(t, item, f, value, err, err_len);
	case CFG_SIZE_HIST:
		return cfg_parse_size_hist(item->name, value, f, err, err_len);
	}

	return 0;
}

static int
parse_names(const cfg_table* t, const cfg_item* item, cfg_names* names,
		const char* value, char* err, size_t err_len)
{
	char* copy = strdup(value);

	if (copy == NULL) {
		snprintf(err, err_len, "out of memory reading the config");
		return -1;
	}

	int rv = 0;
	char* save = NULL;

	names->n = 0;

	for (char* tok = strtok_r(copy, DEVICE_SEPARATORS, &save); tok != NULL;
			tok = strtok_r(NULL, DEVICE_SEPARATORS, &save)) {
		if (names->n == t->max_devices) {
			snprintf(err, err_len, "config item '%s': more than %" PRIu32
					" devices", item->name, t->max_devices);
			rv = -1;
			break;
		}

		if (strlen(tok) >= ACT_MAX_NAME) {
			snprintf(err, err_len, "config item '%s': device name '%.40s...' "
					"is %zu characters, at most %d", item->name, tok,
					strlen(tok), ACT_MAX_NAME - 1);
			rv = -1;
			break;
		}

		for (uint32_t i = 0; i < names->n; i++) {
			if (strcmp(names->names[i], tok) == 0) {
				snprintf(err, err_len, "config item '%s': device %s is named "
						"twice", item->name, tok);
				free(copy);
				return -1;
			}
		}

		strcpy(names->names[names->n++], tok);
	}

	if (rv == 0 && names->n == 0) {
		snprintf(err, err_len, "config item '%s' names no device", item->name);
		rv = -1;
	}

	free(copy);

	return rv;
}

static bool
word_in(const char* const* words, const char* text)
{
	for (const char* const* w = words; *w != NULL; w++) {
		if (strcasecmp(*w, text) == 0) {
			return true;
		}
	}

	return false;
}

static char*
trim(char* s)
{
	while (isspace((unsigned char)*s)) {
		s++;
	}

	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1])) {
		s[--n] = '\0';
	}

	return s;
}

// The '=' of a line written 'name = value' or 'name=value' (p: the end of
// the name), or NULL. A name is never followed by '=' in a valid line: the
// separator is ':' or white space (docs/act_storage.md, "Config file
// syntax").
static const char*
equals_sign(const char* p)
{
	while (isspace((unsigned char)*p)) {
		p++;
	}

	return *p == '=' ? p : NULL;
}

// The error for '=' as a separator, showing the line as it should be:
// "config item 'read-reqs-per-sec': 'read-reqs-per-sec = 2000' - the
// separator is ':', as in 'read-reqs-per-sec: 2000'". line: the whole line
// (trimmed, no comment), its name the first name_len characters.
static void
equals_error(const cfg_table* t, const char* line, size_t name_len,
		const char* eq, char* err, size_t err_len)
{
	char name[128];
	const char* value = eq + 1;

	snprintf(name, sizeof(name), "%.*s", (int)name_len, line);

	while (isspace((unsigned char)*value)) {
		value++;
	}

	if (item_index(t, name) >= 0) {
		snprintf(err, err_len, "config item '%s': '%.200s' - the separator "
				"is ':', as in '%s: %.200s'", name, line, name,
				*value != '\0' ? value : "VALUE");
	}
	else if (is_other_item(t, name)) {
		snprintf(err, err_len, "config item '%s' applies to %s only - and "
				"the separator is ':', not '='", name, t->other_program);
	}
	else {
		const cfg_item* hint = cfg_suggest(t, name);

		snprintf(err, err_len, "unknown config item '%s'%s%s%s - and the "
				"separator is ':', not '='", name, hint != NULL ?
				" - did you mean '" : "", hint != NULL ? hint->name : "",
				hint != NULL ? "'?" : "");
	}
}
