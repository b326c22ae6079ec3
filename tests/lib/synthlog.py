"""Description: synthetic ACT logs made to order, in the layout of
docs/log-format.md - the one writer of the test fixtures
(tests/golden/make_fixtures.py), the benchmarks (bench/bench_latency*.py)
and the fuzzer (tests/fuzz/fuzz_act_latency.py).

Not a test itself. Every function returns a list of lines (without their
newlines); text(lines) joins them into a log. A log is

    header(...)           banner, config echo, derived block, device lines,
                          identity block, histogram names
    report(sec, hists)    one report: `after S sec:`, each histogram's name
                          line and bucket lines (section 5), an empty line
    reports(slices, ...)  the reports of a run from each slice's own counts
                          (second() and drift(): a plausible drive's)
    stop lines            stop_signal, stop_request, io_error,
                          io_errors_stop, more_io_errors (section 7)

Counts are a list indexed by bucket, or a {bucket: count} dict.
tests/python/test_synthlog.py checks each line it writes against the C
programs' own formatters (the samples of tests/unit/test_loglines).
"""

STORAGE, INDEX = "storage", "index"
TITLES = {STORAGE: "Storage device IO test", INDEX: "Index device IO test"}
HEADINGS = {STORAGE: "ACT-STORAGE CONFIGURATION",
            INDEX: "ACT-INDEX CONFIGURATION"}
LARGE_BLOCK_BYTES = 128 * 1024
BUCKETS = 65


def text(lines):
    """The lines as a log's text, each ended by a newline."""
    return "".join(line + "\n" for line in lines)


# ----------------------------------------------------------------------------
# The header (docs/log-format.md, sections 1 to 4).

def banner(program=STORAGE, version="6.6", notice=None):
    """Section 1: an empty line, `ACT version V`, the program's title, its
    notice line (none when None), an empty line."""
    lines = ["", "ACT version %s" % version, TITLES[program]]
    if notice is not None:
        lines.append(notice)
    return lines + [""]


# The config echo of each program, in its order (docs/act_storage.md,
# docs/act_index.md), with the example configs' values (service-threads:
# 5 x 8 CPUs); device-names and num-devices come from the devices.
STORAGE_ECHO = [
    ("service-threads", 40), ("test-duration-sec", 86400),
    ("report-interval-sec", 1), ("microsecond-histograms", "no"),
    ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000),
    ("record-bytes", 1536), ("record-bytes-range-max", 0),
    ("large-block-op-kbytes", 128), ("replication-factor", 1),
    ("update-pct", 0), ("defrag-lwm-pct", 50), ("no-defrag-reads", "no"),
    ("compress-pct", 100), ("disable-odsync", "no"),
    ("commit-to-device", "no"), ("tomb-raider", "no"),
    ("tomb-raider-sleep-usec", 0), ("max-lag-sec", 10),
]
INDEX_ECHO = [
    ("service-threads", 40), ("cache-threads", 8),
    ("test-duration-sec", 86400), ("report-interval-sec", 1),
    ("microsecond-histograms", "no"), ("read-reqs-per-sec", 2000),
    ("write-reqs-per-sec", 1000), ("replication-factor", 1),
    ("defrag-lwm-pct", 50), ("disable-odsync", "no"), ("max-lag-sec", 10),
]


def config_items(program, devices, **values):
    """The (name, value) pairs of a program's config echo for devices:
    values override the echo's (test_duration_sec=60 for
    test-duration-sec); a value None leaves its item out."""
    values = {k.replace("_", "-"): v for k, v in values.items()}
    echo = STORAGE_ECHO if program == STORAGE else INDEX_ECHO
    unknown = set(values) - {k for k, _ in echo}
    if unknown:
        raise ValueError("not in the echo: %s" % ", ".join(sorted(unknown)))
    items = [("device-names", " ".join(devices)),
             ("num-devices", len(devices))]
    items += [(k, values.get(k, v)) for k, v in echo]
    return [(k, str(v)) for k, v in items if v is not None]


