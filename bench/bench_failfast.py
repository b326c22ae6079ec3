#!/usr/bin/env python3
"""What fail fast costs act_certify while a 24-hour test runs.

act_certify judges each hour of a running criteria step as it completes,
with act_latency's analysis of the log so far, in-process
(analysis/act/certify/failfast.py, analyse.slices_so_far). This times
that analysis on a generated act_storage log with 1-second reports
(bench_latency.generate_log) cut after 1, 6, 12 and 24 hours, and the
sum of all the hourly looks of a 24-hour test (the log so far at each
hour's end), and writes its section of bench/RESULTS.md.
"""

import argparse
import os
import platform
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "analysis"))

import bench_latency  # noqa: E402
import results  # noqa: E402
from act.certify.analyse import slices_so_far  # noqa: E402

SECTION = "## act_certify: fail fast's hourly look"
HOUR = 3600


def cut_points(path, hours):
    """{hour: byte offset just before the report of hour * 3600 + 1}."""
    want = {b"after %d sec:" % (h * HOUR + 1): h for h in range(1, hours)}
    out = {}
    pos = 0
    with open(path, "rb") as f:
        for line in f:
            h = want.get(line.rstrip(b"\n"))
            if h is not None:
                out[h] = pos
            pos += len(line)
    out[hours] = pos
    return out


def best(fn, runs=3):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hours", type=int, default=24,
                   help="length of the test (default 24)")
    p.add_argument("--no-results", action="store_true",
                   help="do not write bench/RESULTS.md")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        full = os.path.join(tmp, "full.log")
        bench_latency.generate_log(full, args.hours)
        cuts = cut_points(full, args.hours)
        part = os.path.join(tmp, "part.log")
        per_hour = {}
        with open(full, "rb") as src:
            for h in range(1, args.hours + 1):
                src.seek(0)
                with open(part, "wb") as dst:
                    dst.write(src.read(cuts[h]))
                a = slices_so_far(part, HOUR)
                n = a.count if a else 0
                if n != h:
                    print("the log cut after %d h has %d slices" % (h, n))
                    return 1
                per_hour[h] = best(lambda: slices_so_far(part, HOUR))
        size = os.path.getsize(full)
    total = sum(per_hour.values())
    for h in (1, 6, 12, args.hours):
        if h in per_hour:
            print("look after %d h: %.3f s" % (h, per_hour[h]))
    print("all %d hourly looks: %.2f s" % (args.hours, total))
    rows = ["| the look after %d h | %.3f s |" % (h, per_hour[h])
            for h in (1, 6, 12, args.hours) if h in per_hour]
    text = "\n".join([
        SECTION, "",
        "`python3 bench/bench_failfast.py` (%s, Python %s, %s, %s CPUs). "
        "Generated act_storage log: %d h of 1-second reports, %.1f MB; "
        "each figure the best of 3, in-process." % (
            time.strftime("%Y-%m-%d"), platform.python_version(),
            platform.machine(), os.cpu_count(), args.hours, size / 1e6),
        "",
        "| what | figure |", "|---|---|"] + rows + [
        "| all %d hourly looks of a %d-hour test | %.2f s |"
        % (args.hours, args.hours, total), ""])
    if not args.no_results:
        results.update(SECTION, text)
        print("updated %s" % os.path.relpath(results.RESULTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
