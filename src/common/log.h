/*
 * log.h - the log on stdout, and diagnostics on stderr.
 *
 * All stdout output goes through here under one lock, so a line printed by
 * an I/O thread never lands inside a report. Each call writes whole lines
 * straight to the file descriptor (the log is read while the test runs).
 *
 * The log is never lost silently: every write is checked. The first one
 * that fails (ENOSPC, EIO, EPIPE...) is reported on stderr, no further log
 * output is attempted, and the failure callback runs (the programs stop
 * the run with exit status 5).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The prefixes of a message line: log_error's, log_warn's (and the
// WARNING: lines of the log).
#define LOG_ERROR "ERROR: "
#define LOG_WARNING "WARNING: "

// Call first thing in main. Makes sure descriptors 0-2 are open (a closed
// one gets /dev/null, so no device opened later can become stdout and take
// the log's text), ignores SIGPIPE (a closed log pipe is then an EPIPE
// error that is reported, not a silent death), and notes whether stdout and
// stderr are terminals. Returns 0, or -1 with a message in err when stdout
// can't take the log (it was closed, or is open read-only).
int log_init(char* err, size_t err_len);

// No log (act_storage --check): from now on nothing is written to stdout,
// and ERROR lines go to stderr only.
void log_no_stdout(void);

// fn is called once, from the thread whose log write failed first, with
// its errno (after the message is on stderr).
void log_on_failure(void (*fn)(int err));

// The errno of the first failed log write, or 0.
int log_failure(void);

// Write text (whole lines) to stdout.
void log_text(const char* text, size_t len);

// Write text (whole lines) to stdout if ok(udata) - asked under the log's
// lock, so that no other thread's line comes between the answer and the
// write (a drive's health sample is never printed after a stop line).
// Returns whether it was written.
bool log_text_if(const char* text, size_t len, bool (*ok)(void* udata),
		void* udata);

// Write text to stdout whatever the log's state - also after
// log_no_stdout: the one output of --check --print-config. Returns 0, or
// the errno of the failed write.
int log_print(const char* text, size_t len);

// printf to stdout.
void log_out(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// "ERROR: <message>" to stdout (it belongs in the log) and, when stdout is
// not a terminal, to stderr too - unless both are the same file or pipe
// ("> log 2>&1"): each message once per destination. Messages (ERROR, WARNING and notes) show
// control characters escaped (log_escape).
void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// "WARNING: <message>" to stderr only.
void log_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// A line of information on stderr ("<message>\n"), not part of the log.
void log_note(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// printf to stdout, and then refuse all further stdout output: the last
// line of a stopped run stays the last line.
void log_final(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Copy in to out with control characters (and DEL) written as \xNN, so a
// message never sends raw escape sequences to a terminal. Always
// NUL-terminates; cuts at out_len. Returns out.
char* log_escape(const char* in, char* out, size_t out_len);

// Whether stderr is a terminal.
bool log_stderr_is_tty(void);

// The width of the terminal on stderr in columns (80 when unknown).
uint32_t log_stderr_columns(void);

// Format a duration as h:mm:ss into out.
char* log_hms(uint64_t secs, char* out, size_t out_len);

// Write a status line to stderr (terminal only), replacing the previous one.
void log_status(const char* text);
