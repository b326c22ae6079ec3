#!/usr/bin/env python3
"""Benchmark: the CPU act_storage's threads cost, idle and busy.

Description: runs act_storage on files in /dev/shm (buffered: no drive
time, only act's own work) and takes the user + system CPU seconds of
each run from os.wait4's rusage:

  - at a low load (read-reqs-per-sec 2000 (1x), no writes, one device), 10,
    100 and 1000 service threads for --seconds each: what each extra,
    mostly idle, thread costs ("+990 threads" is the 1000-thread run less
    the 10-thread one). The reference ACT 6.6 adds about 0.29 CPU-s per
    5 s for those 990 threads;
  - 128 devices (128 small files) x 8 service threads (1024 threads) at
    the same low load;
  - 30x: read-reqs-per-sec 60000 on one device, default service threads:
    CPU microseconds per read (CPU-s / reads in the last report).

Each figure is the median of --rounds runs (the machine is shared: single
runs vary). Prints the figures and writes its section of bench/RESULTS.md
(unless --no-write).

Usage: bench/bench_cpu.py [--seconds 5] [--rounds 3] [--no-write]
         [--prog PATH] [--label TEXT]
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import results  # bench/results.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## service threads: CPU cost"
LOW_READS = 2000
X30_READS = 60000


def write_conf(path, devices, threads, reads, seconds, size_mib):
    # act never creates a file under /dev: the bench does.
    for d in devices:
        with open(d, "wb") as f:
            f.truncate(size_mib << 20)
    with open(path, "w") as f:
        f.write("device-names: %s\n" % ",".join(devices))
        f.write("file-size-mbytes: %d\n" % size_mib)
        if threads:
            f.write("service-threads: %d\n" % threads)
        f.write("read-reqs-per-sec: %d\nwrite-reqs-per-sec: 0\n"
                "test-duration-sec: %d\nmax-lag-sec: 0\n" % (reads, seconds))


def last_reads(log):
    """The `reads (N total)` of the log's last report."""
    totals = re.findall(r"^reads \((\d+) total\)$", log, re.M)
    return int(totals[-1]) if totals else 0


def cpu_run(prog, conf, out_path):
    """Run prog conf; returns (user + sys CPU-s, reads, wall s)."""
    with open(out_path, "w") as out:
        t0 = time.monotonic()
        p = subprocess.Popen([prog, conf], stdout=out,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("ERROR: %s %s exited with status %d" % (prog, conf,
                                                         p.returncode))
    with open(out_path) as f:
        reads = last_reads(f.read())
    return ru.ru_utime + ru.ru_stime, reads, wall


def median_run(prog, conf, out_path, rounds):
    runs = [cpu_run(prog, conf, out_path) for _ in range(rounds)]
    cpu = statistics.median(r[0] for r in runs)
    per_read = statistics.median(r[0] / r[1] * 1e6 for r in runs if r[1])
    return cpu, per_read, [r[0] for r in runs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=5,
                    help="length of each run (default 5)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="runs per figure, median taken (default 3)")
    ap.add_argument("--prog", default=os.path.join(ROOT, "target", "bin",
                                                   "act_storage"),
                    help="the act_storage to run (default target/bin's)")
    ap.add_argument("--label", default="",
                    help="what is measured, for the section's heading line")
    ap.add_argument("--no-write", action="store_true",
                    help="print only; leave bench/RESULTS.md alone")
    args = ap.parse_args(argv)
    if not os.access(args.prog, os.X_OK):
        sys.exit("ERROR: %s is not an executable (run make first)" %
                 args.prog)
    tmp = tempfile.mkdtemp(prefix="bench_cpu.", dir="/dev/shm")
    rows = []
    try:
        out = os.path.join(tmp, "log")
        conf = os.path.join(tmp, "c.conf")
        one = [os.path.join(tmp, "dev0")]
        by_threads = {}
        for n in (10, 100, 1000):
            write_conf(conf, one, n, LOW_READS, args.seconds, 64)
            cpu, _, runs = median_run(args.prog, conf, out, args.rounds)
            by_threads[n] = cpu
            rows.append(("%d service threads, %d reads/s, %d s" %
                         (n, LOW_READS, args.seconds), "%.3f CPU-s" % cpu,
                         runs))
            print(rows[-1][0], rows[-1][1], flush=True)
        extra = by_threads[1000] - by_threads[10]
        rows.append(("+990 threads (1000 less 10), per 5 s",
                     "%.3f CPU-s (reference: ~0.29)" %
                     (extra * 5.0 / args.seconds), None))
        print(rows[-1][0], rows[-1][1], flush=True)
        many = [os.path.join(tmp, "d%03d" % i) for i in range(128)]
        write_conf(conf, many, 1024, LOW_READS, args.seconds, 4)
        cpu, _, runs = median_run(args.prog, conf, out, args.rounds)
        rows.append(("128 devices x 8 threads, %d reads/s, %d s" %
                     (LOW_READS, args.seconds), "%.3f CPU-s" % cpu, runs))
        print(rows[-1][0], rows[-1][1], flush=True)
        write_conf(conf, one, 0, X30_READS, args.seconds, 64)
        cpu, per_read, runs = median_run(args.prog, conf, out, args.rounds)
        rows.append(("30x: %d reads/s, default threads, %d s" %
                     (X30_READS, args.seconds),
                     "%.3f CPU-s, %.2f CPU-us per read" % (cpu, per_read),
                     runs))
        print(rows[-1][0], rows[-1][1], flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.no_write:
        return 0
    text = [SECTION, "",
            "`bench/bench_cpu.py --seconds %d --rounds %d` (%s, %d CPUs, "
            "files in /dev/shm, buffered I/O; user + sys CPU of the whole "
            "run from wait4, median of %d runs)%s." %
            (args.seconds, args.rounds, time.strftime("%Y-%m-%d"),
             os.cpu_count(), args.rounds,
             ": " + args.label if args.label else ""), "",
            "| run | CPU | runs (CPU-s) |", "|---|---|---|"]
    for what, fig, runs in rows:
        text.append("| %s | %s | %s |" % (
            what, fig, " / ".join("%.3f" % r for r in runs) if runs else ""))
    results.update(SECTION, "\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
