"""Whether a log's load was issued and taken (docs/certify.md, "When the
load is not issued"; docs/act_latency.md, "The load"): every planned
stream of the log - reads (and commit writes), large-block reads and
writes (act_storage), the cache threads' reads and writes (act_index) -
at the rate of the log's own derived configuration; the slices whose
achieved rate fell short of it; for each such slice, whether the drive or
the host held the load back (the share of their threads' time the
stream's I/Os took, from the histograms).

A slice short of its plan because the host did not issue the load makes
the verdict NOT JUDGED: its latencies say nothing about the drive at the
configured load, so it is neither a drive FAIL nor a PASS. A slice short
because the drive's I/Os kept the threads busy - they issued what the
drive let them - is the drive's: a FAIL, never NOT JUDGED.

LoadCheck judges the slices one by one, keeping only a minute of them
(the window) and what the verdict and its texts need: memory does not
grow with the log's length."""

from collections import deque

from act.logfile import MAX_BUCKET, LogError
from act.logfile.scanner import ReportScanner

# A complete slice falls short when the requests done in its window - the
# slice, or for a slice under HOST_WINDOW seconds the whole slices of the
# last HOST_WINDOW seconds (the run so far when shorter) - are fewer than
# HOST_TOLERANCE of what the rate asks for, less the requests that may
# fall on the other side of a report (the allowance: one per thread
# doing the stream, a bundle per act_index cache thread). The window
# keeps a trial's second-long slices from blaming the host for a
# moment's lag that the threads, on their absolute schedule, catch up at
# once.
HOST_TOLERANCE = 0.95
HOST_WINDOW = 60
# A short slice is the drive's when the I/Os of the threads that issue
# the stream took at least this share of their time in the window: the
# threads were waiting on the drive (as in act's lag diagnosis,
# src/common/worker.c, which has each thread's own clock: half of its
# time). The log has only the histograms, so the time is taken at each
# bucket's lower bound - the least the I/Os can have taken, and at least
# half of what they took: threads always in their I/Os show 50% or more,
# and 40% leaves room for the time between two requests. A fast drive is
# never blamed: an I/O under 1 ms (in a millisecond log) counts nothing.
DRIVE_BOUND_SHARE = 0.4
# act_index's cache threads issue their read+write pairs in bundles of
# this many, back to back (docs/act_index.md, "Threads and pacing").
CACHE_BUNDLE = 100

HOST_ADVICE = "the host, not the drive, is the limit"
HOST_STOP_TEXT = ("the host could not issue the load (act stopped: it "
                  "can't do the requested load; try more service-threads)")


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _count(items, name):
    """A whole positive number of items ({name: text}), else 0."""
    v = _number(items.get(name))
    return int(v) if v and v > 0 and v == int(v) else 0


