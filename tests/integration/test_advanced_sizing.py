"""Description: workloads from production (docs/advanced-sizing.md) end to end.

1. The paper's "Final ACT Configuration" (config/examples/paper_final.conf)
   runs as printed, with only the device name changed to a file (plus
   file-size-mbytes and a short duration): exit 0, the banner line and the
   legacy items are warnings, the derived block has the paper's numbers
   (1230.86 / 1582.86, avg-read-bytes 16948, avg-write-bytes 18475), the
   additions are echoed after the standard items.
2. With size histograms for reads and commit-to-device writes, the sizes
   of the I/Os the drive sees during a run (from the fault shim's trace,
   tests/shim, ACT_SHIM_TRACE: each drawn size rounded to the device, the
   large blocks and the setup probe left out) follow the configured
   distributions (chi-square, p = 0.001), and the large-block
   rates match the formulas with offsets and direct-frees (mean of
   intervals 2..N within 5%).
"""

import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

PAPER = os.path.join(itest.REPO, "config", "examples", "paper_final.conf")

# Chi-square critical values at p = 0.001 by degrees of freedom.
CHI2_001 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46,
            7: 24.32, 8: 26.12, 9: 27.88, 10: 29.59}


def paper_run(c, td):
    dev = td.join("nvme.img")
    with open(PAPER) as f:
        text = f.read()
    c.check("/dev/nvme0n1" in text, "paper config names /dev/nvme0n1")
    text = text.replace("/dev/nvme0n1", dev)
    text = text.replace("test-duration-sec: 7200", "test-duration-sec: 3")
    text += "file-size-mbytes: 256\n"
    conf = itest.write_config(td.join("paper.conf"), text)
    r = itest.run(conf, timeout=40)
    if not c.eq("paper config: exit status", 0, r.rc, r.describe()):
        return
    c.check("is inside a '#####' banner: read as a comment: act config file"
            in r.err,
            "paper config: warning for the banner's bare line", r.err)
    c.check("'num-queues' is obsolete" in r.err,
            "paper config: warning for num-queues", r.err)
    log = itest.parse_log(r.out)
    for name, want in [("service-threads", "140"), ("record-bytes", "0"),
                       ("lbr-req-offset", "90"), ("lbw-req-offset", "93"),
                       ("total-lbw-per-sec", "1527"),
                       ("direct-frees", "300")]:
        c.eq("paper config: echo of %s" % name, want, log.cfg(name))
    for name, want in [("large-block-reads-per-sec", "1230.86"),
                       ("large-block-writes-per-sec", "1582.86"),
                       ("avg-read-bytes", "16948"),
                       ("avg-write-bytes", "18475"),
                       ("internal-read-reqs-per-sec", "10470")]:
        c.eq("paper config: derived %s" % name, want, log.der(name))
    c.eq("paper config: reports", [1, 2, 3], [rp.sec for rp in log.reports])


def device_sizes(hist, unit, offset_pct=100):
    """{size on the device: probability} of a size histogram, as
    storage_sizes_build (src/storage/storage_cfg.c) draws it and act_storage
    rounds it up to the device's unit: index 0 is "<= 1 byte" (1 byte),
    index k + 1 over 2^k bytes (2^k bytes), times the offset, rounded up to
    16 bytes."""
    out = {}
    for i in range(len(hist) + 1):
        if i == 0:
            prob, base = (100.0 - hist[0]) / 100.0, 1
        else:
            k = i - 1
            prob = (hist[k] - (hist[k + 1] if k + 1 < len(hist) else 0.0)) \
                / 100.0
            base = 1 << k
        size = (base * offset_pct + 99) // 100
        size = (size + 15) // 16 * 16
        size = (size + unit - 1) // unit * unit
        out[size] = out.get(size, 0.0) + prob
    return out


def chi_square(c, what, rows):
    """rows: (prob, count) of one kind. Buckets with probability 0 must
    never be drawn; the rest must fit."""
    total = sum(n for _, n in rows)
    if not c.check(total > 1000, "%s: only %d sizes drawn" % (what, total)):
        return
    for p, n in rows:
        if p == 0.0:
            c.check(n == 0, "%s: a size of probability 0 drawn %d times"
                    % (what, n))
    live = [(p, n) for p, n in rows if p > 0.0]
    if len(live) < 2:
        # The device's unit rounds every size to one: nothing to fit.
        print("%s: %d sizes, all of one device size" % (what, total))
        return
    chi2 = sum((n - p * total) ** 2 / (p * total) for p, n in live)
    df = len(live) - 1
    detail = "expected/got: " + ", ".join(
        "%.0f/%d" % (p * total, n) for p, n in live)
    c.check(chi2 < CHI2_001[df], "%s: chi-square %.1f >= %.2f (df %d)"
            % (what, chi2, CHI2_001[df], df), detail)
    print("%s: %d sizes, chi-square %.2f (df %d, limit %.2f)"
          % (what, total, chi2, df, CHI2_001[df]))


