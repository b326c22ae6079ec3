"""Description: request timing (rate-process), measured from outside.

Every pread and pwrite is recorded by the test shim (tests/shim, LD_PRELOAD)
with its issue time and thread, and the timing itself is checked, not just
the rates. act_storage, 8 service threads, 4000 reads/s, 10 s on a file,
once per rate-process, one run after another (runs side by side on a
2-core CI machine, under a sanitizer, delay each other's threads and blur
the timing under test). The limits are generous - they separate the modes
from each other (aligned's gaps are ~87% under 0.1 ms, spread's median gap is
P/8, a periodic thread's coefficient of variation is ~0), not measure them;
bench/bench_rate_process.py measures:

- aligned (the default, not echoed): the reference's timing - all threads
  due together, so most gaps between consecutive small reads are within a
  burst (under 1 ms, with ticks 2 ms apart), and the ticks are 2 ms apart;
- spread (echoed): thread i offset by i/8 of a period - under half of the
  gaps under 0.1 ms, median gap near 2 ms / 8;
- poisson (echoed): exponential gaps - each thread's gaps have a
  coefficient of variation near 1 (0.75 to 1.6: a late thread catching up
  adds variance);
- every mode: 4000 reads/s over the log's 6 s, within 2%.

act_index (2 file devices, cache threads only busy with writes): each cache
write goes to its own random block - it does not repeat the offset of the
read just before it - and the cache threads do their bundles of 100
read+write pairs together (aligned): their first 100 reads start within a
short window of each other.
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

DURATION = 6
RATE = 4000
THREADS = 8
MODES = ("aligned", "spread", "poisson")


def run_all(jobs, timeout):
    """jobs: key -> (args, env). Runs them one after another (see the
    description: side by side they disturb each other's timing);
    key -> Result."""
    return {k: itest.run(args, timeout=timeout, env=env)
            for k, (args, env) in jobs.items()}


def gaps(times):
    return [b - a for a, b in zip(times, times[1:])]


def check_storage(c, mode, res, trace):
    if not c.eq("%s: exit status" % mode, 0, res.rc, res.describe()):
        return
    try:
        log = itest.parse_log(res.out, allow_between=())
    except itest.ParseError as e:
        c.fail("%s: log does not parse: %s" % (mode, e), res.describe())
        return
    c.eq("%s: echo" % mode, None if mode == "aligned" else mode,
         log.cfg("rate-process"))
    total = log.reports[-1].hists["reads"].total if log.reports else 0
    want = RATE * DURATION
    c.check(abs(total - want) <= 0.02 * want,
            "%s: %d reads in %d s, expected %d within 2%%" % (
                mode, total, DURATION, want))

    reads = [r for r in itest.read_trace(trace) if r.op == "r" and
             r.size < 4096 and r.res == r.size]
    if not c.check(len(reads) > want * 0.9,
                   "%s: only %d small reads traced" % (mode, len(reads))):
        return
    g = gaps([r.issue for r in reads])
    period = 1e9 * THREADS / RATE          # of one thread: 2 ms
    share = lambda limit: sum(1 for x in g if x < limit) / len(g)  # noqa
    if mode == "aligned":
        # 7 of every 8 gaps are inside a burst.
        c.check(share(1e6) >= 0.6, "aligned: only %.0f%% of gaps under 1 ms "
                "(bursts expected: ~87%%)" % (100 * share(1e6)))
        big = [x for x in g if x >= 1e6]
        if c.check(big, "aligned: no gap between bursts"):
            med = statistics.median(big)
            c.check(0.5 * period < med < 1.5 * period,
                    "aligned: median gap between bursts %.0f us, expected "
                    "about %.0f" % (med / 1e3, period / 1e3))
    elif mode == "spread":
        c.check(share(1e5) <= 0.5, "spread: %.0f%% of gaps under 0.1 ms "
                "(an even load expected)" % (100 * share(1e5)))
        med = statistics.median(g)
        c.check(0.6 * period / THREADS < med < 1.4 * period / THREADS,
                "spread: median gap %.0f us, expected about %.0f" % (
                    med / 1e3, period / THREADS / 1e3))
    else:
        by_tid = {}
        for r in reads:
            by_tid.setdefault(r.tid, []).append(r.issue)
        cvs = []
        for times in by_tid.values():
            tg = gaps(times)
            if len(tg) > 500:
                cvs.append(statistics.pstdev(tg) / statistics.mean(tg))
        if c.eq("poisson: service threads traced", THREADS, len(cvs)):
            cv = statistics.mean(cvs)
            c.check(0.75 < cv < 1.6, "poisson: coefficient of variation of "
                    "one thread's gaps %.2f, expected near 1" % cv)


def check_index(c, res, trace):
    if not c.eq("act_index: exit status", 0, res.rc, res.describe()):
        return
    recs = [r for r in itest.read_trace(trace) if r.size == 4096 and
            r.res == 4096]
    by_tid = {}
    for r in recs:
        by_tid.setdefault(r.tid, []).append(r)
    cache = [v for v in by_tid.values() if any(r.op == "w" for r in v)]
    if not c.eq("act_index: cache threads traced", 4, len(cache)):
        return
    writes = repeats = 0
    for seq in cache:
        for prev, cur in zip(seq, seq[1:]):
            if cur.op == "w" and prev.op == "r":
                writes += 1
                repeats += (cur.fd, cur.off) == (prev.fd, prev.off)
    c.check(writes > 1000, "act_index: only %d cache writes" % writes)
    c.check(repeats <= max(2, writes // 100), "act_index: %d of %d cache "
            "writes repeat the offset of the read before them" % (
                repeats, writes))
    # Aligned bundles: every cache thread starts its first bundle at once.
    firsts = sorted(seq[0].issue for seq in cache)
    c.check(firsts[-1] - firsts[0] < 50e6, "act_index: cache threads' "
            "first bundles start %.1f ms apart (aligned: together)" % (
                (firsts[-1] - firsts[0]) / 1e6))


def main():
    c = itest.Checker("test_rate_process")
    with itest.TempDir() as td:
        jobs = {}
        traces = {}
        for mode in MODES:
            items = [("device-names", td.join("dev_" + mode)),
                     ("file-size-mbytes", 64),
                     ("service-threads", THREADS),
                     ("test-duration-sec", DURATION),
                     ("read-reqs-per-sec", RATE),
                     ("write-reqs-per-sec", 0)]
            if mode != "aligned":
                items.append(("rate-process", mode))
            cfg = itest.write_config(td.join(mode + ".conf"), items)
            traces[mode] = td.join(mode + ".trace")
            jobs[mode] = ([itest.binary(), cfg],
                          itest.shim_env(trace=traces[mode]))
        icfg = itest.write_config(td.join("index.conf"), [
            ("device-names", "%s,%s" % (td.join("idx1"), td.join("idx2"))),
            ("file-size-mbytes", 64), ("service-threads", 2),
            ("cache-threads", 4), ("test-duration-sec", 4),
            ("read-reqs-per-sec", 100), ("write-reqs-per-sec", 200)])
        traces["index"] = td.join("index.trace")
        jobs["index"] = ([itest.binary("act_index"), icfg],
                         itest.shim_env(trace=traces["index"]))

        res = run_all(jobs, timeout=DURATION + 60)
        for mode in MODES:
            check_storage(c, mode, res[mode], traces[mode])
        check_index(c, res["index"], traces["index"])
    c.finish()


if __name__ == "__main__":
    main()
