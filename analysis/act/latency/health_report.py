"""act_latency.py --health: the drives' health of an analysed log as a
table per slice and device (text), the "health" member of the --json
document, and the health rows of --csv (docs/act_latency.md, "Drive
health: --health"). The figures are act.latency.health's."""

from act.latency.health import slice_health, summarize

NO_HEALTH = "no health data in the log"

# The per-slice columns: (JSON key, CSV column, text heading, width)
COLUMNS = [
    ("max_temp_c", "max_temp_c", "max C", 6),
    ("throttle_sec", "throttle_sec", "throttle s", 11),
    ("new_media_errors", "new_media_errors", "media errors", 13),
    ("new_error_log_entries", "new_error_log_entries", "error log", 10),
    ("waf", "waf", "WAF", 6),
    ("warning", "warning", "warning", 8),
]
CSV_HEAD = ["slice", "seconds", "log", "device"] + [c[1] for c in COLUMNS]


def _cell(key, value):
    """A per-slice value as text: "-" when not known."""
    if value is None:
        return "-"
    if key == "waf":
        return "%.2f" % value
    if key == "warning":
        return "0x%02x" % value
    return "%d" % value


def _summary_text(s):
    """One device's figures over the whole log, in words."""
    parts = []
    if s.max_temp_c is not None:
        parts.append("max %d C" % s.max_temp_c)
    if s.throttle_sec is not None:
        parts.append("throttled %d s%s" % (s.throttle_sec, (
            " (%d transition%s)" % (s.throttle_transitions, "" if
                                     s.throttle_transitions == 1 else "s")
            if s.throttle_transitions else "")))
    for n, what in ((s.new_media_errors, "new media error"),
                    (s.new_error_log_entries, "new error-log entry")):
        if n is not None:
            parts.append("%d %s" % (n, what if n == 1 else (
                what[:-1] + "ies" if what.endswith("y") else what + "s")))
    for start, end, what in ((s.spare_start, s.spare_end, "spare"),
                             (s.used_start, s.used_end, "used")):
        if start is not None and end is not None:
            parts.append("%s %d%% -> %d%%" % (what, start, end))
    if s.bytes_written is not None:
        parts.append("%d bytes written" % s.bytes_written)
    if s.waf is not None:
        parts.append("WAF %.2f" % s.waf)
    return ", ".join(parts)


def health_lines(a):
    """The --health text of an Analysis: per readable device its source
    and figures over the log, its problems and what was not read; a
    device without health data says why; then the table of slices and
    devices. "no health data in the log" when the log has no health
    line."""
    drives = a.health
    if not drives:
        return ["", NO_HEALTH]
    out = ["", "drive health:"]
    for dev, s in summarize(drives).items():
        d = drives[dev]
        if not d.readable:
            out.append("%s: %s" % (dev, d.source or "none"))
            continue
        fig = _summary_text(s)
        out.append("%s: %s%s" % (dev, d.source or "samples",
                                 "; " + fig if fig else ""))
        out += ["  problem: %s" % p for p in s.problems]
        out += ["  not read: %s" % m for m in s.missing]
    per_slice = slice_health(drives, a.slice_sec, a.count)
    if not any(per_slice):
        return out
    width = max(6, max(len(sh.device) for row in per_slice for sh in row))
    head = "slice  %-*s" % (width, "device") + "".join(
        " %*s" % (w, t) for _, _, t, w in COLUMNS)
    out += ["", head, "-----  " + "-" * width + "".join(
        " " + "-" * w for _, _, _, w in COLUMNS)]
    for k, row in enumerate(per_slice, 1):
        for sh in row:
            out.append("%5d  %-*s" % (k, width, sh.device) + "".join(
                " %*s" % (w, _cell(key, getattr(sh, key)))
                for key, _, _, w in COLUMNS))
    return out


def health_json(a):
    """The "health" member of the --json document: {"note": NO_HEALTH or
    None, "devices": [per device: its source, readable, its figures over
    the log (HealthSummary's, the start and end samples' fields as
    written), problems, missing, and "slices": [{slice, end_sec, the
    per-slice figures}]]}."""
    drives = a.health
    per_slice = slice_health(drives, a.slice_sec, a.count)
    devices = []
    for dev, s in summarize(drives).items():
        d = drives[dev]
        doc = {"device": dev, "source": d.source, "readable": d.readable}
        for key in ("max_temp_c", "throttle_sec", "throttle_transitions",
                    "new_media_errors", "new_error_log_entries",
                    "spare_start", "spare_end", "used_start", "used_end",
                    "bytes_written", "waf"):
            doc[key] = getattr(s, key)
        for key, sample in (("start", s.start), ("end", s.end)):
            doc[key] = None if sample is None else {
                "t": sample.t, "fields": dict(sample.fields)}
        doc["problems"] = list(s.problems)
        doc["missing"] = list(s.missing)
        doc["slices"] = [
            dict([("slice", k), ("end_sec", k * a.slice_sec)] +
                 [(key, getattr(sh, key)) for key, _, _, _ in COLUMNS])
            for k, row in enumerate(per_slice, 1) for sh in row
            if sh.device == dev]
        devices.append(doc)
    return {"note": None if drives else NO_HEALTH, "devices": devices}


def health_csv_rows(labels, analyses):
    """The --health rows of --csv, after the table's: an empty row, a
    header (CSV_HEAD), one row per slice, log and device, then per log and
    device an "all" row of the figures over the whole log (WAF, the
    throttle time and the media errors from the start to the last
    sample; warning: the bits any sample had). A log without health
    data: one row "no health data in the log" under its label."""
    yield []
    yield CSV_HEAD
    for label, a in zip(labels, analyses):
        drives = a.health
        if not drives:
            yield ["", "", label, NO_HEALTH]
            continue
        t = a.slice_sec
        for k, row in enumerate(slice_health(drives, t, a.count), 1):
            for sh in row:
                yield [str(k), str(k * t), label, sh.device] + [
                    "" if getattr(sh, key) is None else
                    _cell(key, getattr(sh, key)) for key, _, _, _ in COLUMNS]
        for dev, s in summarize(drives).items():
            if not drives[dev].readable:
                continue
            warning = 0
            for smp in drives[dev].read_samples:
                warning |= smp.warning or 0
            values = {"max_temp_c": s.max_temp_c,
                      "throttle_sec": s.throttle_sec,
                      "new_media_errors": s.new_media_errors,
                      "new_error_log_entries": s.new_error_log_entries,
                      "waf": s.waf, "warning": warning}
            yield ["all", "", label, dev] + [
                "" if values[key] is None else _cell(key, values[key])
                for key, _, _, _ in COLUMNS]
