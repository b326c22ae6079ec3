"""Description: with rate-process aligned (the default) every thread of a kind
runs at the same real-valued rate, rate / threads, so all share one period
for the whole run and the drive sees one burst of up to one request per
thread each period - all through the run, not only at the start.

Every pread/pwrite is traced by the test shim (tests/shim, LD_PRELOAD).
The runs go one after another (side by side on 2 cores they would blur the
timing under test):

- act_storage, 160 service threads at 2000 reads/s (12.5/s each, period
  80 ms), a file device, 7 s. An uneven split (80 threads at 13/s, 80 at
  12/s) starts together but drifts apart by 6.4 ms a tick, coinciding once a
  second - so the check is the typical burst, not the largest: in every 1-s
  window after the first, the median over the window's ticks of the most
  reads within 5 ms is at least 3/4 of the threads (uneven split: 80);
  each thread's median gap between its reads is the common period within
  2% (uneven split: -3.8% and +4.2%); 2000 reads/s over the run within 1%
  (the reference's truncation to 12/s would be 1920/s).
- act_index, 24 service threads at 300 reads/s (12.5/s each) and 4 cache
  threads at 150 read+write pairs/s (bundles of 100 pairs: 0.375 bundles/s
  each, period 2.67 s), 7 s: the service threads as above; every cache
  thread's bundle k starts within 25 ms of the others' (uneven split: 38
  and 37 pairs/s, bundle periods 2.63 and 2.70 s - 67 ms apart at the second
  bundle).

The limits are generous (CI: 2 busy cores, sanitized builds);
bench/bench_threads.py measures burst sizes and latencies.
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

DURATION = 7
ST_THREADS, ST_RATE = 160, 2000
IX_THREADS, IX_READS, IX_WRITES = 24, 225, 75   # service: 225 + 75 = 300/s
IX_CACHE_THREADS, IX_CACHE_RATE = 4, 150        # 2 x 75 (defrag-lwm-pct 50)
TICK_GAP_NS = 20e6      # reads further apart than this are different ticks
BURST_NS = 5e6          # a burst: reads within 5 ms of each other


def ticks(times):
    """Issue times (sorted) -> lists of times, split at gaps of
    TICK_GAP_NS or more."""
    out = []
    for t in times:
        if out and t - out[-1][-1] < TICK_GAP_NS:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def burst_size(tick):
    """The most reads of a tick within any BURST_NS window."""
    best = j = 0
    for i, t in enumerate(tick):
        while tick[j] < t - BURST_NS:
            j += 1
        best = max(best, i - j + 1)
    return best


def check_bursts(c, what, recs, threads, rate):
    """recs: the service threads' traced reads. Bursts all through the
    run, one period for every thread."""
    times = [r.issue for r in recs]
    if not c.check(len(times) > rate * (DURATION - 2),
                   "%s: only %d reads traced, expected about %d" % (
                       what, len(times), rate * DURATION)):
        return
    period = 1e9 * threads / rate
    t0 = times[0]
    by_window = {}
    for tk in ticks(times):
        by_window.setdefault(int((tk[0] - t0) // 1e9), []).append(
            burst_size(tk))
    want = 0.75 * threads
    meds = []
    for w in range(1, DURATION - 1):
        sizes = by_window.get(w, [])
        med = statistics.median(sizes) if sizes else 0
        meds.append(med)
        c.check(med >= want, "%s: second %d: median burst %.0f reads within "
                "%.0f ms, expected >= %.0f (one burst of %d per %.1f ms "
                "tick; bursts %s)" % (what, w, med, BURST_NS / 1e6, want,
                                      threads, period / 1e6, sizes))
    print("%s: median burst per second %s (of %d threads)" % (
        what, meds, threads))

    by_tid = {}
    for r in recs:
        by_tid.setdefault(r.tid, []).append(r.issue)
    c.eq("%s: threads traced" % what, threads, len(by_tid))
    off = []
    for tid, ts in sorted(by_tid.items()):
        g = [b - a for a, b in zip(ts, ts[1:])]
        med = statistics.median(g)
        if abs(med - period) > 0.02 * period:
            off.append("%.2f" % (med / 1e6))
    c.check(not off, "%s: %d of %d threads' median gap is not the common "
            "period %.2f ms within 2%%: %s ms" % (
                what, len(off), len(by_tid), period / 1e6, off[:10]))


def by_thread(recs):
    """tid -> the thread's records; without the setup's few reads (the main
    thread checking the devices), which are no worker's."""
    by_tid = {}
    for r in recs:
        by_tid.setdefault(r.tid, []).append(r)
    return {k: v for k, v in by_tid.items() if len(v) >= 10}


