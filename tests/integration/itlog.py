"""Description: the strict parser of an act_storage or act_index log, as
docs/log-format.md lays it out, for the integration tests (through
itest.py, which re-exports it: itest.parse_log, itest.ParseError, ...).

Not a test itself. parse_log(text) returns a Log (its header, config
echo, derived config, device, identity and start-time lines, histogram
names, reports of Hists and the tail after the last one) or raises
ParseError naming the line; parse_index_log for act_index;
interval_rates(log, name) the operations per second between reports.
"""

import re

IDENTITY_LINE_RE = re.compile(
    r"^(?P<name>\S+) model = (?P<model>.*), serial = (?P<serial>.*), "
    r"firmware = (?P<firmware>.*)$")
# the facts line of a block device (a loop device: then what it is over)
# or of a file (docs/log-format.md, "The identity block")
FACTS_LINE_RE = re.compile(
    r"^(?P<name>\S+) (?:rdev = (?P<rdev>\d+:\d+), wwid = (?P<wwid>.*?)"
    r"(?:, backing_dev = (?P<backing_dev>\d+), backing_ino = "
    r"(?P<backing_ino>\d+), backing_gen = (?P<backing_gen>\d+|unknown), "
    r"backing_file = (?P<backing_file>.*))?|dev = (?P<dev>\d+), ino = "
    r"(?P<ino>\d+), gen = (?P<gen>\d+|unknown))$")
# a device's drive health (docs/log-format.md, "Drive health"): its source,
# its start sample (identity block), its samples after reports
HEALTH_SOURCE_RE = re.compile(
    r"^health (?P<name>\S+): (?P<source>nvme smart log(?:, ocp log c0h)?|"
    r"hwmon temperature|none \((?P<why>.+)\))$")
HEALTH_START_RE = re.compile(r"^health (?P<name>\S+) at start: "
                             r"(?P<fields>\w+ = .*)$")
HEALTH_SAMPLE_RE = re.compile(
    r"^health (?P<name>\S+) at (?P<sec>\d+\.\d{3}) sec: "
    r"(?:not read - (?P<why>.+)|(?P<fields>\w+ = .*))$")
# the fields of a sample, in this order, each optional
HEALTH_FIELDS = ("warning", "temp", "sensors", "spare", "spare_threshold",
                 "used", "media_errors", "error_log_entries", "units_read",
                 "units_written", "warning_temp_time", "critical_temp_time",
                 "throttle_transitions", "throttle_time", "wctemp", "cctemp",
                 "physical_written")
START_TIME_RE = re.compile(r"^start time = (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$")
BUCKET_LINE_RE = re.compile(r"^( \(\d\d: \d{10,}\)){1,4}$")
BUCKET_RE = re.compile(r" \((\d\d): (\d{10,})\)")
DEVICE_LINE_RE = re.compile(
    r"^(?P<name>\S+) size = (?P<size>\d+) bytes, (?P<nlb>\d+) large blocks, "
    r"minimum IO size = (?P<minio>\d+) bytes(?P<buffered>, buffered)?$")
# act_index's device line (docs/log-format.md 3); ", buffered" as in
# act_storage's when the file system refuses O_DIRECT.
INDEX_DEVICE_LINE_RE = re.compile(
    r"^(?P<name>\S+) size = (?P<size>\d+) bytes(?P<buffered>, buffered)?$")



# ----------------------------------------------------------------------------
# Parsing a log (docs/log-format.md).

class ParseError(Exception):
    def __init__(self, line_no, msg, line=None):
        Exception.__init__(self, "line %d: %s%s" % (
            line_no, msg, "" if line is None else " (got %r)" % line))


class Hist:
    def __init__(self, name, total, buckets):
        self.name = name
        self.total = total
        self.buckets = buckets  # list of (index, count), as printed

    def counts(self):
        return dict(self.buckets)


class Report:
    def __init__(self, sec, line_no):
        self.sec = sec
        self.line_no = line_no
        self.hists = {}


