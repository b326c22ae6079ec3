"""Whether the host issued a step's load (docs/certify.md, "When the host
is the limit"): the rates the judged histograms should show, from the
log's own derived configuration; the slices whose achieved rate fell
short of them; the plan's warning when a load needs more requests per
service thread than one thread can plausibly issue.

A step whose load was not issued is NOT JUDGED: its latencies say nothing
about the drive at the configured load, so it is neither a drive FAIL
nor a PASS."""

from act.certify.fmt import fmt_load

# A complete slice falls short when the requests done in its window - the
# slice, or for a slice under HOST_WINDOW seconds the whole slices of the
# last HOST_WINDOW seconds (the run so far when shorter) - are fewer than
# HOST_TOLERANCE of what the rate asks for, less one request per service
# (and cache) thread: with rate-process aligned every thread's request can
# fall on either side of a report, a burst of one per thread. The window
# keeps a trial's second-long slices from blaming the host for a moment's
# lag that the threads, on their absolute schedule, catch up at once.
HOST_TOLERANCE = 0.95
HOST_WINDOW = 60
# The plan warns when a step asks each service thread for more than this
# many reads per second: a thread does its requests one after another, so
# it then has under 1 ms for each, and every read over 1 ms (the criteria
# allow 5% of them) puts it behind schedule.
MAX_READS_PER_THREAD = 1000


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def expected_rates(header):
    """{histogram: requests/s} the judged histograms of a log should show,
    from its derived configuration (act_storage.md, act_index.md): reads =
    internal-read-reqs-per-sec (act_storage) or service-thread reads +
    cache-thread reads (act_index); writes (act_storage with
    commit-to-device) = internal-write-reqs-per-sec. Unknown: left out."""
    derived = header.items(header.derived) if header.derived else {}
    out = {}
    storage = _number(derived.get("internal-read-reqs-per-sec"))
    if storage is not None:
        out["reads"] = storage
        writes = _number(derived.get("internal-write-reqs-per-sec"))
        if writes:
            out["writes"] = writes
        return out
    service = _number(derived.get("service-thread-reads-per-sec"))
    if service is not None:
        out["reads"] = service + (_number(derived.get(
            "cache-thread-reads-and-writes-per-sec")) or 0)
    return out


def burst_allowance(header):
    """Requests a slice may lack for the aligned bursts: one per service
    and cache thread (the log's config echo; 0 when it has none)."""
    config = header.items(header.config) if header.config else {}
    return int(sum(_number(config.get(k)) or 0
                   for k in ("service-threads", "cache-threads")))


def short_slices(view):
    """The complete slices of a slice view (failfast.slice_view) whose
    achieved rate fell short: [(slice index from 0, histogram, achieved
    requests/s over its window, expected requests/s)], slices in
    order."""
    out = []
    t = view["slice_sec"]
    ends = view["ends"]
    span = max(1, -(-HOST_WINDOW // t)) if t < HOST_WINDOW else 1
    for h in view["histograms"]:
        want = view["expected"].get(h["name"])
        if not want:
            continue
        ops = h["ops"]
        for k in range(len(ops)):
            first = max(0, k - span + 1)
            secs = ends[k] - (ends[first - 1] if first else 0)
            done = sum(ops[first:k + 1])
            if secs > 0 and \
                    done < HOST_TOLERANCE * want * secs - view["allowance"]:
                out.append((k, h["name"], done / secs, want))
    out.sort(key=lambda x: x[0])
    return out


def short_set(view):
    """The indexes of the slices that fell short."""
    return {k for k, _, _, _ in short_slices(view)}


def not_issued_text(view, slice_name):
    """Why a step is NOT JUDGED, from its short slices (None when none):
    'the host could not issue the load (10878 reads/s of 24000 in hour 3,
    short in 7 of 10 hours; try more service-threads)'."""
    short = short_slices(view)
    if not short:
        return None
    k, name, got, want = min(short, key=lambda x: x[2] / x[3])
    n = len(view["ends"])
    slices = len({x[0] for x in short})
    return ("the host could not issue the load (%d %s/s of %d in %s, short "
            "of %d%% in %d of %d %s; try more service-threads)"
            % (int(got), name, int(round(want)), slice_name(k + 1),
               int(HOST_TOLERANCE * 100), slices, n,
               "slice" if n == 1 else "slices"))


def host_stop_text():
    """Why a step that stopped with the host-limit kind of stop is NOT
    JUDGED."""
    return "the host could not issue the load (act stopped: it can't do " \
        "the requested load; try more service-threads)"


def service_threads(base_items, cpus):
    """The service-threads of a base config's items ({name: value}), or
    the programs' default, 5 x the online CPUs; None when not a number."""
    value = base_items.get("service-threads")
    if value is None:
        return 5 * max(1, cpus or 1)
    try:
        n = int(value, 0)
    except ValueError:
        return None
    return n if n > 0 else None


def thread_warnings(steps, threads, index=False):
    """The plan's warning (a list of at most one line): the steps that run
    and ask a service thread for more than MAX_READS_PER_THREAD reads/s
    (act_index: its service threads also read once per write)."""
    if not threads:
        return []

    def reads(s):
        return s["reads_per_sec"] + (s["writes_per_sec"] if index else 0)
    busy = [s for s in steps if s["kind"] != "prep" and not s["same_run_as"]
            and reads(s) / threads > MAX_READS_PER_THREAD]
    if not busy:
        return []
    top = max(reads(s) for s in busy)
    return ["warning: step%s %s ask%s each of the %d service-threads for "
            "more than %d reads/s (up to %d): the host may not issue the "
            "load, and such a step is NOT JUDGED; set service-threads to "
            "at least %d in the base config" % (
                "" if len(busy) == 1 else "s",
                ", ".join("%d (%s)" % (s["number"], fmt_load(s["load"]))
                          for s in busy), "s" if len(busy) == 1 else "",
                threads, MAX_READS_PER_THREAD, top // threads,
                -(-top // MAX_READS_PER_THREAD))]
