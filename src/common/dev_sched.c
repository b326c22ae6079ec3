/*
 * dev_sched.c - scheduler-mode of a test block device (dev.h, sched_*):
 * set when setup commits, put back when the device is undone or closed.
 */

#include "common/dev.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/blkdev.h"
#include "common/dev_priv.h"
#include "common/log.h"

//==========================================================
// Public API.
//

void
dev_restore_scheduler(dev* d)
{
	if (d->sched_old[0] == '\0') {
		return;
	}

	char msg[512];

	if (blk_write_scheduler(d->sched_file, d->sched_old, msg,
			sizeof(msg)) != 0) {
		log_warn("I/O scheduler of %s not restored to %s: %s", d->name,
				d->sched_old, msg);
	}
	else {
		log_note("I/O scheduler of %s restored to %s", d->name, d->sched_old);
	}

	d->sched_old[0] = '\0';
}

//==========================================================
// Module API (dev_priv.h).
//

// scheduler-mode for a block device: set it, and remember what to put back
// when it changed. Not fatal: a warning when it can't be set.
void
dev_set_scheduler(dev* d)
{
	struct stat st;
	char msg[512];
	char old[sizeof(d->sched_old)];

	if (fstat(d->fd, &st) != 0) {
		log_warn("scheduler-mode not set for %s: fstat: %s", d->name,
				strerror(errno));
		return;
	}

	if (blk_set_scheduler(d->name, st.st_rdev, d->sched_want, d->sched_file,
			sizeof(d->sched_file), old, sizeof(old), msg, sizeof(msg)) != 0) {
		log_warn("scheduler-mode not set for %s: %s", d->name, msg);
		return;
	}

	char now[sizeof(d->sched_old)];

	if (blk_active_scheduler(d->sched_file, now, sizeof(now)) &&
			strcmp(now, old) != 0) {
		snprintf(d->sched_old, sizeof(d->sched_old), "%s", old);
		log_note("I/O scheduler of %s changed from %s to %s (put back when "
				"the run ends)", d->name, old, now);
	}
}
