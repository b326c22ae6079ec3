"""The kinds of line of an ACT log that a reader parses (docs/log-format.md),
each under the token the C programs' catalogue gives it
(src/common/loglines.h): LINE_KINDS maps a token to its Kind - the
parser, a function of one line (str, without its newline) that returns
its fields ({name: value}, None for a field the line does not have) or
None when the line is not of that kind; and the block of the header the
kind belongs to, for the lines that only their block tells apart (a
config item, a derived item, a histogram name).

The readers of this package parse with these. tests/python/logfile/
test_lines.py parses a sample of every kind, written by the C
programs' own formatters (tests/unit/test_loglines.c), and fails when a
kind has no parser here or a parser reads other fields than the sample
was made from."""

import re
from collections import namedtuple

from act.logfile import ENC_ERRORS, AFTER_RE, BUCKET_RE, NAME_LINE_RE

Kind = namedtuple("Kind", "parse block")

ERROR = "ERROR: "
WARNING = "WARNING: "
FELL_BEHIND = WARNING + "the host fell behind at the end of the run: "
DERIVED_HEADING = "DERIVED CONFIGURATION"
NAMES_HEADING = "HISTOGRAM NAMES"

# The keys of the derived configuration (act_storage.md, act_index.md)
# that readers look up.
DERIVED_KEYS = frozenset((
    "record-stored-bytes", "internal-read-reqs-per-sec",
    "internal-write-reqs-per-sec", "large-block-reads-per-sec",
    "large-block-writes-per-sec", "avg-read-bytes", "avg-write-bytes",
    "service-thread-reads-per-sec", "cache-thread-reads-and-writes-per-sec"))
# The config items readers look up (header.py, act.latency's load).
CONFIG_KEYS = frozenset((
    "report-interval-sec", "microsecond-histograms", "test-duration-sec",
    "commit-to-device", "service-threads", "cache-threads", "num-devices"))


def _opt(conv):
    return lambda v: None if v is None else conv(v)


INT, FLOAT, TEXT = _opt(int), _opt(float), _opt(str)


def FLAG(v):
    return v is not None


def _parser(pattern, **conv):
    """A parser of the lines pattern matches whole: each named group a
    field, converted by conv[name] (TEXT when not given)."""
    rx = re.compile(pattern + r"\Z")

    def parse(line):
        m = rx.match(line)
        if m is None:
            return None
        return {k: conv.get(k, TEXT)(v) for k, v in m.groupdict().items()}
    return parse


def _fixed(text):
    return lambda line: {} if line == text else None


def item(line):
    """A "name: value" line of the config echo or the derived config."""
    key, sep, value = line.partition(":")
    if not sep or not key.strip():
        return None
    return {"key": key.strip(), "value": value.strip()}


# The lines of a report, read as the report readers read them (reports.py
# parse_block, scanner.py): with the same expressions, on bytes.

def _encoded(line):
    return line.encode("utf-8", ENC_ERRORS)


def _report(line):
    """An "after N sec:" line."""
    b = _encoded(line).rstrip()
    m = AFTER_RE.match(b)
    return {"sec": int(m.group(1))} if m and m.end() == len(b) else None


def _hist_total(line):
    """A histogram's "NAME (N total)" line."""
    m = NAME_LINE_RE.match(_encoded(line))
    if m is None:
        return None
    return {"name": m.group(1).decode("utf-8", ENC_ERRORS),
            "total": int(m.group(2))}


def _buckets(line):
    """A bucket line: " (BB: COUNT)" one or more times."""
    b = _encoded(line)
    if b[:2] != b" (" or _BUCKET_LINE_RE.match(b) is None:
        return None
    return {"buckets": {int(m.group(1)): int(m.group(2))
                        for m in BUCKET_RE.finditer(b)}}


_BUCKET_LINE_RE = re.compile(rb"(?: \(\d\d: \d+\))+\s*\Z")

# "a 1536-byte read at offset 4096" (OP: read, write, large-block read,
# large-block write, tomb-raider read).
_AN_IO = r"a (?P<size>\d+)-byte (?P<op>[a-z -]+?) at offset (?P<offset>\d+)"
_IO = dict(size=INT, offset=INT)
# A device line's device: up to its first " size = ".
_DEVICE = r"(?P<device>(?:(?! size = ).)+)"


