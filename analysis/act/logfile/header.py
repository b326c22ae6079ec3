"""The head of an ACT log, up to its HISTOGRAM NAMES block: the version,
the config echo, the derived configuration, the device lines, the identity
block and the start time (docs/log-format.md, sections 1-5): open_log()
opens a log for an analysis (LogFile: the file, its checked header, where
its body starts), read_header() checks a header, scan_header() reads one
as far as it goes; log_header() and log_identity() are the header, and
the drives' identity, sizes and start time, of a log file."""

import io
import os
import re
import tempfile

from act.safefile import open_regular
from act.logfile import AFTER_RE, ENC_ERRORS, LogError, lines
from act.logfile.health import read_health

MIN_VERSION, MAX_VERSION = 6.0, 7.0
HEADER_LIMIT = 16 << 20           # bytes of header to read before giving up


class LogHeader:
    """What the head of an ACT log says."""

    def __init__(self):
        self.version = None         # as written, e.g. "6.6"
        self.interval = None        # report-interval-sec
        self.microsecond = None     # True, False, or None if not found
        self.config = []            # lines of the configuration block
        self.derived = []           # lines of the DERIVED CONFIGURATION block
        self.names_block = []       # HISTOGRAM NAMES and the names
        self.names = []             # histogram names, in log order
        self.rest = b""             # body bytes read while looking for the end
        self.duration = None        # test-duration-sec, None if not given
        self.commit = False         # commit-to-device: yes
        # Device lines and the identity block (not needed by the analysis):
        self.devices = {}           # device -> size in bytes
        self.identity = {}          # device -> {model, serial, firmware}
        self.facts = {}             # device -> {fact: value} (its facts line)
        self.start = None           # start time, as written (UTC, ISO 8601)
        self.health_lines = []      # the drive health lines (str), in order
        self.size = 0               # bytes of the header read
        self.binary = False         # a NUL byte in them: not a text file

    @property
    def health(self):
        """{device: DriveHealth} of the header's health lines (the
        identity block's: each device's source and start sample;
        act.logfile.health)."""
        return read_health(self.health_lines)

    @staticmethod
    def items(block):
        """The "name: value" lines of a block as a dict (heading skipped)."""
        d = {}
        for line in block[1:]:
            f = lines.item(line)
            if f is not None:
                d[f["key"]] = f["value"]
        return d


def scan_header(f):
    """The LogHeader of binary file f as far as it goes, not checked: read
    up to the end of the HISTOGRAM NAMES block (or the first report)."""
    h = LogHeader()
    block = None                    # the list being filled, or None
    size = 0
    while size < HEADER_LIMIT:
        raw = f.readline(HEADER_LIMIT)
        if not raw:
            break
        size += len(raw)
        if b"\0" in raw:
            h.binary = True
        if raw.startswith(b"after ") and AFTER_RE.match(raw):
            h.rest = raw            # the body began before the names block
            break
        line = raw.decode("utf-8", ENC_ERRORS).strip()
        if block is not None:
            if line:
                block.append(line)
                continue
            if block is h.names_block:
                break               # the reports follow
            block = None
            continue
        version = lines.parse("version", line)
        if version is not None and h.version is None:
            h.version = version["version"]
        elif line == lines.DERIVED_HEADING and not h.derived:
            block = h.derived
            block.append(line)
        elif line == lines.NAMES_HEADING and not h.names_block:
            block = h.names_block
            block.append(line)
        elif lines.parse("config-heading", line) is not None and \
                not h.config:
            block = h.config
            block.append(line)
        elif line.startswith(lines.HEALTH):
            h.health_lines.append(line)
        elif " = " in line:
            _device_line(h, line)
    h.names = h.names_block[1:]
    h.size = size
    return h


def read_header(f, log_name="log"):
    """Read the header of an ACT log from binary file f, up to the end of
    the HISTOGRAM NAMES block; the file is left at the first report.

    Raises LogError when the log is not one we can analyse.
    """
    h = scan_header(f)
    try:
        return _check_header(h, log_name)
    except LogError:
        if not h.size:
            raise LogError("%s is empty (0 bytes): nothing to analyse"
                             % log_name) from None
        if h.binary:
            raise LogError("%s is not a text ACT log: it holds binary "
                             "data (NUL bytes), not the output of "
                             "act_storage or act_index" % log_name) from None
        raise


def _check_header(h, log_name):
    """read_header()'s checks of a scanned header."""
    if h.version is None:
        raise LogError("%s is not an ACT log: no 'ACT version' line"
                         % log_name)
    m = re.match(r"\d+(\.\d+)?", h.version)     # "6.6", or "6.6.1"
    v = float(m.group()) if m else None
    if v is None or not MIN_VERSION <= v < MAX_VERSION:
        raise LogError("%s is ACT version %s: only logs of ACT version 6.x "
                         "can be analysed" % (log_name, h.version))
    config = h.items(h.config)
    if "report-interval-sec" in config:
        try:
            h.interval = int(config["report-interval-sec"])
        except ValueError:
            raise LogError("%s: bad report-interval-sec %r"
                             % (log_name, config["report-interval-sec"])) \
                from None
        if h.interval < 1:
            raise LogError("%s: bad report-interval-sec %d"
                             % (log_name, h.interval))
    missing = []
    if not h.config:
        missing.append("ACT-STORAGE/ACT-INDEX CONFIGURATION block")
    if h.interval is None:
        missing.append("report-interval-sec line")
    if not h.derived:
        missing.append("DERIVED CONFIGURATION block")
    if not h.names:
        missing.append("HISTOGRAM NAMES block")
    if missing:
        raise LogError("%s is not a complete ACT log: no %s"
                         % (log_name, ", no ".join(missing)))
    scale = config.get("microsecond-histograms")
    if scale is not None:
        h.microsecond = scale == "yes"
    try:
        h.duration = int(config["test-duration-sec"])
    except (KeyError, ValueError):
        h.duration = None           # some old reference logs lack it
    h.commit = config.get("commit-to-device") == "yes"
    return h


