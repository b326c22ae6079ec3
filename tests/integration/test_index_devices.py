"""Description: act_index on several devices, a read-only load, config refusals and SIGINT.

Runs in parallel: (A) a 6 s run on two pre-filled 32 MiB files (read 2000,
write 1000, service-threads 4): the whole cache rate is done across the
devices, not divided by their number - writes 2000/s and reads
3000 + 2000 = 5000/s (mean over intervals 2..6 within 5%) - and each
device gets about half of the I/O (its histogram totals within 15% of
half); (B) a read-only 2 s run (write 0, 2 devices): cache rate 0, no
writes histograms listed, reads at 1000/s; (C) 16 devices, the maximum, run
1 s; (D) a 30 s run stopped by SIGINT ~0.5 s after `after 1 sec:`: exit
130, last line `stopped by signal SIGINT after N sec` (N 1 or 2) after
complete reports. Refused configs, exit 1 with an ERROR line and no device
file created: act_storage-only items (record-bytes, large-block-op-kbytes,
commit-to-device, tomb-raider, update-pct, compress-pct) say `applies to
act_storage only`; cache-threads in an act_storage config says `applies to
act_index only`; 17 devices.
"""

import os
import re
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

DURATION = 6
MEAN_TOL = 0.05
HALF_TOL = 0.15

BASE = [("service-threads", 4), ("read-reqs-per-sec", 2000),
        ("write-reqs-per-sec", 1000)]

STORAGE_ONLY = [("record-bytes", "1536"), ("large-block-op-kbytes", "128"),
                ("commit-to-device", "yes"), ("tomb-raider", "yes"),
                ("update-pct", "10"), ("compress-pct", "50")]


def main():
    c = itest.Checker("test_index_devices")
    prog = itest.binary("act_index")
    storage = itest.binary("act_storage")
    with itest.TempDir() as td:
        two = [td.join("two_a"), td.join("two_b")]
        for d in two:
            itest.make_filled_file(d, 32)
        cfg_two = itest.write_config(td.join("two.conf"), [
            ("device-names", " ".join(two)),
            ("test-duration-sec", DURATION)] + BASE)
        ro = [td.join("ro_a"), td.join("ro_b")]
        cfg_ro = itest.write_config(td.join("ro.conf"), [
            ("device-names", ",".join(ro)), ("file-size-mbytes", 8),
            ("service-threads", 2), ("test-duration-sec", 2),
            ("read-reqs-per-sec", 1000), ("write-reqs-per-sec", 0)])
        os.mkdir(td.join("sixteen"))
        sixteen = [td.join("sixteen", "d%02d" % i) for i in range(16)]
        cfg_16 = itest.write_config(td.join("sixteen.conf"), [
            ("device-names", " ".join(sixteen)), ("file-size-mbytes", 1),
            ("service-threads", 2), ("test-duration-sec", 1),
            ("read-reqs-per-sec", 320), ("write-reqs-per-sec", 16)])
        sig_dev = td.join("sig")
        cfg_sig = itest.write_config(td.join("sig.conf"), [
            ("device-names", sig_dev), ("file-size-mbytes", 16),
            ("service-threads", 2), ("test-duration-sec", 30),
            ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 100)])

        # The SIGINT run goes alongside the others: started first, stopped
        # from this thread while the parallel runs go on in another.
        sig_reader = itest.Reader(itest.start([prog, cfg_sig]),
                                  "after 1 sec:")
        res = {}
        runner = threading.Thread(target=lambda: res.update(
            itest.run_parallel({"two": [prog, cfg_two], "ro": [prog, cfg_ro],
                                "sixteen": [prog, cfg_16]},
                               timeout=DURATION + 30)))
        runner.start()
        try:
            sig_res = stop_with_sigint(c, sig_reader)
        finally:
            runner.join()

        check_two(c, res["two"], two)
        check_read_only(c, res["ro"], ro)
        check_sixteen(c, res["sixteen"], sixteen)
        check_sigint(c, sig_res)
        check_refusals(c, td, prog, storage)
    c.finish()


# ----------------------------------------------------------------------------

