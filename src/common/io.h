/*
 * io.h - whole synchronous I/Os, and counting the ones that fail.
 *
 * A short read or write is continued until complete or failed. Failures
 * are printed as ERROR lines (device, offset, size, errno text) - at most
 * IO_ERROR_LINES_PER_SEC a second, then a count of the ones not shown - and
 * counted against the io-error-limit. The count and the line rate limit
 * are process-wide, like the run they belong to (one run per process).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IO_ERROR_LINES_PER_SEC 10

// Read / write exactly size bytes at off. Return 0 or a positive errno
// (EIO for an unexpected end of device).
int io_read(int fd, void* buf, size_t size, uint64_t off);
int io_write(int fd, const void* buf, size_t size, uint64_t off);

// The run stops once more than limit I/Os have failed (default 0: at the
// first failure). Once set, io_failed's lines name it (act_prep sets none:
// it has no io-error-limit item).
void io_set_error_limit(uint64_t limit);

// Count and report a failed I/O (*count, if not NULL: the failures so far).
// Returns true when the count now exceeds the limit (the caller stops the
// run, and says so in a line of its own, never rate-limited).
bool io_failed(const char* device, const char* op, uint64_t off,
		size_t size, int err, uint64_t* count);

// Print the count of error lines not shown, if any (end of run).
void io_flush_suppressed(void);
