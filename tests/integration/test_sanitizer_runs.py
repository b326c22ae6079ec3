"""Description: multi-threaded runs that a sanitizer must find clean.

The scenarios issue 12 names, run with whatever build ACT_BIN points at:
act_storage on 3 file devices with commit-to-device, tomb raider and
total-latency; act_index on 2 devices; act_prep on 2 files, stopped by
SIGINT mid-run; act_storage whose reads hang (the watchdog stops it with
threads still in the kernel); act_storage, act_index and act_prep where
one I/O hangs and the other threads end (joined, the stuck one detached:
no "thread leak"); act_storage and act_prep whose setup read hangs (the
setup guard ends them from its thread); act_storage whose log can't be
written.
Each must end with its documented status and no sanitizer report on
stderr ("ThreadSanitizer", "AddressSanitizer", "LeakSanitizer", "runtime
error"). With a normal build it is a multi-device smoke test; `make
check-thread` runs it on the ThreadSanitizer build, `make check` on the
ASan + UBSan build.
"""

import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

REPORT = re.compile(r"ThreadSanitizer|AddressSanitizer|LeakSanitizer|"
                    r"runtime error:|MemorySanitizer")


def check(c, what, r, want):
    c.eq("%s: exit status" % what, want, r.rc, r.describe())
    m = REPORT.search(r.err)
    c.check(m is None, "%s: sanitizer report on stderr" % what, r.describe(
        max_chars=6000))


def main():
    c = itest.Checker("test_sanitizer_runs")
    with itest.TempDir() as td:
        devs = ",".join(td.join("s%d" % i) for i in range(3))
        scfg = itest.write_config(td.join("s.conf"), [
            ("device-names", devs), ("file-size-mbytes", 64),
            ("service-threads", 6), ("test-duration-sec", 3),
            ("read-reqs-per-sec", 3000), ("write-reqs-per-sec", 1000),
            ("commit-to-device", "yes"), ("tomb-raider", "yes"),
            ("total-latency", "yes")])
        icfg = itest.write_config(td.join("i.conf"), [
            ("device-names", "%s,%s" % (td.join("i0"), td.join("i1"))),
            ("file-size-mbytes", 64), ("service-threads", 4),
            ("test-duration-sec", 3), ("read-reqs-per-sec", 2000),
            ("write-reqs-per-sec", 500)])
        hcfg = itest.write_config(td.join("h.conf"), [
            ("device-names", td.join("h0")), ("file-size-mbytes", 64),
            ("service-threads", 4), ("test-duration-sec", 10),
            ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 0),
            ("max-lag-sec", 1)])

        hicfg = itest.write_config(td.join("hi.conf"), [
            ("device-names", td.join("hi0")), ("file-size-mbytes", 64),
            ("service-threads", 4), ("test-duration-sec", 10),
            ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 100),
            ("max-lag-sec", 1)])

        res = {}
        for key, args, env in (
                ("storage", [itest.binary(), scfg], None),
                ("index", [itest.binary("act_index"), icfg], None)):
            res[key] = itest.run(args, timeout=60, env=env)
        check(c, "act_storage, 3 devices", res["storage"], 0)
        check(c, "act_index, 2 devices", res["index"], 0)

        # Hung I/Os (mostly idle: all at once). One hung I/O while the
        # other threads end is the case that leaked threads.
        hung = {
            "act_storage, hung reads": (
                [itest.binary(), hcfg],
                "op=read,size=1536,after_ms=500,delay_ms=20000"),
            "act_storage, one hung read": (
                [itest.binary(), hcfg.replace("h.conf", "h1.conf")],
                "op=read,size=1536,after_ms=500,count=1,delay_ms=20000"),
            "act_index, one hung read": (
                [itest.binary("act_index"), hicfg],
                "op=read,size=4096,after_ms=500,count=1,delay_ms=20000"),
            "act_prep, one hung write": (
                [itest.binary("act_prep"), "--max-stall-sec", "1", "--size",
                 "16M", td.join("hp0")],
                "op=write,count=1,delay_ms=20000"),
            "act_storage, hung setup read": (
                [itest.binary(), hcfg.replace("h.conf", "h2.conf")],
                "op=read,offset=0,size=512,count=1,delay_ms=20000"),
            "act_prep, hung setup read": (
                [itest.binary("act_prep"), "--max-stall-sec", "1", "--size",
                 "16M", td.join("hp1")],
                "op=read,offset=0,size=512,count=1,delay_ms=20000"),
        }
        for name, dev in (("h1.conf", "h1"), ("h2.conf", "h2")):
            itest.write_config(td.join(name), [
                ("device-names", td.join(dev)), ("file-size-mbytes", 64),
                ("service-threads", 4), ("test-duration-sec", 10),
                ("read-reqs-per-sec", 400), ("write-reqs-per-sec", 0),
                ("max-lag-sec", 1)])
        hres = itest.run_parallel(
            {k: a for k, (a, _) in hung.items()}, timeout=60,
            envs={k: itest.shim_env(fault=f) for k, (_, f) in hung.items()})
        for name in hung:
            check(c, name, hres[name], 3)

        # The log can't be written (stdout on /dev/full).
        with open("/dev/full", "w") as full:
            p = itest.subprocess.run([itest.binary(), scfg], stdout=full,
                                     stderr=itest.subprocess.PIPE,
                                     universal_newlines=True, timeout=60)
        check(c, "act_storage, log on /dev/full",
              itest.Result(p.returncode, "", p.stderr, 0.0), 5)

        # act_prep stopped by SIGINT mid-run.
        files = [td.join("p0"), td.join("p1")]
        p = itest.start([itest.binary("act_prep"), "--size", "1G"] + files)
        rd = itest.Reader(p)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err, timed_out = rd.finish(60)
        check(c, "act_prep, SIGINT", itest.Result(p.returncode, out, err,
                                                  0.0, timed_out), 130)
    c.finish()


if __name__ == "__main__":
    main()
