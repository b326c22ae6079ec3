"""Spool: one analysis's per-slice results, kept in a temporary file
instead of memory, for what needs them after the log is read (several
logs side by side, the plot, --json's later histograms, act_certify).
Memory stays flat however long the log is; the file grows with it
(about 8 bytes per value)."""

import struct
import tempfile
from array import array

from act.logfile import LogError

_N = struct.Struct("<q")            # a batch starts with its slice count


class Spool:
    """Batches of per-slice results, written once, read back in order.

    A batch is, per histogram (in -h order), (values, rates, ops): values
    a list per evaluated bucket of the slices' percentages, rates and ops
    lists over the same slices.  On file: the slice count n, then per
    histogram its value columns and rates (n doubles each) and its ops (n
    64-bit integers).
    """

    def __init__(self):
        self.file = None            # created with the first batch
        self.count = 0              # slices written

    def add(self, batch, n):
        """Append a batch of n slices. A temporary file that can't be
        made or written is a LogError (the log cannot be analysed here)
        naming the directory."""
        try:
            self._add(batch, n)
        except OSError as e:
            raise LogError("cannot write the slices' temporary file in %s: "
                             "%s - set TMPDIR to a writable directory"
                             % (tempfile.gettempdir(), e.strerror or e)) \
                from None

    def _add(self, batch, n):
        f = self.file
        if f is None:
            f = self.file = tempfile.TemporaryFile(prefix="act_latency.")
            self.shape = [len(values) for values, rates, ops in batch]
        f.write(_N.pack(n))
        for values, rates, ops in batch:
            doubles = array("d")
            for v in values:
                doubles.extend(v)
            doubles.extend(rates)
            doubles.tofile(f)
            array("q", ops).tofile(f)
        self.count += n

    def batches(self):
        """The batches, in order (one pass; a new call starts again)."""
        f = self.file
        if f is None:
            return
        f.flush()
        end = f.tell()
        f.seek(0)
        try:
            while f.tell() < end:
                (n,) = _N.unpack(f.read(_N.size))
                batch = []
                for e in self.shape:
                    doubles = array("d")
                    doubles.fromfile(f, (e + 1) * n)
                    ops = array("q")
                    ops.fromfile(f, n)
                    batch.append(([doubles[j * n:(j + 1) * n].tolist()
                                   for j in range(e)],
                                  doubles[e * n:].tolist(), ops.tolist()))
                yield batch
        finally:
            f.seek(end)

    def rows(self):
        """Per slice, per histogram: (values tuple, rate, ops)."""
        for batch in self.batches():
            per_hist = [zip(zip(*values), rates, ops)
                        for values, rates, ops in batch]
            yield from zip(*per_hist)

    def close(self):
        if self.file is not None:
            self.file.close()
            self.file = None

    __del__ = close
