#!/usr/bin/env python3
"""Benchmark act_certify's live report: what one rewrite of report.html,
summary.json and summary.md costs while a step runs, late in a 24-hour
test.

    python3 bench/bench_certify_live.py [--hours 24] [--no-results]

1. Generates (bench_latency.generate_log) a log of 1-second reports, as
   the running step's log would be after --hours (default 24; 50 MB),
   in a campaign directory whose state has that step running (a 24-hour
   test 1 at 2x, one-hour slices).
2. Times write_reports(..., live=...) in-process, best of 3: the
   analysis of the running log (act.latency), the plot, the three files
   written (the done steps' analyses are cached in a campaign; here there
   are none).
3. Prints the figure and its share of the default interval between two
   rewrites (300 s), and writes them to bench/RESULTS.md, section
   "## act_certify live report" (other sections are kept).

Standard library only. Not a test: it takes a minute.
"""

import argparse
import os
import platform
import sys
import tempfile
import time

import results  # bench/results.py
from bench_latency import generate_log

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "analysis"))

from act.certify import plan, publish, watch  # noqa: E402
from act.certify.model import STATE_FORMAT, Campaign, State  # noqa: E402

SECTION = "## act_certify live report"


def campaign(d, hours):
    steps = plan.plan_steps(["/dev/nvme0n1"], 2, 2.0, 86400, [], False)
    st = State(
        format=STATE_FORMAT, status="running", command=["act_certify.py"],
        created_at="x", ended_at=None,
        campaign=Campaign(
            program="act_storage", program_path="/bin/act_storage",
            program_version=None, base_config_path="/c/b.conf",
            devices=["/dev/nvme0n1"],
            device_kinds={"/dev/nvme0n1": "block"}, load=2,
            stress_factor=2.0, duration_sec=86400, ceiling=False, ladder=[],
            prep=False),
        host={"hostname": "bench"}, resumes=[], steps=steps)
    steps[0].status = "running"
    generate_log(os.path.join(d, steps[0].files["log"]), hours)
    return st


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hours", type=int, default=24,
                   help="how far the running step has got (default 24)")
    p.add_argument("--no-results", action="store_true",
                   help="do not write bench/RESULTS.md")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        st = campaign(d, args.hours)
        size = os.path.getsize(os.path.join(d, st.steps[0].files["log"]))
        print("generated a %d h log, %.1f MB (%.1f s)"
              % (args.hours, size / 1e6, time.perf_counter() - t))
        best = None
        for _ in range(3):
            t = time.perf_counter()
            publish.write_reports(d, st, {}, live={
                "step": 1, "elapsed_sec": args.hours * 3600,
                "every_sec": watch.REPORT_EVERY})
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
    share = 100.0 * best / watch.REPORT_EVERY
    print("one live rewrite: %.2f s, %.2f%% of every %d s"
          % (best, share, watch.REPORT_EVERY))
    text = "\n".join([
        SECTION, "",
        "`python3 bench/bench_certify_live.py` (%s, Python %s, %s, %s "
        "CPUs): one rewrite of report.html, summary.json and summary.md "
        "while a 24-hour step runs, its log (1-second reports, 4 "
        "histograms) %d h in, %.1f MB; best of 3, in-process."
        % (time.strftime("%Y-%m-%d"), platform.python_version(),
           platform.machine(), os.cpu_count(), args.hours, size / 1e6), "",
        "| what | figure |", "|---|---|",
        "| one live rewrite (analysis, plot, 3 files) | %.2f s |" % best,
        "| share of the default interval (%d s) | %.2f%% |"
        % (watch.REPORT_EVERY, share), ""])
    if not args.no_results:
        results.update(SECTION, text)
        print("updated %s" % os.path.relpath(results.RESULTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