def planned_streams(header):
    """The planned streams of a log, from its config echo and derived
    configuration (act_storage.md, act_index.md): (streams, pools).

    streams: [{name: its histogram, rate: requests/s, allowance: requests
    a slice may lack, pool}], in the log's order of importance (reads
    first); a stream whose rate is 0 or unknown, or whose histogram the
    log lacks, is left out. pools: {pool: {threads (0: unknown), what,
    advice, members: the histograms whose I/Os the pool's threads do,
    paired: (reads, writes) when the pool also does a share of the reads
    histogram - act_index's cache threads, one read per write}}."""
    derived = header.items(header.derived) if header.derived else {}
    config = header.items(header.config) if header.config else {}
    names = set(header.names)
    service = _count(config, "service-threads")
    streams, pools = [], {}

    def add(name, rate, allowance, pool):
        if rate and rate > 0 and name in names:
            streams.append({"name": name, "rate": rate,
                            "allowance": allowance, "pool": pool})

    storage = _number(derived.get("internal-read-reqs-per-sec"))
    if storage is not None:
        pools["service"] = {"threads": service, "what": "service threads",
                            "advice": "try more service-threads",
                            "members": ["reads", "writes"], "paired": None}
        add("reads", storage, service, "service")
        add("writes", _number(derived.get("internal-write-reqs-per-sec")),
            service, "service")
        # one thread per device and kind (num-devices is always echoed)
        devices = _count(config, "num-devices")
        for name, what in (("large-block-reads", "large-block read"),
                           ("large-block-writes", "large-block write")):
            pools[name] = {"threads": devices,
                           "what": "%s thread%s" % (
                               what, "" if devices == 1 else "s"),
                           "advice": HOST_ADVICE, "members": [name],
                           "paired": None}
            add(name, _number(derived.get(name + "-per-sec")),
                max(1, devices), name)
        return streams, pools
    reads = _number(derived.get("service-thread-reads-per-sec"))
    if reads is not None:
        cache_rate = _number(derived.get(
            "cache-thread-reads-and-writes-per-sec")) or 0
        cache = _count(config, "cache-threads")
        pools["all"] = {"threads": service + cache if service and (
            cache or not cache_rate) else 0,
            "what": "service and cache threads",
            "advice": "try more service-threads",
            "members": ["reads", "writes"], "paired": None}
        pools["cache"] = {"threads": cache, "what": "cache threads",
                          "advice": "try more cache-threads",
                          "members": ["writes"],
                          "paired": ("reads", "writes")}
        add("reads", reads + cache_rate, service + CACHE_BUNDLE * cache,
            "all")
        add("writes", cache_rate, CACHE_BUNDLE * cache, "cache")
    return streams, pools


def stream_slices(f, header, slice_sec, names, count):
    """Per slice of slice_sec (the first count), {histogram: (operations,
    the least seconds their I/Os took)} for the histograms names, from the
    log body in binary file f (at the body's start, as after
    logfile.header.read_header; header.rest before it). It ends early
    where the scan stops (a damaged report)."""
    if not names or not count:
        return
    unit = 1e-6 if header.microsecond else 1e-3
    # the least each bucket's I/Os took: bucket b >= 1 holds
    # 2^(b-1) <= t < 2^b units (log-format.md, section 6)
    low = [0.0] + [(1 << (b - 1)) * unit for b in range(1, MAX_BUCKET + 1)]
    scanner = ReportScanner(f, header.rest, header.names, names,
                            header.interval, slice_sec, MAX_BUCKET,
                            duration=header.duration)
    # names are distinct: the scanner's columns are in their order
    prev = [(0, 0.0)] * len(names)
    done = 0
    for ends, columns in scanner:
        n = min(len(ends), count - done)
        per = []
        for u, cols in enumerate(columns):
            totals = cols[MAX_BUCKET + 1] or [0] * len(ends)
            least = [0.0] * len(ends)
            for b in range(1, MAX_BUCKET + 1):
                if cols[b] is not None:
                    w = low[b]
                    least = [x + c * w for x, c in zip(least, cols[b])]
            p_ops, p_busy = prev[u]
            ops, busy = [], []
            for i in range(n):
                ops.append(totals[i] - p_ops)
                busy.append(least[i] - p_busy)
                p_ops, p_busy = totals[i], least[i]
            prev[u] = (p_ops, p_busy)
            per.append((ops, busy))
        for i in range(n):
            yield {name: (ops[i], busy[i])
                   for name, (ops, busy) in zip(names, per)}
        done += n
        if done >= count:
            return


class _Short:
    """The short slices of one cause (the host's or the drive's): the
    entry furthest from its plan (the first of them), the streams, the
    slices."""

    def __init__(self):
        self.worst = None           # (k, name, got, want, share)
        self.names = set()
        self.slices = 0

    def add(self, entries):
        """The entries (k, name, got, want, share) of one slice."""
        if not entries:
            return
        self.slices += 1
        for e in entries:
            self.names.add(e[1])
            if self.worst is None or \
                    e[2] / e[3] < self.worst[2] / self.worst[3]:
                self.worst = e


