/*
 * io.c - whole synchronous I/Os, and counting the ones that fail.
 */

#include "common/io.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/loglines.h"

//==========================================================
// Globals.
//

static uint64_t g_limit = 0;
static bool g_limit_set = false;         // act_prep has no io-error-limit
static atomic_uint_fast64_t g_n_errors = 0;

static pthread_mutex_t g_lines_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_window_start_ns = 0;   // 0: no error shown yet
static uint32_t g_window_lines = 0;
static uint64_t g_suppressed = 0;

//==========================================================
// Forward declarations.
//

static int io_whole(int fd, void* buf, size_t size, uint64_t off,
		bool write);
static void log_hidden(uint64_t n);

//==========================================================
// Public API.
//

int
io_read(int fd, void* buf, size_t size, uint64_t off)
{
	return io_whole(fd, buf, size, off, false);
}

int
io_write(int fd, const void* buf, size_t size, uint64_t off)
{
	return io_whole(fd, (void*)buf, size, off, true);
}

void
io_set_error_limit(uint64_t limit)
{
	g_limit = limit;
	g_limit_set = true;
}

bool
io_failed(const char* device, const char* op, uint64_t off, size_t size,
		int err, uint64_t* count)
{
	uint64_t n = atomic_fetch_add(&g_n_errors, 1) + 1;
	uint64_t now = clock_ns();
	uint64_t hidden = 0;
	bool show;

	if (count != NULL) {
		*count = n;
	}

	pthread_mutex_lock(&g_lines_lock);

	// A window is the second from the first error it shows: never more
	// than IO_ERROR_LINES_PER_SEC lines in any one of them.
	if (g_window_start_ns == 0 || now - g_window_start_ns >= NS_PER_SEC) {
		hidden = g_suppressed;
		g_suppressed = 0;
		g_window_start_ns = now;
		g_window_lines = 0;
	}

	show = g_window_lines < IO_ERROR_LINES_PER_SEC;

	if (show) {
		g_window_lines++;
	}
	else {
		g_suppressed++;
	}

	pthread_mutex_unlock(&g_lines_lock);

	if (hidden != 0) {
		log_hidden(hidden);
	}

	if (show) {
		char msg[LL_MSG_LEN];

		log_error("%s", ll_io_failed(msg, sizeof(msg), &(ll_io){
				.device = device, .op = op, .size = size, .off = off }, err,
				g_limit_set, n, g_limit));
	}

	return n > g_limit;
}

void
io_flush_suppressed(void)
{
	pthread_mutex_lock(&g_lines_lock);

	uint64_t hidden = g_suppressed;

	g_suppressed = 0;

	pthread_mutex_unlock(&g_lines_lock);

	if (hidden != 0) {
		log_hidden(hidden);
	}
}

//==========================================================
// Local helpers.
//

// Read or write exactly size bytes, continuing short transfers.
static int
io_whole(int fd, void* buf, size_t size, uint64_t off, bool write)
{
	size_t done = 0;

	while (done < size) {
		char* p = (char*)buf + done;
		off_t at = (off_t)(off + done);
		ssize_t n = write ? pwrite(fd, p, size - done, at) :
				pread(fd, p, size - done, at);

		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}

			return errno;
		}

		if (n == 0) {
			return write ? ENOSPC : EIO; // past the end of the device
		}

		done += (size_t)n;
	}

	return 0;
}

// "N more I/O errors were not shown".
static void
log_hidden(uint64_t n)
{
	char msg[LL_MSG_LEN];

	log_error("%s", ll_io_hidden(msg, sizeof(msg), n));
}
