#!/usr/bin/env python3
"""Description: a campaign's drive identities and failed I/Os (issue 19),
module by module, without running a campaign:

- identity.py: a regular file's identity, from the lines the real
  act_storage prints for it (--check --print-config: kind, dev, ino,
  size, its generation where the file system has one - the very values
  act_certify read itself before issue 26: os.stat's and
  FS_IOC_GETVERSION's, so that the identities older campaigns recorded
  still compare) and its campaign mark (an extended attribute, read here)
  read back; a loop device's from its facts line (numbers as numbers,
  "unknown" left out, the mark of the backing file its name leads to
  when that is the device and inode the line names); a mark that differs
  or is gone is a
  difference (a file made again may get the same inode), and so is a
  generation (gen, backing_gen: "made again under the same name") or a
  loop backing file's mark that is gone; a file's size is not (issue 25
  N32: the campaign's program grows a file to file-size-mbytes) but a
  block device's is; identity_difference names the first fact that
  differs and ignores facts only one side records; identity_text prints
  them in a fixed order (and "not recorded"); a device the program
  printed no facts line for is refused (ValueError).
- devices.check_identities: the same file passes, grown too; a file
  replaced by another of the same size is refused (status 2) with both
  identities and the --accept-device hint; a campaign without recorded
  identities, or without one device's, is refused (status 2: issue 25
  N30), naming what is there now and the --accept-device to give; then
  replace.accept_devices records the drive and a device change whose
  "was" says no identity was recorded; accepting the same drive again
  (grown) is no change.
- logfile/ioerrors.count_io_errors: shown failure lines (per device),
  "N more I/O errors were not shown", the running total of the last shown
  line when it is larger, no errors, an unreadable log (None).
- judge: io_error_total of an analysis; campaign_verdict of a campaign
  that passed every test but recorded failed I/Os is "certified with I/O
  errors", exit status 3 (never 0), naming each step's count - a step
  judged from another's run is not counted twice; a failed campaign names
  them too.
- main.parse_accept (NEW=OLD, one name, bad values: 64) and model.problem
  on a damaged "identities" or "device_changes".

    python3 tests/python/certify/test_identity.py [-v]
"""

import fcntl
import io
import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from certstate import new_state  # noqa: E402

from act.certify import EXIT_IO_ERRORS, devices, identity, judge, main, \
    model, precheck, replace  # noqa: E402
from act.certify.analyse import StepAnalysis  # noqa: E402
from act.certify.model import DeviceChange  # noqa: E402
from act.cli import UsageError  # noqa: E402
from act.logfile.header import scan_header  # noqa: E402
from act.logfile.ioerrors import count_io_errors  # noqa: E402

BIN = os.environ.get("ACT_BIN") or os.path.join(support.REPO, "target", "bin")
PROGRAM = os.path.join(BIN, "act_storage")
SIZE = 1 << 20                  # a device file: 8 large blocks


def header_of(paths):
    """The LogHeader of the real act_storage's --check --print-config on
    the devices paths (a config of --set items only)."""
    with tempfile.TemporaryDirectory() as td:
        base = os.path.join(td, "empty.conf")
        open(base, "w").close()
        return precheck.print_config(PROGRAM, "a test config", [
            base, "--set", "device-names=" + ",".join(paths), "--set",
            "read-reqs-per-sec=200", "--set", "write-reqs-per-sec=100",
            "--set", "test-duration-sec=1"])


def now(path):
    """The identity of the device at path now (identity.py)."""
    return identity.device_identity(header_of([path]), path)


def old_gen(path):
    """The inode's generation as act_certify read it before issue 26
    (FS_IOC_GETVERSION, _IOR('v', 1, long), an int written), or None."""
    req = (2 << 30) | (struct.calcsize("l") << 16) | (ord("v") << 8) | 1
    with open(path, "rb") as f:
        try:
            raw = fcntl.ioctl(f.fileno(), req, bytes(8))
        except OSError:
            return None
    return struct.unpack("=I", raw[:4])[0]


