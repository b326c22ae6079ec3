"""The interval reports of an ACT log, and how its run ended
(docs/log-format.md, sections 6-7): parse_block() reads one report,
hist_vector() makes a histogram a bucket vector, run_end() tells from the
end of the log body whether the run completed, stopped (RunEnd.stop: the
kind of stop, stops.STOP_KINDS) or was cut short; last_errors() gives the
last ERROR / stop lines of a log file, first_error() the first ERROR line
of a program's stderr or log.

The fast path that streams a whole body is scanner.py; both read reports
the same way: a histogram line "NAME (N total)" of a known name, its
bucket lines " (BB: COUNT) ...", anything else ignored.
"""

import os

from act.logfile import (ENC_ERRORS, MAX_BUCKET, AFTER_RE, BUCKET_RE,
                         NAME_LINE_RE, REPORT_RE, after_last_report, lines)
from act.logfile.stops import STOP_KINDS, stop_kind_of
from act.safefile import open_regular, read_lines


def parse_block(block, wanted, known):
    """Parse one interval report.

    block: the bytes of one report, from its "after N sec:" line (a leading
    newline is allowed) up to the next report; wanted: names (bytes) of the
    histograms to return; known: all histogram names of the log.  Lines
    that are neither the "after" line, nor a histogram name line, nor a
    bucket line (ERROR:, WARNING: ...) are ignored.

    Returns (time, hists): time is N (None if there is no "after" line) and
    hists maps each wanted histogram found (first occurrence) to
    (total, total_span, buckets), buckets mapping a bucket number to
    (count, span); a span is the (offset, width) of the digits in block.
    """
    time = None
    hists = {}
    cur = None
    pos = 0
    for line in block.split(b"\n"):
        start = pos
        pos += len(line) + 1
        if line[:2] == b" (":
            if cur is not None:
                for m in BUCKET_RE.finditer(line):
                    cur[int(m.group(1))] = (int(m.group(2)),
                                            (start + m.start(2),
                                             m.end(2) - m.start(2)))
            continue
        if time is None and line[:6] == b"after ":
            m = AFTER_RE.match(line)
            if m:
                time = int(m.group(1))
                continue
        m = NAME_LINE_RE.match(line)
        if m is None or m.group(1) not in known:
            continue                # not a histogram line: ignore
        cur = None
        name = m.group(1)
        if name in wanted and name not in hists:
            cur = {}
            hists[name] = (int(m.group(2)),
                           (start + m.start(2), m.end(2) - m.start(2)), cur)
    return time, hists


def hist_vector(hist, top):
    """[c0, ..., c_top, total] for a parse_block() histogram, or None when it
    is missing or not whole (its buckets do not add up to its total)."""
    if hist is None:
        return None
    total, _, buckets = hist
    vec = [0] * (top + 2)
    s = 0
    for b, (c, _) in buckets.items():
        if b > MAX_BUCKET:
            return None
        if b <= top:
            vec[b] = c
        s += c
    if s != total:
        return None
    vec[top + 1] = total
    return vec


class RunEnd:
    """How the run of a log ended: complete or not, and why not.

    kind is "complete"; "stopped" (a stop line follows the last complete
    report); "cut" (no stop line, the log just ends early: cut short, or
    still being written); or "damaged" (the analysis stopped at a missing
    or damaged report inside the log).

    stop is the kind of a stop (stops.STOP_KINDS: "host-limit",
    "drive-limit", "hung-io", "io-errors", "signal", "request"), None when
    the stop line names none of them or the run did not stop.
    """

    def __init__(self, kind, planned, ran, reason=None, stop=None):
        self.fell_behind = []       # the log's "host fell behind" lines
        self.kind = kind
        self.complete = kind == "complete"
        self.planned = planned      # test-duration-sec, or None
        self.ran = ran              # seconds: last complete report or stop
        self.reason = reason        # None when complete
        self.stop = stop            # "stopped": a STOP_KINDS key, or None

    @property
    def ended(self):
        """True when the log's end is known: complete, or stopped."""
        return self.kind in ("complete", "stopped")

    def __repr__(self):
        return "RunEnd(%r, %r, %r, %r)" % (self.kind, self.planned,
                                           self.ran, self.reason)


def _report_extent(lines, known):
    """Index just past the last histogram line of a report (lines[0] is its
    "after" line): what follows is after the report."""
    end = 1
    for i in range(1, len(lines)):
        line = lines[i]
        if line[:2] == b" (":
            end = i + 1
        else:
            m = NAME_LINE_RE.match(line)
            if m is not None and m.group(1) in known:
                end = i + 1
    return end


