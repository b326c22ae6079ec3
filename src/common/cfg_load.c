/*
 * cfg_load.c - a whole config (cfg.h): the defaults, the file's text line
 * by line (banners read as comments), then the --set items, then the
 * required items.
 */

#include "common/cfg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg_priv.h"

//==========================================================
// Forward declarations.
//

static int apply_text(const cfg_table* t, const char* text, void* base,
		cfg_set* set, char* err, size_t err_len);
static char* read_file(const char* path, char* err, size_t err_len);
static bool is_banner_rule(const char* line);

//==========================================================
// Public API.
//

int
cfg_load(const cfg_table* t, const cfg_source* src, void* base, cfg_set* set,
		char* err, size_t err_len)
{
	cfg_defaults(t, base, set);

	char* file = NULL;

	if (src->path != NULL && (file = read_file(src->path, err,
			err_len)) == NULL) {
		return -1;
	}

	int rv = apply_text(t, file != NULL ? file : src->text, base, set, err,
			err_len);

	free(file);

	if (rv != 0) {
		return -1;
	}

	for (uint32_t i = 0; i < src->n_sets; i++) {
		char msg[CFG_ERR_LEN];

		if (cfg_apply_set(t, base, set, src->sets[i], msg,
				sizeof(msg)) != 0) {
			snprintf(err, err_len, "%s (--set %.200s)", msg, src->sets[i]);
			return -1;
		}
	}

	for (uint32_t i = 0; i < t->n_items; i++) {
		if ((t->items[i].flags & CFG_REQUIRED) != 0 && ! set->set[i]) {
			snprintf(err, err_len, "config item '%s' is required but missing",
					t->items[i].name);
			return -1;
		}
	}

	return 0;
}

int
cfg_load_text(const cfg_table* t, const char* text, void* base,
		cfg_set* set, char* err, size_t err_len)
{
	return cfg_load(t, &(cfg_source){ .text = text }, base, set, err,
			err_len);
}

//==========================================================
// Local helpers.
//

// Every line of a file's text, in order (no defaults, no required check).
// Returns 0, or -1 with the message in err, " (line N)" at its end.
static int
apply_text(const cfg_table* t, const char* text, void* base, cfg_set* set,
		char* err, size_t err_len)
{
	const char* p = text;
	uint32_t line_no = 0;
	bool in_banner = false;

	while (*p != '\0') {
		const char* eol = strchr(p, '\n');
		size_t n = eol != NULL ? (size_t)(eol - p) : strlen(p);
		char* line = strndup(p, n);

		if (line == NULL) {
			snprintf(err, err_len, "out of memory reading the config");
			return -1;
		}

		line_no++;

		// Upstream ACT's example files (config/examples/paper_final.conf)
		// start with a banner whose middle line lacks the '#':
		// "##########", "act config file for ...", "##########". Text
		// between two lines of only '#'s is a comment (with a warning).
		if (is_banner_rule(line)) {
			in_banner = ! in_banner;
		}

		char msg[CFG_ERR_LEN];
		int rv = 0;

		if (in_banner) {
			const char* q = line + strspn(line, " \t");

			if (*q != '#' && *q != '\0' && *q != '\r') {
				cfg_add_warning(set, "config line %u is inside a '#####' "
						"banner: read as a comment: %.60s", line_no, q);
			}
		}
		else {
			rv = cfg_apply_line(t, base, set, line, msg, sizeof(msg));
		}

		free(line);

		if (rv != 0) {
			snprintf(err, err_len, "%s (line %u)", msg, line_no);
			return -1;
		}

		p += n;

		if (*p == '\n') {
			p++;
		}
	}

	return 0;
}

// The whole text of the config file at path (malloc'd), or NULL with the
// message in err.
static char*
read_file(const char* path, char* err, size_t err_len)
{
	FILE* f = fopen(path, "r");

	if (f == NULL) {
		snprintf(err, err_len, "can't open config file %s: %s", path,
				strerror(errno));
		return NULL;
	}

	size_t cap = 4096;
	size_t len = 0;
	char* text = malloc(cap);
	size_t n;

	while (text != NULL && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
		len += n;

		if (cap - len - 1 == 0) {
			cap *= 2;

			char* bigger = realloc(text, cap);

			if (bigger == NULL) {
				free(text);
			}

			text = bigger;
		}
	}

	bool read_error = ferror(f) != 0;

	fclose(f);

	if (text == NULL) {
		snprintf(err, err_len, "out of memory reading config file %s", path);
		return NULL;
	}

	if (read_error) {
		snprintf(err, err_len, "can't read config file %s", path);
		free(text);
		return NULL;
	}

	text[len] = '\0';

	if (strlen(text) != len) {
		snprintf(err, err_len, "config file %s is not a text file (NUL byte)",
				path);
		free(text);
		return NULL;
	}

	return text;
}

// A line of three or more '#' and nothing else (but white space).
static bool
is_banner_rule(const char* line)
{
	size_t lead = strspn(line, " \t");
	size_t hashes = strspn(line + lead, "#");
	const char* rest = line + lead + hashes;

	return hashes >= 3 && rest[strspn(rest, " \t\r")] == '\0';
}
