"""ReportScanner: the fast streaming reader of a log body, batch by batch
of slice ends (the speed of act_latency.py lives here).

It reads reports the way reports.parse_block() does, and falls back to
it report by report wherever the body is not regular; at the end of the
body reports.run_end() tells how the run ended.

The drive health lines between reports (docs/log-format.md, "Drive
health") are taken out of the body as it is read - kept, as they are
(bytes), in health_lines - so that the reports around them keep the
sizes and layout they have without them (the fast path's runs of equal
reports), and nothing else is read differently.
"""

import struct
from itertools import chain

from act.logfile import ENC_ERRORS, AFTER_RE, REPORT_RE
from act.logfile.lines import HEALTH as HEALTH_PREFIX
from act.logfile.reports import hist_vector, parse_block, run_end

CHUNK_SIZE = 1 << 20              # body read size
GAP_LIMIT = 32 << 20              # bytes from a report to the next, at most
GAP_PER_SEC = 64 << 10            # ... and per second of report interval


_STOP = object()
HEALTH = b"\n" + HEALTH_PREFIX.encode()   # a health line, in a body


class ReportScanner:
    """Stream the interval reports of an ACT log body.

    Iterating yields batches (ends, columns): ends lists the slice ends
    (k*T seconds) whose reports were found, in order; columns[u][j] lists,
    for the u-th distinct selected histogram, the cumulative count of
    bucket j (j = 0..top) at each of these reports, and columns[u][top+1]
    its total.  A column of a bucket that is empty throughout the batch may
    be None.

    It stops at the first report that is missing or incomplete, slice end
    or not (_single() has the rule); unless that is just the end of a log
    still being written, self.stopped says why.

    Speed: an ACT log is very regular.  Counts only grow, so consecutive
    reports of the same size nearly always have the same layout; such a
    run is decoded at once with one struct.Struct, at the offsets learnt
    from its first report, after checking that its last report has the
    same layout and that every report has its "after" line, bucket numbers
    and brackets at the same places.  Anything irregular (a field getting
    wider, a bucket appearing, an ERROR line, a missing report) breaks the
    chunk into runs of equal-size reports, and what is still irregular is
    parsed report by report, line by line.
    """

    def __init__(self, f, initial, names, selected, interval, slice_sec, top,
                 chunk_size=CHUNK_SIZE, duration=None):
        self.f = f
        self.initial = initial
        self.known = frozenset(n.encode("utf-8", ENC_ERRORS) for n in names)
        self.unique = list(dict.fromkeys(n.encode("utf-8", ENC_ERRORS)
                                          for n in selected))
        self.wanted = frozenset(self.unique)
        self.interval = interval
        self.slice_sec = slice_sec
        self.top = top
        self.chunk_size = chunk_size
        self.target = slice_sec     # next slice end
        self.expected = interval    # next report time expected
        self.stopped = None
        self.duration = duration
        self.end = None             # RunEnd, once the log was read to its end
        # the most bytes between two reports' starts (a report of 128
        # devices is about 1 MiB; ERROR lines, 10 a second at most)
        self.gap_limit = GAP_LIMIT + interval * GAP_PER_SEC
        self._prev = b""            # the last report before the buffer
        self._earlier = False       # reports dropped before self._prev
        self._structs = {}
        self.health_lines = []      # the body's health lines (bytes)

    def __iter__(self):
        # One working buffer, reused: memory stays the same however long
        # the log is.
        f = self.f
        buf = self._take_health(bytearray(b"\n" + self.initial))
        chunk = bytearray(self.chunk_size)
        view = memoryview(chunk)
        eof = False
        # One read at a time (readinto1): from a pipe, what has arrived is
        # analysed (and its rows printed) without waiting for a full chunk.
        # First what the header's reader left buffered: a readinto1 bigger
        # than the buffer would also wait for one more read.
        readinto = getattr(f, "readinto1", f.readinto)
        first = view[:len(f.peek())] if hasattr(f, "peek") else chunk
        while not eof:
            got = readinto(first)
            first = chunk
            if got:
                buf += view[:got]
                buf = self._take_health(buf)
                end = buf.rfind(b"\nafter ")
                if end <= 0:
                    if len(buf) > self.gap_limit:
                        # no report for longer than a report and the
                        # lines of an interval can be: not an ACT log
                        # there (e.g. zeros) - never kept in memory whole
                        m = AFTER_RE.match(buf, 1)
                        self.stopped = "%d MiB of the log %s hold no " \
                            "other report" % (len(buf) >> 20, (
                                "from its report after %s sec" %
                                m.group(1).decode()) if m else "here")
                        return
                    continue        # no complete report yet
            else:
                eof = True
                end = buf.rfind(b"\n") + 1   # drop a partial last line
            start = buf.find(b"\nafter ", 0, end)
            if eof:
                tail, earlier = self._tail(buf, end)
            if start >= 0:
                for batch in self._region(buf, start, end, eof):
                    if batch is _STOP:
                        if eof and self.stopped is None:
                            self._finish(tail, earlier)
                        return
                    yield batch
            if eof:
                self._finish(tail, earlier)
            else:
                # Keep the last report processed: the next-to-last report
                # of the log is needed to tell how the run ended.
                last = buf.rfind(b"\nafter ", 0, end)
                if last >= 0 and (self._prev.startswith(b"\nafter ") or
                                  buf.find(b"\nafter ", 0, last) >= 0):
                    self._earlier = True
                self._prev = bytes(buf[max(last, 0):end])
            del buf[:end]

    def _take_health(self, buf):
        """buf without its whole health lines (a partial last one stays
        for the next read), which go to self.health_lines."""
        i = buf.find(HEALTH)
        if i < 0:
            return buf
        keep, pos = [], 0
        while i >= 0:
            j = buf.find(b"\n", i + 1)
            if j < 0:
                break
            keep.append(buf[pos:i])
            self.health_lines.append(bytes(buf[i + 1:j]))
            pos = j
            i = buf.find(HEALTH, pos)
        keep.append(buf[pos:])
        return bytearray(b"".join(keep))

    def _tail(self, buf, end):
        """(the end of the log body at EOF, from the start of its
        next-to-last report or the whole body; whether reports came
        before it)."""
        last = buf.rfind(b"\nafter ", 0, end)
        before = buf.rfind(b"\nafter ", 0, last) if last > 0 else -1
        if before >= 0:
            return (bytes(buf[before:end]),
                    self._earlier or self._prev.startswith(b"\nafter ") or
                    buf.find(b"\nafter ", 0, before) >= 0)
        return self._prev + bytes(buf[:end]), self._earlier

    def _finish(self, tail, earlier):
        """Set self.end: how the run ended."""
        found = self.target - self.slice_sec
        self.end = run_end(tail, self.known, self.duration,
                           max(found, 0) if earlier else None)

    def _region(self, buf, s, e, eof):
        """Batches of the reports in buf[s:e] (s at a report)."""
        n = buf.count(b"\nafter ", s, e)
        if n >= 2:
            size = buf.find(b"\nafter ", s + 1, e) - s
            batch = self._regular(buf, s, e, n, size)
            if batch is not None:
                if batch[0]:
                    yield batch
                return
        # Irregular: cut into runs of consecutive reports of equal size.
        starts = [m.start() for m in REPORT_RE.finditer(buf, s, e)] + [e]
        i = 0
        while i < len(starts) - 1:
            size = starts[i + 1] - starts[i]
            j = i + 1
            while j < len(starts) - 1 and starts[j + 1] - starts[j] == size:
                j += 1
            batch = None
            if j - i >= 2:
                batch = self._regular(buf, starts[i], starts[j], j - i, size)
            if batch is not None:
                if batch[0]:
                    yield batch
            else:
                for k in range(i, j):
                    a, b = starts[k], starts[k + 1]
                    batch = self._single(bytes(buf[a:b]), eof and b == e)
                    if batch is not None:
                        yield batch
                        if batch is _STOP:
                            return
            i = j

    def _signature(self, hists):
        """The layout of the selected histograms in a report, or None."""
        sig = []
        for name in self.unique:
            hist = hists.get(name)
            if hist_vector(hist, self.top) is None:
                return None
            sig.append((hist[1], tuple(sorted((b, span) for b, (c, span)
                                              in hist[2].items()))))
        return tuple(sig)

    def _struct(self, sig, size):
        """struct.Struct decoding a report of this layout, where each field
        goes, and the bytes that must surround the fields."""
        key = (sig, size)
        st = self._structs.get(key)
        if st is None:
            fields, marks = [], [(i, c) for i, c in enumerate(b"\nafter ")]
            for u, (total_span, buckets) in enumerate(sig):
                off, width = total_span
                fields.append((total_span, u, self.top + 1))
                marks += [(off - 1, 40), (off + width, 32)]
                for b, span in buckets:
                    if b <= self.top:
                        off, width = span
                        fields.append((span, u, b))
                        marks += [(off - 4, 48 + b // 10),
                                  (off - 3, 48 + b % 10), (off + width, 41)]
            fields.sort()
            fmt, cur = [], 0
            for (off, width), u, slot in fields:
                fmt.append("%dx%ds" % (off - cur, width))
                cur = off + width
            fmt.append("%dx" % (size - cur))
            st = self._structs[key] = (
                struct.Struct("".join(fmt)),
                [(u, slot) for _, u, slot in fields],
                [(off, bytes([c])) for off, c in sorted(set(marks))])
        return st

    def _regular(self, buf, s, e, n, size):
        """A batch from n reports of equal size in buf[s:e], or None if
        they are not a regular run (then the caller splits them)."""
        interval = self.interval
        if e - s != n * size:
            return None
        t0, first = parse_block(bytes(buf[s:s + size]), self.wanted,
                                self.known)
        t1, last = parse_block(bytes(buf[e - size:e]), self.wanted,
                               self.known)
        if t0 != self.expected or t1 != t0 + (n - 1) * interval:
            return None
        sig = self._signature(first)
        if sig is None or sig != self._signature(last):
            return None
        j0, rem = divmod(self.target - t0, interval)
        if j0 < 0 or rem:
            return None
        st, fields, marks = self._struct(sig, size)
        # Every report of the run must have the first one's layout: its
        # "after" line, and the bucket numbers and brackets around each
        # field read, at the same offsets (strided slices: cheap).
        for off, c in marks:
            if buf[s + off:e:size].count(c) != n:
                return None
        step = self.slice_sec // interval
        picked = range(j0, n, step)
        if not picked:
            self.expected = t1 + interval
            return [], None
        with memoryview(buf) as mv:
            if step == 1:
                records = st.iter_unpack(mv[s + j0 * size:e])
            else:
                unpack = st.unpack_from
                records = [unpack(mv, s + j * size) for j in picked]
            try:
                values = list(map(int, chain.from_iterable(records)))
            except ValueError:
                return None
            finally:
                del records
        columns = [[None] * (self.top + 2) for _ in self.unique]
        width = len(fields)
        for f, (u, slot) in enumerate(fields):
            columns[u][slot] = values[f::width]
        self.expected = t1 + interval
        ends = list(range(self.target, t1 + 1, self.slice_sec))
        self.target = ends[-1] + self.slice_sec
        return ends, columns

    def _single(self, block, final):
        """A batch from one report, None if it is not a slice end, _STOP.

        The rule of a whole log lives here, for every report, slice end or
        not - so that whether a log is damaged does not depend on the slice
        length (-t): the reports come every interval, from `after
        <interval> sec:` on, each with the selected histograms present and
        whole; the only report off that grid is the last one, at exactly
        test-duration-sec.  The first report that breaks the rule stops the
        scan (self.stopped says why), unless it is the partial last report
        of a log still being written.  _regular() takes a run of reports at
        once only when they keep to the grid (its first report the one
        expected, no report missing in between).
        """
        t, hists = parse_block(block, self.wanted, self.known)
        if t is None:
            return None
        if t != self.expected and not (
                t == self.duration and
                self.expected - self.interval < t < self.expected):
            self.stopped = "there is no report after %d sec" % self.expected
            return _STOP
        vectors = [hist_vector(hists.get(u), self.top) for u in self.unique]
        if None in vectors:
            if not final:
                self.stopped = "the report after %d sec is incomplete" % t
            return _STOP
        self.expected = t + self.interval
        if t < self.target:
            return None
        self.target += self.slice_sec
        return [t], [[[c] for c in vec] for vec in vectors]
