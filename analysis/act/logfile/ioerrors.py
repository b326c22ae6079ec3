"""The failed I/Os a log records (beyond.md, "I/O errors"): below
io-error-limit a run goes on, and each failure is an ERROR: line -

    ERROR: OP failed on device D at offset O, size S: TEXT (errno N)
           - failed I/Os: N, io-error-limit: M

(OP: read, write, large-block read, large-block write, tomb-raider read)
    ERROR: N more I/O errors were not shown

(at most 10 shown a second; the others counted in the second form: the
kinds io-failed and io-hidden of lines.py). The count is every shown line
plus every "not shown" count, or the highest running total a shown line
gives, whichever is larger."""

from act.logfile import ENC_ERRORS, MAX_LINE, lines
from act.safefile import open_regular, read_lines


def count_io_errors(path, max_bytes=None):
    """{"total": n, "devices": {device: failures shown}} for the log at
    path; None when it cannot be read (safefile.open_regular: not a
    regular file, or more than max_bytes). A line is read MAX_LINE bytes
    at a time at most."""
    shown = hidden = running = 0
    devices = {}
    try:
        with open_regular(path, max_bytes) as f:
            for line in read_lines(f, MAX_LINE):
                if not line.startswith(b"ERROR: "):
                    continue
                text = line.decode("utf-8", ENC_ERRORS).rstrip("\r\n")
                m = lines.parse("io-failed", text)
                if m is not None:
                    shown += 1
                    devices[m["device"]] = devices.get(m["device"], 0) + 1
                    running = max(running, m["count"] or 0)
                    continue
                m = lines.parse("io-hidden", text)
                if m is not None:
                    hidden += m["count"]
    except OSError:
        return None
    return {"total": max(shown + hidden, running), "devices": devices}
