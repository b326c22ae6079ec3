#!/usr/bin/env python3
"""Benchmark: request timing side by side with the reference ACT.

Description: on a RAM-backed loop device (a file in /dev/shm), runs
act_storage at 40, 160 and 480 service threads on one schedule (1920
reads/s - an integer rate per thread at each count, so the reference,
which truncates it, runs the very same schedule - and 1000 writes/s,
rate-process aligned), --rounds times each, and takes the share of reads
over 1 ms from each log (act_latency.py's reckoning: the last report's
cumulative reads). With --ref PATH (an act_storage built from the
reference ACT 6.6 sources), the reference runs the same configs, run by
run alternating with act, so both see the same machine; without it, the
figures are set beside the reference's ranges measured before
(REFERENCE below). With --before OLD (and --older OLDER), older builds of
act are alternated too.

With --trace (needs tracefs), one more run of each program at 160
threads is traced with ftrace (sched_waking / sched_switch and the
pread64 system calls): the time from a read's completion waking its
thread to that thread running again, median and 90th percentile - where
the difference between two builds lies (docs/beyond.md, "Request
timing").

Run it on an otherwise idle machine: the threads share the CPUs with
the loop device's kernel worker, so any other load changes the figures
(each run's 1-minute load average is printed; a cgroup with a large CPU
weight is no cure - it starves the loop worker and every build reads
35-65% over 1 ms).

Needs root (losetup). Prints the figures and writes its section of
bench/RESULTS.md (unless --no-write).

Usage: sudo bench/bench_timing.py [--seconds 20] [--rounds 3]
         [--ref PATH] [--before OLD] [--older OLDER] [--trace]
         [--label TEXT] [--no-write]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

import results  # bench/results.py
import traced  # bench/traced.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## request timing beside the reference"
THREADS = (40, 160, 480)
READS = 1920
WRITES = 1000

# Reads > 1 ms of the reference ACT 6.6 (RAM loop devices, 2 CPUs):
# (low, high, median) of the runs. 160: the audit of issue 25 (1920
# reads/s, 26 runs alternating with act); 40 and 480: bench_threads.py's
# figures (2000 reads/s). Other machines give other figures: with the
# reference at hand, --ref measures it beside act instead.
REFERENCE = {
    40: (0.08, 0.67, None),
    160: (15.0, 46.0, 36.0),
    480: (59.1, 67.9, None),
}

# -- runs ---------------------------------------------------------------

def run_log(cmd, out_path):
    """Runs cmd with its stdout to out_path; returns what it wrote."""
    with open(out_path, "w") as out:
        subprocess.run(cmd, stdout=out, stderr=subprocess.DEVNULL,
                       check=False)
    with open(out_path) as f:
        return f.read()


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# -- ftrace: completion to running again ---------------------------------

TRACE = "/sys/kernel/tracing"
EVENTS = ("sched/sched_switch", "sched/sched_waking",
          "syscalls/sys_enter_pread64", "syscalls/sys_exit_pread64")
LINE = re.compile(r"^\s*.+?-(\d+)\s+\(\s*(\S+)\)\s+\[\d+\]\s+\S+\s+"
                  r"([\d.]+): (\w+)(?:: |\(| )(.*)$")


def _tw(name, value):
    with open(os.path.join(TRACE, name), "w") as f:
        f.write(value)


def traced_wakeups(cmd, tmp):
    """(median, p90) in ms from a small read's completion waking its
    thread to the thread running, over one ftrace'd run."""
    _tw("tracing_on", "0")
    _tw("trace", "")
    _tw("buffer_size_kb", "65536")
    _tw("options/record-tgid", "1")
    for e in EVENTS:
        _tw("events/%s/enable" % e, "1")
    _tw("tracing_on", "1")
    out = os.path.join(tmp, "traced.log")
    with open(out, "w") as o:
        p = subprocess.Popen(cmd, stdout=o,
                             stderr=subprocess.DEVNULL)
        tgid = str(p.pid)
        p.wait()
    _tw("tracing_on", "0")
    path = os.path.join(tmp, "trace.txt")
    with open(os.path.join(TRACE, "trace")) as src, open(path, "w") as dst:
        for line in src:
            dst.write(line)
    for e in EVENTS:
        _tw("events/%s/enable" % e, "0")
    _tw("trace", "")
    waits = wake_to_run(path, tgid)
    os.unlink(path)
    if not waits:
        return None
    waits.sort()
    return (1e3 * waits[len(waits) // 2],
            1e3 * waits[min(len(waits) - 1, int(0.9 * len(waits)))])


def wake_to_run(path, tgid):
    """The waits (s) from a small read's completion waking its thread to
    the thread running again, in one trace of the program tgid."""
    ours, in_read, woken, waits = set(), set(), {}, []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            pid, who, t, ev, rest = m.groups()
            pid, t = int(pid), float(t)
            if who == tgid:
                ours.add(pid)
            if ev == "sys_pread64" and who == tgid:
                if "->" in rest:
                    in_read.discard(pid)
                elif "count: 0x600" in rest:
                    in_read.add(pid)
            elif ev == "sched_waking":
                p = int(re.search(r"\bpid=(\d+)", rest).group(1))
                if p in ours and p in in_read:
                    woken[p] = t
            elif ev == "sched_switch":
                p = int(re.search(r"next_pid=(\d+)", rest).group(1))
                if p in woken:
                    waits.append(t - woken.pop(p))
    return waits


# -- the runs -----------------------------------------------------------

def write_conf(path, dev, threads, seconds):
    with open(path, "w") as f:
        f.write("device-names: %s\nservice-threads: %d\n"
                "test-duration-sec: %d\nreport-interval-sec: %d\n"
                "read-reqs-per-sec: %d\nwrite-reqs-per-sec: %d\n" % (
                    dev, threads, seconds, seconds, READS, WRITES))


def fmt_runs(vals):
    if not vals:
        return "-"
    return "%.1f-%.1f (median %.1f)" % (min(vals), max(vals),
                                         statistics.median(vals))


def fmt_ref(threads):
    lo, hi, med = REFERENCE[threads]
    return "%.2g-%.3g%s" % (lo, hi, " (median %.3g)" % med if med else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=20,
                    help="length of each run (default 20)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="runs of each program at each thread count "
                    "(default 3)")
    ap.add_argument("--size-mib", type=int, default=1024,
                    help="loop device size (default 1024)")
    ap.add_argument("--ref", metavar="PATH",
                    help="the reference ACT 6.6's act_storage, run "
                    "alternating with act")
    ap.add_argument("--trace", action="store_true",
                    help="also trace one run at 160 threads of each "
                    "program (completion to running again)")
    ap.add_argument("--threads", default=",".join(map(str, THREADS)),
                    help="the service-thread counts, from %s (default all)"
                    % ",".join(map(str, THREADS)))
    ap.add_argument("--pin", action="store_true",
                    help="run every program on CPU 0 only (taskset): its "
                    "threads share one CPU")
    ap.add_argument("--older", metavar="PATH",
                    help="a second older act_storage, alternated too")
    results.prog_options(ap)
    args = ap.parse_args(argv)

    progs = [("act", args.prog)]
    if args.before:
        progs.append(("act before", args.before))
    if args.older:
        progs.append(("act older", args.older))
    if args.ref:
        progs.append(("reference", args.ref))
    for _, p in progs:
        results.require_prog(p)
    try:
        counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        counts = []
    if not counts or any(t not in THREADS for t in counts):
        sys.exit("ERROR: --threads %s: give some of %s" % (
            args.threads, ",".join(map(str, THREADS))))
    pin = ["taskset", "-c", "0"] if args.pin else []
    if os.geteuid() != 0:
        sys.exit("needs root (losetup)")

    figs = {}
    waits = {}
    with traced.ram_loop(args.size_mib) as (dev, tmp):
        for threads in counts:
            conf = os.path.join(tmp, "t%d.conf" % threads)
            write_conf(conf, dev, threads, args.seconds)
            for r in range(args.rounds):
                for name, prog in progs:
                    log = run_log(pin + [prog, conf],
                                  os.path.join(tmp, "run.log"))
                    over = traced.reads_over_1ms(log)
                    figs.setdefault((name, threads), []).append(over)
                    print("%4d threads, round %d, %-10s reads > 1 ms "
                          "%6.2f%% (load %.2f)" % (threads, r + 1, name,
                                                   over, load1()),
                          flush=True)
        if args.trace and os.path.isdir(os.path.join(TRACE, "events")):
            conf = os.path.join(tmp, "trace.conf")
            write_conf(conf, dev, 160, min(args.seconds, 6))
            for name, prog in progs:
                waits[name] = traced_wakeups(pin + [prog, conf], tmp)
                if waits[name]:
                    print("160 threads, %-10s completion -> running: "
                          "median %.3f ms, p90 %.3f ms" % (
                              (name,) + waits[name]), flush=True)

    head = ["service-threads"] + [n for n, _ in progs]
    if not args.ref:
        head.append("reference ACT 6.6 (measured before)")
    section = SECTION + (", threads on one CPU" if args.pin else "")
    text = [section, "",
            "`sudo bench/bench_timing.py --seconds %d --rounds %d%s%s%s%s`"
            "%s: act_storage at %d reads/s and %d writes/s (rate-process "
            "aligned) on a %d MiB loop device over a file in /dev/shm, %d "
            "CPUs%s, the machine otherwise idle; reads over 1 ms "
            "from each run's log, range and median of the rounds." % (
                args.seconds, args.rounds,
                " --threads " + args.threads if len(counts) < len(THREADS)
                else "", " --pin" if args.pin else "",
                " --ref" if args.ref else "",
                " --trace" if args.trace else "",
                " (%s)" % args.label if args.label else "", READS, WRITES,
                args.size_mib, os.cpu_count(),
                " (each program pinned to CPU 0 with taskset)" if args.pin
                else ""),
            "", "| " + " | ".join(head) + " |",
            "|" + "---|" * len(head)]
    for threads in counts:
        row = [str(threads)] + [fmt_runs(figs.get((n, threads), []))
                                for n, _ in progs]
        if not args.ref:
            row.append(fmt_ref(threads))
        text.append("| " + " | ".join(row) + " |")
    if waits:
        text += ["", "A read's completion to its thread running again, "
                 "160 threads, one traced run each (ftrace):", "",
                 "| program | median | p90 |", "|---|---|---|"]
        for name, w in waits.items():
            if w:
                text.append("| %s | %.3f ms | %.3f ms |" % ((name,) + w))
    print("\n".join(text[2:]))
    if not args.no_write:
        results.update(section, "\n".join(text))
        print("updated bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
