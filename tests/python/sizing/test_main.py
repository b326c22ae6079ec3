#!/usr/bin/env python3
"""Description: act_config_helper's dialogue, options and exit statuses
(analysis/act/sizing/main.py, through config/act_config_helper.py):

- the paper's interactive session byte for byte (fixtures/paper-session.txt,
  and the config file it saves: fixtures/paper-sample-config.txt without
  its legacy thread items), invalid answers asked again, a non-standard
  load, the config printed when not saved;
- the options: --output and the offsets, input paths relative to the
  working directory, bad values, a mistyped option named with the one it
  is close to ("did you mean"), an unambiguous prefix still accepted,
  --interactive and --force only together, --version (act's), the usage;
- the exit statuses of docs/README.md: 1 for end of input at a prompt (the
  prompt's line ended, then one message) and for stdout closed by the
  reader, 2 for an output that cannot be written (stdout closed, a full
  file system), 130 for Ctrl-C at a prompt - never a traceback.

    python3 tests/python/sizing/test_main.py [-v]
"""

import os
import re
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (EOF_MESSAGE, HELPER, HELPER_PROG,  # noqa: E402
                     PAPER_ANSWERS, PAPER_ARGS, REPO, SIZING_FIXTURES,
                     HelperCase, fixture, items, run_helper)


class Interactive(HelperCase):

    def test_paper_session(self):
        r = self.ok(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        self.assertEqual(r.stderr, fixture("paper-session.txt"))
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.tmp), ["actconfig_3x_1d.txt"])
        with open(os.path.join(self.tmp, "actconfig_3x_1d.txt")) as f:
            text = f.read()
        self.assertTrue(text.startswith(
            "##########\n# act config file for testing 1 device(s) at 3x "
            "load\n##########\n"), text)
        found = self.check_config(text)
        self.assertEqual(found["read-reqs-per-sec"], "6000")
        self.assertEqual(found["write-reqs-per-sec"], "3000")
        self.assertEqual(found["device-names"], "/dev/nvme0n1")
        # the paper's sample file, minus its legacy thread items
        paper = {k: v for k, v in items(
            fixture("paper-sample-config.txt").replace("act config", "#"))
            .items() if k not in ("num-queues", "threads-per-queue")}
        self.assertEqual(found, paper)

    def test_interactive_option(self):
        r = self.ok("--interactive", stdin_text="1\n/dev/sdb\n\n\n1\n\n",
                    cwd=self.tmp)
        found = self.check_config(r.stdout)
        self.assertEqual(found["read-reqs-per-sec"], "2000")

    def test_non_standard_two_devices(self):
        answers = ("x\n2\n"                  # invalid, then 2 devices
                   "/dev/sdb\n/dev/sdb\n/dev/sdc\n"   # duplicate re-asked
                   "y\n0\n2\n"               # duration: 0 invalid, 2 hours
                   "y\n15000\n7500\n"        # non-standard totals
                   "Y\n")
        r = self.ok(stdin_text=answers, cwd=self.tmp)
        self.assertEqual(os.listdir(self.tmp),
                         ["actconfig_non-standard_2d.txt"])
        self.assertIn("Config file actconfig_non-standard_2d.txt "
                      "successfully created.", r.stderr)
        self.assertIn("Enter device name #2 (e.g. /dev/sdb or /dev/sdb1): "
                      "/dev/sdb\nNot valid", r.stderr)
        self.assertNotIn('"1x" load', r.stderr)
        with open(os.path.join(self.tmp,
                               "actconfig_non-standard_2d.txt")) as f:
            text = f.read()
        self.assertIn("testing 2 device(s) at non-standard load", text)
        found = self.check_config(text)
        self.assertEqual(found["device-names"], "/dev/sdb,/dev/sdc")
        self.assertEqual(found["test-duration-sec"], "7200")
        self.assertEqual(found["read-reqs-per-sec"], "15000")
        self.assertEqual(found["write-reqs-per-sec"], "7500")

    def test_device_name_with_a_separator_asked_again(self):
        for name in ("/dev/a b", "/dev/a,b", "/dev/a;b", "/dev/a#b",
                     "/dev/a\tb"):
            with self.subTest(name=name):
                r = self.ok(stdin_text="1\n%s\n/dev/sdb\n\n\n1\n\n" % name,
                            cwd=self.tmp)
                self.assertIn("Not valid: device name %r contains a space, "
                              "',', ';' or '#'." % name, r.stderr)
                found = self.check_config(r.stdout)
                self.assertEqual(found["device-names"], "/dev/sdb")

    def test_standard_load_scales_with_devices(self):
        r = self.ok(stdin_text="2\n/dev/sdb\n/dev/sdc\n\n\n2.5\nn\n",
                    cwd=self.tmp)
        found = self.check_config(r.stdout)
        self.assertEqual(found["read-reqs-per-sec"], "10000")
        self.assertEqual(found["write-reqs-per-sec"], "5000")

    def test_declining_save_prints_config(self):
        r = self.ok(stdin_text="1\n/dev/nvme0n1\n\n\n3\n\n", cwd=self.tmp)
        self.assertEqual(os.listdir(self.tmp), [])
        found = self.check_config(r.stdout)
        self.assertEqual(found["read-reqs-per-sec"], "6000")
        self.assertTrue(r.stdout.startswith("##########\n"))
        self.assertTrue(r.stderr.endswith(
            "Do you want to save this config to a file? (y/N): \n"))

    def test_eof_at_prompt(self):
        for answers in ("", "1\n", "1\n/dev/sdb\n\n\n\n\n"):
            with self.subTest(answers=answers):
                r = run_helper(stdin_text=answers, cwd=self.tmp)
                self.assertEqual(r.returncode, 1)
                self.assertNotIn("Traceback", r.stderr)
                self.assertNotIn("error", r.stderr)
                self.assertEqual(r.stdout, "")
                self.assertEqual(os.listdir(self.tmp), [])

    def test_end_of_input_message(self):
        for answers in ("", "1\n", "1\n/dev/sdb\n\n\n\n\n"):
            with self.subTest(answers=answers):
                r = run_helper(stdin_text=answers, cwd=self.tmp)
                self.assertEqual((1, ""), (r.returncode, r.stdout))
                # the prompt's line is ended, then the message
                self.assertTrue(r.stderr.endswith(": \n" + EOF_MESSAGE),
                                r.stderr)
                self.assertEqual(1, r.stderr.count(EOF_MESSAGE))
                self.assertEqual([], os.listdir(self.tmp))

    def test_ctrl_c_at_prompt(self):
        p = subprocess.Popen([sys.executable, HELPER], cwd=self.tmp,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            seen = b""
            deadline = time.monotonic() + 10
            while not seen.endswith(b"create config for: "):
                self.assertLess(time.monotonic(), deadline, seen)
                c = p.stderr.read(1)
                self.assertTrue(c, seen)
                seen += c
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=10)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 130)
        self.assertNotIn(b"Traceback", err)
        self.assertEqual(b"\n", err)        # the prompt's line ended
        self.assertEqual(out, b"")