def parse(c, what, r):
    if not c.eq("%s: exit status" % what, 0, r.rc, r.describe()):
        return None
    try:
        return itest.parse_index_log(r.out)
    except itest.ParseError as e:
        c.fail("%s: log does not parse: %s" % (what, e), r.describe())
        return None


def mean_rate(log, name):
    iv = itest.interval_rates(log, name)
    return sum(d for _, d in iv) / len(iv), iv


def check_two(c, r, devs):
    log = parse(c, "2 devices", r)
    if log is None:
        return
    c.eq("2 devices: device-names echo", " ".join(devs),
         log.cfg("device-names"))
    c.eq("2 devices: num-devices", "2", log.cfg("num-devices"))
    c.eq("2 devices: derived", [
        ("service-thread-reads-per-sec", "3000"),
        ("cache-thread-reads-and-writes-per-sec", "2000")], log.derived)
    c.eq("2 devices: device lines",
         ["%s size = 33554432 bytes" % d for d in devs],
         [l.replace(", buffered", "") for l in log.devices])
    names = (["reads"] + [d + "-reads" for d in devs] +
             ["writes"] + [d + "-writes" for d in devs])
    c.eq("2 devices: histogram names", names, log.names)
    c.eq("2 devices: report times", list(range(1, DURATION + 1)),
         [rp.sec for rp in log.reports])
    if len(log.reports) < 3 or log.names != names:
        return

    # The full cache rate across both devices (not 2000 / 2 = 1000).
    for name, rate in (("writes", 2000.0), ("reads", 5000.0)):
        mean, iv = mean_rate(log, name)
        c.check(abs(mean - rate) <= MEAN_TOL * rate,
                "2 devices: %s: mean %.1f/s over intervals 2..%d is not "
                "within %d%% of %.0f/s (the whole configured rate across "
                "all devices)" % (name, mean, iv[-1][0], MEAN_TOL * 100,
                                  rate), "per-interval: %s" % iv)
        print("2 devices: %-6s want %6.0f/s  mean %8.1f/s" % (name, rate,
                                                             mean))

    # Each device about half of the I/O, and the per-device histograms add
    # up to the totals.
    last = log.reports[-1]
    for kind in ("reads", "writes"):
        total = last.hists[kind].total
        per = [last.hists[d + "-" + kind].total for d in devs]
        c.check(abs(sum(per) - total) <= 50, "2 devices: %s total %d but "
                "the devices' %s add up to %d" % (kind, total, kind,
                                                  sum(per)))
        for d, n in zip(devs, per):
            c.check(abs(n - total / 2.0) <= HALF_TOL * total / 2.0,
                    "2 devices: %s-%s has %d of %d (not within %d%% of "
                    "half)" % (d, kind, n, total, HALF_TOL * 100))
        print("2 devices: %s per device %s of %d" % (kind, per, total))


def check_read_only(c, r, devs):
    log = parse(c, "read-only", r)
    if log is None:
        return
    c.eq("read-only: derived", [
        ("service-thread-reads-per-sec", "1000"),
        ("cache-thread-reads-and-writes-per-sec", "0")], log.derived)
    c.eq("read-only: histogram names (no writes)",
         ["reads"] + [d + "-reads" for d in devs], log.names)
    c.eq("read-only: report times", [1, 2], [rp.sec for rp in log.reports])
    c.eq("read-only: tail", [], log.tail)
    c.check(not any(l.startswith("writes") or l.endswith("-writes") or
                    re.match(r"^\S+-writes \(", l) for l in log.lines),
            "read-only: a writes histogram appears in the log", r.out)
    if len(log.reports) == 2:
        mean, iv = mean_rate(log, "reads")
        c.check(abs(mean - 1000) <= 0.1 * 1000, "read-only: reads %.0f/s in "
                "interval 2, configured 1000/s" % mean)


def check_sixteen(c, r, devs):
    log = parse(c, "16 devices", r)
    if log is None:
        return
    c.eq("16 devices: num-devices", "16", log.cfg("num-devices"))
    c.eq("16 devices: device lines", 16, len(log.devices))
    c.eq("16 devices: histogram names", 2 + 2 * 16, len(log.names))
    c.eq("16 devices: reports", [1], [rp.sec for rp in log.reports])


