/*
 * stop.h - the kinds of stop, as data: each kind of early end of a run has
 * a fixed token and the exact phrase its line in the log carries. The log
 * lines are built from these phrases, so each is written once, here:
 *
 *   host-limit   the host could not generate the load (lag diagnosis):
 *                "ERROR: ACT can't do the requested load - test stopped -
 *                try configuring more service-threads" (or cache-threads,
 *                or "the host, not the drive, is the limit")
 *   drive-limit  the drive could not serve it (lag diagnosis): "... -
 *                drive(s) can't keep up - test stopped"
 *   hung-io      an I/O outstanding too long: "ERROR: device D is not
 *                responding: ..."
 *   io-errors    io-error-limit passed: "ERROR: stopping: N I/O errors,
 *                more than io-error-limit L"
 *   signal       SIGINT / SIGTERM: "stopped by signal NAME after S sec"
 *   request      stopped by the parent that ran the program, which gave a
 *                reason first (act_certify's fail fast): "stopped on
 *                request: REASON after S sec"
 *
 * Exit statuses: host-limit, drive-limit and hung-io EXIT_LAG, io-errors
 * EXIT_IO, signal and request EXIT_SIGNAL + n (run.h).
 *
 * analysis/act/logfile/stops.py holds the same table for Python
 * (STOP_KINDS = {token: phrase}); tests/integration/test_stop_kinds.py
 * checks that the two agree, reading STOP_KIND_TABLE below - keep its
 * one-entry-per-line form.
 */
#pragma once

#define STOP_PHRASE_HOST_LIMIT "ACT can't do the requested load"
#define STOP_PHRASE_DRIVE_LIMIT "drive(s) can't keep up"
#define STOP_PHRASE_HUNG_IO "is not responding"
#define STOP_PHRASE_IO_ERRORS "more than io-error-limit"
#define STOP_PHRASE_SIGNAL "stopped by signal"
#define STOP_PHRASE_REQUEST "stopped on request"

// { token, phrase }, one kind per line.
#define STOP_KIND_TABLE \
	{ "host-limit", STOP_PHRASE_HOST_LIMIT }, \
	{ "drive-limit", STOP_PHRASE_DRIVE_LIMIT }, \
	{ "hung-io", STOP_PHRASE_HUNG_IO }, \
	{ "io-errors", STOP_PHRASE_IO_ERRORS }, \
	{ "signal", STOP_PHRASE_SIGNAL }, \
	{ "request", STOP_PHRASE_REQUEST }
