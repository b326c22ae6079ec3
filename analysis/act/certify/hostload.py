"""Whether a step's load was issued and taken (docs/certify.md, "When the
load is not issued"): every planned stream of the log - reads (and
commit writes), large-block reads and writes (act_storage), the cache
threads' reads and writes (act_index) - at the rate of the log's own
derived configuration; the slices whose achieved rate fell short of it;
for each such slice, whether the drive or the host held the load back
(the share of their threads' time the stream's I/Os took, from the
histograms).

A slice short of its plan because the host did not issue the load makes
the step NOT JUDGED: its latencies say nothing about the drive at the
configured load, so it is neither a drive FAIL nor a PASS. A slice short
because the drive's I/Os kept the threads busy - they issued what the
drive let them - is the drive's: a FAIL, never NOT JUDGED."""

from act.cli import UsageError
from act.logfile import MAX_BUCKET
from act.logfile.header import read_header
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


def _unit_sec(header):
    return 1e-6 if header.microsecond else 1e-3


def _stream_counts(log, slice_sec, names, count):
    """{histogram: (operations, least seconds their I/Os took) per slice}
    of the first count slices of slice_sec in log, for the histograms
    names; a histogram the scan could not read to the end has shorter
    lists."""
    out = {n: ([], []) for n in names}
    if not names or not count:
        return out
    with open(log, "rb") as f:
        header = read_header(f, log)
        unit = _unit_sec(header)
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
            for u, (name, cols) in enumerate(zip(names, columns)):
                totals = cols[MAX_BUCKET + 1] or [0] * len(ends)
                least = [0.0] * len(ends)
                for b in range(1, MAX_BUCKET + 1):
                    if cols[b] is not None:
                        w = low[b]
                        least = [x + c * w for x, c in zip(least, cols[b])]
                p_ops, p_busy = prev[u]
                ops, busy = out[name]
                for i in range(n):
                    ops.append(totals[i] - p_ops)
                    busy.append(least[i] - p_busy)
                    p_ops, p_busy = totals[i], least[i]
                prev[u] = (p_ops, p_busy)
            done += n
            if done >= count:
                break
    return out


def load_view(log, header, slice_sec, count):
    """The planned streams of a log and their first count slices of
    slice_sec, as plain data (kept in the slice view, failfast.slice_view):
    (streams [{name, rate, allowance, pool, ops per slice}], pools {pool:
    {threads, what, advice, busy: the least seconds the pool's I/Os took,
    per slice}})."""
    streams, pools = planned_streams(header)
    wanted = [n for n in dict.fromkeys(
        [s["name"] for s in streams] +
        [m for p in pools.values() for m in p["members"]])
        if n in header.names]
    try:
        counts = _stream_counts(log, slice_sec, wanted, count)
    except (OSError, ValueError, UsageError):
        counts = {}                 # no stream known: none short
    out_streams = [dict(s, ops=list(counts.get(s["name"], ([], []))[0]))
                   for s in streams]
    out_pools = {}
    for name, p in pools.items():
        busy = [0.0] * count
        for m in p["members"]:
            for i, x in enumerate(counts.get(m, ([], []))[1][:count]):
                busy[i] += x
        if p["paired"]:
            # a share of the reads histogram: one read per write
            r, w = p["paired"]
            r_ops, r_busy = counts.get(r, ([], []))
            w_ops = counts.get(w, ([], []))[0]
            for i in range(min(count, len(r_ops), len(w_ops))):
                if r_ops[i]:
                    busy[i] += r_busy[i] * min(1.0, w_ops[i] / r_ops[i])
        out_pools[name] = {"threads": p["threads"], "what": p["what"],
                           "advice": p["advice"], "busy": busy}
    return out_streams, out_pools