def storage_derived(reads, writes, large_block_reads, large_block_writes,
                    stored="1536 ... 1536"):
    """act_storage's DERIVED CONFIGURATION items, in its order, with the
    values given (as the program prints them: "23.53")."""
    return [("record-stored-bytes", stored),
            ("internal-read-reqs-per-sec", str(reads)),
            ("internal-write-reqs-per-sec", str(writes)),
            ("large-block-reads-per-sec", large_block_reads),
            ("large-block-writes-per-sec", large_block_writes)]


def item(name, value):
    """One `name: value` line of the config echo or the derived block."""
    return "%s: %s" % (name, value)


def config_block(program=STORAGE, items=(), cpus=None):
    """Section 2: `detected N CPUs` and an empty line when cpus is given,
    the heading, one line per (name, value) of items, an empty line."""
    lines = ["detected %d CPUs" % cpus, ""] if cpus is not None else []
    return lines + [HEADINGS[program]] + [item(*kv) for kv in items] + [""]


def derived_block(items=()):
    """DERIVED CONFIGURATION, one line per (name, value), an empty line."""
    return ["DERIVED CONFIGURATION"] + [item(*kv) for kv in items] + [""]


def device_line(program, name, size, large_blocks=None, min_io=512,
                buffered=False):
    """Section 3: one device's line; act_storage's large blocks default to
    size / 128 KiB."""
    if program == STORAGE:
        if large_blocks is None:
            large_blocks = size // LARGE_BLOCK_BYTES
        line = ("%s size = %d bytes, %d large blocks, minimum IO size = %d "
                "bytes" % (name, size, large_blocks, min_io))
    else:
        line = "%s size = %d bytes" % (name, size)
    return line + (", buffered" if buffered else "")


def identity_line(device, model, serial, firmware):
    return "%s model = %s, serial = %s, firmware = %s" % (
        device, model, serial, firmware)


def start_time_line(start_time):
    """The identity block's last line: `start time = <UTC, ISO 8601>`."""
    return "start time = %s" % start_time


def file_facts_line(device, dev, ino, gen):
    """A regular file's facts line (the identity block): st_dev, st_ino
    and the generation (a number, or `unknown`)."""
    return "%s dev = %d, ino = %d, gen = %s" % (device, dev, ino, gen)


def block_facts_line(device, rdev, wwid="unknown", backing=None):
    """A block device's facts line (the identity block): rdev "MAJ:MIN",
    the wwid, and for a loop device backing = (dev, ino, gen, file) of its
    backing file (the file's name last)."""
    line = "%s rdev = %s, wwid = %s" % (device, rdev, wwid)
    if backing is not None:
        line += (", backing_dev = %d, backing_ino = %d, backing_gen = %s, "
                 "backing_file = %s" % tuple(backing))
    return line


def names_block(names):
    """Section 4: HISTOGRAM NAMES, one name a line, an empty line."""
    return ["HISTOGRAM NAMES"] + list(names) + [""]


def header(program=STORAGE, items=(), derived=(), devices=(), names=(),
           version="6.6", notice=None, cpus=None, identity=None,
           start_time=None):
    """The head of a log, up to the empty line after the histogram names.
    items, derived: (name, value) pairs in echo order (device-names is one
    of the items); devices: device lines (device_line); identity: the
    identity and facts lines (identity_line, file_facts_line) - the
    identity block, ended by `start time = start_time`, is there when
    either is given (reference logs have none)."""
    lines = (banner(program, version, notice) +
             config_block(program, items, cpus) + derived_block(derived) +
             list(devices) + [""])
    if identity or start_time is not None:
        lines += list(identity or ())
        if start_time is not None:
            lines.append(start_time_line(start_time))
        lines.append("")
    return lines + names_block(names)


# ----------------------------------------------------------------------------
# Reports (section 5).

def after(sec):
    return "after %d sec:" % sec


def _buckets(counts):
    """(bucket, count) pairs of a list indexed by bucket or a dict."""
    return sorted(counts.items()) if isinstance(counts, dict) \
        else enumerate(counts)


def _hists(hists):
    """(name, counts) pairs of a list of them or a {name: counts} dict."""
    return list(hists.items()) if isinstance(hists, dict) else list(hists)


