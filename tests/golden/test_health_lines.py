#!/usr/bin/env python3
"""Description: drive health lines change nothing act_latency.py prints
without --health, and keep the reference ACT 6.6 script reading the log
(docs/log-format.md, "Drive health").

- Every fixture log (fixtures/*.log), with health lines inserted where
  the programs print them - a source and a start sample per device before
  the HISTOGRAM NAMES block (the identity block's place), a sample after
  every report, after its empty line, one not read among them - gives the
  same exit status, stdout and stderr as without them: for every case of
  test_act_latency.py (its arguments) and, for every fixture, -t 1, -t 2
  --check, --json and --csv; and several logs (the three nodes, -t 2,
  --check).
- The structural rules the reference script relies on (it matches
  histogram lines by the prefix of their names and finds reports by
  `after N sec:`): no health line starts with a histogram name, contains
  "after ", is blank, or is inside a report block (between an `after N
  sec:` line and the empty line that ends it) - checked on these logs,
  on synthetic logs of tests/lib/synthlog, and on a log of act_storage
  itself, run on a file faked as an NVMe drive by the test shim (whose
  output without --health is also that of the log without its health
  lines).

    python3 tests/golden/test_health_lines.py [-v]
"""

import contextlib
import glob
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "python"))
from support import FIXTURES, REPO, NODES  # noqa: E402
import synthlog  # noqa: E402

from act.latency import main as latency_main  # noqa: E402
from test_act_latency import CASES  # noqa: E402

AFTER = re.compile(r"after \d+ sec:$")
HEALTH = "health "


def device_names(text):
    m = re.search(r"(?m)^device-names: (.*)$", text)
    return m.group(1).split() if m else ["/dev/sdb"]


