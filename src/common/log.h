/*
 * log.h - the log on stdout, and diagnostics on stderr.
 *
 * All stdout output goes through here under one lock, so a line printed by
 * an I/O thread never lands inside a report. Each call writes whole lines
 * and flushes (the log is read while the test runs).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

void log_init(void);

// Write text (whole lines) to stdout and flush.
void log_text(const char* text, size_t len);

// printf to stdout and flush.
void log_out(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// "ERROR: <message>" to stdout (it belongs in the log) and, when stdout is
// not a terminal, to stderr too.
void log_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// "WARNING: <message>" to stderr only.
void log_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// A line of information on stderr ("<message>\n"), not part of the log.
void log_note(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// printf to stdout, flush, and then refuse all further stdout output: the
// last line of a stopped run stays the last line.
void log_final(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Whether stderr is a terminal.
bool log_stderr_is_tty(void);

// Write a status line to stderr (terminal only), replacing the previous one.
void log_status(const char* text);
