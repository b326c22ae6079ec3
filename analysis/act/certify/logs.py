"""Reading ACT logs: the identity and size lines of the header, the last
report, the ERROR lines, and a growing log's reads over 1 ms.

act_certify's own readers, to be replaced by act.logfile (branch pylat:
header.py, reports.py, stops.py, follow.py) once merged."""

import os
import re
from collections import deque


_AFTER_RE = re.compile(rb"^after (\d+) sec:")
_READS_RE = re.compile(rb"^reads \((\d+) total\)")
_BUCKET_RE = re.compile(rb"\((\d+): (\d+)\)")
_IDENTITY_RE = re.compile(r"^(.+?) model = (.*), serial = (.*), "
                          r"firmware = (.*)$")
_START_RE = re.compile(r"^start time = (\S+)$")
_DEVICE_RE = re.compile(r"^(.+?) size = (\d+) bytes(,|$)")
_LAST_AFTER_RE = re.compile(rb"\nafter (\d+) sec:\n")


def log_identity(path):
    """({device: {model, serial, firmware}}, {device: size}, start time)
    from a log's header."""
    ident, sizes, start = {}, {}, None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f):
                line = line.rstrip("\n")
                if line == "HISTOGRAM NAMES" or n > 100000:
                    break
                m = _IDENTITY_RE.match(line)
                if m:
                    ident[m.group(1)] = {"model": m.group(2),
                                         "serial": m.group(3),
                                         "firmware": m.group(4)}
                    continue
                m = _START_RE.match(line)
                if m:
                    start = m.group(1)
                    continue
                m = _DEVICE_RE.match(line)
                if m:
                    sizes[m.group(1)] = int(m.group(2))
    except OSError:
        pass
    return ident, sizes, start


def log_last_report(path):
    """The seconds of the last 'after N sec:' line (0 if none)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - (1 << 20)))
            data = b"\n" + f.read()
    except OSError:
        return 0
    found = _LAST_AFTER_RE.findall(data)
    return int(found[-1]) if found else 0


def log_errors(path, limit=3):
    """The log's last ERROR: / stopped lines."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - (1 << 16)))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    found = [l for l in text.split("\n")
             if l.startswith("ERROR:") or l.startswith("stopped by signal")]
    return found[-limit:]


class LogFollower:
    """Follows a growing log: the cumulative count of reads and of reads
    over 1 ms (1024 us in a microsecond log) at each report."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.partial = b""
        self.micro = False
        self.sec = None
        self.reads = None           # [total, over] of the report being read
        self.points = deque()       # (sec, total, over)

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read(1 << 22)
                self.pos = f.tell()
        except OSError:
            return
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            self._line(line)

    def _line(self, line):
        if self.reads is not None:
            if line.startswith(b" ("):
                top = 10 if self.micro else 0
                self.reads[1] += sum(int(c) for b, c in
                                     _BUCKET_RE.findall(line)
                                     if int(b) > top)
                return
            self.points.append((self.sec, self.reads[0], self.reads[1]))
            self.reads = None
        if line.startswith(b"microsecond-histograms:"):
            self.micro = line.split(b":", 1)[1].strip() in (b"yes", b"y",
                                                            b"true")
            return
        m = _AFTER_RE.match(line)
        if m:
            self.sec = int(m.group(1))
            return
        m = _READS_RE.match(line)
        if m and self.sec is not None:
            self.reads = [int(m.group(1)), 0]

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


def first_error(err_path, log_path):
    """The first ERROR: line of the program's stderr or log, else the last
    line of its stderr."""
    last = ""
    for path in (err_path, log_path):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("ERROR:"):
                        return line.strip()
                    if path == err_path and line.strip():
                        last = line.strip()
        except OSError:
            pass
    return last
