#!/usr/bin/env python3
"""Description: act.latency.export: the --json documents (act_latency/1, and
act_latency/compare/1 for several logs) and the --csv rows, in process; from
act_latency.py: --json (the document matches the table, the check's results, a
failing check and none, the scale warning on stderr; the streamed text is
json.dumps of json_document's object) and --csv parsed back with the csv module
(one log, several logs with labels that need quoting, the check and the outlier
line on stderr, a microsecond log).

    python3 tests/python/latency/test_export.py [-v]
"""

import csv
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402
from support import (MULTI_NOTE, NODES, NODES_WORST, TempLogs,  # noqa: E402
                     analysed, compare_rows, header, make, reports,
                     run_latency as run, table_rows)

from act.latency import Spec, export, load  # noqa: E402


class JsonDocument(unittest.TestCase):
    def test_one_log(self):
        a = analysed(header(duration=4) + reports(range(1, 5)),
                     Spec(slice_sec=2, buckets=(0, 1, 2)))
        doc = json.loads(json.dumps(export.json_document(a)))
        self.assertEqual("act_latency/1", doc["format"])
        self.assertEqual(("x.log", "6.7", 1, 2, "ms"),
                         (doc["log"], doc["version"],
                          doc["report_interval_sec"], doc["slice_sec"],
                          doc["unit"]))
        self.assertEqual([0, 1, 2], doc["buckets"])
        self.assertEqual([1, 2, 4], doc["thresholds"])
        (reads,) = doc["histograms"]
        self.assertEqual("reads", reads["name"])
        # per second: 100 in bucket 0, 1 in bucket 3 (over 1, 2 and 4 ms)
        self.assertEqual([{"slice": 1, "end_sec": 2, "ops": 202,
                           "rate": 101.0, "over_pct": [0.99] * 3},
                          {"slice": 2, "end_sec": 4, "ops": 202,
                           "rate": 101.0, "over_pct": [0.99] * 3}],
                         reads["slices"])
        self.assertEqual((True, 4, 4, None, None),
                         (doc["complete"], doc["planned_sec"],
                          doc["ran_sec"], doc["stop_reason"], doc["check"]))

    def test_check_and_stop(self):
        a = analysed(header(duration=9) + reports(range(1, 3)) +
                     "\n".join(support.HOST_LAG) + "\n",
                     Spec(slice_sec=1, check=True))
        doc = export.json_document(a)
        self.assertFalse(doc["complete"])
        self.assertEqual(support.HOST_LAG[0][len("ERROR: "):],
                         doc["stop_reason"])
        self.assertNotIn("stop", doc)       # the kind stays in-process
        check = doc["check"]
        # act stopped: the host could not do the load (a host-limit stop)
        self.assertEqual(("NOT JUDGED", False, True),
                         (check["result"], check["pass"],
                          check["criteria_pass"]))
        self.assertEqual([load.HOST_STOP_TEXT], check["reasons"])
        self.assertEqual(["1 ms", "8 ms", "64 ms"],
                         [c["threshold"] for c in check["criteria"]])

    def test_several_logs(self):
        a = analysed(header() + reports(range(1, 6)),
                     Spec(slice_sec=1))
        b = analysed(header() + reports(range(1, 3)),
                     Spec(slice_sec=1))
        doc = export.compare_json(["a", "b"], [a, b], {"w": 1}, None)
        self.assertEqual(("act_latency/compare/1", ["a", "b"], 1),
                         (doc["format"], doc["labels"], doc["slice_sec"]))
        self.assertEqual(["a", "b"], [d["label"] for d in doc["logs"]])
        self.assertEqual(["label", "format"], list(doc["logs"][0])[:2])


class CsvRows(unittest.TestCase):
    def test_rows(self):
        spec = Spec(slice_sec=1, buckets=(0, 1),
                    histograms=("reads", "writes"))
        a = analysed(header() + reports(range(1, 4)), spec)
        b = analysed(header() + reports(range(1, 3)), spec)
        rows = list(export.csv_rows(["a", "b"], [a, b]))
        self.assertEqual(["slice", "seconds", "log", "histogram",
                          "pct_over_1ms", "pct_over_2ms", "rate"], rows[0])
        # slices 1-2: both logs, 2 histograms each; slice 3: a only
        self.assertEqual([["1", "1", "a", "reads"], ["1", "1", "a", "writes"],
                          ["1", "1", "b", "reads"], ["1", "1", "b", "writes"]],
                         [r[:4] for r in rows[1:5]])
        self.assertEqual([["3", "3", "a", "reads"], ["3", "3", "a", "writes"]],
                         [r[:4] for r in rows[9:11]])
        self.assertEqual(["0.99", "0.99", "101.0"], rows[1][4:])
        self.assertEqual(["avg"] * 4 + ["max"] * 4,
                         [r[0] for r in rows[11:]])
        self.assertEqual(19, len(rows))


