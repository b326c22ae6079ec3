"""Follow an ACT log while it is being written: at each report, the
cumulative count of reads and of reads over 1 ms, read with the header
and report parsers of this package (act_certify's live progress line).

    f = LogFollower(path)
    f.poll()                 # read what was written since the last poll
    f.last                   # seconds of the last whole report, or None
    f.window(300)            # (% of reads over 1 ms, seconds covered)
"""

import io
import os
from collections import deque

from act.logfile import (AFTER_RE, ENC_ERRORS, REPORT_RE, LogError,
                         over_1ms_bucket)
from act.logfile.header import read_header
from act.logfile.reports import hist_vector, parse_block
from act.safefile import open_regular

READ_SIZE = 1 << 22               # bytes read per poll at most
TAIL_SIZE = 1 << 20               # bytes of the end read by last_report()


class LogFollower:
    """Follows a growing log: the cumulative count of reads and of reads
    over 1 ms at each whole report (one whose reads histogram is all
    there: its buckets add up to its total)."""

    def __init__(self, path):
        self.path = path
        self.pos = 0                # bytes of the file read so far
        self.head = b""             # the header, until it is complete
        self.body = b""             # the end of a line not yet whole
        self.pending = b""          # the last report read, maybe unfinished
        self.header = None          # LogHeader, once read
        self.top = 0                # over_1ms_bucket()
        self.last = None            # seconds of the last report counted
        self.points = deque()       # (sec, total reads, reads over 1 ms)

    def poll(self):
        """Read what was added to the log; False if it cannot be read."""
        try:
            with open_regular(self.path) as f:
                f.seek(self.pos)
                data = f.read(READ_SIZE)
        except OSError:
            return False
        self.pos += len(data)
        if self.header is None:
            self.head += data
            if not self._read_header():
                return True
            data = b""
        whole = (self.body + data).rfind(b"\n") + 1
        text = self.body + data
        self.body = text[whole:]
        self._reports(text[:whole])
        return True

    def _read_header(self):
        """Parse the header once its HISTOGRAM NAMES block has ended: a
        blank line, or a whole "after N sec:" line, follows it (only whole
        lines are parsed: a log may be cut anywhere while it is written)."""
        whole = self.head[:self.head.rfind(b"\n") + 1]
        at = whole.find(b"HISTOGRAM NAMES")
        if at < 0:
            return False
        if whole.find(b"\n\n", at) < 0 and not any(
                AFTER_RE.match(whole, m.start() + 1)
                for m in REPORT_RE.finditer(whole, at)):
            return False
        f = io.BytesIO(whole)
        try:
            h = read_header(f)
        except LogError:
            return False
        self.header = h
        self.known = frozenset(n.encode("utf-8", ENC_ERRORS)
                               for n in h.names)
        self.top = over_1ms_bucket(h.microsecond)
        self.body = h.rest + f.read() + self.head[len(whole):]
        self.head = b""
        return True

    def _reports(self, text):
        """Count the whole reports in text (whole lines); keep the last,
        perhaps still being written, for the next poll."""
        text = self.pending + text
        starts = [m.start() + 1 for m in REPORT_RE.finditer(text)]
        if text.startswith(b"after "):
            starts.insert(0, 0)
        self.pending = text[starts[-1]:] if starts else b""
        bounds = starts + [len(text)]
        for k in range(len(starts)):
            block = text[bounds[k]:bounds[k + 1]]
            t, hists = parse_block(block, {b"reads"}, self.known)
            vec = hist_vector(hists.get(b"reads"), self.top)
            if t is None or vec is None or (self.last is not None and
                                            t <= self.last):
                continue
            total = vec[-1]
            self.points.append((t, total, total - sum(vec[:self.top + 1])))
            self.last = t

    def window(self, seconds):
        """(% of reads over 1 ms, seconds covered) over the last `seconds`
        of reports (since the start when the run is shorter), or None."""
        if not self.points:
            return None
        last = self.points[-1]
        cut = last[0] - seconds
        while len(self.points) > 1 and self.points[1][0] <= cut:
            self.points.popleft()
        base = self.points[0] if self.points[0][0] <= cut else (0, 0, 0)
        total = last[1] - base[1]
        if total <= 0:
            return None
        return 100.0 * (last[2] - base[2]) / total, last[0] - base[0]


def last_report(path):
    """The seconds of the last "after N sec:" line of a log (0 if none)."""
    try:
        with open_regular(path) as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - TAIL_SIZE))
            data = b"\n" + f.read()
    except OSError:
        return 0
    found = [m.group(1) for m in (AFTER_RE.match(data, i + 1) for i in
             (m.start() for m in REPORT_RE.finditer(data))) if m]
    return int(found[-1]) if found else 0