class Options(HelperCase):

    def test_output_file_and_options(self):
        out = os.path.join(self.tmp, "prod.conf")
        r = self.ok(*PAPER_ARGS, "--output", out, "--device-names",
                    "/dev/nvme1n1", "--duration-sec", "7200",
                    "--lbr-req-offset", "090", "--lbw-req-offset", "93")
        self.assertEqual(r.stdout, "")
        self.assertIn("successfully created", r.stderr)
        with open(out) as f:
            text = f.read()
        found = self.check_config(text)
        self.assertEqual(found["device-names"], "/dev/nvme1n1")
        self.assertEqual(found["test-duration-sec"], "7200")
        self.assertEqual(found["lbr-req-offset"], "90")
        self.assertEqual(found["lbw-req-offset"], "93")
        self.assertNotIn("CHANGE-ME", text)
        self.assertIn("# read-size-offset: 100", text)

    def test_relative_paths_from_elsewhere(self):
        args = [os.path.join(SIZING_FIXTURES, a)
                if a.endswith((".txt", ".log")) else a for a in PAPER_ARGS]
        found = self.check_config(self.ok(*args, cwd=self.tmp).stdout)
        self.assertEqual(found["read-reqs-per-sec"], "10427")

    def test_missing_file(self):
        self.user_error("--read-sizes", "no-such.txt",
                        expect=("no-such.txt", "No such file"))
        self.user_error("--defrag-log", "no-such.log",
                        expect=("no-such.log",))

    def test_directory(self):
        self.user_error("--write-sizes", self.tmp, expect=(self.tmp,))

    def test_bad_options(self):
        for args, text in (
                (("--devices", "0"), "--devices"),
                (("--devices", "two"), "--devices"),
                (("--load-factor", "-1"), "load factor"),
                (("--load-factor", "nan"), "load factor"),
                (("--load-factor", "0"), "load factor"),
                (("--device-names", "/dev/a,,/dev/b"), "empty device"),
                (("--device-names", "/dev/a,/dev/a"), "named twice"),
                (("--device-names", "/dev/a;b"), "contains a space"),
                (("--device-names", "/dev/a\nb"), "contains a space"),
                (("--duration-sec", "0"), "--duration-sec"),
                (("--lbr-req-offset", "1001"), "--lbr-req-offset"),
                (("--read-size-offset", "0"), "--read-size-offset"),
                (("--interactive", "--devices", "2"), "--interactive"),
                (("--bogus",), "unrecognized"),
                (("extra",), "unrecognized")):
            with self.subTest(args=args):
                self.user_error(*args, expect=(text,))

    def test_mistyped_option(self):
        for args, typed, meant in (
                (("--forse",), "--forse", "--force"),
                (("--devics", "2"), "--devics", "--devices"),
                (("--reed-sizes", "r.txt"), "--reed-sizes", "--read-sizes"),
                (("--output", "x", "--load_factor=2"), "--load_factor",
                 "--load-factor"),
                (("--offset-lbr-req", "90"), "--offset-lbr-req",
                 "--lbr-req-offset")):
            with self.subTest(args=args):
                r = self.user_error(*args, cwd=self.tmp)
                self.assertEqual("%s: error: unknown option '%s' - did you "
                                 "mean '%s'?\n" % (HELPER_PROG, typed, meant),
                                 r.stderr)
                self.assertEqual([], os.listdir(self.tmp))

    def test_prefix_still_accepted(self):
        found = self.check_config(self.ok(
            "--defrag", "defrag.log", "--device-n", "/dev/sdb",
            "--load-f", "2").stdout)
        self.assertEqual(found["total-lbw-per-sec"], "1543")
        self.assertEqual(found["read-reqs-per-sec"], "4000")
        self.assertEqual(found["device-names"], "/dev/sdb")
        self.user_error("--d", "2", expect=("ambiguous option",))

    def test_version(self):
        r = self.ok("--version")
        self.assertEqual(("act_config_helper.py 6.7\n", ""),
                         (r.stdout, r.stderr))

    def test_version_is_acts(self):
        with open(os.path.join(REPO, "src", "common", "version.h")) as f:
            m = re.search(r'#define ACT_VERSION "([^"]+)"', f.read())
        self.assertEqual("%s %s\n" % (HELPER_PROG, m.group(1)),
                         self.ok("--version").stdout)

    def test_usage_shows_both_modes(self):
        usage = self.ok("--help").stdout.split("\n\n")[0]
        self.assertTrue(usage.startswith(
            "usage: act_config_helper.py [--interactive] [--force]\n"),
            usage)
        self.assertIn("[--output FILE [--force]]", usage)
        self.assertIn("act_config_helper.py --help | --version", usage)
        for other in (["--devices", "2"], ["--devices", "1"],
                      ["--output=x.conf", "--force"]):
            r = self.user_error("--interactive", *other)
            self.assertIn("--interactive takes no other option than "
                          "--force", r.stderr)
        r = self.user_error("--force", "--devices", "2")
        self.assertIn("--force applies to --output FILE", r.stderr)


