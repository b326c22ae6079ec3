"""A log's drive health (docs/log-format.md, "Drive health"): the one
reader of the health lines - per device, its source line in the identity
block, its start sample, and the samples taken after reports:

    health /dev/nvme0n1: nvme smart log, ocp log c0h
    health /dev/nvme0n1 at start: warning = 0x00, temp = 40 C, ...
    health /dev/nvme0n1 at 10.002 sec: warning = 0x00, temp = 60 C, ...
    health /dev/nvme0n1 at 20.004 sec: not read - NVMe status 0x4004

(lines.py's kinds health-source, health-start, health-sample,
health-unread). read_health(lines) gives {device: DriveHealth}; a
HealthSample keeps a sample's fields as written (name -> text) and reads
them typed (None when the line lacks one, or it is not what the format
says). A name this reader does not know is kept, and ignored.
"""

from dataclasses import dataclass

from act.logfile import ENC_ERRORS, lines

NONE_SOURCE = "none"              # "none (why)": no health data read
TOKENS = ("health-source", "health-start", "health-sample", "health-unread")


def _number(text, suffix=""):
    """The whole number of text ("45 C" with suffix " C"), or None."""
    if text is None or not text.endswith(suffix):
        return None
    text = text[:len(text) - len(suffix)] if suffix else text
    try:
        return int(text)
    except ValueError:
        return None


def _pair(text, suffix=""):
    """(a, b) of "a/b" (with suffix), or None."""
    if text is None or not text.endswith(suffix):
        return None
    parts = text[:len(text) - len(suffix)].split("/") if suffix \
        else text.split("/")
    if len(parts) != 2:
        return None
    got = tuple(_number(p) for p in parts)
    return None if None in got else got


def _typed(name, suffix="", parse=_number):
    """A HealthSample's typed field name (its text, with suffix, read by
    parse; None when absent or not of that form)."""
    return property(lambda self: parse(self._get(name), suffix),
                    doc="field %s, typed (None when absent)" % name)


def parse_fields(text):
    """{name: value text} of a sample's fields ("name = value" joined by
    ", ")."""
    fields = {}
    for part in text.split(", "):
        name, sep, value = part.partition(" = ")
        if sep and name:
            fields[name.strip()] = value.strip()
    return fields


@dataclass(frozen=True)
class HealthSample:
    """One sample of a device's health: t seconds since the reports'
    time 0 (None: the start sample, taken before the run); fields as
    written ({name: text}); error: why it was not read (the text after
    "not read - "), None when read."""

    device: str
    t: float = None
    fields: dict = None
    error: str = None

    def _get(self, name):
        return (self.fields or {}).get(name)

    @property
    def warning(self):
        """The critical warning byte (int)."""
        text = self._get("warning")
        try:
            return int(text, 16) if text is not None else None
        except ValueError:
            return None

    temp_c = _typed("temp", " C")
    spare = _typed("spare", "%")
    spare_threshold = _typed("spare_threshold", "%")
    used = _typed("used", "%")
    media_errors = _typed("media_errors")
    error_log_entries = _typed("error_log_entries")
    units_read = _typed("units_read")
    units_written = _typed("units_written")
    warning_temp_min = _typed("warning_temp_time", " min")
    critical_temp_min = _typed("critical_temp_time", " min")
    throttle_transitions = _typed("throttle_transitions", "", _pair)
    throttle_sec = _typed("throttle_time", " sec", _pair)
    wctemp_c = _typed("wctemp", " C")
    cctemp_c = _typed("cctemp", " C")
    physical_written = _typed("physical_written", " bytes")

    @property
    def sensors(self):
        """Temperature sensors 1..N (C, None for one not implemented);
        () when there are none."""
        text = self._get("sensors")
        if text is None:
            return None
        if text == "-":
            return ()
        return tuple(_number(s) for s in text.split("/"))

    @property
    def throttle_total_sec(self):
        """throttle_sec's two times added (None when absent)."""
        pair = self.throttle_sec
        return None if pair is None else pair[0] + pair[1]

    @property
    def read(self):
        """True when the sample was read (not "not read - ...")."""
        return self.error is None


@dataclass(frozen=True)
class DriveHealth:
    """A device's health in a log: its source line's text (None when the
    log has samples but no source line), whether health data was read
    (readable: False for "none (...)"), its samples in log order (the
    start sample first)."""

    device: str
    source: str = None
    readable: bool = False
    samples: tuple = ()

    @property
    def start(self):
        """The start sample, or None."""
        for s in self.samples:
            if s.t is None:
                return s
        return None

    @property
    def read_samples(self):
        """The samples that were read, in log order."""
        return tuple(s for s in self.samples if s.error is None)

    @property
    def why_none(self):
        """Why nothing was read: the text in "none (...)", else None."""
        src = self.source or ""
        if src.startswith(NONE_SOURCE + " (") and src.endswith(")"):
            return src[len(NONE_SOURCE) + 2:-1]
        return None


def health_line(line):
    """(token, fields) of a health line (str or bytes, a newline
    allowed), or None when it is not one."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", ENC_ERRORS)
    line = line.rstrip("\r\n")
    if not line.startswith(lines.HEALTH):
        return None
    for token in TOKENS:
        f = lines.parse(token, line)
        if f is not None:
            return token, f
    return None


def read_health(log_lines):
    """{device: DriveHealth} of the health lines among log_lines (str or
    bytes, in log order; other lines are skipped), devices in the order
    the log names them first. A device's samples keep their log order."""
    found = {}                      # device -> [source, samples]
    for line in log_lines:
        got = health_line(line)
        if got is None:
            continue
        token, f = got
        d = found.setdefault(f["device"], [None, []])
        if token == "health-source":
            if d[0] is None:
                d[0] = f["source"]
        elif token == "health-start":
            d[1].append(HealthSample(f["device"], None,
                                     parse_fields(f["fields"])))
        elif token == "health-sample":
            d[1].append(HealthSample(f["device"], f["sec"],
                                     parse_fields(f["fields"])))
        else:
            d[1].append(HealthSample(f["device"], f["sec"], {}, f["why"]))
    return {dev: DriveHealth(dev, src, _readable(src, samples),
                             tuple(samples))
            for dev, (src, samples) in found.items()}


def _readable(source, samples):
    if source is None:
        return any(s.error is None for s in samples)
    return not (source == NONE_SOURCE or
                source.startswith(NONE_SOURCE + " "))
