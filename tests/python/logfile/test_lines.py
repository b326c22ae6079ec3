#!/usr/bin/env python3
"""Description: the log's grammar, from C to Python: every kind of line of
the C programs' catalogue (src/common/loglines.h) has a parser in
act.logfile.lines, and every sample the C formatters write
(tests/unit/test_loglines --samples, built by make unit) is read by it as
its kind, with the fields the sample was made from - a reworded line, a
changed field or a kind added to the catalogue without its parser fails
here. Also: the stop kinds' phrases are stops.py's; the derived keys and
config items the readers look up are the ones the programs echo; the
readers (header, I/O errors, the end of a run) read the samples; a log
stopped on request reads as a stop, and act_latency.py without --check
prints the same table for it as for the same log stopped by a signal.

    python3 tests/python/logfile/test_lines.py [-v]
"""

import io
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from support import FIXTURES, LATENCY, header, reports  # noqa: E402

from act.logfile import ioerrors, lines, stops  # noqa: E402
from act.logfile.header import read_header  # noqa: E402
from act.logfile.reports import run_end  # noqa: E402


def c_kinds():
    """{token: words} of the C catalogue."""
    return dict(text.split("\t", 1) for text in
                support.loglines("--kinds").splitlines())


def c_value(text, like):
    """A sample's field (text) as the type of the parsed value like."""
    if isinstance(like, bool):
        return text == "yes"
    if isinstance(like, int):
        return int(text)
    if isinstance(like, float):
        return float(text)
    if isinstance(like, dict):
        return {int(b): int(c) for b, c in
                (pair.split(":") for pair in text.split(","))}
    return text


class Catalogue(unittest.TestCase):
    def test_every_kind_has_a_parser(self):
        c = set(c_kinds())
        self.assertEqual(set(), c - set(lines.LINE_KINDS),
                         "kinds of the C catalogue without a parser in "
                         "act/logfile/lines.py")
        self.assertEqual(set(), set(lines.LINE_KINDS) - c,
                         "parsers of kinds the C catalogue does not have")

    def test_every_kind_has_a_sample(self):
        self.assertEqual(set(c_kinds()),
                         {s.token for s in support.samples()})

    def test_stop_phrases(self):
        kinds = c_kinds()
        for token, phrase in stops.STOP_KINDS.items():
            self.assertEqual(phrase, kinds.get(token), token)


class Samples(unittest.TestCase):
    def test_each_sample_parses_to_its_fields(self):
        for smp in support.samples():
            with self.subTest(kind=smp.token, line=smp.line):
                kind = lines.LINE_KINDS[smp.token]
                got = kind.parse(smp.line)
                self.assertIsNotNone(got, "not read as %s" % smp.token)
                got = {k: v for k, v in got.items() if v is not None}
                self.assertEqual(sorted(smp.fields), sorted(got))
                self.assertEqual({k: c_value(smp.fields[k], v)
                                  for k, v in got.items()}, got)

    def test_each_sample_is_of_its_kind_only(self):
        for smp in support.samples():
            with self.subTest(kind=smp.token, line=smp.line):
                block = lines.LINE_KINDS[smp.token].block
                self.assertEqual(smp.token, lines.line_kind(smp.line, block))
                others = [t for t, k in lines.LINE_KINDS.items()
                          if t != smp.token and k.block == block and
                          k.parse(smp.line) is not None]
                self.assertEqual([], others)

    def test_stop_kind_of_each_sample(self):
        # a stop line names its kind; no other line names one
        for smp in support.samples():
            with self.subTest(kind=smp.token, line=smp.line):
                want = smp.token if smp.token in stops.STOP_KINDS else None
                self.assertEqual(want, stops.stop_kind(smp.line))

    def test_keys_the_readers_look_up(self):
        def keys(token):
            return {s.fields["key"] for s in support.samples_of(token)}
        self.assertEqual(keys("derived-item"), lines.DERIVED_KEYS)
        self.assertEqual(set(), lines.CONFIG_KEYS - keys("config-item"))


class Readers(unittest.TestCase):
    """The readers of act.logfile on the samples."""

    def test_header(self):
        h = read_header(io.BytesIO(header().encode()))
        dev = support.samples_of("storage-device")[0].fields
        ident = [s.fields for s in support.samples_of("identity")
                 if s.fields["device"] == dev["device"]][0]
        self.assertEqual({dev["device"]: int(dev["size"])}, h.devices)
        self.assertEqual({dev["device"]: {k: ident[k] for k in (
            "model", "serial", "firmware")}}, h.identity)
        self.assertEqual(support.samples_of("version")[0].fields["version"],
                         h.version)

    def test_io_errors(self):
        failed = support.samples_of("io-failed")
        hidden = support.samples_of("io-hidden")
        devices = {}
        for s in failed:
            devices[s.fields["device"]] = devices.get(s.fields["device"],
                                                      0) + 1
        with tempfile.TemporaryDirectory() as td:
            path = support.make(os.path.join(td, "x.log"), "\n".join(
                s.line for s in failed + hidden) + "\n")
            got = ioerrors.count_io_errors(path)
        self.assertEqual(devices, got["devices"])
        self.assertEqual(len(failed) + sum(int(s.fields["count"])
                                           for s in hidden), got["total"])

    def test_fell_behind(self):
        smp = support.samples_of("fell-behind")
        end = run_end((reports([1, 2]) + "\n".join(
            s.line for s in smp) + "\n" + reports([3])).encode(),
            {b"reads", b"writes"}, 3)
        self.assertEqual([s.line[len(lines.FELL_BEHIND):] for s in smp],
                         end.fell_behind)
        self.assertTrue(end.complete)

    def test_request_stop(self):
        for smp in support.samples_of("request"):
            with self.subTest(line=smp.line):
                end = run_end((reports([1, 2]) + smp.line + "\n").encode(),
                              {b"reads", b"writes"}, 10)
                self.assertEqual(("stopped", "request", smp.line,
                                  int(smp.fields["sec"])),
                                 (end.kind, end.stop, end.reason, end.ran))
                self.assertEqual(smp.fields["reason"],
                                 stops.request_reason([smp.line.encode()]))

    def test_request_stop_reads_as_a_signal_stop_without_check(self):
        # act_latency.py's output of the reference's form: the table of a
        # log stopped on request is that of the same log stopped by SIGINT
        with open(os.path.join(FIXTURES, "stopped_sigint.log")) as f:
            text = f.read()
        last = text.rstrip("\n").rsplit("\n", 1)[1]
        self.assertTrue(last.startswith("stopped by signal SIGINT after "))
        request = text.replace(last, "stopped on request: %s after %s" % (
            support.samples_of("request")[0].fields["reason"],
            last.rsplit(" after ", 1)[1]))
        outs = []
        with tempfile.TemporaryDirectory() as td:
            for name, body in (("sigint.log", text), ("request.log",
                                                       request)):
                path = support.make(os.path.join(td, name), body)
                r = subprocess.run([sys.executable, LATENCY, "-l", path,
                                    "-t", "2"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE,
                                   universal_newlines=True)
                outs.append((r.returncode, r.stdout.replace(path, "LOG")))
        self.assertEqual(0, outs[0][0])
        self.assertEqual(outs[0], outs[1])


if __name__ == "__main__":
    unittest.main()