def _window(view, k):
    """(first slice, seconds) of slice k's window (HOST_WINDOW)."""
    t = view["slice_sec"]
    ends = view["ends"]
    span = max(1, -(-HOST_WINDOW // t)) if t < HOST_WINDOW else 1
    first = max(0, k - span + 1)
    return first, ends[k] - (ends[first - 1] if first else 0)


def short_slices(view):
    """The complete slices of a slice view (failfast.slice_view) where a
    planned stream's achieved rate fell short: [(slice index from 0,
    histogram, achieved requests/s over its window, planned requests/s)],
    slices in order, streams in their order within a slice."""
    out = []
    for s in view.get("streams", ()):
        want = s["rate"]
        ops = s["ops"]
        for k in range(min(len(ops), len(view["ends"]))):
            first, secs = _window(view, k)
            done = sum(ops[first:k + 1])
            if secs > 0 and \
                    done < HOST_TOLERANCE * want * secs - s["allowance"]:
                out.append((k, s["name"], done / secs, want))
    out.sort(key=lambda x: x[0])
    return out


def busy_share(view, k, name):
    """The least share of their time that the threads issuing stream
    name spent in their I/Os over slice k's window, or None when their
    number is unknown."""
    stream = [s for s in view.get("streams", ()) if s["name"] == name]
    pool = view.get("pools", {}).get(stream[0]["pool"]) if stream else None
    if not pool or not pool["threads"]:
        return None
    first, secs = _window(view, k)
    if secs <= 0:
        return None
    return sum(pool["busy"][first:k + 1]) / (pool["threads"] * secs)


def _split(view):
    """(host, drive): the short slices (short_slices) the host held back,
    and those the drive did - with each one's busy share."""
    host, drive = [], []
    for k, name, got, want in short_slices(view):
        share = busy_share(view, k, name)
        if share is not None and share >= DRIVE_BOUND_SHARE:
            drive.append((k, name, got, want, share))
        else:
            host.append((k, name, got, want, share))
    return host, drive


def short_set(view):
    """The indexes of the slices where the host fell short of the load
    (a stream short of its plan, not for the drive): the criteria are not
    judged on them."""
    return {x[0] for x in _split(view)[0]}


def _rate(x):
    """A rate as text: whole above 100 ('10878'), else to 0.01 ('23.53',
    '11.2')."""
    return "%d" % int(x) if x >= 100 else "%g" % round(x, 2)


def _short_text(view, short, slice_name):
    """'N HIST/s of M in slice K, short of 95% in X of Y slices' for the
    stream of short furthest from its plan, at its worst slice; the
    others named after it (in plan order). Returns (text, (slice, the
    headline stream))."""
    order = [s["name"] for s in view.get("streams", ())]
    k, name, got, want = min(short, key=lambda x: x[2] / x[3])[:4]
    names = [name] + sorted({x[1] for x in short} - {name}, key=order.index)
    n = len(view["ends"])
    slices = len({x[0] for x in short})
    text = "%s %s/s of %s in %s, short of %d%% in %d of %d %s" % (
        _rate(got), name, _rate(want), slice_name(k + 1),
        int(HOST_TOLERANCE * 100), slices, n, "slice" if n == 1 else "slices")
    if len(names) > 1:
        text += "; %s short too" % ", ".join(names[1:])
    return text, (k, name)


def _pool_of(view, name):
    for s in view.get("streams", ()):
        if s["name"] == name:
            return view.get("pools", {}).get(s["pool"])
    return None


def not_issued_text(view, slice_name):
    """Why a step is NOT JUDGED, from the slices where the host fell
    short (None when none): 'the host could not issue the load (10878
    reads/s of 24000 in hour 3, short of 95% in 7 of 10 hours; try more
    service-threads)'."""
    host = _split(view)[0]
    if not host:
        return None
    text, (_k, name) = _short_text(view, host, slice_name)
    pool = _pool_of(view, name)
    return "the host could not issue the load (%s; %s)" % (
        text, pool["advice"] if pool else "try more service-threads")


def not_taken_text(view, slice_name):
    """Why a step is the drive's FAIL although (or besides) its criteria:
    a stream short of its plan while its threads waited on the drive
    (None when none): 'the drive could not take the load (11.2
    large-block-writes/s of 23.53 in slice 3, short of 95% in 10 of 10
    slices; the I/Os of the 1 large-block-writes thread took at least 71%
    of its time)'."""
    drive = _split(view)[1]
    if not drive:
        return None
    text, (k, name) = _short_text(view, drive, slice_name)
    pool = _pool_of(view, name)
    share = busy_share(view, k, name)
    return ("the drive could not take the load (%s; the I/Os of the %d %s "
            "took at least %d%% of %s time)" % (
                text, pool["threads"], pool["what"], int(100 * share),
                "its" if pool["threads"] == 1 else "their"))


def short_streams(view):
    """The streams of a slice view short of their plan, for summary.json:
    [{histogram, planned_per_sec, lowest_per_sec, slice (from 1, the
    lowest), short_slices, slices, cause: "host" or "drive"}]."""
    if not view:
        return []
    host, drive = _split(view)
    out = []
    for s in view.get("streams", ()):
        for cause, short in (("drive", drive), ("host", host)):
            mine = [x for x in short if x[1] == s["name"]]
            if not mine:
                continue
            low = min(mine, key=lambda x: x[2])
            out.append({"histogram": s["name"], "planned_per_sec": s["rate"],
                        "lowest_per_sec": round(low[2], 2),
                        "slice": low[0] + 1,
                        "short_slices": len({x[0] for x in mine}),
                        "slices": len(view["ends"]), "cause": cause})
    return out


def host_stop_text():
    """Why a step that stopped with the host-limit kind of stop is NOT
    JUDGED."""
    return "the host could not issue the load (act stopped: it can't do " \
        "the requested load; try more service-threads)"

