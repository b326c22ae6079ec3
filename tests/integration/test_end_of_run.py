"""Description: the last report holds every request due before the end.

A thread behind schedule when test-duration-sec is reached still does the
requests due before the end, and the last report waits for them (up to
2 s): the last interval is as full as the others, not silently short
(docs/log-format.md, "End of run").

act_storage on a 64 MiB file, service-threads 4, read-reqs-per-sec 4000,
no writes, test-duration-sec 3 (max-lag-sec 10); the test shim delays the
first 4 small reads from 2.6 s into the run by 700 ms each - one per
thread, as the threads issue together - so at the end of the test every
thread is ~0.4 s behind, owing ~400 reads. Expected: exit 0, reports after
1, 2 and 3 sec, the last `reads` total 12000 (= 4000 x 3: every request due
before the end, and none due after it; 1% tolerance), the last interval at
least 90% of 4000 (before, it lacked the ~1600 owed reads: ~60%), no
WARNING line (the threads caught up), and the 4 delayed reads in the
histogram's 512-1023 ms bucket (the fault did apply).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

RATE = 4000
SECONDS = 3
FAULT = "op=read,size=1536,after_ms=2600,count=4,delay_ms=700"
BUCKET_512MS = 10    # [512, 1024) ms


def main():
    c = itest.Checker("test_end_of_run")
    prog = itest.binary("act_storage")
    itest.shim_path()
    with itest.TempDir() as td:
        dev = td.join("dev")
        cfg = itest.write_config(td.join("end.conf"), [
            ("device-names", dev), ("file-size-mbytes", 64),
            ("service-threads", 4), ("read-reqs-per-sec", RATE),
            ("write-reqs-per-sec", 0), ("test-duration-sec", SECONDS),
            ("max-lag-sec", 10)])
        r = itest.run([prog, cfg], timeout=30,
                      env=itest.shim_env(fault=FAULT))
        detail = r.describe()
        c.eq("exit status", 0, r.rc, detail)
        log = None
        try:
            log = itest.parse_log(r.out)
        except itest.ParseError as e:
            c.fail("log does not parse: %s" % e, detail)
        if log is not None:
            check_log(c, log, detail)
    c.finish()


def check_log(c, log, detail):
    c.eq("reports", list(range(1, SECONDS + 1)),
         [rp.sec for rp in log.reports], detail)
    c.eq("lines after the last report", [], log.tail, detail)
    totals = log.totals("reads")
    if len(totals) != SECONDS:
        return
    last = totals[-1][1]
    last_interval = last - totals[-2][1]
    want = RATE * SECONDS
    print("reads per report: %s; last interval %d of %d" % (
        [t for _, t in totals], last_interval, RATE))
    c.check(0.99 * want <= last <= want + 4, "last report: %d reads in "
            "all, expected %d (every request due before the end, none "
            "after; 1%% tolerance)" % (last, want), detail)
    c.check(last_interval >= 0.9 * RATE, "the last interval has %d reads, "
            "expected at least 90%% of %d: the requests owed at the end "
            "were lost" % (last_interval, RATE), detail)
    c.eq("WARNING lines", [], [l for l in log.lines
                               if l.startswith("WARNING:")], detail)
    slow = log.reports[-1].hists["reads"].counts().get(BUCKET_512MS, 0)
    c.check(slow >= 4, "%d reads in the 512-1023 ms bucket, expected the 4 "
            "the shim delayed (did the fault apply?)" % slow, detail)


if __name__ == "__main__":
    main()
