#!/usr/bin/env python3
"""Description: act.safefile (analysis/act/safefile.py), how act_certify
writes and reads the files of a campaign directory, called directly:

- write_file replaces NAME atomically - a symbolic link planted at NAME
  (to a file, or dangling) is replaced, its target neither written nor
  created; the mode is 0644 under umask 022; durable fsyncs the file and
  the directory; an error leaves no temporary file; a reader holding the
  old file keeps reading all of it;
- create_new refuses a name that is there, a symbolic link too (its target
  untouched, a dangling link's target not created);
- open_regular refuses a symbolic link, a FIFO (without waiting for a
  writer), a character device, a directory and a file larger than the
  limit, each with a reason naming the file, as an OSError; it reads a
  regular file, blocking again;
- read_lines cuts a line without a newline into pieces of the limit;
- remove_stale removes write_file's temporary names and the names of
  act_certify 6.7 (state.json.tmp, summary.json.tmpPID, ...), nothing else;
- private_dir_problem: None for a directory of this user, writable by it
  only; otherwise its owner and mode (group- or other-writable, sticky or
  not; as root, one owned by nobody).

    python3 tests/python/test_safefile.py [-v]
"""

import os
import stat
import tempfile
import time
import unittest

import support  # noqa: F401  (act on sys.path)

from act import safefile

NOBODY = 65534


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


