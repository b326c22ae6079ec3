"""How an ACT run stops, as its log says it (docs/log-format.md, "End of
run"): the fixed phrases of the stop lines, and the kind of stop each
names.

STOP_KINDS maps a kind to the exact phrase the C programs print in its
line (src/common/stop.h, the first rows of the log's catalogue,
loglines.h); tests/integration/test_stop_kinds.py checks this table
against stop.h, and tests/python/logfile/test_lines.py reads the C
formatters' own stop lines with it - a reworded message cannot silently
change a kind.
"""

from act.logfile import ENC_ERRORS, after_last_report, lines

STOP_KINDS = {
    # lag, the host the limit: "ERROR: ACT can't do the requested load -
    # test stopped - try configuring more service-threads (...)"
    "host-limit": "ACT can't do the requested load",
    # lag, the drive the limit: "ERROR: drive(s) can't keep up - test
    # stopped", or "ERROR: the drive is the limit: ... - drive(s) can't
    # keep up - test stopped"
    "drive-limit": "drive(s) can't keep up",
    # "ERROR: device /dev/sdb is not responding: a 1536-byte read ..."
    "hung-io": "is not responding",
    # "ERROR: stopping: 11 I/O errors, more than io-error-limit 10"
    "io-errors": "more than io-error-limit",
    # "stopped by signal SIGINT after 12 sec"
    "signal": "stopped by signal",
    # "stopped on request: fail fast: reads 7.20% over 1 ms (must be
    # under 5%) in hour 3 after 10800 sec" - the parent that ran the
    # program (act_certify) stopped it and gave the reason
    "request": "stopped on request",
}


def stop_kind(line):
    """The kind of stop (a key of STOP_KINDS) a log line names, or None.

    line: str or bytes, as in the log ("ERROR: ..." or "stopped by
    signal ...").  Only an ERROR: line can name an error stop, and only a
    line starting "stopped by signal" a signal.
    """
    if isinstance(line, bytes):
        line = line.decode("utf-8", ENC_ERRORS)
    line = line.strip()
    if line.startswith(STOP_KINDS["signal"]):
        return "signal"
    if line.startswith(STOP_KINDS["request"]):
        return "request"
    if not line.startswith("ERROR:"):
        return None
    for kind, phrase in STOP_KINDS.items():
        if kind != "signal" and phrase in line:
            return kind
    return None


def stop_kind_of(block):
    """The kind of the stop among the lines that follow a log's last
    complete report (as reports.stop_line() reads them), or None: a
    request line anywhere, else a signal line anywhere; otherwise the
    first ERROR: line naming a kind that no later report follows (a lag's
    first line names none: its second does).
    """
    texts = [line.decode("utf-8", ENC_ERRORS).strip()
             if isinstance(line, bytes) else line.strip() for line in block]
    for kind in ("request", "signal"):
        if any(stop_kind(text) == kind for text in texts):
            return kind
    for text in after_last_report(texts):
        kind = stop_kind(text)
        if kind is not None:
            return kind
    return None


def request_reason(block):
    """The reason a "stopped on request" line among the lines of block
    gives (the text between "stopped on request: " and " after S sec"), or
    None."""
    for line in block:
        if isinstance(line, bytes):
            line = line.decode("utf-8", ENC_ERRORS)
        f = lines.parse("request", line.strip())
        if f is not None:
            return f["reason"]
    return None
