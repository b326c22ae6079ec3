#!/usr/bin/env python3
"""Tests of act.latency.export: the --json documents (act_latency/1, and
act_latency/compare/1 for several logs) and the --csv rows.

    python3 tests/python/test_export.py [-v]
"""

import json
import unittest

import actlog
from actlog import header, reports

from act.latency import Spec, export, load


class Json(unittest.TestCase):
    def test_one_log(self):
        a = actlog.analysed(header(duration=4) + reports(range(1, 5)),
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
        a = actlog.analysed(header(duration=9) + reports(range(1, 3)) +
                            "\n".join(actlog.HOST_LAG) + "\n",
                            Spec(slice_sec=1, check=True))
        doc = export.json_document(a)
        self.assertFalse(doc["complete"])
        self.assertEqual(actlog.HOST_LAG[0][len("ERROR: "):],
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
        a = actlog.analysed(header() + reports(range(1, 6)),
                            Spec(slice_sec=1))
        b = actlog.analysed(header() + reports(range(1, 3)),
                            Spec(slice_sec=1))
        doc = export.compare_json(["a", "b"], [a, b], {"w": 1}, None)
        self.assertEqual(("act_latency/compare/1", ["a", "b"], 1),
                         (doc["format"], doc["labels"], doc["slice_sec"]))
        self.assertEqual(["a", "b"], [d["label"] for d in doc["logs"]])
        self.assertEqual(["label", "format"], list(doc["logs"][0])[:2])


class Csv(unittest.TestCase):
    def test_rows(self):
        spec = Spec(slice_sec=1, buckets=(0, 1),
                    histograms=("reads", "writes"))
        a = actlog.analysed(header() + reports(range(1, 4)), spec)
        b = actlog.analysed(header() + reports(range(1, 3)), spec)
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


if __name__ == "__main__":
    unittest.main()