def write(td, name, text):
    path = os.path.join(td, name)
    with open(path, "wb") as f:
        f.write(text)
    return path


def campaign(ladder=(60,)):
    st = new_state(["/d/a"], load=30, duration=100, ladder=ladder)
    for s in st.steps:
        s.update(status="done", result="PASS", message=None)
    return st


class Identity(support.TempDir):
    PREFIX = "act-identity-test-"

    def test_identity(self):
        td = self.td
        f = os.path.join(td, "dev.img")
        with open(f, "wb") as out:
            out.write(b"\0" * SIZE)
        st = os.stat(f)
        ident = now(f)
        want = {"kind": "file", "dev": st.st_dev, "ino": st.st_ino,
                "size": SIZE}
        if old_gen(f) is not None:
            want["gen"] = old_gen(f)
        else:
            print("note: no inode generation here (FS_IOC_GETVERSION)")
        self.assertEqual(want, ident, "file identity: act_storage's facts are "
                         "os.stat's and FS_IOC_GETVERSION's")
        self.assertEqual(None, identity.identity_difference(ident, now(f)),
                         "same file: no difference")
        for what, a, b, want in (
                ("inode", {"kind": "file", "ino": 1, "size": 5},
                 {"kind": "file", "ino": 2, "size": 5}, "ino 1, now 2"),
                ("serial first in order", {"kind": "block", "rdev": "8:0",
                                           "serial": "S1", "size": 9},
                 {"kind": "block", "rdev": "8:0", "serial": "S2", "size": 9},
                 "serial S1, now S2"),
                ("size before serial", {"size": 1, "serial": "A"},
                 {"size": 2, "serial": "B"}, "size 1, now 2"),
                ("a fact only one side has", {"kind": "block", "model": "M"},
                 {"kind": "block"}, None),
                ("kind", {"kind": "file"}, {"kind": "block"},
                 "kind file, now block"),
                ("a file's size is not compared (N32: grown by the program)",
                 {"kind": "file", "ino": 1, "size": 5},
                 {"kind": "file", "ino": 1, "size": 10}, None),
                ("a block device's size is",
                 {"kind": "block", "rdev": "7:0", "size": 5},
                 {"kind": "block", "rdev": "7:0", "size": 10},
                 "size 5, now 10"),
                ("a file made again: its generation (gen)",
                 {"kind": "file", "ino": 1, "gen": 7},
                 {"kind": "file", "ino": 1, "gen": 8},
                 "gen 7, now 8 - another file, made again under the same "
                 "name"),
                ("a loop device's backing file made again (N27)",
                 {"kind": "block", "backing_file": "/x", "backing_ino": 12,
                  "backing_gen": 7, "backing_mark": "m1"},
                 {"kind": "block", "backing_file": "/x", "backing_ino": 12,
                  "backing_gen": 8},
                 "backing_gen 7, now 8 - another file, made again under the "
                 "same name"),
                ("a loop device's backing file without the mark",
                 {"kind": "block", "backing_file": "/x", "backing_mark": "m1"},
                 {"kind": "block", "backing_file": "/x"},
                 "backing_mark m1, now none (not the file the campaign "
                 "marked)"),
                ("no generation recorded (an older state)",
                 {"kind": "block", "backing_ino": 12},
                 {"kind": "block", "backing_ino": 12, "backing_gen": 8},
                 None)):
            self.assertEqual(want, identity.identity_difference(a, b),
                             "identity_difference: " + what)
        self.assertEqual("kind block, rdev 7:0, size 5, backing_file /x",
                         identity.identity_text({"backing_file": "/x",
                                                 "size": 5,
                                                 "rdev": "7:0",
                                                 "kind": "block"}),
                         "identity_text")
        self.assertEqual("not recorded", identity.identity_text(None),
                         "identity_text of nothing")
        with self.assertRaises(ValueError,
                               msg="a device the program printed no facts for "
                                   "is refused") as cm:
            identity.device_identity(header_of([f]), td)

        identity.mark_file(f, ident, "m1")
        if "mark" in ident:
            self.assertEqual(ident, now(f), "the mark is read back")
        else:
            print("note: no user extended attributes here: no mark")
        self.check_loop_facts(td)
        for what, a, b, want in (
                ("same mark", {"mark": "m1"}, {"mark": "m1"}, None),
                ("another mark", {"mark": "m1"}, {"mark": "m2"},
                 "mark m1, now m2"),
                ("the mark is gone", {"mark": "m1"}, {},
                 "mark m1, now none (not the file the campaign marked)"),
                ("no mark recorded", {}, {"mark": "m2"}, None)):
            self.assertEqual(want, identity.identity_difference(a, b),
                             "identity_difference: " + what)
        state = new_state([f])
        state.campaign.identities = {f: ident}
        devices.check_identities(state, "/dir", header_of([f]))
        self.assertTrue(True, "the same file passes")
        with open(f, "ab") as out:
            out.write(b"\0" * SIZE)
        try:
            devices.check_identities(state, "/dir", header_of([f]))
            self.assertTrue(True, "the same file grown passes")
        except UsageError as e:
            self.assertTrue(False, "%s\n%s"
                            % ("the same file grown is refused", str(e)))
        os.unlink(f)
        with open(f, "wb") as out:
            out.write(b"\1" * SIZE)
        try:
            devices.check_identities(state, "/dir", header_of([f]))
            self.assertTrue(False, "a replaced file passes check_identities")
        except UsageError as e:
            text = str(e)
            self.assertEqual(2, e.status, "replaced: status 2")
            for part in ("device %s is not the drive this campaign started on "
                         "(" % f,
                         "recorded: kind file", "now:      kind file",
                         "--resume /dir --accept-device %s=%s" % (f, f)):
                self.assertTrue(part in text, "%s\n%s"
                                % ("replaced: the message has %r" % part,
                                   text))
        self.check_no_identities(td, f)

    def check_loop_facts(self, td):
        """A loop device's identity from its lines (no loop device needed: the
        lines as act_storage prints them); its backing file's mark is read
        from the file its name leads to when that is the device and inode the
        line names, else none."""
        back = os.path.join(td, "backing.img")
        with open(back, "wb") as out:
            out.write(b"\0" * 4096)
        st = os.stat(back)
        try:
            os.setxattr(back, identity.MARK_XATTR, b"m9")
            mark = "m9"
        except OSError:
            mark = None
            print("note: no user extended attributes here: no backing mark")

        def lines(ino):
            return ("/dev/loop9 size = 4096 bytes\n\n"
                    "/dev/loop9 model = unknown, serial = unknown, firmware = "
                    "unknown\n/dev/loop9 rdev = 7:9, wwid = unknown, "
                    "backing_dev = %d, backing_ino = %d, backing_gen = "
                    "unknown, backing_file "
                    "= %s\n"% (st.st_dev, ino, back)).encode()
        want = {"kind": "block", "rdev": "7:9", "size": 4096,
                "backing_file": back, "backing_dev": st.st_dev,
                "backing_ino": st.st_ino}
        if mark:
            want["backing_mark"] = mark
        self.assertEqual(want, identity.device_identity(
                               scan_header(io.BytesIO(lines(st.st_ino))),
                                                        "/dev/loop9"),
                         "a loop device's identity")
        odd = "/x/a, b = c.img"
        self.assertEqual(odd, identity.device_identity(scan_header(io.BytesIO(
                              lines(st.st_ino).replace(back.encode(),
                                                       odd.encode()))),
                              "/dev/loop9").get("backing_file"),
                         "a backing file name with ', ' and ' = ' in it (last "
                         "on its line)")
        want.pop("backing_mark", None)
        want["backing_ino"] = st.st_ino + 1
        self.assertEqual(want, identity.device_identity(scan_header(io.BytesIO(
                                   lines(st.st_ino + 1))), "/dev/loop9"),
                         "a loop device over another file of that name: no "
                         "mark")

    def check_no_identities(self, td, f):
        g = os.path.join(td, "other.img")
        with open(g, "wb") as out:
            out.write(b"\2" * SIZE)
        for what, recorded in (("no identities", None),
                               ("one device's missing", {f: now(f)})):
            st = new_state([f, g])
            if recorded is not None:
                st.campaign.identities = recorded
            try:
                devices.check_identities(st, "/dir", header_of([f, g]))
                self.assertTrue(False, "%s: check_identities passes" % what)
                continue
            except UsageError as e:
                text = str(e)
                self.assertEqual(2, e.status, "%s: status 2" % what)
            unknown = [f, g] if recorded is None else [g]
            parts = ["no identity recorded", "refusing to write to it",
                     "--resume /dir " + " ".join(
                         "--accept-device %s=%s" % (d, d) for d in unknown)]
            parts += ["now at %s: kind file, size "
                      "%d" % (d, SIZE) for d in unknown]
            for part in parts:
                self.assertTrue(part in text, "%s\n%s"
                                % ("%s: the message has %r" % (what, part),
                                   text))
            if recorded is not None:
                self.assertTrue("now at %s" % f not in text,
                                "%s\n%s"
                                % ("%s: the recorded device is not named"
                                   % what, text))
            self.assertEqual(recorded, st.campaign.identities or None,
                             "%s: nothing recorded" % what)
        st = new_state([g])
        replace.accept_devices(st, [(g, g)], header_of([g]))
        ch = st.device_changes or [DeviceChange()]
        self.assertEqual((g, g, 1), (ch[0].new, ch[0].old, ch[0].from_step),
                         "accepted without an identity: a device change")
        self.assertTrue((ch[0].was or "").startswith("not recorded (the "
                                                     "campaign's "
                                                     "state had no identity"),
                        "%s\n%s"
                        % ("accepted without an identity: 'was' says so",
                           str(ch)))
        self.assertEqual(now(g), st.campaign.identities[g],
                         "accepted without an identity: recorded now")
        devices.check_identities(st, "/dir", header_of([g]))
        self.assertTrue(True, "accepted: check_identities passes")
        with open(g, "ab") as out:
            out.write(b"\2" * SIZE)
        replace.accept_devices(st, [(g, g)], header_of([g]))
        self.assertEqual(1, len(st.device_changes), "accepted again, the same "
                         "drive (grown): no other change")

    def test_io_errors(self):
        td = self.td
        line = (b"ERROR: read failed on device /d/a at offset 4096, size "
                b"1536: "
                b"Input/output error (errno 5) - failed I/Os: %d, "
                b"io-error-limit: 100\n")
        for what, body, want in (
                ("none", b"after 1 sec:\nreads (5 total)\n", {"total": 0,
                                                              "devices": {}}),
                ("shown lines", b"after 1 sec:\n" + line % 1 + line % 2 +
                 b"ERROR: write failed on device /d/b at offset 0, size "
                 b"131072: No space left on device (errno 28)\n",
                 {"total": 3, "devices": {"/d/a": 2, "/d/b": 1}}),
                ("every kind of I/O", b"".join(
                    b"ERROR: %s failed on device /d/a at offset 0, size "
                    b"131072: "
                    b"Input/output error (errno 5)\n" % op for op in (
                        b"large-block write", b"large-block read",
                        b"tomb-raider read", b"write")),
                 {"total": 4, "devices": {"/d/a": 4}}),
                ("shown and not shown", line % 1 +
                 b"ERROR: 7 more I/O errors were not shown\n",
                 {"total": 8, "devices": {"/d/a": 1}}),
                ("the running total is larger", line % 1 + line % 40,
                 {"total": 40, "devices": {"/d/a": 2}}),
                ("other ERROR lines are not failed I/Os",
                 b"ERROR: stopping: 11 I/O errors, more than io-error-limit "
                 b"10\n", {"total": 0, "devices": {}})):
            self.assertEqual(want, count_io_errors(write(td, "log", body)),
                             "count_io_errors: " + what)
        self.assertEqual(None, count_io_errors(os.path.join(td, "missing")),
                         "count_io_errors: no log")
        self.assertEqual(8, judge.io_error_total(
                            StepAnalysis(io_errors={"total": 8,
                                                    "devices": {}})),
                         "io_error_total")
        self.assertEqual(0, judge.io_error_total(StepAnalysis()),
                         "io_error_total: none")
        self.assertEqual(0, judge.io_error_total(None),
                         "io_error_total: no analysis")

    def test_verdict(self):
        st = campaign()
        v = judge.campaign_verdict(st)
        self.assertEqual(("certified", 0), (v["status"], v["exit_status"]),
                         "no failed I/O: certified, 0")
        st.steps[0].io_errors = 5
        v = judge.campaign_verdict(st)
        self.assertEqual(("certified with I/O errors", EXIT_IO_ERRORS, 3),
                         (v["status"], v["exit_status"], EXIT_IO_ERRORS),
                         "failed I/Os: certified with I/O errors, exit 3")
        self.assertTrue(v["text"].startswith("certified with I/O errors at "
                                             "30x"),
                        "%s\n%s"
                        % ("failed I/Os: the verdict's text", v["text"]))
        self.assertTrue(any("5 failed I/Os within io-error-limit (step 1: "
                            "5)" in r
                            for r in v["reasons"]), "%s\n%s"
                        % ("failed I/Os: a reason names the step",
                           str(v["reasons"])))
        st = campaign(ladder=(60,))
        rung = st.steps[-1]
        self.assertEqual(2, rung.same_run_as,
                         "the 60x rung is judged from the stress run")
        st.steps[1].io_errors = rung.io_errors = 2
        v = judge.campaign_verdict(st)
        self.assertTrue(any("2 failed I/Os within io-error-limit (step 2: "
                            "2)" in r
                            for r in v["reasons"]), "%s\n%s"
                        % ("a run judged twice is counted once",
                           str(v["reasons"])))
        st = campaign()
        st.steps[0].update(result="FAIL", message="reads too slow",
                           io_errors=1)
        v = judge.campaign_verdict(st)
        self.assertEqual(("not certified", 1), (v["status"], v["exit_status"]),
                         "failed and failed I/Os: not certified")
        self.assertTrue(any("1 failed I/O within io-error-limit" in r
                            for r in v["reasons"]), "%s\n%s"
                        % ("not certified: the failed I/Os named too",
                           str(v["reasons"])))

    def test_accept_and_state(self):
        self.assertEqual(("/dev/b", "/dev/a"),
                         main.parse_accept("/dev/b=/dev/a"),
                         "parse_accept NEW=OLD")
        self.assertEqual(("/dev/a", "/dev/a"), main.parse_accept("/dev/a"),
                         "parse_accept DEV")
        for bad in ("=/dev/a", "/dev/b=", "="):
            try:
                main.parse_accept(bad)
                self.assertTrue(False, "parse_accept %r accepted" % bad)
            except UsageError as e:
                self.assertEqual(64, e.status, "parse_accept %r: "
                                 "status 64" % bad)
        st = new_state(["/d/a"], status="running")
        self.assertEqual(None, model.problem(st.to_json()),
                         "state without identities is fine")
        st.campaign.identities = {"/d/a": "x"}
        self.assertTrue("identities" in (model.problem(st.to_json()) or ""),
                        "%s\n%s"
                        % ("a damaged 'identities' is named",
                           model.problem(st.to_json())))
        st.campaign.identities = {"/d/a": {"kind": "file"}}
        st.device_changes = "x"
        self.assertTrue("device_changes" in (model.problem(st.to_json())
                                             or ""),
                        "%s\n%s"
                        % ("a damaged 'device_changes' is named",
                           model.problem(st.to_json())))


if __name__ == "__main__":
    if not os.access(PROGRAM, os.X_OK):
        print("SKIP: %s not built (run make)" % PROGRAM)
        sys.exit(77)
    unittest.main()