def health_fields(text):
    """A sample's fields, {name: value text}; ParseError when a name is
    not known or out of order."""
    out = {}
    last = -1
    for part in text.split(", "):
        name, sep, value = part.partition(" = ")
        if not sep or name not in HEALTH_FIELDS:
            raise ParseError(0, "unknown health field %r" % part, text)
        k = HEALTH_FIELDS.index(name)
        if k <= last:
            raise ParseError(0, "health field %s out of order" % name, text)
        last = k
        out[name] = value
    return out


class Sample:
    """A health sample of the run: device, t (seconds), fields ({} when
    not read), why (not read), report_sec (the last report before it, 0:
    none), line_no."""

    def __init__(self, m, report_sec, line_no):
        self.device = m.group("name")
        self.t = float(m.group("sec"))
        self.why = m.group("why")
        self.fields = health_fields(m.group("fields")) \
            if m.group("fields") else {}
        self.report_sec = report_sec
        self.line_no = line_no


# a stop line (docs/log-format.md, "End of run"): no health sample after it
def is_stop_line(line):
    return line.startswith(("stopped by signal ", "stopped on request: ")) \
        or (line.startswith("ERROR: ") and (
            "stopping: " in line or "test stopped" in line or
            "can't keep up" in line or "hung" in line))


class Log:
    def __init__(self):
        self.lines = []
        self.version = None
        self.program_line = None
        self.notice = None
        self.cpus = None
        self.heading = None
        self.config = []      # [(name, value)] in order
        self.derived = []     # [(name, value)] in order
        self.devices = []     # device lines
        self.identity = []    # {name, model, serial, firmware} per block dev
        self.facts = []       # FACTS_LINE_RE's groups per device
        self.health = {}      # device -> its health source line's text
        self.health_start = {}  # device -> its start sample's fields
        self.samples = []     # Sample, the run's health samples in order
        self.start_time = None  # "2026-11-23T03:47:33Z"
        self.names = []       # histogram names
        self.reports = []     # complete reports
        self.tail = []        # lines after the last complete report
        self.tail_line_no = None
        self.incomplete = False  # EOF inside a report
        self.skipped = []     # lines skipped between reports (allow_between)

    def cfg(self, name):
        for n, v in self.config:
            if n == name:
                return v
        return None

    def der(self, name):
        for n, v in self.derived:
            if n == name:
                return v
        return None

    def totals(self, name):
        """[(sec, total)] of one histogram over the complete reports."""
        return [(r.sec, r.hists[name].total) for r in self.reports]


def _kv(line, line_no):
    m = re.match(r"^([a-z0-9-]+): (.*)$", line)
    if m is None:
        raise ParseError(line_no, "expected 'name: value'", line)
    return m.group(1), m.group(2)


