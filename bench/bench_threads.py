#!/usr/bin/env python3
"""Benchmark: how the number of service threads shapes the drive's load.

Description: on a RAM-backed loop device (a file in /dev/shm), run
act_storage at 1x (2000 reads/s, 1000 writes/s, rate-process aligned) at
10, 40, 160 and 480 service threads, with the test shim (tests/shim,
LD_PRELOAD) recording the issue time of every I/O. Every service thread
runs at 2000 / threads reads/s, all on one period, so each period the drive
gets one burst of up to one read per thread. For each run: the burst sizes
(a burst: small reads each within BURST_GAP_MS of the one before), by read
- the median and 90th percentile of the size of the burst a read is in -
and, from a second run without the shim, the log's share of reads over
1 ms at the end of the run. What to
compare with, reads > 1 ms on such bursts: reference ACT 6.6, 40 / 160 /
480 threads: 0.08-0.67% / 10.6-13.9% / 59.1-67.9% (act before its timing fix, uneven split:
0.09-0.29% / 1.7-4.3% / 37.8-42.2%). Needs root (losetup). Writes its
section of bench/RESULTS.md.

Usage: sudo bench/bench_threads.py [--seconds 10] [--no-write]
         [--prog PATH]
"""

import argparse
import os
import sys

import results  # bench/results.py
import traced  # bench/traced.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## service threads: burst size and latency"
THREADS = (10, 40, 160, 480)
BURST_GAP_MS = 1.0


def bursts_by_read(times):
    """For each read, the size of its burst (sorted)."""
    sizes = []
    n = 0
    for a, b in zip(times, times[1:] + [None]):
        n += 1
        if b is None or b - a >= BURST_GAP_MS * 1e6:
            sizes.extend([n] * n)
            n = 0
    return sorted(sizes)


def pct(sorted_vals, q):
    return sorted_vals[min(len(sorted_vals) - 1, int(q * len(sorted_vals)))]


def one_run(prog, dev, threads, seconds, tmp):
    conf = os.path.join(tmp, "t%d.conf" % threads)
    trace = os.path.join(tmp, "t%d.trace" % threads)
    with open(conf, "w") as f:
        f.write("device-names: %s\nservice-threads: %d\n"
                "test-duration-sec: %d\nread-reqs-per-sec: 2000\n"
                "write-reqs-per-sec: 1000\n" % (dev, threads, seconds))
    traced.traced_run(prog, conf, trace)
    times = traced.small_read_times(trace)
    os.unlink(trace)
    sizes = bursts_by_read(times)
    # The latencies from a run of its own, without the shim's work on
    # every I/O.
    out = traced.run([prog, conf]).stdout
    return (pct(sizes, 0.5), pct(sizes, 0.9), traced.reads_over_1ms(out),
            len(times))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=10,
                    help="length of each run (default 10)")
    ap.add_argument("--size-mib", type=int, default=1024,
                    help="loop device size (default 1024)")
    ap.add_argument("--prog", default=os.path.join(ROOT, "target", "bin",
                                                   "act_storage"),
                    help="the act_storage to run (default target/bin's)")
    ap.add_argument("--no-write", action="store_true",
                    help="do not write bench/RESULTS.md")
    args = ap.parse_args(argv)

    traced.require(args.prog)

    rows = []
    with traced.ram_loop(args.size_mib) as (dev, tmp):
        for threads in THREADS:
            med, p90, over, n = one_run(args.prog, dev, threads,
                                        args.seconds, tmp)
            print("%3d threads: burst by read median %d, p90 %d; "
                  "reads > 1 ms %6.2f%% (%d reads traced)" % (
                      threads, med, p90, over, n), flush=True)
            rows.append((threads, med, p90, over))

    text = [SECTION, "",
            "`sudo bench/bench_threads.py --seconds %d`: act_storage at 1x "
            "(2000 reads/s, 1000 writes/s, rate-process aligned) on a %d MiB "
            "loop device over a file in /dev/shm, %d CPUs; every I/O traced "
            "by the test shim. Burst: small reads each within %g ms of the "
            "one before; its size by read is the size of the burst a read "
            "is in. Reads > 1 ms from a second run, untraced. Reads > 1 ms to compare with, reference ACT 6.6: "
            "0.08-0.67%% (40 threads), 10.6-13.9%% (160), 59.1-67.9%% (480); "
            "act before its timing fix (threads split 13/s and 12/s): 0.09-0.29%%, 1.7-4.3%%, 37.8-42.2%%."
            % (args.seconds, args.size_mib, os.cpu_count(), BURST_GAP_MS),
            "", "| service-threads | burst size by read: median | p90 | "
            "reads > 1 ms |", "|---|---|---|---|"]
    for threads, med, p90, over in rows:
        text.append("| %d | %d | %d | %.2f%% |" % (threads, med, p90, over))
    if not args.no_write:
        results.update(SECTION, "\n".join(text))
        print("updated bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
