/*
 * Description: /proc/PID/mountinfo lines parse (optional fields, octal
 * escapes, a missing "-", bad numbers), an option's value comes out of a
 * super-options list unescaped (a comma in a path is \054), and an
 * overlay name maps to its upper-layer file and back (mount points, bind
 * mounts of a directory of the overlay, "/" as mount point, a path
 * outside the mount, the upper directory itself).
 */

#include <stdio.h>
#include <string.h>

#include "common/mountinfo.h"
#include "unit.h"

typedef struct {
	const char* line;
	bool ok;
	int id;
	int parent;
	unsigned maj;
	unsigned min;
	const char* root;
	const char* point;
	const char* fstype;
	const char* source;
	const char* super_opts;
} parse_case;

static const parse_case PARSE[] = {
	{ "47 30 0:39 / /mnt/m rw,relatime - overlay overlay rw,lowerdir=/l,"
			"upperdir=/u,workdir=/w,uuid=on\n", true, 47, 30, 0, 39, "/",
			"/mnt/m", "overlay", "overlay", "rw,lowerdir=/l,upperdir=/u,"
			"workdir=/w,uuid=on" },
	{ "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root "
			"rw,errors=continue", true, 36, 35, 98, 0, "/mnt1", "/mnt2", "ext3",
			"/dev/root", "rw,errors=continue" },
	{ "27 1 254:0 / / rw,relatime shared:1 master:2 - ext4 /dev/vda rw", true,
			27, 1, 254, 0, "/", "/", "ext4", "/dev/vda", "rw" },
	{ "50 27 0:40 /sub\\040dir /mnt/a\\040b rw - overlay none rw", true, 50,
			27, 0, 40, "/sub dir", "/mnt/a b", "overlay", "none", "rw" },
	{ "51 27 259:3 / /x rw - xfs /dev/nvme0n1p3", true, 51, 27, 259, 3, "/",
			"/x", "xfs", "/dev/nvme0n1p3", "" },
	{ "", false, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL },
	{ "47 30 0:39 / /mnt/m rw,relatime overlay overlay rw", false, 0, 0, 0,
			0, NULL, NULL, NULL, NULL, NULL },      // no "-"
	{ "47 30 0:39 / /mnt/m rw -", false, 0, 0, 0, 0, NULL, NULL, NULL, NULL,
			NULL },                                 // nothing after "-"
	{ "x 30 0:39 / /m rw - overlay o rw", false, 0, 0, 0, 0, NULL, NULL, NULL,
			NULL, NULL },
	{ "47 30 0-39 / /m rw - overlay o rw", false, 0, 0, 0, 0, NULL, NULL,
			NULL, NULL, NULL },
	{ "47 30 0:39x / /m rw - overlay o rw", false, 0, 0, 0, 0, NULL, NULL,
			NULL, NULL, NULL },
};

static void
test_parse(void)
{
	for (size_t i = 0; i < sizeof(PARSE) / sizeof(PARSE[0]); i++) {
		const parse_case* c = &PARSE[i];
		char line[512];
		mountinfo m;

		snprintf(line, sizeof(line), "%s", c->line);

		bool ok = mountinfo_parse(line, &m);

		CHECK(ok == c->ok, "parse '%s': expected %s, got %s", c->line,
				c->ok ? "ok" : "refused", ok ? "ok" : "refused");

		if (! ok || ! c->ok) {
			continue;
		}

		CHECK_U64(c->line, (uint64_t)c->id, (uint64_t)m.id);
		CHECK_U64(c->line, (uint64_t)c->parent, (uint64_t)m.parent);
		CHECK_U64(c->line, c->maj, m.maj);
		CHECK_U64(c->line, c->min, m.min);
		CHECK_STR(c->line, c->root, m.root);
		CHECK_STR(c->line, c->point, m.point);
		CHECK_STR(c->line, c->fstype, m.fstype);
		CHECK_STR(c->line, c->source, m.source);
		CHECK_STR(c->line, c->super_opts, m.super_opts);
	}
}

typedef struct {
	const char* opts;
	const char* key;
	size_t len;
	bool ok;
	const char* value;
} option_case;

static const option_case OPTIONS[] = {
	{ "rw,lowerdir=/l,upperdir=/u,workdir=/w", "upperdir", 64, true, "/u" },
	{ "upperdir=/u", "upperdir", 64, true, "/u" },
	{ "rw,upperdir=/a\\054b,workdir=/w", "upperdir", 64, true, "/a,b" },
	{ "rw,upperdir=/a\\040b", "upperdir", 64, true, "/a b" },
	{ "rw,lowerdir=/l,workdir=/w", "upperdir", 64, false, NULL },
	{ "rw,xupperdir=/x,upperdir2=/y", "upperdir", 64, false, NULL },
	{ "rw,upperdir", "upperdir", 64, false, NULL },  // no value
	{ "", "upperdir", 64, false, NULL },
	{ "rw,upperdir=/0123456789", "upperdir", 8, false, NULL },  // too long
	{ "rw,upperdir=", "upperdir", 64, false, NULL },
};

static void
test_option(void)
{
	for (size_t i = 0; i < sizeof(OPTIONS) / sizeof(OPTIONS[0]); i++) {
		const option_case* c = &OPTIONS[i];
		char out[64] = "";
		char what[160];
		bool ok = mountinfo_option(c->opts, c->key, out, c->len);

		snprintf(what, sizeof(what), "option %s of '%s'", c->key, c->opts);
		CHECK(ok == c->ok, "%s: expected %s, got %s ('%s')", what,
				c->ok ? "found" : "not found", ok ? "found" : "not found",
				out);

		if (ok && c->ok) {
			CHECK_STR(what, c->value, out);
		}
	}
}