def check_rate(c, what, log, rate):
    total = log.reports[-1].hists["reads"].total if log.reports else 0
    want = rate * DURATION
    c.check(abs(total - want) <= 0.01 * want,
            "%s: %d reads in %d s, expected %d within 1%%" % (
                what, total, DURATION, want))


def check_storage(c, res, trace):
    if not c.eq("act_storage: exit status", 0, res.rc, res.describe()):
        return
    try:
        log = itest.parse_log(res.out, allow_between=())
    except itest.ParseError as e:
        c.fail("act_storage: log does not parse: %s" % e, res.describe())
        return
    check_rate(c, "act_storage", log, ST_RATE)
    reads = sorted((r for v in by_thread(itest.read_trace(trace)).values()
                    for r in v if r.op == "r" and r.size < 4096 and
                    r.res == r.size), key=lambda r: r.issue)
    check_bursts(c, "act_storage service threads", reads, ST_THREADS,
                 ST_RATE)


def check_index(c, res, trace):
    if not c.eq("act_index: exit status", 0, res.rc, res.describe()):
        return
    try:
        log = itest.parse_index_log(res.out, allow_between=())
    except itest.ParseError as e:
        c.fail("act_index: log does not parse: %s" % e, res.describe())
        return
    c.eq("act_index: derived cache rate", str(IX_CACHE_RATE),
         log.der("cache-thread-reads-and-writes-per-sec"))
    by_tid = by_thread([r for r in itest.read_trace(trace)
                        if r.res == r.size])
    cache = [v for v in by_tid.values() if any(r.op == "w" for r in v)]
    service = sorted((r for v in by_tid.values() if v not in cache
                      for r in v if r.op == "r"), key=lambda r: r.issue)
    # The log's reads include the cache threads' bundles of 100: the
    # service rate is counted in the trace.
    rate = IX_READS + IX_WRITES
    n = sum(1 for r in service if r.issue - service[0].issue < DURATION * 1e9)
    c.check(abs(n - rate * DURATION) <= 0.01 * rate * DURATION,
            "act_index: %d service reads in %d s, expected %d within 1%%" % (
                n, DURATION, rate * DURATION))
    check_bursts(c, "act_index service threads", service, IX_THREADS,
                 IX_READS + IX_WRITES)

    if not c.eq("act_index: cache threads traced", IX_CACHE_THREADS,
                len(cache)):
        return
    # A bundle starts with a read after a pause of more than 0.5 s.
    starts = []
    for seq in cache:
        s = [seq[0].issue]
        s += [b.issue for a, b in zip(seq, seq[1:]) if b.issue - a.issue >
              500e6]
        starts.append(s)
    n = min(len(s) for s in starts)
    c.check(n >= 2, "act_index: only %d cache bundles per thread, expected "
            "3 (period %.2f s)" % (n, 100 * IX_CACHE_THREADS / IX_CACHE_RATE))
    spans = ["%.1f" % ((max(s[k] for s in starts) -
                        min(s[k] for s in starts)) / 1e6) for k in range(n)]
    print("act_index: cache bundles start within %s ms" % spans)
    c.check(all(float(x) < 25 for x in spans), "act_index: cache threads' "
            "bundles start %s ms apart, expected within 25 (one period for "
            "every cache thread)" % spans)


def main():
    c = itest.Checker("test_thread_bursts")
    with itest.TempDir() as td:
        cfg = itest.write_config(td.join("storage.conf"), [
            ("device-names", td.join("dev")), ("file-size-mbytes", 64),
            ("service-threads", ST_THREADS),
            ("test-duration-sec", DURATION),
            ("read-reqs-per-sec", ST_RATE), ("write-reqs-per-sec", 0)])
        trace = td.join("storage.trace")
        res = itest.run([itest.binary(), cfg], timeout=DURATION + 60,
                        env=itest.shim_env(trace=trace))
        check_storage(c, res, trace)

        icfg = itest.write_config(td.join("index.conf"), [
            ("device-names", "%s,%s" % (td.join("idx1"), td.join("idx2"))),
            ("file-size-mbytes", 64), ("service-threads", IX_THREADS),
            ("cache-threads", IX_CACHE_THREADS),
            ("test-duration-sec", DURATION),
            ("read-reqs-per-sec", IX_READS),
            ("write-reqs-per-sec", IX_WRITES)])
        itrace = td.join("index.trace")
        res = itest.run([itest.binary("act_index"), icfg],
                        timeout=DURATION + 60,
                        env=itest.shim_env(trace=itrace))
        check_index(c, res, itrace)
    c.finish()


if __name__ == "__main__":
    main()