def stop_line(block):
    """The stop among the lines that follow the last complete report:
    (reason, seconds or None), or None if they hold no stop.

    A `stopped by signal NAME after S sec` line is the stop, or a `stopped
    on request: REASON after S sec` line (the parent that ran the program
    stopped it, and said why); otherwise the first `ERROR:` line that no
    later report (a report being written) follows - lag, I/O-error and
    hung-I/O stops print ERROR lines and end.
    """
    texts = [line.decode("utf-8", ENC_ERRORS).strip() for line in block]
    for text in texts:
        for kind in ("request", "signal"):
            f = lines.parse(kind, text)
            if f is not None:
                return text, f["sec"]
    for text in after_last_report(texts):
        if text.startswith("ERROR:"):
            return text[len("ERROR:"):].strip(), None
    return None


ERRORS_TAIL = 1 << 16             # bytes of the end read by last_errors()
FIRST_ERROR_LINE = 1 << 16        # bytes of a line first_error() reads


def last_errors(path, limit=3):
    """The last `limit` ERROR:, "stopped by signal" and "stopped on
    request" lines of the log at path (in its last 64 KiB), as str; []
    when it cannot be read (or is not a regular file:
    safefile.open_regular)."""
    try:
        with open_regular(path) as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - ERRORS_TAIL))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    found = [line for line in text.split("\n")
             if line.startswith("ERROR:") or
             line.startswith((STOP_KINDS["signal"], STOP_KINDS["request"]))]
    return found[-limit:]


def first_error(err_path, log_path):
    """The first ERROR: line of a program's stderr (the file at err_path)
    or of its log, else the last line of its stderr; "" when neither has
    one (or cannot be read: safefile.open_regular)."""
    last = ""
    for path in (err_path, log_path):
        try:
            with open_regular(path) as f:
                for raw in read_lines(f, FIRST_ERROR_LINE):
                    line = raw.decode("utf-8", "replace")
                    if line.startswith("ERROR:"):
                        return line.strip()
                    if path == err_path and line.strip():
                        last = line.strip()
        except OSError:
            pass
    return last


FELL_BEHIND = lines.FELL_BEHIND.encode()


def run_end(tail, known, duration, fallback_ran=None):
    """How the run ended (_run_end), with the lines of the tail that say
    the host fell behind at the end of the run (log-format.md, "The last
    report"): requests due before the end that the last report lacks."""
    end = _run_end(tail, known, duration, fallback_ran)
    end.fell_behind = [
        line[len(FELL_BEHIND):].decode("utf-8", ENC_ERRORS).strip()
        for line in tail.replace(b"\r", b"").split(b"\n")
        if line.startswith(FELL_BEHIND)]
    return end


def _run_end(tail, known, duration, fallback_ran=None):
    """How the run ended, from the end of the log body.

    tail: the last bytes of the body (whole lines), from the start of the
    next-to-last report on (or the whole body); known: the log's histogram
    names (bytes); duration: test-duration-sec or None; fallback_ran: when
    reports came before the tail, the last slice end found (None if none
    came).

    The last complete report is the last one whose histograms are all
    there and whole.  The run is complete when that report is at (or, as
    the reference ACT rounds its last report up to the interval, after)
    test-duration-sec and no stop line (stop_line()) follows it; without
    test-duration-sec, when no stop line follows it.
    """
    starts = [m.start() + 1 for m in REPORT_RE.finditer(tail)]
    if tail.startswith(b"after "):
        starts.insert(0, 0)
    bounds = starts + [len(tail)]
    last = after = None
    for k in range(len(starts) - 1, -1, -1):
        own = tail[bounds[k]:bounds[k + 1]]
        t, hists = parse_block(own, known, known)
        if t is not None and all(hist_vector(hists.get(n), MAX_BUCKET)
                                 is not None for n in known):
            last = t
            lines = own.replace(b"\r", b"").split(b"\n")
            after = (lines[_report_extent(lines, known):] +
                     tail[bounds[k + 1]:].replace(b"\r", b"").split(b"\n"))
            break
    if last is None:
        after = tail.replace(b"\r", b"").split(b"\n")
    stop = stop_line(after)
    ran = last or fallback_ran or 0
    if stop is not None:
        reason, sec = stop
        return RunEnd("stopped", duration, ran if sec is None else sec,
                      reason, stop_kind_of(after))
    if last is None and fallback_ran is not None:
        # earlier reports were read, but the last ones kept are all broken
        return RunEnd("cut", duration, ran,
                      "no complete report at the end of the log")
    if duration is None:
        if last is None:
            return RunEnd("cut", None, 0, "log ends before the first report")
        return RunEnd("complete", None, ran)
    if last is not None and last >= duration:
        return RunEnd("complete", duration, ran)
    return RunEnd("cut", duration, ran,
                  "log ends after %d of %d sec" % (ran, duration))
