#!/usr/bin/env python3
"""Description: the config file act_config_helper writes
(analysis/act/sizing/config_file.py): its text on the paper's inputs (byte
for byte fixtures/expected-paper.conf), the placeholder device and its
comment, act_storage accepting the generated configs (a 1-second run on a
16 MiB file when target/bin/act_storage or $ACT_BIN/act_storage exists),
a file that can't be written, and an existing file never overwritten
silently: asked on a terminal, refused without one, --force; plus the
paper's example config naming no real drive.

    python3 tests/python/sizing/test_config_file.py [-v]
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
from support import (EOF_MESSAGE, HELPER, HELPER_PROG,  # noqa: E402
                     PAPER_ANSWERS, PAPER_ARGS, REPO, SIZING_FIXTURES,
                     HelperCase, fixture, items, run_helper)


def act_storage_path():
    d = os.environ.get("ACT_BIN") or os.path.join(REPO, "target", "bin")
    path = os.path.join(d, "act_storage")
    return path if os.access(path, os.X_OK) else None


class Text(HelperCase):

    def test_exact_output(self):
        r = self.ok(*PAPER_ARGS)
        self.assertEqual(r.stdout, fixture("expected-paper.conf"))
        self.assertEqual(r.stderr, fixture("expected-paper-report.txt"))

    def test_placeholder_comment(self):
        out = self.ok(*PAPER_ARGS).stdout
        self.assertRegex(out, r"# CHANGE-ME: /dev/CHANGE-ME is a placeholder"
                              r"[^\n]*\n#[^\n]*\ndevice-names: /dev/CHANGE-ME")

    def test_unwritable_directory(self):
        if os.geteuid() == 0:
            self.skipTest("root can write anywhere")
        os.chmod(self.tmp, 0o500)
        try:
            r = run_helper(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        finally:
            os.chmod(self.tmp, 0o700)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot write actconfig_3x_1d.txt", r.stderr)


class ActStorageAccepts(HelperCase):

    def setUp(self):
        super().setUp()
        self.act = act_storage_path()
        if self.act is None:
            self.skipTest("target/bin/act_storage not built (run make)")

    def run_config(self, text):
        dev = os.path.join(self.tmp, "dev.img")
        lines = [l for l in text.splitlines()
                 if not re.match(r"^(device-names|test-duration-sec|"
                                 r"max-lag-sec|file-size-mbytes)\b", l)]
        lines += ["device-names: " + dev, "file-size-mbytes: 16",
                  "test-duration-sec: 1", "max-lag-sec: 0"]
        conf = self.write("run.conf", "\n".join(lines) + "\n")
        return subprocess.run([self.act, conf], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)

    def test_interactive_config_runs(self):
        text = self.ok(stdin_text=PAPER_ANSWERS.replace("y\n", "n\n"),
                       cwd=self.tmp).stdout
        r = self.run_config(text)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        self.assertIn("read-reqs-per-sec: 6000", r.stdout)

    def test_production_config_runs(self):
        text = self.ok(*PAPER_ARGS, "--lbr-req-offset", "90",
                       "--lbw-req-offset", "93").stdout
        r = self.run_config(text)
        if "unknown config item 'storage-read-histogram'" in \
                r.stdout + r.stderr:
            self.skipTest("act_storage does not accept storage-read-histogram"
                          " yet (advanced-sizing items not implemented)")
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        self.assertIn("storage-read-histogram", r.stdout)


class ExistingFile(HelperCase):
    """An existing config file is never overwritten silently."""

    NAME = "actconfig_3x_1d.txt"
    OLD = "# my own config\n"
    PROMPT = "file actconfig_3x_1d.txt exists - overwrite? [y/N] "

    def existing(self, name=NAME):
        return self.write(name, self.OLD)

    def content(self, name=NAME):
        with open(os.path.join(self.tmp, name)) as f:
            return f.read()

    def test_interactive_keeps_it_unless_yes(self):
        for answer in ("\n", "n\n", "no\n"):
            with self.subTest(answer=answer):
                self.existing()
                r = self.ok(stdin_text=PAPER_ANSWERS + answer, cwd=self.tmp)
                self.assertEqual(self.OLD, self.content())
                self.assertTrue(r.stderr.endswith(
                    "Do you want to save this config to a file? (y/N): y\n" +
                    self.PROMPT + answer + "Kept the existing "
                    "actconfig_3x_1d.txt; the config follows on stdout.\n"),
                    r.stderr)
                found = self.check_config(r.stdout)     # printed instead
                self.assertEqual(found["read-reqs-per-sec"], "6000")

    def test_interactive_yes_overwrites(self):
        self.existing()
        r = self.ok(stdin_text=PAPER_ANSWERS + "y\n", cwd=self.tmp)
        self.assertEqual("", r.stdout)
        self.assertIn(self.PROMPT + "y\nConfig file actconfig_3x_1d.txt "
                      "successfully created.\n", r.stderr)
        self.assertEqual("6000", items(self.content())["read-reqs-per-sec"])

    def test_interactive_force(self):
        self.existing()
        r = self.ok("--interactive", "--force", stdin_text=PAPER_ANSWERS,
                    cwd=self.tmp)
        self.assertNotIn("exists", r.stderr)
        self.assertEqual("6000", items(self.content())["read-reqs-per-sec"])
        # a session without the file does not ask either
        os.remove(os.path.join(self.tmp, self.NAME))
        r = self.ok(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        self.assertNotIn("exists", r.stderr)

    def test_end_of_input_at_the_overwrite_prompt(self):
        self.existing()
        r = run_helper(stdin_text=PAPER_ANSWERS, cwd=self.tmp)
        self.assertEqual((1, ""), (r.returncode, r.stdout))
        self.assertTrue(r.stderr.endswith(self.PROMPT + "\n" + EOF_MESSAGE),
                        r.stderr)
        self.assertEqual(self.OLD, self.content())

    def test_output_needs_force_without_a_terminal(self):
        path = self.existing("prod.conf")
        r = self.user_error(*PAPER_ARGS, "--output", path)
        self.assertEqual("%s: error: %s exists: use --force to overwrite it, "
                         "or another --output\n" % (HELPER_PROG, path),
                         r.stderr)
        self.assertEqual(self.OLD, self.content("prod.conf"))
        r = self.ok(*PAPER_ARGS, "--output", path, "--force")
        self.assertIn("Config file %s successfully created." % path,
                      r.stderr)
        self.assertEqual("10427",
                         items(self.content("prod.conf"))[
                             "read-reqs-per-sec"])

    def run_on_terminal(self, args, answer):
        """Run the helper with a terminal as stdin (answer typed on it)."""
        import pty
        master, slave = pty.openpty()
        try:
            os.write(master, answer.encode())
            p = subprocess.run([sys.executable, HELPER] + list(args),
                               cwd=SIZING_FIXTURES, stdin=slave,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=30)
        finally:
            os.close(slave)
            os.close(master)
        return p

    def test_output_asks_on_a_terminal(self):
        try:
            import pty  # noqa: F401
        except ImportError:
            self.skipTest("no pty module")
        path = self.existing("prod.conf")
        p = self.run_on_terminal(PAPER_ARGS + ("--output", path), "n\n")
        self.assertEqual((1, ""), (p.returncode, p.stdout), p.stderr)
        self.assertEqual("file %s exists - overwrite? [y/N] Kept the existing "
                         "%s: nothing written.\n" % (path, path), p.stderr)
        self.assertEqual(self.OLD, self.content("prod.conf"))
        p = self.run_on_terminal(PAPER_ARGS + ("--output", path), "y\n")
        self.assertEqual(0, p.returncode, p.stderr)
        self.assertIn("Config file %s successfully created." % path,
                      p.stderr)
        self.assertEqual("10427",
                         items(self.content("prod.conf"))[
                             "read-reqs-per-sec"])


class PaperExample(unittest.TestCase):
    """config/examples/paper_final.conf names no real drive."""

    def test_placeholder_device(self):
        with open(os.path.join(REPO, "config", "examples",
                               "paper_final.conf")) as f:
            text = f.read()
        devices = re.findall(r"(?m)^device-names:\s*(\S+)", text)
        self.assertEqual(["/dev/nvme0n1-CHANGE-ME"], devices)
        self.assertFalse(os.path.exists(devices[0]))
        # otherwise the paper's config as printed
        self.assertIn("\nnum-queues: 4\nthreads-per-queue: 35\n", text)
        self.assertIn("\nlbr-req-offset: 090\nlbw-req-offset: 093\n", text)


if __name__ == "__main__":
    unittest.main()
