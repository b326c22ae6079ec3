"""The drives' health over a log (docs/act_latency.md, "Drive health"),
from its health samples (act.logfile.health): per slice and device
(slice_health: SliceHealth) and per device over the whole log
(summarize: HealthSummary, with the problems that keep a run from a
plain PASS, and what could not be read). Pure functions.

Which samples a slice has: a sample at t sec is taken right after the
report at floor(t) sec (the sampling follows a report), so it belongs to
the slice of that report - slice k of T seconds holds the samples whose
floor(t) is in ((k-1)T, kT]. A slice's base is the last sample read at
or before its start (floor(t) <= (k-1)T) - for slice 1 the start
sample (taken before the run); its end is the last sample read in it.
The counters' deltas of a slice (throttle time, media errors, error-log
entries, units and physical bytes written) are end - base: None when
either is missing (no sample read in the slice, or none before it).
The maximum temperature and the warning of a slice are those of its own
samples.
"""

from dataclasses import dataclass

WHILE = ", while "                # before a slice's throttling, in a reason
UNIT_BYTES = 512000               # an NVMe data unit: 1000 x 512 bytes

# The critical warning's bits (NVMe base specification, SMART / Health
# Information log, byte 0).
WARNING_BITS = ("spare below threshold", "temperature",
                "reliability degraded", "read only",
                "volatile backup failed", "persistent memory read only")


@dataclass(frozen=True)
class SliceHealth:
    """One device's health in one slice (numbered from 1): the highest
    composite temperature of its samples (C), the seconds it throttled
    (both thermal management times), the new media errors and error-log
    entries, the write amplification (physical / host bytes written),
    the critical warning bits its samples had (OR; 0: none) - each None
    when not known."""

    device: str
    slice: int
    max_temp_c: int = None
    throttle_sec: int = None
    new_media_errors: int = None
    new_error_log_entries: int = None
    waf: float = None
    warning: int = None


@dataclass(frozen=True)
class HealthSummary:
    """One device's health over the whole log: its source, the start and
    the last samples read (start: the start sample, else the first read),
    the highest temperature, the throttle time and transitions, the new
    media errors and error-log entries, spare and percentage used at the
    start and the end, the host bytes written and the write
    amplification, over start..end (None when not known); problems: the
    phrases of what keeps a run from a plain PASS (a critical warning,
    new media errors, the spare below its threshold); missing: what
    could not be read."""

    device: str
    source: str = None
    start: object = None
    end: object = None
    max_temp_c: int = None
    throttle_sec: int = None
    throttle_transitions: int = None
    new_media_errors: int = None
    new_error_log_entries: int = None
    spare_start: int = None
    spare_end: int = None
    used_start: int = None
    used_end: int = None
    bytes_written: int = None
    waf: float = None
    problems: tuple = ()
    missing: tuple = ()


def _delta(base, end, attr):
    """end.attr - base.attr, or None."""
    if base is None or end is None:
        return None
    a, b = getattr(base, attr), getattr(end, attr)
    return None if a is None or b is None else b - a


def _waf(base, end):
    """Physical bytes written / host bytes written between two samples,
    or None (not known, or no host write)."""
    host = _delta(base, end, "units_written")
    phys = _delta(base, end, "physical_written")
    if host is None or phys is None or host <= 0:
        return None
    return phys / (host * UNIT_BYTES)