class _Recorded(io.RawIOBase):
    """A stream that cannot be read twice (a pipe), read through once:
    what is read is also written to a temporary file, which then reads
    again (again())."""

    def __init__(self, raw):
        super().__init__()
        self.raw = raw
        self.copy = tempfile.TemporaryFile(prefix="act_log.")
        self.pos = 0

    def readable(self):
        return True

    def readinto(self, b):
        n = self.raw.readinto(b)
        if n:
            self.copy.write(memoryview(b)[:n])
            self.pos += n
        return n

    def tell(self):
        return self.pos

    def again(self, at):
        """The bytes read so far, from offset at, as a binary file."""
        self.copy.flush()
        self.copy.seek(at)
        return self.copy

    def close(self):
        self.copy.close()
        self.raw.close()
        super().close()


class LogFile:
    """An ACT log opened for an analysis (open_log): path, the binary
    file, its checked header (LogHeader; None until read_header()), and
    where its body starts - after read_header() the file is at the body's
    first bytes not in header.rest. A context manager (closes the
    file)."""

    def __init__(self, path, f):
        self.path = path
        self.file = f
        self.header = None
        self.body_at = None

    def read_header(self):
        """Read and check the header (read_header()); a LogError when the
        log is not one that can be analysed or cannot be read."""
        try:
            self.header = read_header(self.file, self.path)
        except OSError as e:
            raise LogError("cannot read the log %s: %s"
                           % (self.path, e.strerror or e)) from None
        try:
            self.body_at = self.file.tell()
        except OSError:
            self.body_at = None
        return self.header

    def body_again(self):
        """The file back at the start of the body (at the end of
        header.rest), for a second pass over the reports; None when it
        cannot be read twice (a pipe not opened to be: open_log)."""
        if self.body_at is None:
            return None
        raw = getattr(self.file, "raw", None)
        if isinstance(raw, _Recorded):
            return raw.again(self.body_at)
        try:
            self.file.seek(self.body_at)
        except OSError:
            return None
        return self.file

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_log(path, regular=False, max_bytes=None, header=True,
             twice=False):
    """Open the log at path and read its header (LogFile.read_header;
    not with header=False: read_header() later): a LogFile. regular: only
    a regular file of at most max_bytes (safefile.open_regular: no
    symbolic link, FIFO or device) - a campaign's own logs; otherwise
    anything that can be read (a pipe, /dev/stdin). twice: a log that
    cannot be read twice (a pipe) is kept in a temporary file as it is
    read, for body_again(). A LogError when it cannot be opened or read,
    or is not an ACT log."""
    try:
        if regular:
            f = open_regular(path, max_bytes)
        else:
            raw = open(path, "rb", buffering=0)
            size = os.fstat(raw.fileno()).st_blksize     # as open() does
            if twice and not raw.seekable():
                raw = _Recorded(raw)
            f = io.BufferedReader(raw, size if size > 1
                                  else io.DEFAULT_BUFFER_SIZE)
    except OSError as e:
        raise LogError("cannot open the log %s: %s"
                       % (path, e.strerror or e)) from None
    log = LogFile(path, f)
    if header:
        try:
            log.read_header()
        except BaseException:
            log.close()
            raise
    return log


def log_header(path):
    """The header (scan_header) of the log at path, complete or not; None
    when it cannot be read (or is not a regular file:
    safefile.open_regular)."""
    try:
        with open_regular(path) as f:
            return scan_header(f)
    except OSError:
        return None


def log_identity(path):
    """({device: {model, serial, firmware}}, {device: size in bytes},
    start time or None) from the header of the log at path, complete or
    not; ({}, {}, None) when it cannot be read (log_header)."""
    h = log_header(path)
    if h is None:
        return {}, {}, None
    return h.identity, h.devices, h.start


def judged_histograms(header):
    """The histograms the ACT criteria judge: the transactions - reads,
    and writes when the log has commit-to-device: yes (not large-block-*,
    per-device, total-* nor act_index's cache writes)."""
    judged = {"reads", "writes"} if header.commit else {"reads"}
    return judged.intersection(header.names)


def _device_line(h, line):
    """Note a device line, identity line or the start time in h."""
    f = lines.parse("identity", line)
    if f is not None:
        h.identity[f.pop("device")] = f
        return
    for kind in ("file-facts", "block-facts"):
        f = lines.parse(kind, line)
        if f is not None:
            device = f.pop("device")
            h.facts[device] = {k: v for k, v in f.items() if v is not None}
            return
    f = lines.parse("start-time", line)
    if f is not None:
        h.start = f["start"]
        return
    f = lines.device_size(line)
    if f is not None:
        h.devices[f[0]] = f[1]