class Json(unittest.TestCase):

    def test_document_matches_the_table(self):
        args = ["-l", "storage_long_names.log", "-t", "2", "-x", "-s", "1",
                "-n", "4", "-h", "reads", "-h", "writes"]
        code, table, _ = run(args)
        code2, text, err = run(args + ["--json", "--check"])
        # NOT JUDGED: the log does not issue its load (reads short of
        # the 2000/s it plans)
        self.assertEqual((0, 3, ""), (code, code2, err))
        doc = json.loads(text)
        self.assertEqual("6.6", doc["version"])
        self.assertEqual("yes", doc["config"]["commit-to-device"])
        self.assertEqual("1000", doc["derived_config"][
            "internal-write-reqs-per-sec"])
        self.assertEqual(8, len(doc["histogram_names"]))
        self.assertEqual(([1, 2, 3, 4], [2, 4, 8, 16], 2, "ms"),
                         (doc["buckets"], doc["thresholds"], doc["slice_sec"],
                          doc["unit"]))
        rows = table_rows(table)
        self.assertEqual(4, len(rows) - 2)
        for i, h in enumerate(doc["histograms"]):
            self.assertEqual(["reads", "writes"][i], h["name"])
            for s in h["slices"]:
                got = s["over_pct"] + [s["rate"]]
                self.assertEqual(rows[str(s["slice"])][5 * i:5 * i + 5], got)
                self.assertEqual(2 * s["slice"], s["end_sec"])
                self.assertEqual(round(s["ops"] / 2, 1), s["rate"])
            self.assertEqual(rows["avg"][5 * i:5 * i + 5],
                             h["avg"]["over_pct"] + [h["avg"]["rate"]])
            self.assertEqual(rows["max"][5 * i:5 * i + 5],
                             h["max"]["over_pct"] + [h["max"]["rate"]])
        check = doc["check"]
        self.assertFalse(check["pass"])
        self.assertEqual(6, len(check["results"]))
        self.assertEqual(({"histogram": "reads", "threshold": "1 ms",
                           "threshold_ms": 1.0, "bucket": 0,
                           "limit_pct": 5.0, "pass": False},
                          [True] * 5),
                         ({k: v for k, v in check["results"][0].items()
                           if k != "max_pct"},
                          [r["pass"] for r in check["results"][1:]]))
        self.assertGreater(check["results"][0]["max_pct"], 5.0)
        self.assertEqual({"histogram": "writes", "threshold": "8 ms",
                          "threshold_ms": 8.0, "bucket": 3, "limit_pct": 1.0,
                          "max_pct": 0.0, "pass": True},
                         check["results"][4])

    def test_failing_check_and_no_check(self):
        code, text, err = run(["-l", "slow.log", "-t", "3", "--json",
                               "--check"])
        self.assertEqual(1, code)
        self.assertFalse(json.loads(text)["check"]["pass"])
        code, text, err = run(["-l", "slow.log", "-t", "3", "--json"])
        self.assertEqual(0, code)
        self.assertIsNone(json.loads(text)["check"])

    def test_scale_warning_goes_to_stderr(self):
        code, text, err = run(["-l", "no_scale.log", "-t", "2", "--json"])
        self.assertEqual(0, code)
        self.assertIn("can't find histograms' scale", err)
        self.assertFalse(json.loads(text)["scale_known"])