def bucket_lines(counts):
    """The bucket lines of one histogram: the non-zero buckets, lowest
    first, four a line, each ` (BB: CCCCCCCCCC)`."""
    entries = [" (%02d: %010d)" % (b, c) for b, c in _buckets(counts) if c]
    return ["".join(entries[i:i + 4]) for i in range(0, len(entries), 4)]


def histogram(name, counts):
    """A histogram as the programs print it: `name (T total)` and its
    bucket lines."""
    total = sum(c for _, c in _buckets(counts))
    return ["%s (%d total)" % (name, total)] + bucket_lines(counts)


def report(sec, hists, extra=None):
    """One report: hists is [(name, cumulative counts)] in the names order
    (or a {name: counts} dict); extra: {name: lines} printed right after
    that histogram (ERROR or WARNING lines within a report)."""
    lines = [after(sec)]
    for name, counts in _hists(hists):
        lines += histogram(name, counts)
        lines += (extra or {}).get(name, [])
    return lines + [""]


def reports(slices, interval=1, times=None, extra=None):
    """The reports of a run from each slice's own (not cumulative) counts:
    slices is one [(name, counts)] (or {name: counts}) a report; report k
    comes after times[k] sec (default: (k + 1) x interval) with each
    histogram's counts summed up to it. extra: {sec: {name: lines}}, the
    extra of report() for the report after sec."""
    cum = {}
    lines = []
    for k, hists in enumerate(slices):
        sec = times[k] if times is not None else (k + 1) * interval
        now = []
        for name, counts in _hists(hists):
            c = cum.setdefault(name, [0] * BUCKETS)
            for b, n in _buckets(counts):
                c[b] += n
            now.append((name, c))
        lines += report(sec, now, (extra or {}).get(sec))
    return lines


# ----------------------------------------------------------------------------
# A plausible drive, second by second (the benchmarks' long logs).

