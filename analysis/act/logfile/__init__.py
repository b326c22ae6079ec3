"""The one reader of the ACT log format (docs/log-format.md):

    header.py   the header: version, config echo, derived config, device
                lines, identity block, start time, histogram names
    reports.py  one interval report, and how the run ended (RunEnd)
    scanner.py  the fast path: stream a whole body, batch by batch
    stops.py    the fixed phrases of the stop lines, and their kinds
    lines.py    every kind of line a reader parses, by the token of the
                C programs' catalogue (src/common/loglines.h)
    health.py   the drives' health lines: read_health -> {device:
                DriveHealth}, HealthSample's typed fields
    follow.py   follow a log still being written

open_log() opens a log and reads its header (the one place a log is
opened for an analysis); a log that cannot be read, or is not an ACT log,
is a LogError (a message, and notes that explain it), which a tool maps
to its own exit status.

Logs are bytes: a device name need not be UTF-8.  Undecodable bytes become
surrogates (and back, byte for byte, when matched or printed).

The readers that take a path (act_certify's: a campaign directory's logs)
open it with act.safefile.open_regular: a symbolic link, a FIFO or a device
is refused (as a file that can't be read), never followed, waited on or
read for ever; every reader bounds what it keeps of a line.
"""

import math
import re

MAX_BUCKET = 64                   # buckets 0..64
ENC_ERRORS = "surrogateescape"
# The longest line a reader takes whole (a histogram line of 65 buckets is
# under 2 KiB, a device line under 300 bytes): beyond, a "line" is not one
# of an ACT log (e.g. a file of zeros) - read in pieces, or damage.
MAX_LINE = 1 << 20

# The lines of a report (docs/log-format.md, sections 5 and 6):
BUCKET_RE = re.compile(rb"\((\d+): (\d+)\)")           # " (BB: COUNT)"
NAME_LINE_RE = re.compile(rb"(.+) \((\d+) total\)\s*$")  # "NAME (N total)"
AFTER_RE = re.compile(rb"after (\d+) sec:")              # a report's start
REPORT_RE = re.compile(rb"\nafter ")                     # ... in a body


class LogError(Exception):
    """A log that cannot be read or analysed: its message names the log;
    notes (a list of lines) explain it. act_latency.py maps it to exit
    status 2, act_certify to a step's analysis error."""

    def __init__(self, message, notes=()):
        super().__init__(message)
        self.notes = list(notes)


def ms_bucket(ms, microsecond):
    """The bucket whose upper bound is ms (a power of two) in a log:
    2^k ms is bucket k of a millisecond log, bucket k + 10 of a
    microsecond one (1 ms ~ 1024 us = 2^10: docs/log-format.md, section
    6). The one rule of thresholds, for the criteria (act.latency's
    Criterion) and the live share of reads over 1 ms (follow.py)."""
    k = int(math.log2(ms))
    return k + 10 if microsecond else k


def over_1ms_bucket(microsecond):
    """The last bucket at or under 1 ms: 0 in a millisecond log, 10 in a
    microsecond one - what is above it is over 1 ms."""
    return ms_bucket(1.0, microsecond)


def after_last_report(texts):
    """The lines (decoded, stripped) that follow the last "after N sec:"
    line - where a log says how its run stopped."""
    last_report = -1
    for i, text in enumerate(texts):
        if text.startswith("after ") and \
                AFTER_RE.match(text.encode("utf-8", ENC_ERRORS)):
            last_report = i
    return texts[last_report + 1:]