class LoadCheck:
    """Every planned stream of a log against its plan, slice by slice:
    add() each complete slice in order, with its streams' counts
    (stream_slices) and the criteria it is over (the verdict's). Keeps
    the last HOST_WINDOW seconds of slices and, per cause, what the texts
    need (not_issued_text, not_taken_text, short_streams), and the first
    slice over a limit where the host did not fall short (first_failing:
    (slice index from 0, [(histogram, % over, threshold, limit)]) or
    None).

    known: False when the streams' counts could not be read (the log is
    a pipe: it cannot be read twice) - then no slice is short."""

    def __init__(self, streams, pools, slice_sec, known=True):
        self.streams = streams
        self.pools = pools
        self.slice_sec = t = slice_sec
        self.known = known
        self.span = max(1, -(-HOST_WINDOW // t)) if t < HOST_WINDOW else 1
        self.ops = {s["name"]: deque(maxlen=self.span) for s in streams}
        self.done = {s["name"]: 0 for s in streams}     # sum(ops[name])
        self.busy = {p: deque(maxlen=self.span) for p in pools}
        self.slices = 0             # slices added
        self.host, self.drive = _Short(), _Short()
        self.lowest = {}            # (stream, cause) -> [entry, slices]
        self.first_failing = None

    def _pool_busy(self, p, counts):
        busy = 0.0
        for m in p["members"]:
            if m in counts:
                busy += counts[m][1]
        if p["paired"]:
            # a share of the reads histogram: one read per write
            r, w = p["paired"]
            if r in counts and w in counts and counts[r][0]:
                busy += counts[r][1] * min(1.0, counts[w][0] / counts[r][0])
        return busy

    def add(self, counts, over):
        """Judge the next slice: counts {histogram: (operations, least
        seconds in I/O)} (stream_slices; None when not known), over the
        criteria it is over (empty when none)."""
        k = self.slices
        self.slices += 1
        entries = {"host": [], "drive": []}
        if counts is not None:
            for name, p in self.pools.items():
                self.busy[name].append(self._pool_busy(p, counts))
            secs = min(k + 1, self.span) * self.slice_sec
            for s in self.streams:
                name = s["name"]
                if name not in counts:
                    continue
                ops = self.ops[name]
                if len(ops) == self.span:
                    self.done[name] -= ops[0]
                ops.append(counts[name][0])
                self.done[name] += ops[-1]
                done = self.done[name]
                want = s["rate"]
                if done < HOST_TOLERANCE * want * secs - s["allowance"]:
                    share = self._share(s, secs)
                    cause = "drive" if share is not None and \
                        share >= DRIVE_BOUND_SHARE else "host"
                    e = (k, s["name"], done / secs, want, share)
                    entries[cause].append(e)
                    low = self.lowest.setdefault((s["name"], cause),
                                                 [e, 0])
                    low[1] += 1
                    if e[2] < low[0][2]:
                        low[0] = e
        self.host.add(entries["host"])
        self.drive.add(entries["drive"])
        if over and not entries["host"] and self.first_failing is None:
            self.first_failing = (k, over)

    def _share(self, stream, secs):
        """The least share of their time the threads issuing stream spent
        in their I/Os over the window (secs seconds), or None when their
        number is unknown."""
        pool = self.pools.get(stream["pool"])
        if not pool or not pool["threads"]:
            return None
        return sum(self.busy[stream["pool"]]) / (pool["threads"] * secs)


def check_load(header, slice_sec, f, count, overs):
    """The LoadCheck of a log: the first count slices of slice_sec of the
    log body in f (at its start; None when the log cannot be read again),
    overs the criteria each slice is over (an iterable, one list per
    slice)."""
    streams, pools = planned_streams(header)
    wanted = [n for n in dict.fromkeys(
        [s["name"] for s in streams] +
        [m for p in pools.values() for m in p["members"]])
        if n in header.names]
    check = LoadCheck(streams, pools, slice_sec, known=f is not None)
    counts = stream_slices(f, header, slice_sec, wanted, count) \
        if f is not None else iter(())
    for over in overs:
        try:
            got = next(counts, None)
        except (OSError, ValueError, LogError):
            counts, got = iter(()), None    # no more counts: none short
        check.add(got, over)
    return check


def slice_namer(slice_sec):
    """'hour 3' for one-hour slices, else 'slice 3'."""
    unit = "hour" if slice_sec == 3600 else "slice"
    return lambda k: "%s %d" % (unit, k)


def _rate(x):
    """A rate as text: whole above 100 ('10878'), else to 0.01 ('23.53',
    '11.2')."""
    return "%d" % int(x) if x >= 100 else "%g" % round(x, 2)


def _short_text(check, short):
    """'N HIST/s of M in slice K, short of 95% in X of Y slices' for the
    stream of short (a _Short) furthest from its plan, at its worst slice;
    the others named after it (in plan order)."""
    order = [s["name"] for s in check.streams]
    k, name, got, want, _share = short.worst
    names = [name] + sorted(short.names - {name}, key=order.index)
    n = check.slices
    text = "%s %s/s of %s in %s, short of %d%% in %d of %d %s" % (
        _rate(got), name, _rate(want), slice_namer(check.slice_sec)(k + 1),
        int(HOST_TOLERANCE * 100), short.slices, n,
        "slice" if n == 1 else "slices")
    if len(names) > 1:
        text += "; %s short too" % ", ".join(names[1:])
    return text


def _pool_of(check, name):
    for s in check.streams:
        if s["name"] == name:
            return check.pools.get(s["pool"])
    return None


def not_issued_text(check):
    """Why a log is NOT JUDGED, from the slices where the host fell short
    (None when none): 'the host could not issue the load (10878 reads/s of
    24000 in hour 3, short of 95% in 7 of 10 hours; try more
    service-threads)'."""
    if check is None or check.host.worst is None:
        return None
    pool = _pool_of(check, check.host.worst[1])
    return "the host could not issue the load (%s; %s)" % (
        _short_text(check, check.host),
        pool["advice"] if pool else "try more service-threads")


def not_taken_text(check):
    """Why a log is the drive's FAIL although (or besides) its criteria: a
    stream short of its plan while its threads waited on the drive (None
    when none): 'the drive could not take the load (11.2
    large-block-writes/s of 23.53 in slice 3, short of 95% in 10 of 10
    slices; the I/Os of the 1 large-block-writes thread took at least 71%
    of its time)'."""
    if check is None or check.drive.worst is None:
        return None
    k, name, _got, _want, share = check.drive.worst
    pool = _pool_of(check, name)
    return ("the drive could not take the load (%s; the I/Os of the %d %s "
            "took at least %d%% of %s time)" % (
                _short_text(check, check.drive), pool["threads"],
                pool["what"], int(100 * share),
                "its" if pool["threads"] == 1 else "their"))


def short_streams(check):
    """The streams short of their plan, for act_certify's summary.json:
    [{histogram, planned_per_sec, lowest_per_sec, slice (from 1, the
    lowest), short_slices, slices, cause: "host" or "drive"}]. check: a
    LoadCheck, or an Analysis (its load), or None."""
    check = getattr(check, "load", check)
    if not check:
        return []
    out = []
    for s in check.streams:
        for cause in ("drive", "host"):
            low = check.lowest.get((s["name"], cause))
            if not low:
                continue
            e, n = low
            out.append({"histogram": s["name"], "planned_per_sec": s["rate"],
                        "lowest_per_sec": round(e[2], 2), "slice": e[0] + 1,
                        "short_slices": n, "slices": check.slices,
                        "cause": cause})
    return out
