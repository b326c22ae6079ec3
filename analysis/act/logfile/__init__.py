"""The one reader of the ACT log format (docs/log-format.md):

    header.py   the header: version, config echo, derived config, device
                lines, identity block, start time, histogram names
    reports.py  one interval report, and how the run ended (RunEnd)
    scanner.py  the fast path: stream a whole body, batch by batch
    stops.py    the fixed phrases of the stop lines, and their kinds
    lines.py    every kind of line a reader parses, by the token of the
                C programs' catalogue (src/common/loglines.h)
    follow.py   follow a log still being written

Logs are bytes: a device name need not be UTF-8.  Undecodable bytes become
surrogates (and back, byte for byte, when matched or printed).

The readers that take a path (act_certify's: a campaign directory's logs)
open it with act.safefile.open_regular: a symbolic link, a FIFO or a device
is refused (as a file that can't be read), never followed, waited on or
read for ever; every reader bounds what it keeps of a line.
"""

import re

MAX_BUCKET = 64                   # buckets 0..64
ENC_ERRORS = "surrogateescape"
# The longest line a reader takes whole (a histogram line of 65 buckets is
# under 2 KiB, a device line under 300 bytes): beyond, a "line" is not one
# of an ACT log (e.g. a file of zeros) - read in pieces, or damage.
MAX_LINE = 1 << 20

_BUCKET_RE = re.compile(rb"\((\d+): (\d+)\)")
_NAME_LINE_RE = re.compile(rb"(.+) \((\d+) total\)\s*$")
_AFTER_RE = re.compile(rb"after (\d+) sec:")
_REPORT_RE = re.compile(rb"\nafter ")


def after_last_report(texts):
    """The lines (decoded, stripped) that follow the last "after N sec:"
    line - where a log says how its run stopped."""
    last_report = -1
    for i, text in enumerate(texts):
        if text.startswith("after ") and \
                _AFTER_RE.match(text.encode("utf-8", ENC_ERRORS)):
            last_report = i
    return texts[last_report + 1:]