def parse_log(text, heading="ACT-STORAGE CONFIGURATION",
              program_line="Storage device IO test", allow_between=(),
              strict_buckets=True, device_re=None):
    """Parse a whole log. Header violations raise ParseError; reports are
    parsed while they are complete and well formed; a malformed report
    raises ParseError; what follows the last complete report is left in
    log.tail (log.incomplete if EOF came inside a report); a log stopped
    in device setup - an ERROR or stop line where the device lines would
    be - has no devices, no reports, and that line on in log.tail. Lines
    starting with one of allow_between are skipped between reports
    (log.skipped).
    device_re: the device line pattern (default act_storage's)."""
    if device_re is None:
        device_re = DEVICE_LINE_RE
    log = Log()
    # A last line without its newline is not whole: left out (a report
    # cut there counts as incomplete).
    lines = text.split("\n")[:-1]
    log.lines = lines
    n = len(lines)
    i = 0

    def need(cond, msg):
        if not cond:
            raise ParseError(i + 1, msg, lines[i] if i < n else "<EOF>")

    def line(k=None):
        return lines[i] if i < n else None

    need(line() == "", "line 1 must be empty")
    i += 1
    m = re.match(r"^ACT version (\S+)$", line() or "")
    need(m is not None, "expected 'ACT version V'")
    log.version = m.group(1)
    i += 1
    need(line() == program_line, "expected %r" % program_line)
    log.program_line = line()
    i += 1
    need(line() is not None and line() != "", "expected a notice line")
    log.notice = line()
    i += 1
    need(line() == "", "expected an empty line after the notice")
    i += 1

    m = re.match(r"^detected (\d+) CPUs$", line() or "")
    if m is not None:
        log.cpus = int(m.group(1))
        i += 1
        need(line() == "", "expected an empty line after 'detected N CPUs'")
        i += 1

    need(line() == heading, "expected %r" % heading)
    log.heading = line()
    i += 1
    while i < n and lines[i] != "":
        log.config.append(_kv(lines[i], i + 1))
        i += 1
    need(line() == "", "config block must end with an empty line")
    i += 1

    need(line() == "DERIVED CONFIGURATION",
         "expected 'DERIVED CONFIGURATION'")
    i += 1
    while i < n and lines[i] != "":
        log.derived.append(_kv(lines[i], i + 1))
        i += 1
    need(line() == "", "derived block must end with an empty line")
    i += 1

    # Stopped while the devices were set up (docs/log-format.md: a signal,
    # a hung setup I/O, a device error): no device line, no report - what
    # follows is the tail.
    if line() is not None and line().startswith((
            "ERROR: ", "stopped by signal ", "stopped on request: ")):
        log.tail = lines[i:]
        log.tail_line_no = i + 1
        return log

    while i < n and lines[i] != "":
        need(device_re.match(lines[i]) is not None,
             "device line does not match %s" % device_re.pattern)
        log.devices.append(lines[i])
        i += 1
    need(len(log.devices) > 0, "expected at least one device line")
    need(line() == "", "device lines must end with an empty line")
    i += 1

    # Our identity block (docs/log-format.md): per block device its model,
    # serial and firmware and its facts line, per file its facts line,
    # then the start time, then an empty line. Reference logs have none.
    # Each device's health source line comes after its facts line (where
    # it would be, for a file this run created), its start sample right
    # after it.
    if line() is not None and line() != "HISTOGRAM NAMES":
        while i < n and lines[i] != "":
            m = IDENTITY_LINE_RE.match(lines[i])
            f = FACTS_LINE_RE.match(lines[i])
            hs = HEALTH_SOURCE_RE.match(lines[i])
            ht = HEALTH_START_RE.match(lines[i])
            if hs is not None:
                dev = hs.group("name")
                need(dev not in log.health, "two health source lines of %s"
                     % dev)
                prev = lines[i - 1].split(" ", 1)[0]
                need(prev == dev or not any(
                    f2["name"] == dev for f2 in log.facts),
                     "the health source line of %s must follow its facts "
                     "line" % dev)
                log.health[dev] = hs.group("source")
            elif ht is not None:
                dev = ht.group("name")
                need(HEALTH_SOURCE_RE.match(lines[i - 1]) is not None and
                     lines[i - 1].startswith("health %s: " % dev) and
                     not log.health[dev].startswith("none "),
                     "a start sample must follow its device's health source "
                     "(not none)")
                try:
                    log.health_start[dev] = health_fields(ht.group("fields"))
                except ParseError as e:
                    raise ParseError(i + 1, str(e), lines[i])
            elif m is not None:
                log.identity.append(m.groupdict())
            elif f is not None:
                log.facts.append(f.groupdict())
            else:
                m = START_TIME_RE.match(lines[i])
                need(m is not None, "expected '<device> model = M, serial = "
                     "S, firmware = F', '<device> rdev = ...', '<device> "
                     "dev = ...', 'health <device>: ...' or 'start time = "
                     "<ISO 8601 UTC>'")
                need(log.start_time is None, "two start time lines")
                log.start_time = m.group(1)
            i += 1
        need(log.start_time is not None, "identity block without start time")
        need(line() == "", "the identity block must end with an empty line")
        i += 1

    need(line() == "HISTOGRAM NAMES", "expected 'HISTOGRAM NAMES'")
    i += 1
    while i < n and lines[i] != "":
        log.names.append(lines[i])
        i += 1
    need(line() == "", "histogram names must end with an empty line")
    i += 1

    def add_sample(hm, k):
        try:
            log.samples.append(Sample(hm, log.reports[-1].sec
                                      if log.reports else 0, k + 1))
        except ParseError as e:
            raise ParseError(k + 1, str(e), lines[k])

    def samples():
        # health samples after a report, between reports
        nonlocal i
        while i < n and HEALTH_SAMPLE_RE.match(lines[i]):
            add_sample(HEALTH_SAMPLE_RE.match(lines[i]), i)
            i += 1

    # Reports.
    while True:
        samples()
        while allow_between and i < n and lines[i].startswith(allow_between):
            log.skipped.append(lines[i])
            i += 1
        samples()
        start_i = i
        m = re.match(r"^after (\d+) sec:$", line() or "")
        if m is None:
            break
        rep = Report(int(m.group(1)), i + 1)
        i += 1
        ok = True
        for name in log.names:
            if i >= n:
                ok = False
                break
            hm = re.match(r"^" + re.escape(name) + r" \((\d+) total\)$",
                          lines[i])
            need(hm is not None, "expected '%s (T total)' in the report "
                 "'after %d sec'" % (name, rep.sec))
            total = int(hm.group(1))
            i += 1
            bucket_lines = []
            while i < n and lines[i].startswith(" ("):
                need(BUCKET_LINE_RE.match(lines[i]) is not None,
                     "bad bucket line (want %s)" % BUCKET_LINE_RE.pattern)
                bucket_lines.append(lines[i])
                i += 1
            if i >= n:
                ok = False  # EOF: this histogram may be cut short
                break
            buckets = []
            for k, bl in enumerate(bucket_lines):
                found = [(int(a), int(b)) for a, b in BUCKET_RE.findall(bl)]
                if strict_buckets and k < len(bucket_lines) - 1 and \
                        len(found) != 4:
                    raise ParseError(i + 1 - len(bucket_lines) + k,
                                     "only the last bucket line of %s may "
                                     "have fewer than 4 buckets" % name, bl)
                buckets.extend(found)
            idx = [b for b, _ in buckets]
            if strict_buckets:
                if any(idx[j] >= idx[j + 1] for j in range(len(idx) - 1)):
                    raise ParseError(rep.line_no, "bucket indexes of %s not "
                                     "strictly increasing: %s" % (name, idx))
                if any(c == 0 for _, c in buckets):
                    raise ParseError(rep.line_no, "zero bucket printed in %s"
                                     % name)
                if any(b > 64 for b in idx):
                    raise ParseError(rep.line_no, "bucket index > 64 in %s"
                                     % name)
            if sum(c for _, c in buckets) != total:
                raise ParseError(rep.line_no, "%s: total %d != sum of "
                                 "buckets %d" % (name, total,
                                                 sum(c for _, c in buckets)))
            rep.hists[name] = Hist(name, total, buckets)
        if ok and i < n and lines[i] == "":
            i += 1
            log.reports.append(rep)
            continue
        if i >= n:
            log.incomplete = True
            i = start_i
            break
        raise ParseError(i + 1, "report 'after %d sec' must end with an "
                         "empty line" % rep.sec, lines[i])
    # No health sample after a stop line (anywhere: lines between reports
    # may hold it, allow_between).
    stopped = False
    for k in range(n):
        if stopped and HEALTH_SAMPLE_RE.match(lines[k]):
            raise ParseError(k + 1, "a health sample after a stop line",
                             lines[k])
        stopped = stopped or is_stop_line(lines[k])

    # The tail: health samples (the end sample, one held up by a drive)
    # are taken out of it.
    tail = []
    log.tail_line_no = i + 1
    for k in range(i, n):
        hm = HEALTH_SAMPLE_RE.match(lines[k])
        if hm is None:
            tail.append(lines[k])
            continue
        add_sample(hm, k)
        if k == log.tail_line_no - 1:
            log.tail_line_no += 1
    log.tail = tail
    return log


def parse_index_log(text, **kw):
    """parse_log for act_index: its banner line, heading and device line."""
    kw.setdefault("heading", "ACT-INDEX CONFIGURATION")
    kw.setdefault("program_line", "Index device IO test")
    kw.setdefault("device_re", INDEX_DEVICE_LINE_RE)
    return parse_log(text, **kw)


def interval_rates(log, name):
    """Operations per second of one histogram in each interval between
    consecutive complete reports (the first interval, from the start, is
    left out): [(sec of the interval's end, rate)]."""
    t = log.totals(name)
    return [(t[k][0], (t[k][1] - t[k - 1][1]) / float(t[k][0] - t[k - 1][0]))
            for k in range(1, len(t))]
