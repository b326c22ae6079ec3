#!/usr/bin/env python3
"""Description: act and act.cli - VERSION and the exit statuses against
the C headers, act_latency.py's against docs/README.md's table, the exit
ladder every tool's main() goes through, and "did you mean" for a
mistyped option: closest() on the C programs' own cases
(tests/unit/test_cfg_help.c), and each tool's command line - the message
and the tool's usage status (docs/README.md: 2 for act_latency.py and
act_config_helper.py, 64 for act_certify.py), a prefix still that
option.

    python3 tests/python/test_cli.py [-v]
"""

import contextlib
import io
import os
import re
import subprocess
import sys
import unittest

import support

import act
from act import cli


class Constants(unittest.TestCase):
    def test_version_is_the_c_programs(self):
        with open(os.path.join(support.REPO, "src", "common",
                               "version.h")) as f:
            m = re.search(r'#define ACT_VERSION "([^"]+)"', f.read())
        self.assertEqual(m.group(1), act.VERSION)

    def test_config_grammar_and_limits_are_the_c_programs(self):
        with open(os.path.join(support.REPO, "src", "common",
                               "limits.h")) as f:
            c = dict((n, int(v)) for n, v in re.findall(
                r"#define ACT_(MAX_[A-Z]+) (\d+)", f.read()))
        self.assertEqual(c, {"MAX_DEVICES": act.MAX_DEVICES,
                             "MAX_NAME": act.MAX_NAME})
        with open(os.path.join(support.REPO, "src", "common",
                               "cfg.c")) as f:
            text = f.read()
        m = re.search(r'#define DEVICE_SEPARATORS "([^"]*)"', text)
        self.assertEqual(m.group(1).replace("\\t", "\t"),
                         act.DEVICE_SEPARATORS)
        self.assertIn("strchr(copy, '%s')" % act.CONFIG_COMMENT, text)
        # a number item (CFG_U32) is refused above 32 bits
        self.assertIn("if (v > UINT32_MAX) {", text)
        self.assertEqual(2 ** 32 - 1, act.MAX_U32)

    def test_exit_statuses_are_run_h(self):
        with open(os.path.join(support.REPO, "src", "common", "run.h")) as f:
            c = dict((n, int(v)) for n, v in
                     re.findall(r"#define (EXIT_[A-Z]+) (\d+)", f.read()))
        py = {n: v for n, v in vars(act).items() if n.startswith("EXIT_")}
        self.assertEqual(c, py)
        self.assertEqual(set(range(6)), set(act.PROGRAM_STATUS))

    def test_latency_statuses_are_the_readme_table(self):
        # act_latency.py's rows of the one exit-status table: the
        # constants, 2 its usage status, 130 interrupted
        with open(os.path.join(support.REPO, "docs", "README.md")) as f:
            rows = re.findall(r"(?m)^\| (\d+) \| act_latency\.py \| "
                              r"(.*) \|$", f.read())
        table = {int(n): meaning for n, meaning in rows}
        from act.latency.main import USAGE_STATUS
        self.assertEqual({act.LATENCY_OK, act.LATENCY_NOT_PASSED,
                          USAGE_STATUS, act.LATENCY_NOT_JUDGED,
                          act.LATENCY_HEALTH, 130},
                         set(table))
        self.assertIn("NOT JUDGED", table[act.LATENCY_NOT_JUDGED])
        self.assertIn("PASS WITH DRIVE HEALTH WARNINGS",
                      table[act.LATENCY_HEALTH])
        self.assertIn("FAIL", table[act.LATENCY_NOT_PASSED])


class Ladder(unittest.TestCase):
    def ladder(self, run, status=2):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            got = cli.run_main("tool.py", run, ["a"], usage_status=status)
        return got, err.getvalue()

    def test_status_of_run(self):
        self.assertEqual((1, ""), self.ladder(lambda argv: 1))

    def test_user_error(self):
        def run(argv):
            raise cli.UsageError("bad %s" % argv[0], ["see this"])
        self.assertEqual((2, "tool.py: error: bad a\ntool.py: note: see "
                          "this\n"), self.ladder(run))
        self.assertEqual(7, self.ladder(run, 7)[0])

    def test_interrupted(self):
        def run(argv):
            raise KeyboardInterrupt
        self.assertEqual((130, ""), self.ladder(run))

    def test_argument_parser_raises(self):
        p = cli.ArgumentParser(prog="tool.py", add_help=False)
        p.add_argument("-n", type=int)
        with self.assertRaises(cli.UsageError) as e:
            p.parse_args(["-n", "x"])
        self.assertTrue(str(e.exception).endswith(" (see --help)"))


STORAGE_ITEMS = [
    "read-reqs-per-sec", "write-reqs-per-sec", "record-bytes",
    "large-block-op-kbytes", "microsecond-histograms", "tomb-raider",
    "tomb-raider-sleep-usec", "test-duration-sec", "service-threads",
    "storage-read-histogram"]


