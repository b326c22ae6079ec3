/*
 * log.c - the log on stdout, and diagnostics on stderr.
 */

#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

//==========================================================
// Typedefs & constants.
//

#define LINE_LEN 1024

//==========================================================
// Globals.
//

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_closed = false;       // log_final was called, or a write failed
static int g_failure = 0;           // errno of the first failed write
static void (*g_on_failure)(int err) = NULL;
static bool g_stdout_tty = false;
static bool g_same_file = false;    // stdout and stderr are one file/pipe
static bool g_stderr_tty = false;
static bool g_status_shown = false;
static bool g_no_stdout = false;    // log_no_stdout: stderr only

//==========================================================
// Forward declarations.
//

static void clear_status(void);
static void put_locked(const char* text, size_t len, int* failed);
static int write_all(const char* text, size_t len);
static void put(const char* text, size_t len, bool close);
static void vput(const char* prefix, const char* fmt, va_list ap, bool close,
		bool to_stderr) __attribute__((format(printf, 2, 0)));
static void report_failure(int err);
static void vnote(const char* prefix, const char* fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

//==========================================================
// Public API.
//

int
log_init(char* err, size_t err_len)
{
	bool stdout_closed = false;

	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) {
			continue;
		}

		// open returns the lowest free descriptor: this one.
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null != fd && null >= 0) {
			dup2(null, fd);
			close(null);
		}

		stdout_closed = stdout_closed || fd == STDOUT_FILENO;
	}

	signal(SIGPIPE, SIG_IGN);

	g_stdout_tty = isatty(STDOUT_FILENO) == 1;
	g_stderr_tty = isatty(STDERR_FILENO) == 1;

	// "> log 2>&1": an ERROR line copied to stderr would be in the file
	// twice.
	struct stat so;
	struct stat se;

	g_same_file = fstat(STDOUT_FILENO, &so) == 0 &&
			fstat(STDERR_FILENO, &se) == 0 && so.st_dev == se.st_dev &&
			so.st_ino == se.st_ino;

	if (stdout_closed) {
		snprintf(err, err_len, "stdout is closed - the log would be lost "
				"(redirect it to a file: PROGRAM CONFIG > LOG)");
		return -1;
	}

	int fl = fcntl(STDOUT_FILENO, F_GETFL);

	if (fl >= 0 && (fl & O_ACCMODE) == O_RDONLY) {
		snprintf(err, err_len, "stdout is open read-only - the log can't be "
				"written (redirect it to a file: PROGRAM CONFIG > LOG)");
		return -1;
	}

	return 0;
}

void
log_no_stdout(void)
{
	pthread_mutex_lock(&g_lock);
	g_no_stdout = true;
	g_closed = true;
	pthread_mutex_unlock(&g_lock);
}

void
log_on_failure(void (*fn)(int err))
{
	pthread_mutex_lock(&g_lock);
	g_on_failure = fn;
	pthread_mutex_unlock(&g_lock);
}

int
log_failure(void)
{
	pthread_mutex_lock(&g_lock);

	int err = g_failure;

	pthread_mutex_unlock(&g_lock);

	return err;
}

bool
log_stderr_is_tty(void)
{
	return g_stderr_tty;
}

void
log_text(const char* text, size_t len)
{
	put(text, len, false);
}

bool
log_text_if(const char* text, size_t len, bool (*ok)(void* udata),
		void* udata)
{
	int failed = 0;
	bool written = false;

	pthread_mutex_lock(&g_lock);

	if (! g_closed && ok(udata)) {
		put_locked(text, len, &failed);
		written = failed == 0;
	}

	void (*fn)(int) = g_on_failure;

	pthread_mutex_unlock(&g_lock);

	if (failed != 0 && fn != NULL) {
		fn(failed);
	}

	return written;
}

int
log_print(const char* text, size_t len)
{
	pthread_mutex_lock(&g_lock);
	clear_status();

	int rv = write_all(text, len);

	pthread_mutex_unlock(&g_lock);

	return rv;
}

void
log_out(const char* fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput("", fmt, ap, false, false);
	va_end(ap);
}

void
log_final(const char* fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput("", fmt, ap, true, false);
	va_end(ap);
}

void
log_error(const char* fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(LOG_ERROR, fmt, ap, false, g_no_stdout ||
			(! g_stdout_tty && ! g_same_file));
	va_end(ap);
}

