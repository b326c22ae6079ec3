/*
 * log.c - the log on stdout, and diagnostics on stderr.
 */

#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

//==========================================================
// Globals.
//

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_closed = false;
static bool g_stdout_tty = false;
static bool g_stderr_tty = false;
static bool g_status_shown = false;

//==========================================================
// Forward declarations.
//

static void clear_status(void);
static void vlog_out(const char* fmt, va_list ap, bool close)
	__attribute__((format(printf, 1, 0)));

//==========================================================
// Public API.
//

void
log_init(void)
{
	g_stdout_tty = isatty(STDOUT_FILENO) == 1;
	g_stderr_tty = isatty(STDERR_FILENO) == 1;
}

bool
log_stderr_is_tty(void)
{
	return g_stderr_tty;
}

void
log_text(const char* text, size_t len)
{
	pthread_mutex_lock(&g_lock);

	if (! g_closed) {
		clear_status();
		fwrite(text, 1, len, stdout);
		fflush(stdout);
	}

	pthread_mutex_unlock(&g_lock);
}

void
log_out(const char* fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_out(fmt, ap, false);
	va_end(ap);
}

void
log_final(const char* fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_out(fmt, ap, true);
	va_end(ap);
}

void
log_error(const char* fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&g_lock);

	clear_status();

	if (! g_closed) {
		fprintf(stdout, "ERROR: %s\n", msg);
		fflush(stdout);
	}

	if (! g_stdout_tty) {
		fprintf(stderr, "ERROR: %s\n", msg);
	}

	pthread_mutex_unlock(&g_lock);
}

void
log_warn(const char* fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&g_lock);

	clear_status();
	fputs("WARNING: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);

	pthread_mutex_unlock(&g_lock);
}

void
log_note(const char* fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&g_lock);

	clear_status();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);

	pthread_mutex_unlock(&g_lock);
}

void
log_status(const char* text)
{
	if (! g_stderr_tty) {
		return;
	}

	pthread_mutex_lock(&g_lock);

	fprintf(stderr, "\r\033[K%s", text);
	fflush(stderr);
	g_status_shown = true;

	pthread_mutex_unlock(&g_lock);
}

//==========================================================
// Local helpers.
//

// Called with the lock held: erase the status line so other output starts
// on a clean line (stdout and stderr may share a terminal).
static void
clear_status(void)
{
	if (g_status_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		g_status_shown = false;
	}
}

// printf to stdout and flush, unless the log is closed; close it after.
static void
vlog_out(const char* fmt, va_list ap, bool close)
{
	pthread_mutex_lock(&g_lock);

	if (! g_closed) {
		clear_status();
		vfprintf(stdout, fmt, ap);
		fflush(stdout);
		g_closed = close;
	}

	pthread_mutex_unlock(&g_lock);
}