class Closest(unittest.TestCase):
    """The rule of src/common/suggest.c, on test_cfg_help.c's cases."""

    def test_close_names(self):
        for name, want in (
                ("read-req-per-sec", "read-reqs-per-sec"),
                ("record-byte", "record-bytes"),
                ("recordbytes", "record-bytes"),
                ("record--bytes", "record-bytes"),
                ("bytes-record", "record-bytes"),
                ("Record-Bytes", "record-bytes"),
                ("read_reqs_per_sec", "read-reqs-per-sec"),
                ("wrte-reqs-per-sec", "write-reqs-per-sec"),
                ("large-block-kbytes", "large-block-op-kbytes"),
                ("microsecond-histogram", "microsecond-histograms"),
                ("tombraider", "tomb-raider"),
                ("raider-tomb-sleep-usec", "tomb-raider-sleep-usec"),
                ("test-duration", "test-duration-sec"),
                ("service-thread", "service-threads"),
                ("storage-read-histo", "storage-read-histogram")):
            with self.subTest(name=name):
                self.assertEqual(want, cli.closest(name, STORAGE_ITEMS))

    def test_far_names(self):
        for name in ("no-such-item", "rate", "x", "", "cache-thread",
                     "r" * act.MAX_NAME):
            with self.subTest(name=name):
                self.assertIsNone(cli.closest(name, STORAGE_ITEMS))

    def test_fewest_edits_first_of_ties(self):
        self.assertEqual("abcd", cli.closest("abce", ["abxx", "abcd",
                                                      "abcf"]))

    def test_parser(self):
        p = cli.ArgumentParser(prog="tool.py")
        p.add_argument("--check", action="store_true")
        p.add_argument("--csv", action="store_true")
        p.add_argument("-t", "--slice", type=int)
        for argv, message in (
                (["--chek"], "unknown option '--chek' - did you mean "
                 "'--check'?"),
                (["--slise=3"], "unknown option '--slise' - did you mean "
                 "'--slice'?"),
                (["--hepl"], "unknown option '--hepl' - did you mean "
                 "'--help'?"),
                (["--bogus"], "unrecognized arguments: --bogus (see "
                 "--help)"),
                (["-x"], "unrecognized arguments: -x (see --help)"),
                (["--c"], "ambiguous option: --c could match --check, "
                 "--csv (see --help)")):
            with self.subTest(argv=argv):
                with self.assertRaises(cli.UsageError) as e:
                    p.parse_args(argv)
                self.assertEqual(message, str(e.exception))
        self.assertEqual(3, p.parse_args(["--sl", "3"]).slice)
        self.assertTrue(p.parse_args(["--che"]).check)


class DidYouMean(unittest.TestCase):
    """Each tool's command line: the mistyped option named with the one
    meant, on one line, the tool's usage status; nothing else done."""

    TOOLS = {
        "act_latency.py": ("analysis", 2),
        "act_certify.py": ("analysis", 64),
        "act_config_helper.py": ("config", 2),
    }

    def run_tool(self, tool, *args):
        folder, _ = self.TOOLS[tool]
        return subprocess.run(
            [sys.executable, os.path.join(support.REPO, folder, tool)]
            + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, universal_newlines=True, timeout=60)

    def test_each_tool(self):
        for tool, args, typed, meant in (
                ("act_latency.py", ("-l", "x.log", "--chek"), "--chek",
                 "--check"),
                ("act_latency.py", ("--slise", "10"), "--slise", "--slice"),
                ("act_latency.py", ("--start-bucket", "1"), "--start-bucket",
                 "--start_bucket"),
                ("act_certify.py", ("--devise", "/dev/x", "--load", "3"),
                 "--devise", "--device"),
                ("act_certify.py", ("--lod", "3"), "--lod", "--load"),
                ("act_config_helper.py", ("--forse",), "--forse",
                 "--force")):
            with self.subTest(tool=tool, typed=typed):
                r = self.run_tool(tool, *args)
                self.assertEqual((self.TOOLS[tool][1], "",
                                  "%s: error: unknown option '%s' - did you "
                                  "mean '%s'?\n" % (tool, typed, meant)),
                                 (r.returncode, r.stdout, r.stderr))

    def test_prefix_is_the_option(self):
        r = self.run_tool("act_latency.py", "--vers")
        self.assertEqual((0, "act_latency.py %s\n" % act.VERSION),
                         (r.returncode, r.stdout))
        r = self.run_tool("act_certify.py", "--vers")
        self.assertEqual((0, "act_certify.py %s\n" % act.VERSION),
                         (r.returncode, r.stdout))


if __name__ == "__main__":
    unittest.main()