def with_health_lines(text):
    """The log text with health lines where the programs print them."""
    lines = text.split("\n")
    devices = device_names(text)
    head = []
    for n, dev in enumerate(devices):
        head.append(synthlog.health_source(dev, "nvme smart log, ocp log "
                                           "c0h"))
        start, _ = synthlog.health_series(dev, [])
        head.append(start)
    at = lines.index("HISTOGRAM NAMES")
    lines[at:at] = head + [""]
    secs = [int(x[6:-5]) for x in lines if AFTER.match(x)]
    samples = {}
    for dev in devices:
        _, got = synthlog.health_series(
            dev, secs, temp=lambda t: 40 + t % 40, throttle=70, waf=1.5,
            unread={secs[len(secs) // 2]: "no answer for 5.0 sec"}
            if secs else None)
        for sec, more in got.items():
            samples.setdefault(sec, []).extend(more)
    return "\n".join(synthlog.with_health(lines, samples))


def run(argv, cwd):
    """act_latency.py's main(argv) in cwd, in this process: (exit status,
    stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            code = latency_main.main(argv)
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def reference_rule_breaks(text):
    """The health lines of a log the reference script could misread:
    [(line number, why)]."""
    lines = text.split("\n")
    names, block = [], ()
    if "HISTOGRAM NAMES" in lines:
        at = lines.index("HISTOGRAM NAMES") + 1
        while at < len(lines) and lines[at]:
            names.append(lines[at])
            at += 1
        block = range(at - len(names), at + 1)
    bad, in_report = [], False
    for no, line in enumerate(lines, 1):
        if no in block:
            continue                # the names themselves
        if AFTER.match(line):
            in_report = True
        elif not line:
            in_report = False
        if not line.startswith(HEALTH):
            continue
        if not line[len(HEALTH):].strip():
            bad.append((no, "blank"))
        if "after " in line:
            bad.append((no, "contains 'after '"))
        for name in names:
            if line.startswith(name):
                bad.append((no, "starts with the histogram name %s" % name))
        if in_report:
            bad.append((no, "inside a report block"))
    return bad


def logs():
    return sorted(os.path.basename(p) for p in
                  glob.glob(os.path.join(FIXTURES, "*.log")))


class SameOutput(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls._td = tempfile.TemporaryDirectory(prefix="act-health-")
        cls.td = cls._td.name
        for name in logs():
            with open(os.path.join(FIXTURES, name), encoding="utf-8",
                      errors="surrogateescape") as f:
                text = f.read()
            with open(os.path.join(cls.td, name), "w", encoding="utf-8",
                      errors="surrogateescape") as f:
                f.write(with_health_lines(text))

    @classmethod
    def tearDownClass(cls):
        cls._td.cleanup()

    def same(self, argv):
        with self.subTest(argv=" ".join(argv)):
            want = run(argv, FIXTURES)
            got = run(argv, self.td)
            self.assertEqual(want, got)

    def test_inserted(self):
        for name in logs():
            with open(os.path.join(self.td, name)) as f:
                text = f.read()
            self.assertGreater(text.count("\nhealth "), 2, name)

    def test_golden_cases(self):
        for _expected, log, args, _status in CASES:
            self.same(["-l", log] + args.split())

    def test_every_fixture(self):
        for name in logs():
            for args in (["-t", "1"], ["-t", "2", "--check"], ["--json"],
                         ["-t", "2", "--csv"]):
                self.same(["-l", name] + args)

    def test_several_logs(self):
        self.same(NODES + ["-t", "2", "--check"])
        self.same(NODES + ["-t", "2", "--json"])

    def test_reference_rules(self):
        for name in logs():
            with open(os.path.join(self.td, name)) as f:
                self.assertEqual([], reference_rule_breaks(f.read()), name)


class ReferenceRules(unittest.TestCase):
    def test_the_rules_catch(self):
        text = "\n".join(["HISTOGRAM NAMES", "reads", "health is", "",
                          "health is a name", "after 1 sec:",
                          "reads (0 total)",
                          "health /dev/x at 1.000 sec: temp = 1 C", "",
                          "health /dev/x: none (after all)", "health "])
        self.assertEqual([(5, "starts with the histogram name health is"),
                          (8, "inside a report block"),
                          (10, "contains 'after '"), (11, "blank")],
                         reference_rule_breaks(text))

    def test_synthetic_logs(self):
        dev = "/dev/nvme0n1"
        names = ["reads", dev + "-reads", "large-block-writes"]
        body = synthlog.reports([{n: {0: 10, 2: 1} for n in names}] * 30)
        start, samples = synthlog.health_series(
            dev, range(1, 31), temp=lambda t: 60 + t, throttle=70,
            unread={7: "NVMe status 0x4004"})
        head = synthlog.header(
            synthlog.STORAGE, synthlog.config_items(synthlog.STORAGE,
                                                    [dev]),
            [], [synthlog.device_line(synthlog.STORAGE, dev, 1 << 30)],
            names, identity=[synthlog.identity_line(dev, "M", "S", "F"),
                             synthlog.health_source(dev, "nvme smart log"),
                             start], start_time="2026-11-27T03:00:00Z")
        text = synthlog.text(head + synthlog.with_health(body, samples))
        self.assertEqual(31, text.count("\nhealth %s at" % dev))
        self.assertEqual([], reference_rule_breaks(text))

    def test_a_log_of_the_programs(self):
        """act_storage's own log on a file faked as an NVMe drive (the
        test shim's ACT_SHIM_NVME): the rules hold, and act_latency.py
        prints for it, without --health, what it prints for the same log
        without its health lines."""
        prog = os.path.join(REPO, "target", "bin", "act_storage")
        shim = os.path.join(REPO, "target", "tests", "libact_shim.so")
        if not (os.access(prog, os.X_OK) and os.path.exists(shim)):
            print("skipped: a log of act_storage (not built: run make "
                  "unit)")
            return
        with tempfile.TemporaryDirectory(prefix="act-health-") as td:
            dev = os.path.join(td, "dev1")
            with open(dev, "wb") as f:
                f.truncate(64 << 20)
            conf = os.path.join(td, "s.conf")
            with open(conf, "w") as f:
                f.write("device-names: %s\nfile-size-mbytes: 64\n"
                        "test-duration-sec: 4\nservice-threads: 2\n"
                        "read-reqs-per-sec: 200\nwrite-reqs-per-sec: 100\n"
                        "health-interval-sec: 1\n" % dev)
            env = dict(os.environ, LD_PRELOAD=shim, ACT_SHIM_NVME=(
                "path=dev1,temp=60,ramp=5,throttle=70,waf=2"))
            p = subprocess.run([prog, conf], env=env, timeout=60,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            self.assertEqual(0, p.returncode, p.stderr)
            text = p.stdout.decode()
            self.assertGreaterEqual(text.count("\nhealth "), 5, text)
            self.assertEqual([], reference_rule_breaks(text))
            plain = "".join(line for line in text.splitlines(True)
                            if not line.startswith(HEALTH))
            for name, body in (("with.log", text), ("plain.log", plain)):
                with open(os.path.join(td, name), "w") as f:
                    f.write(body)
            for args in (["-t", "1"], ["-t", "2", "--check"], ["--json"]):
                with self.subTest(args=args):
                    want = run(["-l", "plain.log"] + args, td)
                    got = run(["-l", "with.log"] + args, td)
                    self.assertEqual(want, tuple(
                        x.replace("with.log", "plain.log")
                        if isinstance(x, str) else x for x in got))

if __name__ == "__main__":
    unittest.main()
