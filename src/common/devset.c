/*
 * devset.c - the devices of one run, opened together in one array.
 */

#include "devset.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "blkdev.h"
#include "log.h"

//==========================================================
// Typedefs & constants.
//

#define ERR_LEN 1024

//==========================================================
// Forward declarations.
//

static void undo_first(devset* s, uint32_t n);

//==========================================================
// Public API.
//

int
devset_open(devset* s, const char* const* names, uint32_t n,
		const dev_opts* o)
{
	char err[ERR_LEN];

	s->devs = NULL;
	s->n = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (dev_check(names[i], o, err, sizeof(err)) != 0) {
			log_error("%s", err);
			return -1;
		}
	}

	s->devs = calloc(n == 0 ? 1 : n, sizeof(dev));

	if (s->devs == NULL) {
		log_error("out of memory for %" PRIu32 " devices", n);
		return -1;
	}

	// s->n counts the device being opened too: a hung setup I/O is undone
	// from the setup guard's thread (guard.h) with devset_undo.
	for (uint32_t i = 0; i < n; i++) {
		s->n = i + 1;

		if (dev_open(&s->devs[i], names[i], o, err, sizeof(err)) != 0) {
			log_error("%s", err);
			undo_first(s, i);
			return -1;
		}
	}

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