typedef struct {
	const char* point;     // the overlay's mount point
	const char* root;      // the directory of it mounted there
	const char* upperdir;
	const char* path;      // the overlay name
	const char* upper;     // its upper-layer file, or NULL: none
} map_case;

static const map_case MAPS[] = {
	{ "/mnt/m", "/", "/u", "/mnt/m/f.img", "/u/f.img" },
	{ "/mnt/m", "/", "/u", "/mnt/m/d/e/f.img", "/u/d/e/f.img" },
	{ "/mnt/m", "/", "/u/", "/mnt/m/f.img", "/u/f.img" },
	{ "/mnt/m", "/sub", "/u", "/mnt/m/f.img", "/u/sub/f.img" },  // bind
	{ "/", "/", "/var/lib/u", "/tmp/f.img", "/var/lib/u/tmp/f.img" },
	{ "/mnt/m", "/", "/u", "/mnt/mx/f.img", NULL },       // another dir
	{ "/mnt/m", "/", "/u", "/elsewhere/f.img", NULL },
	{ "/mnt/m", "/", "/u", "mnt/m/f.img", NULL },         // not absolute
	{ "/mnt/m", "/", "relative/u", "/mnt/m/f.img", NULL },
};

static void
test_overlay_map(void)
{
	for (size_t i = 0; i < sizeof(MAPS) / sizeof(MAPS[0]); i++) {
		const map_case* c = &MAPS[i];
		mountinfo m = { .root = c->root, .point = c->point,
				.fstype = "overlay" };
		char out[256] = "";
		char what[700];
		bool ok = mountinfo_overlay_upper(&m, c->upperdir, c->path, out,
				sizeof(out));

		snprintf(what, sizeof(what), "upper file of %s (overlay on %s, root "
				"%s, upperdir %s)", c->path, c->point, c->root, c->upperdir);
		CHECK(ok == (c->upper != NULL), "%s: expected %s, got %s ('%s')",
				what, c->upper != NULL ? c->upper : "none", ok ? "one" :
				"none", out);

		if (! ok || c->upper == NULL) {
			continue;
		}

		CHECK_STR(what, c->upper, out);

		// And back: the overlay name of that upper file (upperdir given
		// canonical, as realpath makes it).
		char canon[256];
		size_t n = strlen(c->upperdir);

		snprintf(canon, sizeof(canon), "%.*s", (int)(n > 1 &&
				c->upperdir[n - 1] == '/' ? n - 1 : n), c->upperdir);
		ok = mountinfo_overlay_name(&m, canon, c->upper, out, sizeof(out));
		snprintf(what, sizeof(what), "overlay name of %s (overlay on %s, "
				"root %s, upperdir %s)", c->upper, c->point, c->root, canon);
		CHECK(ok, "%s: expected %s, got none", what, c->path);

		if (ok) {
			CHECK_STR(what, c->path, out);
		}
	}
}

typedef struct {
	const char* point;
	const char* root;
	const char* upperdir;   // canonical
	const char* real;
	const char* name;       // the overlay name, or NULL: none
} name_case;

static const name_case NAMES[] = {
	{ "/mnt/m", "/", "/u", "/u/f.img", "/mnt/m/f.img" },
	{ "/mnt/m", "/sub", "/u", "/u/sub/f.img", "/mnt/m/f.img" },
	{ "/mnt/m", "/sub", "/u", "/u/other/f.img", NULL },   // not shown there
	{ "/mnt/m", "/", "/u", "/ux/f.img", NULL },
	{ "/mnt/m", "/", "/u", "/u", NULL },                  // the dir itself
	{ "/mnt/m", "/", "/u", "/w/f.img", NULL },
	{ "/", "/", "/u", "/u/tmp/f.img", "/tmp/f.img" },
};

static void
test_overlay_name(void)
{
	for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++) {
		const name_case* c = &NAMES[i];
		mountinfo m = { .root = c->root, .point = c->point,
				.fstype = "overlay" };
		char out[256] = "";
		char what[700];
		bool ok = mountinfo_overlay_name(&m, c->upperdir, c->real, out,
				sizeof(out));

		snprintf(what, sizeof(what), "overlay name of %s (overlay on %s, "
				"root %s, upperdir %s)", c->real, c->point, c->root,
				c->upperdir);
		CHECK(ok == (c->name != NULL), "%s: expected %s, got %s ('%s')",
				what, c->name != NULL ? c->name : "none", ok ? "one" : "none",
				out);

		if (ok && c->name != NULL) {
			CHECK_STR(what, c->name, out);
		}
	}
}

typedef struct {
	const char* in;
	const char* out;
} unescape_case;

static const unescape_case UNESCAPE[] = {
	{ "/a\\040b", "/a b" },
	{ "/a\\011b\\012c\\134d", "/a\tb\nc\\d" },
	{ "/a\\054b", "/a,b" },
	{ "/a\\4b", "/a\\4b" },          // not three octal digits
	{ "/a\\400", "/a\\400" },        // out of range: kept
	{ "plain", "plain" },
	{ "", "" },
};

static void
test_unescape(void)
{
	for (size_t i = 0; i < sizeof(UNESCAPE) / sizeof(UNESCAPE[0]); i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%s", UNESCAPE[i].in);
		mountinfo_unescape(buf);
		CHECK_STR(UNESCAPE[i].in, UNESCAPE[i].out, buf);
	}
}

int
main(void)
{
	test_parse();
	test_option();
	test_overlay_map();
	test_overlay_name();
	test_unescape();

	return unit_end("test_mountinfo");
}
