/*
 * devset.c - the devices of one run, opened together in one array.
 */

#include "common/devset.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/blkdev.h"
#include "common/holder.h"
#include "common/log.h"

//==========================================================
// Typedefs & constants.
//

#define ERR_LEN 1024

//==========================================================
// Forward declarations.
//

static int parent_held(dev_held* held, char* err, size_t len);
static void undo_first(devset* s, uint32_t n);

//==========================================================
// Public API.
//

int
devset_open(devset* s, const char* const* names, uint32_t n,
		const dev_opts* o)
{
	char err[ERR_LEN];

	if (devset_claim(s, names, n, o) != 0) {
		return -1;
	}

	// Every device passed its checks: now create, size and probe them.
	for (uint32_t i = 0; i < n; i++) {
		if (dev_open(&s->devs[i], o, s->devs, i, err, sizeof(err)) != 0) {
			log_error("%s", err);
			undo_first(s, n);
			return -1;
		}
	}

	return 0;
}

int
devset_claim(devset* s, const char* const* names, uint32_t n,
		const dev_opts* o)
{
	char err[ERR_LEN];

	s->devs = NULL;
	s->n = 0;

	dev_held* held = calloc(1, sizeof(dev_held));

	if (held == NULL) {
		log_error("out of memory for %" PRIu32 " devices", n);
		return -1;
	}

	if (parent_held(held, err, sizeof(err)) != 0) {
		log_error("%s", err);
		free(held);
		return -1;
	}

	s->devs = calloc(n == 0 ? 1 : n, sizeof(dev));

	if (s->devs == NULL) {
		log_error("out of memory for %" PRIu32 " devices", n);
		free(held);
		return -1;
	}

	// Open, check and hold every device; nothing is written, created or
	// resized before all have passed.
	for (uint32_t i = 0; i < n; i++) {
		if (dev_claim(&s->devs[i], names[i], o, s->devs, i, held, err,
				sizeof(err)) != 0) {
			log_error("%s", err);
			free(held);
			undo_first(s, i);
			return -1;
		}
	}

	free(held);

	// s->n counts every device from here: a hung setup I/O (the probe in
	// dev_open) is undone from the setup guard's thread (guard.h) with
	// devset_undo.
	s->n = n;

	return 0;
}

int
devset_commit(devset* s)
{
	char err[ERR_LEN];

	for (uint32_t i = 0; i < s->n; i++) {
		if (dev_commit(&s->devs[i], err, sizeof(err)) != 0) {
			log_error("%s", err);
			devset_undo(s);
			return -1;
		}
	}

	return 0;
}

void
devset_undo(devset* s)
{
	undo_first(s, s->n);
}

void
devset_restore_schedulers(devset* s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		dev_restore_scheduler(&s->devs[i]);
	}
}

void
devset_identity(const devset* s, strbuf* sb)
{
	for (uint32_t i = 0; i < s->n; i++) {
		const dev* d = &s->devs[i];
		struct stat st;

		if (! d->is_block || fstat(d->fd, &st) != 0) {
			continue;
		}

		blk_identity id;

		blk_identify(st.st_rdev, &id);
		sb_printf(sb, "%s model = %s, serial = %s, firmware = %s\n", d->name,
				id.model, id.serial, id.firmware);
	}

	time_t now = time(NULL);
	struct tm utc;
	char when[64] = "unknown";

	if (gmtime_r(&now, &utc) != NULL) {
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &utc);
	}

	sb_printf(sb, "start time = %s\n\n", when);
}

void
devset_close(devset* s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		dev_close(&s->devs[i]);
	}

	free(s->devs);
	s->devs = NULL;
	s->n = 0;
}

//==========================================================
// Local helpers.
//

// ACT_HELD_FDS (holder.h): the descriptors of the devices a parent holds
// for us, each fstat()ed. Unset or empty: none (held->n = 0).
static int
parent_held(dev_held* held, char* err, size_t len)
{
	const char* value = getenv(HOLDER_ENV);

	held->n = 0;
	held->value = value;

	if (value == NULL || value[0] == '\0') {
		return 0;
	}

	int fds[HOLDER_MAX_FDS];
	uint32_t n;

	if (holder_parse_fds(value, fds, HOLDER_MAX_FDS, &n, err, len) != 0) {
		return -1;
	}

	for (uint32_t i = 0; i < n; i++) {
		struct stat* st = &held->st[i];

		if (fstat(fds[i], st) != 0) {
			snprintf(err, len, "%s=%s: descriptor %d is not open: %s (errno "
					"%d) - the parent must pass the descriptors it lists",
					HOLDER_ENV, value, fds[i], strerror(errno), errno);
			return -1;
		}

		if (! S_ISBLK(st->st_mode) && ! S_ISREG(st->st_mode)) {
			snprintf(err, len, "%s=%s: descriptor %d is neither a block "
					"device nor a regular file", HOLDER_ENV, value, fds[i]);
			return -1;
		}
	}

	held->n = n;

	return 0;
}

static void
undo_first(devset* s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		dev_undo(&s->devs[i]);
	}

	free(s->devs);
	s->devs = NULL;
	s->n = 0;
}
