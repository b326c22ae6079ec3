#!/usr/bin/env python3
"""Do two identical RAM-backed devices get the same trial verdict on a
busy host?

Description: pairs of the same short act_certify trial campaign (--load
N, --seconds S: test 1 and the stress test) on two identical devices -
loop devices over 64 MiB files in /dev/shm as root, else the files
themselves - one after the other, while the machine runs part of the
test suite (`tests/run.sh PATTERN` again and again, in the background)
and --hogs busy loops. Counts the pairs whose two verdicts are the same
(the issue's bar: at least 9 of 10). With --before DIR (an analysis/
folder of an older act_certify, e.g. `git archive main analysis`), each
pair runs with it too, the two alternating pair by pair under the same
load. Writes its section of bench/RESULTS.md.

Usage: sudo bench/bench_trial_pairs.py [--pairs 10] [--seconds 10]
           [--load 10] [--before DIR] [--suite PATTERN] [--hogs N]
           [--no-write]
"""

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import results  # bench/results.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## act_certify: two identical devices, one trial verdict"
ANALYSIS = os.path.join(ROOT, "analysis")
MIB = 64


def device_dir():
    for d in ("/dev/shm", tempfile.gettempdir()):
        if os.path.isdir(d) and os.access(d, os.W_OK):
            return d
    return tempfile.gettempdir()


class Device:
    """A 64 MiB file of zeros in td, behind a loop device as root."""

    def __init__(self, td, name):
        self.file = os.path.join(td, name + ".img")
        with open(self.file, "wb") as f:
            f.truncate(MIB << 20)
        self.loop = None
        if os.geteuid() == 0 and shutil.which("losetup"):
            r = subprocess.run(["losetup", "-f", "--show", self.file],
                               stdout=subprocess.PIPE,
                               universal_newlines=True)
            if r.returncode == 0:
                self.loop = r.stdout.strip()
        self.path = self.loop or self.file

    def close(self):
        if self.loop:
            subprocess.run(["losetup", "-d", self.loop])
        os.unlink(self.file)


def campaign(analysis, dev, out, args):
    """One trial campaign; (verdict text, [each step's result and
    message])."""
    argv = [sys.executable, os.path.join(analysis, "act_certify.py"),
            "--device", dev, "--load", str(args.load), "--seconds",
            str(args.seconds), "--config",
            os.path.join(ROOT, "config", "act_storage.conf"), "--out", out]
    env = dict(os.environ, ACT_BIN=os.path.join(ROOT, "target", "bin"))
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    try:
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return "no summary.json (exit %d)" % r.returncode, [r.stderr[-300:]]
    return s["verdict"]["text"], ["%s: %s%s" % (
        st["title"].split(":")[0], st["result"],
        " (%s)" % st["message"] if st["result"] not in ("PASS", "SKIPPED")
        and st["message"] else "") for st in s["steps"]]


class Load:
    """tests/run.sh PATTERN over and over, and n busy loops, in process
    groups of their own, until stop()."""

    def __init__(self, pattern, hogs):
        self.procs = []
        if pattern:
            self.procs.append(subprocess.Popen(
                ["sh", "-c", "while :; do tests/run.sh %s; done" % pattern],
                cwd=ROOT, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True))
        for _ in range(hogs):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-c", "while True: pass"],
                start_new_session=True))

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
            p.wait()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--load", type=float, default=10)
    ap.add_argument("--before", metavar="DIR",
                    help="an older analysis/ folder to measure too")
    ap.add_argument("--suite", default="python/latency python/logfile",
                    help="tests/run.sh patterns run as the load "
                    "('' for none)")
    ap.add_argument("--hogs", type=int, default=0,
                    help="busy loops beside the suite (default 0)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if not os.access(os.path.join(ROOT, "target", "bin", "act_storage"),
                     os.X_OK):
        sys.exit("bench_trial_pairs: run make first")
    rules = [("this act_certify", ANALYSIS)]
    if args.before:
        rules.append(("before", os.path.abspath(args.before)))
    td = tempfile.mkdtemp(prefix="act-bench-pairs-", dir=device_dir())
    got = {name: [] for name, _ in rules}
    kind = None
    load = Load(args.suite, args.hogs)
    try:
        time.sleep(5)               # the load running before the first pair
        for k in range(args.pairs):
            for name, analysis in rules:
                devs = [Device(td, "d%d" % i) for i in (1, 2)]
                kind = "loop devices" if devs[0].loop else "devices (files)"
                try:
                    pair = [campaign(analysis, d.path, os.path.join(
                        td, "c%d-%s-%d" % (k, name[0], i)), args)
                        for i, d in enumerate(devs)]
                finally:
                    for d in devs:
                        d.close()
                got[name].append(pair)
                print("pair %d, %s: %s | %s" % (
                    k + 1, name, pair[0][0], pair[1][0]), flush=True)
                for v, steps in pair:
                    if v != pair[0][0] or v != pair[1][0] or \
                            not v.startswith("certified"):
                        print("    " + "; ".join(steps), flush=True)
    finally:
        load.stop()
        shutil.rmtree(td, ignore_errors=True)
    rows = []
    for name, _ in rules:
        pairs = got[name]
        same = sum(1 for a, b in pairs if a[0] == b[0])
        certified = sum(1 for p in pairs for v, _ in p
                        if v.startswith("certified"))
        odd = sorted({v for p in pairs for v, _ in p
                      if not v.startswith("certified")})
        rows.append("| %s | %d of %d | %d of %d | %s |" % (
            name, same, len(pairs), certified, 2 * len(pairs),
            "; ".join(odd) or "-"))
    text = "\n".join([
        SECTION, "",
        "`bench/bench_trial_pairs.py --pairs %d --seconds %d --load %g%s%s` "
        "(%s, Python %s, %s, %d CPUs): the same trial campaign (test 1 at "
        "%gx, the stress test at %gx, %d s each) on two identical %s over "
        "%d MiB files in /dev/shm, one after the other, %d pairs, while `tests/run.sh "
        "%s` runs over and over%s. Same verdict: the two campaigns of a "
        "pair say the same; certified: campaigns of the %d." % (
            args.pairs, args.seconds, args.load,
            " --hogs %d" % args.hogs if args.hogs else "",
            " --before DIR" if args.before else "",
            time.strftime("%Y-%m-%d"), platform.python_version(),
            platform.machine(), os.cpu_count(), args.load, 2 * args.load,
            args.seconds, kind, MIB, args.pairs, args.suite,
            " with %d busy loops" % args.hogs if args.hogs else "",
            2 * args.pairs),
        "", "| act_certify | same verdict | certified | other verdicts |",
        "|---|---|---|---|"] + rows) + "\n"
    print(text)
    if not args.no_write:
        results.update(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