void
log_warn(const char* fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void
log_note(const char* fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote("", fmt, ap);
	va_end(ap);
}

char*
log_escape(const char* in, char* out, size_t out_len)
{
	static const char HEX[] = "0123456789abcdef";
	size_t o = 0;

	if (out_len == 0) {
		return out;
	}

	for (const unsigned char* p = (const unsigned char*)in; *p != '\0';
			p++) {
		if (*p < 0x20 || *p == 0x7f) {
			if (o + 4 >= out_len) {
				break;
			}

			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = HEX[*p >> 4];
			out[o++] = HEX[*p & 0xf];
		}
		else {
			if (o + 1 >= out_len) {
				break;
			}

			out[o++] = (char)*p;
		}
	}

	out[o] = '\0';

	return out;
}

uint32_t
log_stderr_columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) {
		return ws.ws_col;
	}

	return 80;
}

char*
log_hms(uint64_t secs, char* out, size_t out_len)
{
	snprintf(out, out_len, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64,
			secs / 3600, secs / 60 % 60, secs % 60);

	return out;
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

// Called with the lock held: write all of text to stdout, unless the log is
// closed. The first failure closes the log and is reported on stderr;
// *failed gets its errno (the caller runs the callback, unlocked).
static void
put_locked(const char* text, size_t len, int* failed)
{
	if (g_closed) {
		return;
	}

	clear_status();

	int err = write_all(text, len);

	if (err != 0) {
		g_failure = err;
		g_closed = true;
		*failed = g_failure;
		report_failure(g_failure);
	}
}

// Write all of text to stdout. Returns 0, or the errno of the failed write
// (EIO for a write of nothing).
static int
write_all(const char* text, size_t len)
{
	while (len != 0) {
		ssize_t n = write(STDOUT_FILENO, text, len);

		if (n < 0 && errno == EINTR) {
			continue;
		}

		if (n <= 0) {
			return n < 0 ? errno : EIO;
		}

		text += n;
		len -= (size_t)n;
	}

	return 0;
}

static void
put(const char* text, size_t len, bool close)
{
	int failed = 0;

	pthread_mutex_lock(&g_lock);
	put_locked(text, len, &failed);
	g_closed = g_closed || close;

	void (*fn)(int) = g_on_failure;

	pthread_mutex_unlock(&g_lock);

	if (failed != 0 && fn != NULL) {
		fn(failed);
	}
}

// Format prefix + fmt into one text and write it whole to stdout (and to
// stderr when to_stderr).
static void
vput(const char* prefix, const char* fmt, va_list ap, bool close,
		bool to_stderr)
{
	char line[LINE_LEN * 4];
	size_t plen = strlen(prefix);
	va_list ap2;

	va_copy(ap2, ap);

	int n = vsnprintf(line + plen, sizeof(line) - plen - 1, fmt, ap);
	char* text = line;

	if (n < 0) {
		va_end(ap2);
		return;
	}

	if ((size_t)n >= sizeof(line) - plen - 1) {
		text = malloc(plen + (size_t)n + 2);

		if (text == NULL) {
			va_end(ap2);
			return;
		}

		vsnprintf(text + plen, (size_t)n + 1, fmt, ap2);
	}

	va_end(ap2);
	memcpy(text, prefix, plen);

	size_t len = plen + (size_t)n;

	// ERROR lines: one line, control characters escaped, a newline; log_out's
	// texts bring their own newlines.
	if (plen != 0) {
		char msg[LINE_LEN];

		log_escape(text + plen, msg, sizeof(msg));
		len = plen + strlen(msg);
		memcpy(text + plen, msg, len - plen);
		text[len++] = '\n';
	}

	int failed = 0;

	pthread_mutex_lock(&g_lock);
	put_locked(text, len, &failed);
	g_closed = g_closed || close;

	if (to_stderr) {
		clear_status();
		fwrite(text, 1, len, stderr);
		fflush(stderr);
	}

	void (*fn)(int) = g_on_failure;

	pthread_mutex_unlock(&g_lock);

	if (text != line) {
		free(text);
	}

	if (failed != 0 && fn != NULL) {
		fn(failed);
	}
}

// Called with the lock held, once.
static void
report_failure(int err)
{
	fprintf(stderr, "ERROR: can't write the log to stdout: %s (errno %d) - "
			"stopping (exit status 5)\n", strerror(err), err);
	fflush(stderr);
}

// A message on stderr: prefix, the text with control characters escaped,
// a newline.
static void
vnote(const char* prefix, const char* fmt, va_list ap)
{
	char raw[LINE_LEN];
	char msg[LINE_LEN];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	log_escape(raw, msg, sizeof(msg));

	pthread_mutex_lock(&g_lock);

	clear_status();
	fprintf(stderr, "%s%s\n", prefix, msg);
	fflush(stderr);

	pthread_mutex_unlock(&g_lock);
}