def _max(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def _warning(samples):
    values = [s.warning for s in samples if s.warning is not None]
    if not values:
        return None
    out = 0
    for v in values:
        out |= v
    return out


def sample_second(s):
    """The report second a sample follows: floor(t); -1 for the start
    sample (before the run)."""
    return -1 if s.t is None else int(s.t)


def slice_health(drives, slice_sec, n_slices):
    """Per slice 1..n_slices, a list of SliceHealth, one per device of
    drives ({device: DriveHealth}) whose health was read, in its order.
    See the module's doc for which samples a slice has and its base."""
    out = [[] for _ in range(n_slices)]
    for dev, d in drives.items():
        if not d.readable:
            continue
        read = list(d.read_samples)
        base = None
        i = 0
        for k in range(1, n_slices + 1):
            own = []
            while i < len(read) and sample_second(read[i]) <= k * slice_sec:
                if sample_second(read[i]) > (k - 1) * slice_sec:
                    own.append(read[i])
                else:               # at or before the slice's start
                    base = read[i]
                i += 1
            end = own[-1] if own else None
            out[k - 1].append(SliceHealth(
                dev, k, _max(s.temp_c for s in own),
                _delta(base, end, "throttle_total_sec"),
                _delta(base, end, "media_errors"),
                _delta(base, end, "error_log_entries"),
                _waf(base, end), _warning(own)))
            if end is not None:
                base = end
    return out


def fmt_sec(t):
    """A sample's time in a phrase: "at start", "at 20.0 sec"."""
    return "at start" if t is None else "at %.1f sec" % t


def warning_names(value):
    """The names of the critical warning bits of value, joined by ", "."""
    names = []
    for bit in range(8):
        if value & (1 << bit):
            names.append(WARNING_BITS[bit] if bit < len(WARNING_BITS)
                         else "reserved bit %d" % bit)
    return ", ".join(names)


def _problems(read, start, end, samples=(), why_none=None):
    """The phrases of a device's problems (HealthSummary.problems);
    samples: all of its samples, read or not - a drive that was read but
    whose last samples were not says its health at the end is not known;
    why_none: why a drive has no health data - one that did not answer
    at all says so (a drive that stops answering is never a plain
    PASS)."""
    out = []
    seen = 0
    for s in read:
        w = s.warning
        if w and w & ~seen:
            new = w & ~seen
            out.append("critical warning 0x%02x (%s) %s"
                       % (new, warning_names(new), fmt_sec(s.t)))
            seen |= w
    errors = _delta(start, end, "media_errors")
    if errors:
        out.append("%d new media error%s (%d -> %d)" % (
            errors, "" if errors == 1 else "s", start.media_errors,
            end.media_errors))
    low = [s for s in read if s.spare is not None and
           s.spare_threshold is not None and s.spare < s.spare_threshold]
    if low:
        s = min(low, key=lambda x: x.spare)
        out.append("available spare %d%% below its threshold %d%% %s"
                   % (s.spare, s.spare_threshold, fmt_sec(s.t)))
    if not read and why_none and why_none.startswith("no answer"):
        out.append("health not read: the drive did not answer at the "
                   "start (%s)" % why_none)
    if read and samples and samples[-1].error is not None:
        unread = 0
        for s in reversed(samples):
            if s.error is None:
                break
            unread += 1
        out.append("health at the end not known: the last %s not read "
                   "(%s; last read %s)" % (
                       "sample" if unread == 1 else "%d samples" % unread,
                       samples[-1].error, fmt_sec(read[-1].t)))
    return tuple(out)


def _missing(d):
    """What of a device's health could not be read (HealthSummary.missing):
    the source's reason; the samples not read, by reason."""
    if not d.readable:
        return ("no health data: %s" % (d.why_none or d.source),)
    out = []
    by_why = {}
    for s in d.samples:
        if s.error is not None:
            by_why.setdefault(s.error, []).append(s.t)
    for why, times in by_why.items():
        n = len(times)
        when = fmt_sec(times[0]) if n == 1 else "%.1f-%.1f sec" % (
            times[0], times[-1])
        out.append("%d sample%s not read (%s): %s"
                   % (n, "" if n == 1 else "s", when, why))
    return tuple(out)


def summarize(drives):
    """{device: HealthSummary} of drives ({device: DriveHealth}), in its
    order."""
    out = {}
    for dev, d in drives.items():
        read = list(d.read_samples) if d.readable else []
        start = read[0] if read else None
        end = read[-1] if len(read) > 1 else None
        transitions = None
        if start is not None and end is not None and \
                start.throttle_transitions and end.throttle_transitions:
            transitions = sum(end.throttle_transitions) - \
                sum(start.throttle_transitions)
        host = _delta(start, end, "units_written")
        out[dev] = HealthSummary(
            dev, d.source, start, end, _max(s.temp_c for s in read),
            _delta(start, end, "throttle_total_sec"), transitions,
            _delta(start, end, "media_errors"),
            _delta(start, end, "error_log_entries"),
            start.spare if start else None, end.spare if end else None,
            start.used if start else None, end.used if end else None,
            None if host is None else host * UNIT_BYTES,
            _waf(start, end), _problems(read, start, end, d.samples,
                                               d.why_none),
            _missing(d))
    return out


def throttle_note(health, name="the drive"):
    """"the drive throttled 410 s at 78 C" of a SliceHealth or a
    HealthSummary (name: who throttled), or None when it did not
    throttle (or it is not known)."""
    sec = health.throttle_sec
    if not sec:
        return None
    temp = health.max_temp_c
    return "%s throttled %d s%s" % (name, sec, "" if temp is None
                                    else " at %d C" % temp)


def health_problems(summaries):
    """The problems of every device, each prefixed by its device
    ("/dev/nvme0n1: 1 new media error (0 -> 1)"): Verdict.health."""
    return tuple("%s: %s" % (dev, p) for dev, s in summaries.items()
                 for p in s.problems)


def slice_throttle(per_slice, k):
    """", while /dev/x throttled 410 s at 78 C" for the devices that
    throttled in slice k (from 1) of slice_health()'s result, or ""."""
    if not per_slice or not 1 <= k <= len(per_slice):
        return ""
    notes = [throttle_note(sh, sh.device) for sh in per_slice[k - 1]]
    notes = [n for n in notes if n]
    return WHILE + " and ".join(notes) if notes else ""