class Csv(TempLogs):
    """--csv: the table as CSV, parsed back with the csv module."""

    def parse(self, text):
        return list(csv.reader(io.StringIO(text)))

    def test_one_log(self):
        args = ["-l", "storage_long_names.log", "-t", "2", "-x", "-s", "1",
                "-n", "4", "-h", "reads", "-h", "writes"]
        table = table_rows(run(args)[1])
        code, text, err = run(args + ["--csv"])
        self.assertEqual((0, ""), (code, err))
        rows = self.parse(text)
        self.assertEqual(["slice", "seconds", "log", "histogram",
                          "pct_over_2ms", "pct_over_4ms", "pct_over_8ms",
                          "pct_over_16ms", "rate"], rows[0])
        self.assertEqual(4 * 2 + 2 * 2, len(rows) - 1)
        for row in rows[1:]:
            self.assertEqual("storage_long_names.log", row[2])
            i = ["reads", "writes"].index(row[3])
            self.assertEqual(table[row[0]][5 * i:5 * i + 5],
                             [float(v) for v in row[4:]])
            if row[0].isdigit():
                self.assertEqual(2 * int(row[0]), int(row[1]))
            else:
                self.assertEqual("", row[1])
        self.assertEqual(["avg", "avg", "max", "max"],
                         [r[0] for r in rows[-4:]])

    def test_several_logs(self):
        code, text, err = run(NODES + ["-t", "2", "-n", "2", "--csv",
                                       "--label", "n,1", "--label", 'n"2',
                                       "--label", "n3"])
        # stdout is the CSV only: the outlier line goes to stderr
        self.assertEqual((0, NODES_WORST.replace("node3.log", "n3") + "\n"),
                         (code, err))
        rows = self.parse(text)
        table = compare_rows(run(NODES + ["-t", "2", "-n", "2", "-x"])[1])
        labels = ["n,1", 'n"2', "n3"]
        got = {}
        for row in rows[1:]:
            got.setdefault(row[0], {})[row[2]] = [float(v) for v in row[4:]]
            self.assertEqual("reads", row[3])
        for k, cells in table.items():
            for n, label in enumerate(labels):
                want = cells[3 * n:3 * n + 3]
                if want[0] is None:
                    self.assertNotIn(label, got[k])     # node2: no slice 4
                else:
                    self.assertEqual(want, got[k][label])
        # slice by slice, log by log, then the avg and max rows
        self.assertEqual(["1", "1", "1", "2", "2", "2", "3", "3", "3", "4",
                          "4", "avg", "avg", "avg", "max", "max", "max"],
                         [r[0] for r in rows[1:]])

    def test_check_goes_to_stderr(self):
        code, text, err = run(NODES + ["-t", "2", "--csv", "--check"])
        self.assertEqual(1, code)
        self.assertTrue(text.startswith("slice,seconds,log,histogram,"))
        self.assertNotIn("result", text)
        self.assertTrue(err.startswith(NODES_WORST + "\ncheck: standard "),
                        err)
        self.assertTrue(err.endswith("\nresult: FAIL (1 of 3 logs passed; "
                                     "node2.log: INCOMPLETE, node3.log: "
                                     "FAIL)\n" + MULTI_NOTE), err)
        code, text, err = run(["-l", "fast.log", "-t", "3", "--csv",
                               "--check"])
        self.assertEqual(0, code)
        self.assertTrue(err.startswith("check: standard ACT criteria"), err)
        self.assertTrue(err.endswith("\nresult: PASS (3 of 3 criteria "
                                     "met)\nnote: an ACT certification "
                                     "needs 24-hour runs judged in 3600 s "
                                     "slices (-t 3600); this run is 6 sec "
                                     "and its slices are 3 sec: this "
                                     "verdict is not a certification\n"),
                        err)

    def test_microsecond_log(self):
        code, text, err = run(["-l", "index_us.log", "-t", "3", "-s", "8",
                               "-n", "2", "--csv"])
        self.assertEqual(["slice", "seconds", "log", "histogram",
                          "pct_over_256us", "pct_over_512us", "rate"],
                         self.parse(text)[0])


def run_file(path, argv):
    return run(["-l", path] + argv)


class JsonText(unittest.TestCase):
    def test_streamed_text_is_json_dumps_of_the_document(self):
        from act.latency.export import json_document
        text = header(duration=30) + reports(range(1, 31), over=3)
        argv = ["-t", "2", "-h", "reads", "-h", "writes", "-h", "reads",
                "--check", "-x"]
        a = analysed(text, Spec(
            slice_sec=2, histograms=("reads", "writes", "reads"), check=True))
        with tempfile.TemporaryDirectory() as td:
            path = make(os.path.join(td, "x.log"), text)
            code, out, err = run_file(path, argv + ["--json"])
        doc = json_document(a)
        doc["log"] = path
        self.assertEqual(json.dumps(doc) + "\n", out)


if __name__ == "__main__":
    unittest.main()
