"""Description: act_storage options: compress-pct, tomb-raider, histograms, rates.

Short runs, all at once: compress-pct 50 (every 512-byte interval of the
large blocks written to the device file has words 0..31 zero and random
words 32..63); tomb-raider (exit 0, no extra histogram, and it really reads:
the process reads far more than a run without it); microsecond-histograms
(latencies land above bucket 0); record-bytes-range-max (derived range and
rates); update-pct on a write-only load (`reads` histograms listed and
filled at write * update-pct / 100); no-defrag-reads (large-block-reads
listed, total 0); report-interval-sec 2 with test-duration-sec 5 (reports
after 2, 4, 5 sec); total-latency (total-reads listed last, total-writes
after it with commit-to-device).
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

LB = 128 * 1024
INTERVAL = 512

BASE = [("service-threads", 4), ("test-duration-sec", 2),
        ("read-reqs-per-sec", 1000), ("write-reqs-per-sec", 500)]

RUNS = {
    "compress": [("file-size-mbytes", 16), ("write-reqs-per-sec", 1000),
                 ("compress-pct", 50)],
    "tomb": [("tomb-raider", "yes")],
    "plain": [],
    "usec": [("microsecond-histograms", "yes")],
    "range": [("record-bytes", 1000), ("record-bytes-range-max", 3000),
              ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000)],
    "update": [("read-reqs-per-sec", 0), ("write-reqs-per-sec", 1000),
               ("update-pct", 50)],
    "nodefrag": [("no-defrag-reads", "yes")],
    "interval": [("report-interval-sec", 2), ("test-duration-sec", 5)],
    "total": [("total-latency", "yes")],
    "total_commit": [("total-latency", "yes"), ("commit-to-device", "yes")],
}


def rchar(pid):
    try:
        with open("/proc/%d/io" % pid) as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def run_one(prog, cfg, key, results, io_samples):
    p = itest.start([prog, cfg])
    t0 = time.monotonic()
    last = None
    if key in ("tomb", "plain"):
        # Sample the bytes read by the process until ~1.6 s into the run.
        while time.monotonic() - t0 < 1.6 and p.poll() is None:
            v = rchar(p.pid)
            if v is not None:
                last = (time.monotonic() - t0, v)
            time.sleep(0.1)
    try:
        out, err = p.communicate(timeout=40)
    except Exception:
        p.kill()
        out, err = p.communicate()
    results[key] = itest.Result(p.returncode, out, err,
                                time.monotonic() - t0)
    io_samples[key] = last


def main():
    c = itest.Checker("test_compress_and_tomb")
    prog = itest.binary()
    with itest.TempDir() as td:
        devs, threads, results, io_samples = {}, [], {}, {}
        for key, items in RUNS.items():
            dev = td.join("dev_" + key)
            devs[key] = dev
            over = dict(items)
            merged = [("device-names", dev)]
            if "file-size-mbytes" not in over:
                merged.append(("file-size-mbytes", 64))
            merged += [(n, over.pop(n)) if n in over else (n, v)
                       for n, v in BASE]
            merged += list(over.items())
            cfg = itest.write_config(td.join(key + ".conf"), merged)
            threads.append(threading.Thread(target=run_one, args=(
                prog, cfg, key, results, io_samples)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        logs = {}
        for key in RUNS:
            r = results[key]
            if not c.eq("[%s] exit status" % key, 0, r.rc, r.describe()):
                continue
            try:
                logs[key] = itest.parse_log(r.out)
            except itest.ParseError as e:
                c.fail("[%s] log does not parse: %s" % (key, e),
                       r.describe())
        for key, fn in CHECKS.items():
            if key in logs:
                fn(c, logs[key], devs[key], results[key], logs, io_samples)
    c.finish()


def std_names(dev):
    return ["reads", dev + "-reads", "large-block-reads",
            "large-block-writes"]


def check_compress(c, log, dev, r, logs, io):
    c.eq("[compress] echo", "50", log.cfg("compress-pct"))
    zero_block = bytes(LB)
    zero_words = 64 * 50 // 100  # 32
    written, bad = 0, []
    with open(dev, "rb") as f:
        k = 0
        while True:
            blk = f.read(LB)
            if len(blk) < LB:
                break
            if blk != zero_block:
                written += 1
                for i in range(0, LB, INTERVAL):
                    iv = blk[i:i + INTERVAL]
                    head = iv[:zero_words * 8]
                    tail = [iv[j:j + 8] for j in range(zero_words * 8,
                                                      INTERVAL, 8)]
                    n_zero_tail = sum(1 for w in tail if w == bytes(8))
                    if head != bytes(len(head)) or n_zero_tail > 2:
                        bad.append((k, i, head.count(0), n_zero_tail))
            k += 1
    print("[compress] %d of %d large blocks written" % (written, k))
    c.check(written >= 10, "[compress] only %d non-zero large blocks in the "
            "device file after a 2 s run at 23.5 large-block writes/s"
            % written)
    c.check(not bad, "[compress] %d 512-byte intervals not 32 zero words + "
            "32 random words (block, offset in block, zero bytes in words "
            "0..31 of 256, zero words in 32..63): %s" % (len(bad), bad[:5]))


def check_tomb(c, log, dev, r, logs, io):
    c.eq("[tomb] echo", "yes", log.cfg("tomb-raider"))
    c.eq("[tomb] histogram names (tomb raider has none)", std_names(dev),
         log.names)
    c.eq("[tomb] reports", [1, 2], [rp.sec for rp in log.reports])
    t, p = io.get("tomb"), io.get("plain")
    if t is None or p is None:
        c.skip_part("tomb-raider read volume", "/proc/PID/io not readable")
        return
    print("[tomb] bytes read by ~%.1f s: %d with tomb-raider, %d without "
          "(at ~%.1f s)" % (t[0], t[1], p[1], p[0]))
    # One pass over the 64 MiB device is the least a tomb raider with no
    # sleep does in a second and a half.
    c.check(t[1] > p[1] + 64 * 1024 * 1024,
            "[tomb] the tomb-raider run read %d bytes by %.1f s, the same "
            "run without it %d: no tomb-raider reads" % (t[1], t[0], p[1]))


def check_usec(c, log, dev, r, logs, io):
    c.eq("[usec] echo", "yes", log.cfg("microsecond-histograms"))
    # A 128 KiB write takes tens of microseconds at the very least: in a
    # microsecond histogram nearly all of them are past bucket 3 (8 us),
    # where a millisecond histogram has them all in bucket 0. (Small reads
    # of a file's unwritten extents can take under 1 us: not a test.)
    last = log.reports[-1].hists["large-block-writes"]
    above = sum(n for b, n in last.buckets if b > 3)
    c.check(last.total > 0 and above > 0.9 * last.total,
            "[usec] only %d of %d large-block writes above bucket 3 (8 us) "
            "in a microsecond histogram" % (above, last.total), r.out[-600:])
    reads = log.reports[-1].hists["reads"]
    c.check(any(b > 0 and n > 0 for b, n in reads.buckets),
            "[usec] no read above bucket 0 in a microsecond histogram",
            r.out[-600:])


def check_range(c, log, dev, r, logs, io):
    c.eq("[range] echo", ("1000", "3000"), (log.cfg("record-bytes"),
                                            log.cfg("record-bytes-range-max")))
    c.eq("[range] derived", [
        ("record-stored-bytes", "1008 ... 3008"),
        ("internal-read-reqs-per-sec", "2000"),
        ("internal-write-reqs-per-sec", "0"),
        ("large-block-reads-per-sec", "30.77"),
        ("large-block-writes-per-sec", "30.77")], log.derived)
    last = log.reports[-1]
    c.check(last.hists["reads"].total >= 0.75 * 2000 * 2,
            "[range] %d reads in 2 s at 2000/s" % last.hists["reads"].total)


def check_update(c, log, dev, r, logs, io):
    c.eq("[update] derived internal reads", "500",
         log.der("internal-read-reqs-per-sec"))
    c.eq("[update] histogram names (update reads reported)",
         std_names(dev), log.names)
    tot = [rp.hists["reads"].total for rp in log.reports]
    c.check(len(tot) == 2 and tot[0] > 0 and
            abs((tot[1] - tot[0]) - 500) <= 125,
            "[update] reads totals %s, expected about 500 per second" % tot)


def check_nodefrag(c, log, dev, r, logs, io):
    c.eq("[nodefrag] echo", "yes", log.cfg("no-defrag-reads"))
    c.eq("[nodefrag] derived large-block-reads-per-sec", "0.00",
         log.der("large-block-reads-per-sec"))
    c.eq("[nodefrag] histogram names", std_names(dev), log.names)
    for rp in log.reports:
        h = rp.hists["large-block-reads"]
        c.check(h.total == 0 and h.buckets == [],
                "[nodefrag] large-block-reads has data after %d sec: %d"
                % (rp.sec, h.total))
        c.check(rp.hists["large-block-writes"].total > 0,
                "[nodefrag] no large-block writes after %d sec" % rp.sec)
    # The empty histogram prints only its name line.
    lines = log.lines
    for k, l in enumerate(lines):
        if l == "large-block-reads (0 total)":
            c.eq("[nodefrag] line after an empty histogram",
                 "large-block-writes", lines[k + 1].split(" (")[0])


def check_interval(c, log, dev, r, logs, io):
    c.eq("[interval] echo", "2", log.cfg("report-interval-sec"))
    c.eq("[interval] report times", [2, 4, 5],
         [rp.sec for rp in log.reports])
    c.eq("[interval] tail", [], log.tail)
    c.check(4.9 <= r.elapsed < 12, "[interval] 5 s run took %.1f s"
            % r.elapsed)


def check_total(c, log, dev, r, logs, io):
    c.eq("[total] echo", "yes", log.cfg("total-latency"))
    c.eq("[total] echoed after the reference's items", "total-latency",
         log.config[-1][0] if log.config else None)
    c.eq("[total] histogram names", std_names(dev) + ["total-reads"],
         log.names)
    for rp in log.reports:
        a, b = rp.hists["reads"].total, rp.hists["total-reads"].total
        c.check(abs(a - b) <= 5 + a // 100, "[total] after %d sec: reads "
                "%d but total-reads %d" % (rp.sec, a, b))


def check_total_commit(c, log, dev, r, logs, io):
    c.eq("[total_commit] histogram names", std_names(dev) + [
        "writes", dev + "-writes", "total-reads", "total-writes"], log.names)
    last = log.reports[-1]
    a, b = last.hists["writes"].total, last.hists["total-writes"].total
    c.check(a > 0 and abs(a - b) <= 5 + a // 100,
            "[total_commit] writes %d, total-writes %d" % (a, b))


CHECKS = {
    "compress": check_compress,
    "tomb": check_tomb,
    "usec": check_usec,
    "range": check_range,
    "update": check_update,
    "nodefrag": check_nodefrag,
    "interval": check_interval,
    "total": check_total,
    "total_commit": check_total_commit,
}


if __name__ == "__main__":
    main()
