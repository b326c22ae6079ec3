#!/usr/bin/env python3
"""The time a failing ceiling ladder takes, with fail fast and without.

Description: one act_certify trial campaign on a 64 MiB file in /dev/shm
(else $TMPDIR): --load 1, steps of --seconds S (default 60), --ladder 3,4,
24 service threads. The test shim (tests/shim, LD_PRELOAD) passes the first
N small reads of every run (N = 1.4 x the reads of the 1x test) and delays
every later one 2 ms: test 1 passes, the stress test runs to completion
(it is not judged on latency), and the 3x rung - a run of its own - goes
over the 1 ms limit after about a third of its length. The campaign runs
twice: with fail fast (the default), which stops the rung at its first
slice over the limit, and with --no-fail-fast, which runs it to its end.
Prints the wall time of each, the rung's run time and the verdicts, and
writes its section of bench/RESULTS.md. Needs `make` and `make unit` (the
shim) first.

Usage: bench/bench_failfast_ladder.py [--seconds 60] [--no-write]
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import results  # bench/results.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## act_certify: a failing ladder, fail fast or not"
CERTIFY = os.path.join(ROOT, "analysis", "act_certify.py")
SHIM = os.path.join(ROOT, "target", "tests", "libact_shim.so")


def device_dir():
    for d in ("/dev/shm", tempfile.gettempdir()):
        if os.path.isdir(d) and os.access(d, os.W_OK):
            return d
    return tempfile.gettempdir()


def run_campaign(td, seconds, fail_fast):
    dev = os.path.join(td, "dev.img")
    with open(dev, "wb") as f:
        for _ in range(64):
            f.write(os.urandom(1 << 20))
    base = os.path.join(td, "base.conf")
    with open(base, "w") as f:
        f.write("service-threads: 24\n")
    out = os.path.join(td, "ff" if fail_fast else "noff")
    passed = int(1.4 * 2000 * seconds)
    env = dict(os.environ, LD_PRELOAD=SHIM, ACT_SHIM_FAULT=(
        "op=read,size=1536,count=%d;op=read,size=1536,delay_ms=2" % passed),
        ACT_BIN=os.path.join(ROOT, "target", "bin"))
    argv = [sys.executable, CERTIFY, "--device", dev, "--load", "1",
            "--seconds", str(seconds), "--ladder", "3,4", "--config", base,
            "--out", out] + ([] if fail_fast else ["--no-fail-fast"])
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    wall = time.monotonic() - t0
    try:
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        sys.exit("no summary.json (exit %d):\n%s" % (r.returncode, r.stderr))
    rung = [st for st in s["steps"] if st["kind"] == "ceiling" and
            st["status"] == "done" and not st["same_run_as"]]
    os.unlink(dev)
    return {"wall": wall, "exit": r.returncode,
            "verdict": s["verdict"]["text"],
            "rung": "%s %s, ran %s s of %s" % (
                rung[0]["load_text"], rung[0]["result"], rung[0]["ran_sec"],
                rung[0]["planned_sec"]) if rung else "-"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if not os.path.exists(SHIM):
        sys.exit("bench_failfast_ladder: %s not found: run make unit" % SHIM)
    td = tempfile.mkdtemp(prefix="act-bench-ladder-", dir=device_dir())
    try:
        got = {ff: run_campaign(td, args.seconds, ff) for ff in (True,
                                                                 False)}
    finally:
        shutil.rmtree(td, ignore_errors=True)
    rows = ["| %s | %.0f s | %s | %s | %d |" % (
        "fail fast (default)" if ff else "--no-fail-fast", g["wall"],
        g["rung"], g["verdict"], g["exit"]) for ff, g in got.items()]
    text = "\n".join([
        SECTION, "",
        "`bench/bench_failfast_ladder.py --seconds %d` (%s, Python %s, %s, "
        "%d CPUs): a trial campaign, --load 1, --ladder 3,4, steps of %d s, "
        "the shim delaying every small read 2 ms after the first %d of a "
        "run: the 3x rung fails." % (
            args.seconds, time.strftime("%Y-%m-%d"),
            platform.python_version(), platform.machine(),
            os.cpu_count(), args.seconds, int(1.4 * 2000 * args.seconds)),
        "", "| campaign | wall time | the failing rung | verdict | exit |",
        "|---|---|---|---|---|"] + rows) + "\n"
    print(text)
    if not args.no_write:
        results.update(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
