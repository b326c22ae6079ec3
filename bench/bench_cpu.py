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
runs vary). With --before OLD, each case is run with OLD too, for a
before/after table. Prints the figures and writes its section of bench/RESULTS.md
(unless --no-write).

Usage: bench/bench_cpu.py [--seconds 5] [--rounds 3] [--no-write]
         [--prog PATH] [--before OLD] [--label TEXT]
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


def medians(runs):
    """(median CPU-s, median CPU-us per read, [CPU-s of each run])."""
    cpu = statistics.median(r[0] for r in runs)
    per_read = statistics.median(r[0] / r[1] * 1e6 for r in runs if r[1])
    return cpu, per_read, [r[0] for r in runs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=5,
                    help="length of each run (default 5)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="runs per figure, median taken (default 3)")
    results.prog_options(ap)
    args = ap.parse_args(argv)
    results.require_prog(args.prog)
    progs = [("after", args.prog)]
    if args.before:
        progs.insert(0, ("before", args.before))
    tmp = tempfile.mkdtemp(prefix="bench_cpu.", dir="/dev/shm")
    try:
        figs = {}
        for what, conf_fn in cases(tmp, args.seconds):
            conf_fn()
            runs = {tag: [] for tag, _ in progs}
            for _ in range(args.rounds):
                for tag, prog in progs:
                    runs[tag].append(cpu_run(prog,
                                             os.path.join(tmp, "c.conf"),
                                             os.path.join(tmp, "log")))
            for tag, _ in progs:
                figs[(what, tag)] = medians(runs[tag])
                cpu, per_read, each = figs[(what, tag)]
                print("%s [%s]: %.3f CPU-s (%s)%s" % (
                    what, tag, cpu, " / ".join("%.3f" % r for r in each),
                    ", %.2f CPU-us per read" % per_read
                    if what.startswith("30x") else ""), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = []
    for what, _ in cases(None, args.seconds):
        row = [what]
        for tag, _ in progs:
            cpu, per_read, runs = figs[(what, tag)]
            row.append("%.3f (%s)%s" % (
                cpu, " / ".join("%.3f" % r for r in runs),
                "; %.2f us/read" % per_read if what.startswith("30x")
                else ""))
        rows.append(row)
    extra = ["+990 threads (1000 less 10), per 5 s"]
    for tag, _ in progs:
        d = (figs[(THREADS_CASE % 1000, tag)][0] -
             figs[(THREADS_CASE % 10, tag)][0]) * 5.0 / args.seconds
        extra.append("%.3f (reference: ~0.29)" % d)
    rows.append(extra)
    print("%s: %s" % (extra[0], ", ".join(
        "[%s] %s" % (tag, x) for (tag, _), x in zip(progs, extra[1:]))))
    if args.no_write:
        return 0
    text = [SECTION, "",
            "`bench/bench_cpu.py --seconds %d --rounds %d%s` (%s, %d CPUs, "
            "files in /dev/shm, buffered I/O, read-reqs-per-sec %d at low "
            "load, no writes; user + sys CPU-s of the whole run from wait4, "
            "median of %d runs, each run in brackets)%s." %
            (args.seconds, args.rounds,
             " --before OLD" if args.before else "",
             time.strftime("%Y-%m-%d"), os.cpu_count(), LOW_READS,
             args.rounds, ": " + args.label if args.label else ""), "",
            "| run | " + " | ".join("%s: CPU-s" % t for t, _ in progs) +
            " |", "|---|" + "---|" * len(progs)]
    for row in rows:
        text.append("| " + " | ".join(row) + " |")
    results.update(SECTION, "\n".join(text))
    return 0


THREADS_CASE = "%d service threads, low load"


def cases(tmp, seconds):
    """[(what, function writing the run's config and devices)]."""
    def conf(devices, threads, reads, size_mib):
        def write():
            write_conf(os.path.join(tmp, "c.conf"),
                       [os.path.join(tmp, d) for d in devices], threads,
                       reads, seconds, size_mib)
        return write
    out = [(THREADS_CASE % n, conf(["dev0"], n, LOW_READS, 64))
           for n in (10, 100, 1000)]
    out.append(("128 devices x 8 threads, low load",
                conf(["d%03d" % i for i in range(128)], 1024, LOW_READS,
                     4)))
    out.append(("30x: %d reads/s, default threads" % X30_READS,
                conf(["dev0"], 0, X30_READS, 64)))
    return out


if __name__ == "__main__":
    sys.exit(main())