class SafeFile(unittest.TestCase):
    def setUp(self):
        self._td = tempfile.TemporaryDirectory(prefix="act-safefile-test-")
        self.td = self._td.name

    def tearDown(self):
        self._td.cleanup()

    def test_write_file(self):
        td = self.td
        d = os.path.join(td, "w")
        os.mkdir(d)
        victim = os.path.join(td, "victim")
        write(victim, "ROOT-ONLY")
        os.chmod(victim, 0o600)
        gone = os.path.join(td, "not-there")
        os.symlink(victim, os.path.join(d, "state.json"))
        os.symlink(gone, os.path.join(d, "report.html"))
        old = os.umask(0o022)
        try:
            safefile.write_file(d, "state.json", "new\n", durable=True)
            safefile.write_file(d, "report.html", b"<html>\n")
            safefile.write_file(d, "summary.md", "caf\udce9\n")
        finally:
            os.umask(old)
        self.assertEqual("ROOT-ONLY", read(victim),
                         "write_file over a link: the victim untouched")
        self.assertFalse(os.path.lexists(gone), "write_file over a dangling "
                         "link created its target")
        for name, text in (("state.json", "new\n"),
                           ("report.html", "<html>\n")):
            with self.subTest(name=name):
                p = os.path.join(d, name)
                self.assertTrue(not os.path.islink(p) and os.path.isfile(p),
                                "write_file: %s is a regular file now"
                                % name)
                self.assertEqual(text, read(p),
                                 "write_file: %s's text" % name)
                self.assertEqual(0o644, stat.S_IMODE(os.stat(p).st_mode),
                                 "write_file: %s's mode" % name)
        with open(os.path.join(d, "summary.md"), "rb") as f:
            self.assertEqual(b"caf\xe9\n", f.read(), "write_file: "
                             "undecodable bytes as they came")
        self.assertEqual(["report.html", "state.json", "summary.md"],
                         sorted(os.listdir(d)),
                         "write_file leaves no temporary file")

        # a reader of the old file reads all of it, the new one is another
        p = os.path.join(d, "plot.svg")
        safefile.write_file(d, "plot.svg", "A" * 100000)
        with open(p) as reader:
            ino = os.stat(p).st_ino
            safefile.write_file(d, "plot.svg", "B" * 10)
            self.assertEqual("A" * 100000, reader.read(),
                             "a reader of the replaced file reads it whole")
        self.assertNotEqual(ino, os.stat(p).st_ino,
                            "write_file rewrote the file in place")

        # an error (here: a directory at NAME) leaves no temporary file
        os.mkdir(os.path.join(d, "sub"))
        os.mkdir(os.path.join(d, "sub", "x"))
        with self.assertRaises(OSError, msg="write_file over a non-empty "
                               "directory: no error"):
            safefile.write_file(os.path.join(d, "sub"), "x", "text")
        self.assertEqual(["x"], os.listdir(os.path.join(d, "sub")),
                         "write_file's error leaves no temporary file")

    def test_create_new(self):
        td = self.td
        d = os.path.join(td, "c")
        os.mkdir(d)
        victim = os.path.join(td, "victim2")
        write(victim, "ROOT-ONLY")
        gone = os.path.join(td, "not-there-2")
        os.symlink(victim, os.path.join(d, "01.log"))
        os.symlink(gone, os.path.join(d, "02.log"))
        write(os.path.join(d, "03.log"), "old")
        for name in ("01.log", "02.log", "03.log"):
            with self.subTest(name=name), self.assertRaises(
                    FileExistsError, msg="create_new over %s: no error"
                    % name):
                safefile.create_new(os.path.join(d, name)).close()
        self.assertEqual("ROOT-ONLY", read(victim),
                         "create_new over a link: the victim untouched")
        self.assertFalse(os.path.lexists(gone), "create_new through a "
                         "dangling link created its target")
        with safefile.create_new(os.path.join(d, "04.log")) as f:
            f.write(b"x")
        self.assertEqual("x", read(os.path.join(d, "04.log")),
                         "create_new: a new file")

    def test_open_regular(self):
        d = os.path.join(self.td, "r")
        os.mkdir(d)
        reg = os.path.join(d, "log")
        write(reg, "line\n" * 10)
        os.symlink(reg, os.path.join(d, "link"))
        os.mkfifo(os.path.join(d, "fifo"))
        os.symlink("/dev/zero", os.path.join(d, "zero"))
        rows = [("link", None, "it is a symbolic link (not followed)"),
                ("fifo", None, "it is a FIFO, not a regular file"),
                ("zero", None, "it is a symbolic link (not followed)"),
                ("/dev/zero", None, "it is a character device, not a "
                 "regular file"),
                (".", None, "it is a directory, not a regular file"),
                ("log", 49, "it is larger (50 bytes) than it can be (at "
                 "most 49)")]
        for name, limit, why in rows:
            with self.subTest(name=name):
                path = os.path.join(d, name)
                t0 = time.monotonic()
                with self.assertRaises(OSError, msg="open_regular(%s): "
                                       "accepted" % name) as cm:
                    safefile.open_regular(path, limit).close()
                e = cm.exception
                self.assertIsInstance(e, safefile.UnsafeFile,
                                      "open_regular(%s): %r" % (name, e))
                self.assertEqual(why, e.strerror,
                                 "open_regular(%s): why" % name)
                self.assertEqual(path, e.filename,
                                 "open_regular(%s): the file named" % name)
                self.assertLess(time.monotonic() - t0, 5,
                                "open_regular(%s) waited" % name)
        with safefile.open_regular(reg, 50) as f:
            self.assertEqual(b"line\n" * 10, f.read(),
                             "open_regular: a regular file at its limit")
            self.assertTrue(os.get_blocking(f.fileno()),
                            "open_regular left O_NONBLOCK set")
        with self.assertRaises(FileNotFoundError,
                               msg="open_regular of a missing file"):
            safefile.open_regular(os.path.join(d, "none"))

        big = os.path.join(d, "oneline")
        with open(big, "wb") as f:
            f.write(b"x" * 10000 + b"\nend\n")
        with open(big, "rb") as f:
            self.assertEqual([4096, 4096, 1809, 4],
                             [len(x) for x in safefile.read_lines(f, 4096)],
                             "read_lines: a long line in pieces")

    def test_remove_stale(self):
        d = os.path.join(self.td, "s")
        os.mkdir(d)
        ours = [".summary.json.act-tmp-ab_cd12z",
                ".state.json.act-tmp-00000000", "state.json.tmp",
                "summary.json.tmp1234", "summary.md.tmp7",
                "report.html.tmp99999"]
        theirs = ["state.json", "summary.json", "01-test1-target-1x.log",
                  "summary.json.tmp", "state.json.tmp1", ".x.act-tmp-short",
                  "notes.tmp", "report.html.tmpx"]
        for name in ours + theirs:
            write(os.path.join(d, name), "x")
        os.symlink("/nonexistent", os.path.join(d, ".report.html.act-tmp-"
                                                   "zzzzzzzz"))
        gone = safefile.remove_stale(d)
        self.assertEqual(sorted(ours + [".report.html.act-tmp-zzzzzzzz"]),
                         sorted(gone), "remove_stale: ours removed")
        self.assertEqual(sorted(theirs), sorted(os.listdir(d)),
                         "remove_stale: the others kept")
        fd, tmp = tempfile.mkstemp(prefix=".state.json" + safefile.TEMP_MARK,
                                   dir=d)
        os.close(fd)
        self.assertTrue(safefile.is_temporary(os.path.basename(tmp)),
                        "write_file's temporary name is not recognised: %s"
                        % tmp)

    def test_private_dir(self):
        d = os.path.join(self.td, "p")
        os.mkdir(d)
        for mode, ok in ((0o755, True), (0o700, True), (0o775, False),
                         (0o757, False), (0o1777, False), (0o1755, True)):
            with self.subTest(mode="%04o" % mode):
                os.chmod(d, mode)
                why = safefile.private_dir_problem(d)
                if ok:
                    self.assertIsNone(why, "private_dir_problem, mode %04o"
                                      % mode)
                else:
                    self.assertEqual("it is owned by %s, mode %04o"
                                     % (safefile.user_text(), mode), why,
                                     "private_dir_problem, mode %04o"
                                     % mode)
        os.chmod(d, 0o755)
        if os.geteuid() == 0:
            os.chown(d, NOBODY, NOBODY)
            why = safefile.private_dir_problem(d)
            self.assertTrue(why is not None and
                            why.startswith("it is owned by ") and
                            "(uid %d), mode 0755" % NOBODY in why,
                            "private_dir_problem, owned by nobody: %r" % why)


if __name__ == "__main__":
    unittest.main()
