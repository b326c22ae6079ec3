"""Description: act_storage keeps the configured request rates.

Two ~8 s runs at once on pre-filled 64 MiB files: (A) read 4000 write 2000
and (B) commit-to-device with read 2000 write 1000, record-bytes 1536. For
each histogram, the per-interval count (difference of cumulative totals of
consecutive reports, first interval excluded) is compared with the rate of
the derived configuration: internal-read-reqs-per-sec for reads,
internal-write-reqs-per-sec for commit writes, large-block-reads/writes-per-sec
for the large-block histograms. The mean over intervals 2..N must be within
5%, each single interval within 25%.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

DURATION = 8
MEAN_TOL = 0.05
INTERVAL_TOL = 0.25

CONFIGS = {
    "A": ([("service-threads", 8), ("read-reqs-per-sec", 4000),
           ("write-reqs-per-sec", 2000)],
          {"internal-read-reqs-per-sec": "4000",
           "internal-write-reqs-per-sec": "0",
           "large-block-reads-per-sec": "47.06",
           "large-block-writes-per-sec": "47.06"}),
    "B": ([("service-threads", 8), ("read-reqs-per-sec", 2000),
           ("write-reqs-per-sec", 1000), ("commit-to-device", "yes"),
           ("record-bytes", 1536)],
          {"internal-read-reqs-per-sec": "2000",
           "internal-write-reqs-per-sec": "1000",
           "large-block-reads-per-sec": "23.53",
           "large-block-writes-per-sec": "11.76"}),
}


def main():
    c = itest.Checker("test_rates")
    with itest.TempDir() as td:
        jobs = {}
        devs = {}
        for key, (items, _) in CONFIGS.items():
            dev = td.join("dev_" + key)
            itest.make_filled_file(dev, 64)
            devs[key] = dev
            jobs[key] = itest.write_config(td.join(key + ".conf"), [
                ("device-names", dev), ("test-duration-sec", DURATION)] +
                items)
        res = itest.run_parallel(jobs, timeout=DURATION + 30)
        for key in sorted(CONFIGS):
            check(c, key, res[key], devs[key], CONFIGS[key][1])
    c.finish()


def check(c, key, r, dev, want_derived):
    if not c.eq("config %s: exit status" % key, 0, r.rc, r.describe()):
        return
    try:
        log = itest.parse_log(r.out)
    except itest.ParseError as e:
        c.fail("config %s: log does not parse: %s" % (key, e), r.describe())
        return
    for name, value in want_derived.items():
        c.eq("config %s: derived %s" % (key, name), value, log.der(name))
    c.eq("config %s: report times" % key, list(range(1, DURATION + 1)),
         [rp.sec for rp in log.reports])
    if len(log.reports) < 3:
        return

    rates = {
        "reads": float(log.der("internal-read-reqs-per-sec")),
        dev + "-reads": float(log.der("internal-read-reqs-per-sec")),
        "large-block-reads": float(log.der("large-block-reads-per-sec")),
        "large-block-writes": float(log.der("large-block-writes-per-sec")),
    }
    if log.der("internal-write-reqs-per-sec") != "0":
        rates["writes"] = float(log.der("internal-write-reqs-per-sec"))
        rates[dev + "-writes"] = rates["writes"]
    c.eq("config %s: histogram names" % key,
         sorted(rates), sorted(log.names))

    for name, rate in rates.items():
        if name not in log.names:
            continue
        totals = [t for _, t in log.totals(name)]
        secs = [s for s, _ in log.totals(name)]
        deltas = [(totals[k] - totals[k - 1]) / (secs[k] - secs[k - 1])
                  for k in range(1, len(totals))]
        mean = sum(deltas) / len(deltas)
        detail = "per-interval counts (intervals 2..%d): %s" % (
            secs[-1], deltas)
        c.check(abs(mean - rate) <= MEAN_TOL * rate,
                "config %s: %s: mean %.2f/s over intervals 2..%d is not "
                "within %d%% of the configured %.2f/s" % (
                    key, name, mean, secs[-1], MEAN_TOL * 100, rate), detail)
        for k, d in enumerate(deltas):
            c.check(abs(d - rate) <= INTERVAL_TOL * rate,
                    "config %s: %s: %.0f ops in interval %d, not within "
                    "%d%% of %.2f/s" % (key, name, d, k + 2,
                                        INTERVAL_TOL * 100, rate), detail)
        print("config %s: %-28s configured %8.2f/s  mean %8.2f/s  "
              "min %6.0f  max %6.0f" % (key, name, rate, mean, min(deltas),
                                        max(deltas)))


if __name__ == "__main__":
    main()
