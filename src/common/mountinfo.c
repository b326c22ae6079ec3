/*
 * mountinfo.c - the lines of /proc/PID/mountinfo, and overlay layer paths.
 */

#include "common/mountinfo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//==========================================================
// Forward declarations.
//

static char* next_field(char** p);
static const char* below(const char* dir, const char* path);

//==========================================================
// Public API.
//

bool
mountinfo_parse(char* line, mountinfo* m)
{
	memset(m, 0, sizeof(*m));
	line[strcspn(line, "\n")] = '\0';

	char* p = line;
	char* id = next_field(&p);
	char* parent = next_field(&p);
	char* devno = next_field(&p);
	char* root = next_field(&p);
	char* point = next_field(&p);
	char* opts = next_field(&p);
	char* end;
	char extra;

	if (opts == NULL) {
		return false;
	}

	m->id = (int)strtol(id, &end, 10);

	if (*end != '\0' || end == id) {
		return false;
	}

	m->parent = (int)strtol(parent, &end, 10);

	if (*end != '\0' || end == parent ||
			sscanf(devno, "%u:%u%c", &m->maj, &m->min, &extra) != 2) {
		return false;
	}

	// Optional fields ("shared:5", "master:1"...) up to the "-".
	char* f;

	do {
		f = next_field(&p);
	} while (f != NULL && strcmp(f, "-") != 0);

	char* fstype = f == NULL ? NULL : next_field(&p);
	char* source = fstype == NULL ? NULL : next_field(&p);

	if (source == NULL) {
		return false;
	}

	char* super_opts = next_field(&p);

	mountinfo_unescape(root);
	mountinfo_unescape(point);
	mountinfo_unescape(source);
	m->root = root;
	m->point = point;
	m->fstype = fstype;
	m->source = source;
	m->super_opts = super_opts == NULL ? "" : super_opts;

	return true;
}

bool
mountinfo_option(const char* opts, const char* key, char* out, size_t len)
{
	size_t klen = strlen(key);
	const char* p = opts;

	while (*p != '\0') {
		size_t n = strcspn(p, ",");

		if (n > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t vlen = n - klen - 1;

			if (vlen == 0 || vlen >= len) {
				return false;
			}

			memcpy(out, p + klen + 1, vlen);
			out[vlen] = '\0';
			mountinfo_unescape(out);

			return true;
		}

		p += n;

		if (*p == ',') {
			p++;
		}
	}

	return false;
}

void
mountinfo_unescape(char* s)
{
	char* w = s;

	for (const char* r = s; *r != '\0'; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
				r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		}
		else {
			*w++ = *r++;
		}
	}

	*w = '\0';
}

bool
mountinfo_overlay_upper(const mountinfo* m, const char* upperdir,
		const char* path, char* out, size_t len)
{
	const char* rel = below(m->point, path);

	if (rel == NULL || upperdir[0] != '/') {
		return false;
	}

	// A bind mount of a directory of the overlay shows it below root.
	const char* root = strcmp(m->root, "/") == 0 ? "" : m->root;
	size_t ulen = strlen(upperdir);

	while (ulen > 0 && upperdir[ulen - 1] == '/') {
		ulen--; // "/u/" is "/u", "/" is ""
	}

	int n = snprintf(out, len, "%.*s%s%s", (int)ulen, upperdir, root, rel);

	if (n <= 0 || (size_t)n >= len) {
		return false;
	}

	if (out[0] == '\0') {
		snprintf(out, len, "/");
	}

	return true;
}

bool
mountinfo_overlay_name(const mountinfo* m, const char* upperdir,
		const char* real, char* out, size_t len)
{
	char base[PATH_MAX];
	const char* root = strcmp(m->root, "/") == 0 ? "" : m->root;

	if (upperdir[0] != '/' || (size_t)snprintf(base, sizeof(base), "%s%s",
			strcmp(upperdir, "/") == 0 ? "" : upperdir, root) >=
			sizeof(base)) {
		return false;
	}

	const char* rel = below(base[0] == '\0' ? "/" : base, real);

	if (rel == NULL || rel[0] == '\0') {
		return false; // the upper directory itself is no file
	}

	int n = snprintf(out, len, "%s%s", strcmp(m->point, "/") == 0 ? "" :
			m->point, rel);

	return n > 0 && (size_t)n < len;
}

//==========================================================
// Local helpers.
//

// The next space-separated field of *p, cut out; NULL at the end.
static char*
next_field(char** p)
{
	char* s = *p;

	if (s == NULL || *s == '\0') {
		return NULL;
	}

	char* sp = strchr(s, ' ');

	if (sp == NULL) {
		*p = s + strlen(s);
	}
	else {
		*sp = '\0';
		*p = sp + 1;
	}

	return s;
}

// What follows dir in path ("" for dir itself, "/x" below it), or NULL
// when path is not dir or below it. dir "/" holds every absolute path.
static const char*
below(const char* dir, const char* path)
{
	if (path[0] != '/') {
		return NULL;
	}

	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/') {
		n--; // "/u/" is "/u"
	}

	if (n == 1 && dir[0] == '/') {
		return path;
	}

	if (strncmp(path, dir, n) != 0 || (path[n] != '/' && path[n] != '\0')) {
		return NULL;
	}

	return path + n;
}
