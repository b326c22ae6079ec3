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
import re
import subprocess
import sys
import tempfile

import results  # bench/results.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## rate-process: request timing"
MODES = ("aligned", "spread", "poisson")
THREADS = (10, 40)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kw)


def gaps_under(trace, limit_ns):
    """Share of gaps between consecutive small reads under limit_ns."""
    times = []
    with open(trace) as f:
        for line in f:
            p = line.split()
            if len(p) == 8 and p[4] == "r" and int(p[6]) < 128 * 1024:
                times.append(int(p[0]))
    times.sort()
    gaps = [b - a for a, b in zip(times, times[1:])]
    return sum(1 for g in gaps if g < limit_ns) / len(gaps), len(times)


def reads_over_1ms(log_text):
    """% of reads over 1 ms in the last report's cumulative reads."""
    blocks = log_text.split("\nreads (")
    last = blocks[-1]
    total = int(last.split(" total)", 1)[0])
    b0 = re.search(r"\(00: (\d+)\)", last)
    under = int(b0.group(1)) if b0 else 0
    return 100.0 * (total - under) / total if total else 0.0


def one_run(prog, shim, dev, mode, threads, seconds, tmp):
    conf = os.path.join(tmp, "%s-%d.conf" % (mode, threads))
    trace = os.path.join(tmp, "%s-%d.trace" % (mode, threads))
    with open(conf, "w") as f:
        f.write("device-names: %s\nservice-threads: %d\n"
                "test-duration-sec: %d\nread-reqs-per-sec: 2000\n"
                "write-reqs-per-sec: 1000\nrate-process: %s\n" % (
                    dev, threads, seconds, mode))
    env = dict(os.environ, LD_PRELOAD=shim, ACT_SHIM_TRACE=trace)
    out = run([prog, conf], env=env).stdout
    share, n = gaps_under(trace, 20000)
    os.unlink(trace)
    return share, reads_over_1ms(out), n


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
    shim = os.path.join(ROOT, "target", "tests", "libact_shim.so")
    for p in (prog, shim):
        if not os.path.exists(p):
            sys.exit("%s missing: run make && make unit" % p)
    if os.geteuid() != 0:
        sys.exit("needs root (losetup)")

    rows = []
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        img = os.path.join(tmp, "ram.img")
        with open(img, "wb") as f:
            f.truncate(args.size_mib * 1024 * 1024)
        dev = run(["losetup", "--find", "--show", img]).stdout.strip()
        try:
            for threads in THREADS:
                for mode in MODES:
                    share, over, n = one_run(prog, shim, dev, mode, threads,
                                             args.seconds, tmp)
                    print("%-8s %3d threads: small-read gaps < 20 us "
                          "%5.1f%%, reads > 1 ms %6.2f%% (%d reads traced)"
                          % (mode, threads, 100 * share, over, n),
                          flush=True)
                    rows.append((mode, threads, share, over))
        finally:
            subprocess.run(["losetup", "-d", dev])

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
