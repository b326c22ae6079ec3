#!/usr/bin/env python3
"""Tests of act and act.cli: VERSION and the exit statuses against the C
headers, and the exit ladder every tool's main() goes through.

    python3 tests/python/test_cli.py [-v]
"""

import contextlib
import io
import os
import re
import unittest

import actlog

import act
from act import cli


class Constants(unittest.TestCase):
    def test_version_is_the_c_programs(self):
        with open(os.path.join(actlog.ROOT, "src", "common",
                               "version.h")) as f:
            m = re.search(r'#define ACT_VERSION "([^"]+)"', f.read())
        self.assertEqual(m.group(1), act.VERSION)

    def test_config_grammar_and_limits_are_the_c_programs(self):
        with open(os.path.join(actlog.ROOT, "src", "common",
                               "limits.h")) as f:
            c = dict((n, int(v)) for n, v in re.findall(
                r"#define ACT_(MAX_[A-Z]+) (\d+)", f.read()))
        self.assertEqual(c, {"MAX_DEVICES": act.MAX_DEVICES,
                             "MAX_NAME": act.MAX_NAME})
        with open(os.path.join(actlog.ROOT, "src", "common",
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
        with open(os.path.join(actlog.ROOT, "src", "common", "run.h")) as f:
            c = dict((n, int(v)) for n, v in
                     re.findall(r"#define (EXIT_[A-Z]+) (\d+)", f.read()))
        py = {n: v for n, v in vars(act).items() if n.startswith("EXIT_")}
        self.assertEqual(c, py)
        self.assertEqual(set(range(6)), set(act.PROGRAM_STATUS))


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


if __name__ == "__main__":
    unittest.main()
