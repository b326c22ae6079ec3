#!/usr/bin/env python3
"""A mutation fuzzer for analysis/act_latency.py's log reader.

Description: takes the fixture logs (tests/golden/fixtures/*.log), two
logs written by tests/lib/synthlog.py (the lines the fixtures lack) and the
saved inputs (tests/fuzz/crashes/act_latency/*), mutates them - bytes
flipped, inserted or deleted, lines dropped, repeated or swapped, numbers
changed, non-UTF-8 bytes and control characters inserted, logs cut short
or spliced together, stop lines added - and runs act_latency.py's main()
on each with a rotation of option sets (tables, -x, bucket ranges,
--check, --stress, --json, --plot). act_latency.py must always return one
of its documented statuses (0, 1, 2, 3: docs/README.md's table, the
constants act.LATENCY_* and its usage status) and never raise: any other
outcome is a finding, saved to tests/fuzz/crashes/act_latency/ and
replayed by `make test` from then on.

Usage:
  fuzz_act_latency.py [--seconds N] [--seed S]   fuzz for N seconds
  fuzz_act_latency.py --replay                    every fixture and saved
                                                  input, every option set
"""

import argparse
import contextlib
import hashlib
import importlib
import io
import os
import random
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "golden", "fixtures")
CRASHES = os.path.join(HERE, "crashes", "act_latency")
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import synthlog  # noqa: E402  (tests/lib/synthlog.py)

OPTION_SETS = [
    [],
    ["-t", "1"],
    ["-t", "2", "-s", "1", "-n", "4", "-e", "2"],
    ["-t", "3", "-x", "-h", "reads"],
    ["-t", "1", "--check"],
    ["-t", "1", "--check", "--stress"],
    ["-t", "1", "--json"],
    ["-t", "1", "--check", "--json", "--criteria", "1:5,8:1"],
    ["-t", "5", "-s", "60", "-n", "9"],
    ["-t", "1", "--plot", "PLOT"],
]



def _line(text):
    return text.encode() + b"\n"


# Bytes and log lines to insert (lines from tests/lib/synthlog.py).
INSERTS = [b"\xff\xfe", b"\xc3(", b"\x00", b"\x1b[31m", b"\r", b"\t",
           b"ERROR: stopping\n", _line(synthlog.stop_signal(3)),
           _line(synthlog.after(999999999999)),
           synthlog.bucket_lines({64: 99999999999999999999})[0].encode(),
           synthlog.bucket_lines({7: 1})[0].encode(),
           _line(synthlog.histogram("reads", {0: 5})[0]),
           b"-", b"9" * 40, _line(synthlog.names_block([])[0]), b"\n\n",
           _line(synthlog.item("test-duration-sec", 0)),
           _line(synthlog.item("report-interval-sec", 0)),
           _line(synthlog.banner(version="9.9")[1])]


def load_module():
    """act_latency.py's program: act.latency.main of the act package."""
    sys.path.insert(0, os.path.join(REPO, "analysis"))
    return importlib.import_module("act.latency.main")


def synthetic():
    """Seeds with what the fixtures lack: today's act_index header (the
    detected-CPUs line, the identity block), a stop on request, failed
    I/Os past io-error-limit with the suppressed ones counted."""
    dev = "/dev/nvme0n1"
    names = ["reads", dev + "-reads", "writes", dev + "-writes"]
    index = synthlog.header(
        synthlog.INDEX, synthlog.config_items(
            synthlog.INDEX, [dev], service_threads=10, test_duration_sec=4),
        [("service-thread-reads-per-sec", "3000"),
         ("cache-thread-reads-and-writes-per-sec", "2000")],
        [synthlog.device_line(synthlog.INDEX, dev, 1 << 30)], names,
        notice="act fuzz seed", cpus=2,
        identity=[synthlog.identity_line(dev, "SAMSUNG MZQL21T9HCJR-00A07",
                                         "S64GNA0T123456", "GDC5602Q")],
        start_time="2026-11-23T03:47:33Z")
    slices = [{n: {0: 3000, 1: 20, 4: 1} for n in names}] * 3
    storage = synthlog.header(
        synthlog.STORAGE, synthlog.config_items(
            synthlog.STORAGE, ["/dev/sdb"], test_duration_sec=6),
        [("internal-read-reqs-per-sec", "2000")],
        [synthlog.device_line(synthlog.STORAGE, "/dev/sdb", 1 << 31)],
        ["reads", "/dev/sdb-reads"])
    reads = [{"reads": [1990, 8, 2], "/dev/sdb-reads": [1990, 8, 2]}] * 4
    failed = [synthlog.io_error("/dev/sdb", 4096 * k, 1536, failed=k,
                                limit=2) for k in (1, 2, 3)]
    return [synthlog.text(lines).encode() for lines in (
        index + synthlog.reports(slices) +
        [synthlog.stop_request("fail fast: reads over 1 ms 7.2% in slice 3",
                               3)],
        storage + synthlog.reports(reads, extra={4: {"reads": failed}}) +
        [synthlog.io_errors_stop(3, 2), synthlog.more_io_errors(5)])]