# Drive health lines: "health DEVICE: SOURCE", "health DEVICE at start:
# FIELDS", "health DEVICE at T sec: FIELDS" or "... sec: not read - WHY".
HEALTH = "health "
HEALTH_UNREAD = "not read - "
_HEALTH_SEC = r"(?P<sec>\d+(?:\.\d+)?)"
_HEALTH_SAMPLE_RE = re.compile(
    re.escape(HEALTH) + r".+ at (?:start|" + _HEALTH_SEC + r" sec): ")


def _health_source(line):
    """A "health DEVICE: SOURCE" line (the device up to the first ": "),
    not a sample's."""
    if not line.startswith(HEALTH) or _HEALTH_SAMPLE_RE.match(line):
        return None
    device, sep, source = line[len(HEALTH):].partition(": ")
    if not sep or not device or not source or " = " in source:
        return None
    return {"device": device, "source": source}


def _sec(name):
    return r"(?P<%s>\d+(?:\.\d+)?)" % name


LINE_KINDS = {
    # the header (sections 1-4)
    "version": Kind(_parser(r"ACT version(?P<version>.*)",
                            version=_opt(str.strip)), None),
    "config-heading": Kind(_parser(r"(?P<program>ACT.*) CONFIGURATION"),
                           None),
    "config-item": Kind(item, "config"),
    "derived-heading": Kind(_fixed(DERIVED_HEADING), None),
    "derived-item": Kind(item, "derived"),
    "storage-device": Kind(_parser(
        _DEVICE + r" size = (?P<size>\d+) bytes, (?P<large_blocks>\d+) "
        r"large blocks, minimum IO size = (?P<min_io>\d+) bytes"
        r"(?P<buffered>, buffered)?", size=INT, large_blocks=INT,
        min_io=INT, buffered=FLAG), None),
    "index-device": Kind(_parser(
        _DEVICE + r" size = (?P<size>\d+) bytes(?P<buffered>, buffered)?",
        size=INT, buffered=FLAG), None),
    "prep-device": Kind(_parser(
        _DEVICE + r" size = (?P<size>\d+) bytes, (?P<large_blocks>\d+) "
        r"large blocks", size=INT, large_blocks=INT), None),
    "identity": Kind(_parser(
        r"(?P<device>.+?) model = (?P<model>.*), serial = (?P<serial>.*), "
        r"firmware = (?P<firmware>.*)"), None),
    # a device's facts, after its identity: a file's; a block device's, a
    # loop device's backing file last (its name may hold anything)
    "file-facts": Kind(_parser(
        r"(?P<device>.+?) dev = (?P<dev>\d+), ino = (?P<ino>\d+), "
        r"gen = (?P<gen>\S+)"), None),
    "block-facts": Kind(_parser(
        r"(?P<device>.+?) rdev = (?P<rdev>\d+:\d+), wwid = (?P<wwid>.*?)"
        r"(?:, backing_dev = (?P<backing_dev>\d+), backing_ino = "
        r"(?P<backing_ino>\d+), backing_gen = (?P<backing_gen>\S+), "
        r"backing_file = (?P<backing_file>.*))?"), None),
    "start-time": Kind(_parser(r"start time = (?P<start>\S+)"), None),
    "names-heading": Kind(_fixed(NAMES_HEADING), None),
    "hist-name": Kind(lambda line: {"name": line} if line else None,
                      "names"),
    # a device's drive health (log-format.md, "Drive health"): its
    # source, in the identity block, then its start sample; samples after
    # reports, between them (act.logfile.health reads them all)
    "health-source": Kind(_health_source, None),
    "health-start": Kind(_parser(
        HEALTH + r"(?P<device>.+) at start: (?P<fields>.*)"), None),
    "health-sample": Kind(_parser(
        HEALTH + r"(?P<device>.+?) at " + _HEALTH_SEC +
        r" sec: (?P<fields>(?!" + HEALTH_UNREAD + r").*)", sec=FLOAT), None),
    "health-unread": Kind(_parser(
        HEALTH + r"(?P<device>.+?) at " + _HEALTH_SEC + r" sec: " +
        HEALTH_UNREAD + r"(?P<why>.*)", sec=FLOAT), None),
    # the reports (sections 5-6)
    "report": Kind(_report, None),
    "hist-total": Kind(_hist_total, None),
    "hist-buckets": Kind(_buckets, None),
    # the lines about the run (section 7)
    "io-failed": Kind(_parser(
        ERROR + r"(?P<op>[a-z -]+?) failed on device (?P<device>.+?) at "
        r"offset (?P<offset>\d+), size (?P<size>\d+): (?P<error>.*) "
        r"\(errno (?P<errno>\d+)\)(?: - failed I/Os: (?P<count>\d+), "
        r"io-error-limit: (?P<limit>\d+))?", offset=INT, size=INT,
        errno=INT, count=INT, limit=INT), None),
    "io-hidden": Kind(_parser(
        ERROR + r"(?P<count>\d+) more I/O errors were not shown", count=INT),
        None),
    "fell-behind": Kind(_parser(
        re.escape(FELL_BEHIND) + r"(?P<threads>.+?) still owed "
        r"(?P<owed>\d+) requests due before (?P<before_sec>\d+) sec "
        r"\((?P<n_threads>\d+) threads?, up to " + _sec("behind_sec") +
        r" sec behind schedule\) - the last report lacks them", owed=INT,
        before_sec=INT, n_threads=INT, behind_sec=FLOAT), None),
    "lag": Kind(_parser(
        ERROR + r"(?P<threads>.+?) can't keep up: " + _sec("behind_sec") +
        r" sec behind schedule, more than max-lag-sec "
        r"\((?P<max_lag_sec>\d+)\)", behind_sec=FLOAT, max_lag_sec=INT),
        None),
    "host-limit": Kind(_parser(
        ERROR + r"(?P<advice>ACT can't do the requested load - .+?) \(in "
        r"the " + _sec("window_sec") + r" sec since this thread was last on "
        r"schedule its I/Os took only " + _sec("io_pct") + r"% of the time"
        r"(?:; the CPUs were " + _sec("busy_pct") + r"% busy)?\)",
        window_sec=FLOAT, io_pct=FLOAT, busy_pct=FLOAT), None),
    "stall": Kind(_parser(
        ERROR + r"device (?P<device>.+?) stalled: " + _AN_IO + r" took " +
        _sec("took_sec") + r" sec, more than max-lag-sec "
        r"\((?P<max_lag_sec>\d+)\) - the drive, not the thread count, is the "
        r"limit", took_sec=FLOAT, max_lag_sec=INT, **_IO), None),
    "drive-limit": Kind(_parser(
        ERROR + r"(?:the drive is the limit: in the " + _sec("window_sec") +
        r" sec since this thread was last on schedule its (?P<n_io>\d+) I/Os "
        r"took " + _sec("io_sec") + r" sec \(\d+% of the time, average "
        r"[\d.]+ sec; longest " + _sec("longest_sec") + r" sec, " + _AN_IO +
        r" on (?P<device>.+)\) - )?drive\(s\) can't keep up - test stopped",
        window_sec=FLOAT, n_io=INT, io_sec=FLOAT, longest_sec=FLOAT, **_IO),
        None),
    "hung-io": Kind(_parser(
        ERROR + r"device (?P<device>.+?) is not responding: " + _AN_IO +
        r" has not completed after " + _sec("waited_sec") + r" sec, "
        r"(?:more than (?P<limit>.+?) - (?P<stopped>.+)|still outstanding "
        r"when the run ended)", waited_sec=FLOAT, **_IO), None),
    "io-errors": Kind(_parser(
        ERROR + r"stopping: (?P<count>\d+) I/O errors, more than "
        r"io-error-limit (?P<limit>\d+)", count=INT, limit=INT), None),
    "signal": Kind(_parser(
        r"stopped by signal (?P<signal>\S+) after (?P<sec>\d+) sec", sec=INT),
        None),
    "request": Kind(_parser(
        r"stopped on request: (?P<reason>.*) after (?P<sec>\d+) sec",
        sec=INT), None),
}


def parse(token, line):
    """The fields of line as a line of kind token, or None."""
    return LINE_KINDS[token].parse(line)


def line_kind(line, block=None):
    """The token of the kind of line (str, without its newline) - in block
    "config", "derived" or "names" of the header, or outside them - or
    None."""
    for token, kind in LINE_KINDS.items():
        if kind.block == block and kind.parse(line) is not None:
            return token
    return None


def device_size(line):
    """(device, size in bytes) of a device line (act_storage's, act_index's
    or act_prep's), or None."""
    for token in ("storage-device", "index-device", "prep-device"):
        f = parse(token, line)
        if f is not None:
            return f["device"], f["size"]
    return None