class Output(HelperCase):
    """Where the config goes: stdout as the reader and the system allow."""

    def run_to(self, stdout, close_pipe=False):
        p = subprocess.Popen([sys.executable, HELPER] + list(PAPER_ARGS),
                             cwd=SIZING_FIXTURES, stdin=subprocess.DEVNULL,
                             stdout=stdout, stderr=subprocess.PIPE,
                             universal_newlines=True)
        if close_pipe:
            p.stdout.close()
        err = p.stderr.read()
        p.wait(timeout=30)
        p.stderr.close()
        self.assertNotIn("Traceback", err)
        return p.returncode, err

    def test_closed_by_the_reader(self):
        status, err = self.run_to(subprocess.PIPE, close_pipe=True)
        self.assertEqual(1, status, err)
        self.assertNotIn("error", err)

    def test_stdout_closed(self):
        # Python's stdout is None: not even open (`>&-`)
        p = subprocess.run(["sh", "-c", 'exec "$0" "$@" >&-',
                            sys.executable, HELPER, "--device-names",
                            "/dev/sdb"], stdin=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(2, p.returncode, p.stderr)
        self.assertTrue(p.stderr.endswith(
            "%s: error: cannot write the output: stdout is closed\n"
            % HELPER_PROG),
            p.stderr)

    def test_full_file_system(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        with open("/dev/full", "w") as full:
            status, err = self.run_to(full)
        self.assertEqual(2, status, err)
        self.assertTrue(err.endswith("%s: error: cannot write the output: "
                                     "No space left on device\n"
                                     % HELPER_PROG),
                        err)


if __name__ == "__main__":
    unittest.main()
