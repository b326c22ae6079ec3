#!/usr/bin/env python3
"""Benchmark: what each rate-process does to the drive's request timing.

Description: on a RAM-backed loop device (a file in /dev/shm), run
act_storage at 1x (2000 reads/s, 1000 writes/s) once per rate-process
(aligned, spread, poisson) at 10 and at 40 service threads, with the test
shim (tests/shim, LD_PRELOAD) recording the issue time of every I/O.
For each run: the share of gaps between consecutive small reads (as the
drive sees them) under 20 us - how bursty the load is - and the log's share
of reads over 1 ms at the end of the run. The reference ACT 6.6, traced the
same way, gives 12-43% / 75-82% (on a quiet machine) small-read gaps under
20 us at 10 / 40 service threads. Needs root (losetup). Writes its section
of bench/RESULTS.md.

Usage: sudo bench/bench_rate_process.py [--seconds 20] [--no-write]
"""

import argparse
import os
import sys

import results  # bench/results.py
import traced  # bench/traced.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## rate-process: request timing"
MODES = ("aligned", "spread", "poisson")
THREADS = (10, 40)


def gaps_under(trace, limit_ns):
    """Share of gaps between consecutive small reads under limit_ns."""
    times = traced.small_read_times(trace)
    gaps = [b - a for a, b in zip(times, times[1:])]
    return sum(1 for g in gaps if g < limit_ns) / len(gaps), len(times)


def one_run(prog, dev, mode, threads, seconds, tmp):
    conf = os.path.join(tmp, "%s-%d.conf" % (mode, threads))
    trace = os.path.join(tmp, "%s-%d.trace" % (mode, threads))
    with open(conf, "w") as f:
        f.write("device-names: %s\nservice-threads: %d\n"
                "test-duration-sec: %d\nread-reqs-per-sec: 2000\n"
                "write-reqs-per-sec: 1000\nrate-process: %s\n" % (
                    dev, threads, seconds, mode))
    out = traced.traced_run(prog, conf, trace)
    share, n = gaps_under(trace, 20000)
    os.unlink(trace)
    return share, traced.reads_over_1ms(out), n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=20,
                    help="length of each run (default 20)")
    ap.add_argument("--size-mib", type=int, default=1024,
                    help="loop device size (default 1024)")
    ap.add_argument("--no-write", action="store_true",
                    help="do not write bench/RESULTS.md")
    args = ap.parse_args(argv)

    prog = os.path.join(ROOT, "target", "bin", "act_storage")
    traced.require(prog)

    rows = []
    with traced.ram_loop(args.size_mib) as (dev, tmp):
        for threads in THREADS:
            for mode in MODES:
                share, over, n = one_run(prog, dev, mode, threads,
                                         args.seconds, tmp)
                print("%-8s %3d threads: small-read gaps < 20 us "
                      "%5.1f%%, reads > 1 ms %6.2f%% (%d reads traced)"
                      % (mode, threads, 100 * share, over, n),
                      flush=True)
                rows.append((mode, threads, share, over))

    text = [SECTION, "",
            "`sudo bench/bench_rate_process.py --seconds %d`: act_storage "
            "at 1x (2000 reads/s, 1000 writes/s) on a %d MiB loop device "
            "over a file in /dev/shm, %d CPUs; every I/O traced by the test "
            "shim. Reference ACT 6.6, traced the same way: 12-43%% (10 "
            "threads) and 75-82%% (40 threads, on a quiet machine) of "
            "small-read gaps under 20 us."
            % (args.seconds, args.size_mib, os.cpu_count()), "",
            "| rate-process | service-threads | small-read gaps < 20 us | "
            "reads > 1 ms |", "|---|---|---|---|"]
    for mode, threads, share, over in rows:
        text.append("| %s | %d | %.1f%% | %.2f%% |" % (mode, threads,
                                                        100 * share, over))
    if not args.no_write:
        results.update(SECTION, "\n".join(text))
        print("updated bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
