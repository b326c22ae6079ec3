#!/usr/bin/env python3
"""Benchmark: is the last report of a loaded 30x run as full as the others?

Description: runs act_storage at 30x (read-reqs-per-sec 60000,
write-reqs-per-sec 30000, rate-process aligned) on a file in /dev/shm, at
nice 19, while --hogs busy loops (Python processes spinning, nice 0) take
the CPUs for --burst-len seconds from --burst-start seconds before the end
of the test: a host that falls behind just before the end (the hogs only
outrank act, not the machine's other work). Prints the reads of each of
the last 3 one-second reports (the difference of the `reads` totals), the
last 2 together (a late report moves reads from one to the next), the
whole run's reads against the configured 60000 x duration, and any WARNING
line the log has about the host falling behind. Before act did the
requests still owed at the end, such a stall was lost from the last
report, silently. Writes its section of bench/RESULTS.md (unless
--no-write).

Usage: bench/bench_end.py [--seconds 10] [--runs 3] [--hogs 2]
         [--burst-start 1.2] [--burst-len 1.0] [--prog PATH]
         [--before OLD] [--label TEXT] [--no-write]
"""

import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import results  # bench/results.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## end of run: the last reports under load"
READS = 60000


def hog():
    while True:
        pass


def per_second(log):
    """[(sec, reads in that report)] from the log's `reads` totals."""
    out = []
    prev = 0
    sec = None
    for line in log.split("\n"):
        m = re.match(r"^after (\d+) sec:$", line)
        if m:
            sec = int(m.group(1))
            continue
        m = re.match(r"^reads \((\d+) total\)$", line)
        if m and sec is not None:
            total = int(m.group(1))
            out.append((sec, total - prev))
            prev = total
            sec = None
    return out, prev


def one_run(prog, conf, hogs, seconds, burst_start, burst_len):
    p = subprocess.Popen([prog, conf], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True,
                         preexec_fn=lambda: os.nice(19))
    t0 = time.monotonic()
    procs = [multiprocessing.Process(target=hog, daemon=True)
             for _ in range(hogs)]
    try:
        time.sleep(max(0.0, seconds - burst_start))
        for h in procs:
            h.start()
        time.sleep(burst_len)
    finally:
        for h in procs:
            if h.is_alive():
                h.terminate()
                h.join()
    out, _ = p.communicate()
    return p.returncode, out, time.monotonic() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=10,
                    help="length of each run (default 10)")
    ap.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    ap.add_argument("--hogs", type=int, default=os.cpu_count(),
                    help="busy-loop processes (default: one per CPU)")
    ap.add_argument("--burst-start", type=float, default=1.2,
                    help="the hogs start this long before the end "
                    "(default 1.2 s)")
    ap.add_argument("--burst-len", type=float, default=1.0,
                    help="and run this long (default 1.0 s)")
    results.prog_options(ap)
    args = ap.parse_args(argv)
    results.require_prog(args.prog)
    tmp = tempfile.mkdtemp(prefix="bench_end.", dir="/dev/shm")
    rows = []
    try:
        dev = os.path.join(tmp, "dev")
        with open(dev, "wb") as f:
            f.truncate(256 << 20)
        conf = os.path.join(tmp, "c.conf")
        with open(conf, "w") as f:
            f.write("device-names: %s\nread-reqs-per-sec: %d\n"
                    "write-reqs-per-sec: 30000\ntest-duration-sec: %d\n"
                    "rate-process: aligned\n" % (dev, READS, args.seconds))
        progs = [("after", args.prog)]
        if args.before:
            progs.insert(0, ("before", args.before))
        for i in range(args.runs):
            for tag, prog in progs:
                rc, out, wall = one_run(prog, conf, args.hogs, args.seconds,
                                        args.burst_start, args.burst_len)
                secs, total = per_second(out)
                warn = [l for l in out.split("\n")
                        if l.startswith("WARNING:")]
                want = READS * args.seconds
                last3 = " / ".join("%d" % n for _, n in secs[-3:])
                last2 = sum(n for _, n in secs[-2:])
                rows.append((tag, i + 1, rc, last3, last2, total,
                             " ".join(warn)))
                print("[%s] run %d: exit %d, last 3 reports' reads %s (last "
                      "2: %d of %d), %d reads of %d in all, %.1f s%s" % (
                          tag, i + 1, rc, last3, last2, 2 * READS, total,
                          want, wall,
                          "".join("\n  " + w for w in warn)), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.no_write:
        return 0
    text = [SECTION, "",
            "`bench/bench_end.py --seconds %d --runs %d --hogs %d "
            "--burst-start %g --burst-len %g` (%s, %d CPUs, a file in "
            "/dev/shm; read-reqs-per-sec %d, write-reqs-per-sec 30000, "
            "rate-process aligned; act at nice 19, %d busy loops at nice 0 "
            "from %g s before the end for %g s)%s." % (
                args.seconds, args.runs, args.hogs, args.burst_start,
                args.burst_len, time.strftime("%Y-%m-%d"), os.cpu_count(),
                READS, args.hogs, args.burst_start, args.burst_len,
                ": " + args.label if args.label else ""), "",
            "| act | run | exit | reads in the last 3 reports | last 2 "
            "together (of %d) | reads in all (of %d) | WARNING lines |" % (
                2 * READS, READS * args.seconds),
            "|---|---|---|---|---|---|---|"]
    for tag, n, rc, last3, last2, total, warn in rows:
        text.append("| %s | %d | %d | %s | %d | %d | %s |" % (
            tag, n, rc, last3, last2, total, warn.replace("|", "/")))
    results.update(SECTION, "\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