def sizes_run(c, td):
    dev = td.join("sizes.img")
    itest.make_filled_file(dev, 64)
    trace = td.join("trace.txt")
    read_hist = [100] * 9 + [80, 60, 30, 10, 0]
    write_hist = [100] * 9 + [75.5, 75.5, 40, 0]
    conf = itest.write_config(td.join("sizes.conf"), [
        ("device-names", dev), ("test-duration-sec", 6),
        ("service-threads", 4), ("read-reqs-per-sec", 3000),
        ("write-reqs-per-sec", 600), ("commit-to-device", "yes"),
        ("record-bytes", 0),
        ("storage-read-histogram", ", ".join(str(p) for p in read_hist)),
        ("storage-write-histogram", ",".join(str(p) for p in write_hist)),
        ("lbr-req-offset", "080"), ("lbw-req-offset", 150),
        ("total-lbw-per-sec", 40), ("direct-frees", 10)])
    r = itest.run([itest.binary(), conf], timeout=40,
                  env=itest.shim_env(trace=trace))
    if not c.eq("sizes: exit status", 0, r.rc, r.describe()):
        return
    m = re.search(r"minimum IO size = (\d+) bytes", r.out)
    if not c.check(m is not None, "sizes: no minimum IO size in the log"):
        return
    min_io = int(m.group(1))
    recs = itest.read_trace(trace)
    if not c.check(recs, "sizes: the shim traced no I/O"):
        return
    # The first I/O is the setup probe, on the main thread, which does no
    # other I/O; large-block reads and writes are 128 KiB.
    run_recs = [x for x in recs if x.tid != recs[0].tid and x.size != 131072]
    for what, op, hist in (("read sizes", "r", read_hist),
                           ("commit write sizes", "w", write_hist)):
        counts = {}
        for x in run_recs:
            if x.op == op:
                counts[x.size] = counts.get(x.size, 0) + 1
        want = device_sizes(hist, min_io)
        stray = sorted(s for s in counts if s not in want)
        c.check(not stray, "%s: sizes no histogram bucket gives: %s"
                % (what, stray))
        chi_square(c, what, [(p, counts.get(s, 0))
                             for s, p in sorted(want.items())])

    log = itest.parse_log(r.out)
    # Write histogram (k = 0..12): 24.5% over 2^8 = 256, 0% at 512, 35.5%
    # at 1024, 40% at 2048 bytes -> 1245.44 -> 1245; 131072 / 1245 = 105
    # records per block; 600 / 105 = 5.714 blocks/s; commit-to-device:
    # reads x2 = 11.43, writes x1 = 5.71. Offsets and frees: reads x 0.8 x
    # 30/40 = 6.86, writes x 1.5 = 8.57.
    for name, want in [("avg-write-bytes", "1245"),
                       ("large-block-reads-per-sec", "6.86"),
                       ("large-block-writes-per-sec", "8.57"),
                       ("internal-write-reqs-per-sec", "600")]:
        c.eq("sizes: derived %s" % name, want, log.der(name))
    for name in ("large-block-reads", "large-block-writes", "writes",
                 "reads"):
        rate = float(log.der({"large-block-reads": "large-block-reads-per-sec",
                              "large-block-writes":
                              "large-block-writes-per-sec",
                              "writes": "internal-write-reqs-per-sec",
                              "reads": "internal-read-reqs-per-sec"}[name]))
        got = [v for _, v in itest.interval_rates(log, name)]
        mean = sum(got) / len(got)
        # Service threads pick read or write at random per request (as the
        # reference does): each count is binomial around its share of the
        # 3600 requests a second, so allow 4.5 standard deviations of that
        # on top of 5% (the total of the two is exact: checked below).
        tol = 0.05 * rate
        if name in ("reads", "writes"):
            p = rate / 3600.0
            tol = max(tol, 4.5 * math.sqrt(3600.0 * len(got) * p * (1 - p)) /
                      len(got))
        c.check(abs(mean - rate) <= tol,
                "sizes: %s: mean %.2f/s not within %.2f of %.2f/s"
                % (name, mean, tol, rate), "per interval: %s" % got)
        print("sizes: %-20s configured %8.2f/s  measured %8.2f/s"
              % (name, rate, mean))
    both = [r + w for (_, r), (_, w) in zip(itest.interval_rates(log, "reads"),
                                            itest.interval_rates(log,
                                                                 "writes"))]
    c.check(both and abs(sum(both) / len(both) - 3600) <= 0.02 * 3600,
            "sizes: reads + writes: mean %.2f/s not within 2%% of 3600/s"
            % (sum(both) / max(len(both), 1)), "per interval: %s" % both)


def main():
    c = itest.Checker("test_advanced_sizing")
    with itest.TempDir() as td:
        paper_run(c, td)
        sizes_run(c, td)
    c.finish()


if __name__ == "__main__":
    main()