def seeds():
    out = synthetic()
    for d in (FIXTURES, CRASHES):
        if os.path.isdir(d):
            for name in sorted(os.listdir(d)):
                path = os.path.join(d, name)
                if (os.path.isfile(path) and not name.startswith(".") and
                        not name.endswith(".why")):
                    with open(path, "rb") as f:
                        out.append(f.read())
    return out


def mutate(rng, data, pool):
    """One to four random edits of data."""
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(10)
        lines = data.split(b"\n")
        if kind == 0 and data:                      # flip a byte
            i = rng.randrange(len(data))
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + \
                data[i + 1:]
        elif kind == 1:                             # insert something
            i = rng.randrange(len(data) + 1)
            data = data[:i] + rng.choice(INSERTS) + data[i:]
        elif kind == 2 and data:                    # delete a run
            i = rng.randrange(len(data))
            data = data[:i] + data[i + rng.randint(1, 64):]
        elif kind == 3 and len(lines) > 1:          # drop a line
            del lines[rng.randrange(len(lines))]
            data = b"\n".join(lines)
        elif kind == 4 and lines:                   # repeat a line
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            data = b"\n".join(lines)
        elif kind == 5 and len(lines) > 1:          # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        elif kind == 6 and data:                    # change a number
            digits = [i for i, b in enumerate(data) if 48 <= b <= 57]
            if digits:
                i = rng.choice(digits)
                data = data[:i] + rng.choice([b"0", b"9", b"99999", b""]) + \
                    data[i + 1:]
        elif kind == 7 and data:                    # cut short
            data = data[:rng.randrange(len(data))]
        elif kind == 8 and pool:                    # splice with another
            other = rng.choice(pool)
            i = rng.randrange(len(data) + 1)
            j = rng.randrange(len(other) + 1)
            data = data[:i] + other[j:]
        elif kind == 9 and lines:                   # non-UTF-8 device name
            i = rng.randrange(len(lines))
            lines[i] = lines[i].replace(b"/", b"/\xe9\xff", 1)
            data = b"\n".join(lines)
    return data


def run_one(mod, data, options, tmp):
    """Run main() on data; None if it behaved, else a description."""
    path = os.path.join(tmp, "input.log")
    with open(path, "wb") as f:
        f.write(data)
    argv = ["-l", path] + [os.path.join(tmp, "plot.svg") if a == "PLOT"
                           else a for a in options]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = mod.main(argv)
    except SystemExit as e:
        status = e.code
    except BaseException:
        return "raised:\n" + traceback.format_exc()
    act = sys.modules["act"]
    if status not in (act.LATENCY_OK, act.LATENCY_NOT_PASSED,
                      act.LATENCY_NOT_JUDGED, mod.USAGE_STATUS):
        return "returned %r" % (status,)
    if "Traceback" in err.getvalue():
        return "printed a traceback:\n" + err.getvalue()[-2000:]
    return None


def save(data, why):
    os.makedirs(CRASHES, exist_ok=True)
    name = hashlib.sha256(data).hexdigest()[:16] + ".log"
    with open(os.path.join(CRASHES, name), "wb") as f:
        f.write(data)
    with open(os.path.join(CRASHES, name + ".why"), "w") as f:
        f.write(why)
    return os.path.join(CRASHES, name)


def replay(mod):
    problems = 0
    inputs = seeds()
    with tempfile.TemporaryDirectory() as tmp:
        for data in inputs:
            for options in OPTION_SETS:
                why = run_one(mod, data, options, tmp)
                if why is not None:
                    problems += 1
                    print("FAIL: %s on an input of %d bytes: %s"
                          % (" ".join(options), len(data), why))
    print("%d inputs x %d option sets replayed, %d problems"
          % (len(inputs), len(OPTION_SETS), problems))
    return 1 if problems else 0


def fuzz(mod, seconds, seed):
    rng = random.Random(seed)
    pool = seeds()
    if not pool:
        print("no seed inputs in %s" % FIXTURES)
        return 2
    runs = findings = 0
    deadline = time.monotonic() + seconds
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < deadline:
            data = mutate(rng, rng.choice(pool), pool)
            options = OPTION_SETS[runs % len(OPTION_SETS)]
            why = run_one(mod, data, options, tmp)
            runs += 1
            if why is not None:
                findings += 1
                path = save(data, "options: %s\n%s" % (" ".join(options), why))
                print("FINDING (%s): %s\n  saved as %s"
                      % (" ".join(options), why.splitlines()[0], path))
    print("act_latency.py: %d executions in %d s (%.0f/s), seed %d, %d "
          "findings" % (runs, seconds, runs / max(seconds, 1), seed,
                        findings))
    return 1 if findings else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--replay", action="store_true",
                    help="replay the fixtures and saved inputs only")
    args = ap.parse_args(argv)
    mod = load_module()
    if args.replay:
        return replay(mod)
    seed = args.seed if args.seed is not None else int(time.time())
    return fuzz(mod, args.seconds, seed)


if __name__ == "__main__":
    sys.exit(main())