def stop_with_sigint(c, rd):
    t0 = time.monotonic()
    if not rd.seen.wait(20):
        c.fail("SIGINT run: no 'after 1 sec:' report within 20 s")
    else:
        time.sleep(0.5)
    rd.p.send_signal(signal.SIGINT)
    t_sig = time.monotonic()
    out, err, timed_out = rd.finish(timeout=15)
    c.check(not timed_out, "SIGINT run did not stop within 15 s of SIGINT")
    c.check(time.monotonic() - t_sig < 6, "SIGINT run took %.1f s to stop"
            % (time.monotonic() - t_sig))
    return itest.Result(rd.p.returncode, out, err, time.monotonic() - t0,
                        timed_out)


def check_sigint(c, r):
    detail = r.describe()
    c.eq("SIGINT run: exit status", 130, r.rc, detail)
    try:
        log = itest.parse_index_log(r.out)
    except itest.ParseError as e:
        c.fail("SIGINT run: log before the stop line does not parse: %s" % e,
               detail)
        return
    c.check(len(log.tail) == 1 and not log.incomplete,
            "SIGINT run: exactly one line must follow the last complete "
            "report", "tail: %r\n%s" % (log.tail, detail))
    last = log.tail[-1] if log.tail else ""
    m = re.match(r"^stopped by signal SIGINT after (\d+) sec$", last)
    if c.check(m is not None, "SIGINT run: last line %r is not 'stopped by "
               "signal SIGINT after N sec'" % last, detail):
        c.check(m.group(1) in ("1", "2"), "SIGINT run: stopped after %s "
                "sec, expected 1 or 2" % m.group(1))
    c.check([rp.sec for rp in log.reports] in ([1], [1, 2]),
            "SIGINT run: reports before the stop: %s" % [
                rp.sec for rp in log.reports], detail)
    c.check(r.out.endswith(" sec\n"), "SIGINT run: log must end with the "
            "stop line and a newline", repr(r.out[-80:]))


# ----------------------------------------------------------------------------

def check_refusals(c, td, prog, storage):
    os.mkdir(td.join("refused"))
    cases = []
    for item, value in STORAGE_ONLY:
        cases.append(("act_index with %s" % item, prog, [(item, value)],
                      "config item '%s' applies to act_storage only" % item))
    cases.append(("act_storage with cache-threads", storage,
                  [("cache-threads", "8")],
                  "config item 'cache-threads' applies to act_index only"))
    devs17 = " ".join(td.join("refused", "m%02d" % i) for i in range(17))
    cases.append(("act_index with 17 devices", prog, devs17,
                  "more than 16 devices"))

    for k, (what, binary, extra, message) in enumerate(cases):
        if isinstance(extra, str):
            dev_names = extra
            extra = []
        else:
            dev_names = td.join("refused", "dev%d" % k)
        cfg = itest.write_config(td.join("refused%d.conf" % k), [
            ("device-names", dev_names), ("file-size-mbytes", 8),
            ("service-threads", 2), ("test-duration-sec", 1),
            ("read-reqs-per-sec", 200), ("write-reqs-per-sec", 100)] + extra)
        before = itest.dir_state(td.join("refused"))
        r = itest.run([binary, cfg], timeout=20)
        detail = r.describe()
        c.eq("%s: exit status" % what, 1, r.rc, detail)
        errs = [l for l in r.out.split("\n") if l.startswith("ERROR:")]
        c.check(len(errs) == 1 and message in errs[0],
                "%s: expected one ERROR line on stdout containing %r" % (
                    what, message), detail)
        c.check(any(l.startswith("ERROR:") and message in l
                    for l in r.err.split("\n")),
                "%s: the ERROR is not repeated on stderr" % what, detail)
        c.check("after 1 sec:" not in r.out and "HISTOGRAM NAMES" not in
                r.out, "%s: the run started" % what, detail)
        diff = itest.dir_state_diff(before, itest.dir_state(
            td.join("refused")))
        c.check(diff == "", "%s: files changed by a refused config" % what,
                diff)


if __name__ == "__main__":
    main()