def drift(rnd, sec):
    """The tail factor at sec: a slow drift (x 1 to x 1.43, in steps of 10
    minutes) and now and then (0.2% of the seconds) a bad second, x 20."""
    tail = 1.0 + 0.5 * ((sec // 600) % 7) / 7.0
    if rnd.random() < 0.002:
        tail *= 20.0
    return tail


def second(rnd, rate, shares, tail=1.0):
    """One second's counts [bucket 0, 1, ...]: about rate operations (+-2%),
    shares[b - 1] x tail of them in bucket b >= 1, the rest in bucket 0;
    fractions rounded at random (rnd: a random.Random)."""
    n = rate * (0.98 + 0.04 * rnd.random())
    counts = [0] * (len(shares) + 1)
    for b, share in enumerate(shares, 1):
        x = n * share * tail
        k = int(x)
        if rnd.random() < x - k:
            k += 1
        counts[b] = k
        n -= k
    counts[0] = max(0, int(n))
    return counts


# ----------------------------------------------------------------------------
# Stops and errors (section 7).

def stop_signal(sec, signame="SIGINT"):
    return "stopped by signal %s after %d sec" % (signame, sec)


def stop_request(reason, sec):
    """A run its parent stopped with a reason (act_certify's fail fast)."""
    return "stopped on request: %s after %d sec" % (reason, sec)


def io_error(device, offset, size, op="read", errno=5,
             strerror="Input/output error", failed=None, limit=None):
    """A failed I/O's line; with io-error-limit set (limit) it counts the
    failed I/Os so far (failed)."""
    line = ("ERROR: %s failed on device %s at offset %d, size %d: %s "
            "(errno %d)" % (op, device, offset, size, strerror, errno))
    if limit is not None:
        line += " - failed I/Os: %d, io-error-limit: %d" % (failed, limit)
    return line


def io_errors_stop(failed, limit):
    return "ERROR: stopping: %d I/O errors, more than io-error-limit %d" % (
        failed, limit)


def more_io_errors(n):
    return "ERROR: %d more I/O errors were not shown" % n


# ----------------------------------------------------------------------------
# Drive health (docs/log-format.md, "Drive health"): the source line and
# the start sample in the identity block, samples after reports.

# The fields of a sample, in the order the programs print them: (name,
# format of its value).
HEALTH_FIELDS = [
    ("warning", "0x%02x"), ("temp", "%d C"), ("sensors", "%s"),
    ("spare", "%d%%"), ("spare_threshold", "%d%%"), ("used", "%d%%"),
    ("media_errors", "%d"), ("error_log_entries", "%d"),
    ("units_read", "%d"), ("units_written", "%d"),
    ("warning_temp_time", "%d min"), ("critical_temp_time", "%d min"),
    ("throttle_transitions", "%d/%d"), ("throttle_time", "%d/%d sec"),
    ("wctemp", "%d C"), ("cctemp", "%d C"),
    ("physical_written", "%d bytes"),
]


def health_fields(**values):
    """A sample's fields: `name = value` joined by ", ", in the programs'
    order, each given one (None: left out); sensors a list of C (None for
    '-'; [] for '-' alone) or the text, the throttle pairs tuples."""
    unknown = set(values) - {n for n, _ in HEALTH_FIELDS}
    if unknown:
        raise ValueError("not a health field: %s" % ", ".join(
            sorted(unknown)))
    out = []
    for name, fmt in HEALTH_FIELDS:
        v = values.get(name)
        if v is None:
            continue
        if name == "sensors" and not isinstance(v, str):
            v = "/".join("-" if c is None else "%d" % c for c in v) or "-"
        out.append("%s = %s" % (name, fmt % v))
    return ", ".join(out)


def health_source(device, source):
    """`health DEVICE: SOURCE` (source: "nvme smart log", "none (a
    regular file)", ...)."""
    return "health %s: %s" % (device, source)


def health_start(device, fields):
    """`health DEVICE at start: FIELDS` (fields: health_fields' text)."""
    return "health %s at start: %s" % (device, fields)


def health_sample(device, sec, fields):
    """`health DEVICE at T sec: FIELDS`, T with 3 decimals."""
    return "health %s at %.3f sec: %s" % (device, sec, fields)


def health_unread(device, sec, why):
    """`health DEVICE at T sec: not read - WHY`."""
    return "health %s at %.3f sec: not read - %s" % (device, sec, why)


def _at(value, t):
    """A series' value at t: value(t) for a function, else value."""
    return value(t) if callable(value) else value


def health_series(device, secs, temp=40, throttle=None, media_errors=0,
                  warning=0, spare=100, spare_threshold=10, used=0,
                  units_per_sec=10, waf=None, wctemp=70, cctemp=80,
                  late=0.002, unread=None):
    """A faked NVMe drive's health over a run: (start line, {sec: [the
    sample line after the report at sec]}) for each sec of secs (report
    times). temp, media_errors, warning, spare: a number or a function of
    the second; throttle: the drive throttles (thermal management temp 1,
    1 s a second) in each second whose temp is at or above it (None:
    never); units_per_sec: data units written a second; waf: physical
    bytes written = host bytes x waf (None: no OCP field); late: the
    sample's time after its report; unread: {sec: why} for samples not
    read."""
    state = {"throttle": 0, "transitions": 0, "hot": False}

    def fields(t, start=False):
        return health_fields(
            warning=_at(warning, t), temp=_at(temp, t), sensors=[],
            spare=_at(spare, t), spare_threshold=spare_threshold,
            used=used, media_errors=_at(media_errors, t),
            error_log_entries=0, units_read=0,
            units_written=int(units_per_sec * t), warning_temp_time=0,
            critical_temp_time=0,
            throttle_transitions=(state["transitions"], 0),
            throttle_time=(state["throttle"], 0),
            wctemp=wctemp if start else None,
            cctemp=cctemp if start else None,
            physical_written=None if waf is None else
            int(units_per_sec * t * 512000 * waf))

    start = health_start(device, fields(0, True))
    samples, prev = {}, 0
    for sec in secs:
        for s in range(prev + 1, sec + 1):
            hot = throttle is not None and _at(temp, s) >= throttle
            if hot:
                state["throttle"] += 1
                if not state["hot"]:
                    state["transitions"] += 1
            state["hot"] = hot
        prev = sec
        if unread and sec in unread:
            samples[sec] = [health_unread(device, sec + late, unread[sec])]
        else:
            samples[sec] = [health_sample(device, sec + late, fields(sec))]
    return start, samples


def with_health(lines, samples):
    """The lines of a log with the health lines of samples ({sec:
    [lines]}, health_series') each put after the report at sec - after
    its empty line, where the programs print them; a sec whose report
    the log lacks is left out."""
    out, pending = [], None
    for line in lines:
        out.append(line)
        if line.startswith("after ") and line.endswith(" sec:"):
            pending = samples.get(int(line[6:-5]))
        elif line == "" and pending is not None:
            out += pending
            pending = None
    return out


# ----------------------------------------------------------------------------
# A log of several drives (a verdict per drive: docs/act_latency.md).

def drives_log(devices, over, seconds=120, ran=None, rate=1000, stop=(),
               interval=1, plan=None, **values):
    """An act_storage log of the devices (reads only, test-duration-sec
    seconds, a report every interval seconds), each doing rate reads a
    second - the log plans what they do together, or plan reads a second
    - of which over(device, sec) % (a number: the same every second; sec
    the report's) take 2-4 ms (bucket 2), the rest under 1 ms: the
    histograms reads and <device>-reads, reads their sum. ran: the
    seconds reported (default: all), then the lines of stop. values:
    other config echo items (config_items)."""
    pct = over if callable(over) else (lambda dev, sec: over.get(dev, 0.0))
    plan = rate * len(devices) if plan is None else plan
    items = config_items(STORAGE, devices, test_duration_sec=seconds,
                         read_reqs_per_sec=plan, write_reqs_per_sec=0,
                         report_interval_sec=interval, **values)
    derived = storage_derived(plan, 0, "0.00", "0.00")
    lines = header(STORAGE, items, derived,
                   [device_line(STORAGE, d, 1 << 30) for d in devices],
                   ["reads"] + ["%s-reads" % d for d in devices])
    slices = []
    ops = rate * interval
    for sec in range(interval, (seconds if ran is None else ran) + 1,
                     interval):
        per = []
        for d in devices:
            slow = int(round(ops * pct(d, sec) / 100.0))
            per.append(("%s-reads" % d, {0: ops - slow, 2: slow}))
        total = {0: sum(c[0] for _, c in per), 2: sum(c[2] for _, c in per)}
        slices.append([("reads", total)] + per)
    return lines + reports(slices, interval) + list(stop)


# ----------------------------------------------------------------------------
# A share of slow reads, slice by slice (the trend's tests).

def share_reports(shares, slice_sec, rate, bucket=3, name="reads"):
    """The reports of a run of len(shares) slices of slice_sec seconds,
    one report a slice: slice k has rate x slice_sec operations of
    histogram name, shares[k] percent of them (rounded) in bucket (3: 4 to
    8 ms, over 1 ms and under 8), the rest in bucket 0."""
    ops = int(rate * slice_sec)
    slices = []
    for pct in shares:
        over = min(ops, max(0, int(round(ops * pct / 100.0))))
        slices.append({name: {0: ops - over, bucket: over}})
    return reports(slices, interval=slice_sec)


def noisy_shares(rnd, model, n, level):
    """n shares (percent) around level, flat, with the noise of model:
    "gaussian" (sd 30% of level), "poisson" (the count of slow reads of
    120000 a Poisson variable of mean level% of them), "spikes" (a slice
    in 10 ten times level; +-20% otherwise). rnd: a random.Random."""
    out = []
    for _ in range(n):
        if model == "gaussian":
            out.append(max(0.0, rnd.gauss(level, 0.3 * level)))
        elif model == "poisson":
            mean, k, t = 120000 * level / 100.0, 0, rnd.expovariate(1.0)
            while t < mean:         # arrivals of a rate-1 process
                k += 1
                t += rnd.expovariate(1.0)
            out.append(100.0 * k / 120000)
        elif model == "spikes":
            out.append(level * (10.0 if rnd.random() < 0.1 else 1.0) *
                       rnd.uniform(0.8, 1.2))
        else:
            raise ValueError("no noise model %r" % model)
    return out
