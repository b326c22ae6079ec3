#!/usr/bin/env python3
"""Description: the comparison of campaigns (analysis/act/certify/
compare.py, compare_markdown.py, compare_html.py and publish.py,
docs/certify.md "A fleet on one page"),
called directly on hand-made step summaries and directories:

- labels_of: base names, the path as given when two are the same.
- compare_steps: steps of the same kind, test, load and criteria are one
  group (prep never compared); another load, or other criteria, is
  unmatched (listed, not mixed); a step with no criteria results (skipped)
  joins its kind/test/load group; the outlier is named by act_latency's
  worst_json (highest max % over 1 ms against the median of the others);
  fewer than two campaigns with values: no outlier.
- worst_slice: the highest slice of all steps' trend series, "hour" for
  one-hour slices, "slice" otherwise.
- check_dirs and compare_main: a missing DIR and a DIR without
  state.json are setup errors (2) naming it; a damaged state.json is a
  row saying "damaged", no traceback.
- main_status: --compare with no DIR, with a campaign option, and with
  the same DIR twice are usage errors (64); render_markdown and
  render_html of a document with an unmatched step and a damaged row (the
  HTML parses, no external reference).

    python3 tests/python/certify/test_compare.py [-v]
"""

import contextlib
import html.parser
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
import support  # noqa: E402,F401  (act on sys.path)

from act.certify import compare, compare_html, compare_markdown  # noqa
from act.certify import main  # noqa: E402
from act.cli import UsageError  # noqa: E402

CRIT = (("1 ms", 5), ("8 ms", 1), ("64 ms", 0.1))


def step(number, kind, test, load, pcts=None, crit=CRIT, result="PASS",
         series=None, slice_sec=3600):
    return {"number": number, "kind": kind, "test": test, "load": load,
            "result": result,
            "criteria": [{"histogram": "reads", "threshold": t,
                          "limit_pct": lim, "max_pct": p,
                          "pass": p < lim}
                         for (t, lim), p in zip(crit, pcts)]
            if pcts is not None else [],
            "trend": {"flag": "steady", "slice_sec": slice_sec,
                      "histogram": "reads", "threshold": "1 ms",
                      "series": [{"slice": k + 1, "pct": v}
                                 for k, v in enumerate(series)],
                      "first_quarter_pct": 0, "last_quarter_pct": 0,
                      "slope_pct_per_slice": 0, "slope_pct_per_hour": 0}
            if series else None}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.external = []
        self.outliers = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "src" in a or "href" in a or tag in ("script", "link", "img"):
            self.external.append(tag)
        if tag == "tr" and a.get("class") == "outlier":
            self.outliers.append(a.get("data-campaign"))


def run_main(argv):
    err = io.StringIO()
    out = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = main.main(argv)
    return rc, out.getvalue(), err.getvalue()


class Compare(unittest.TestCase):
    def test_groups(self):
        self.groups()

    def groups(self):
        """The checks of the groups; their document."""
        self.groups()

    def groups(self):
        """The checks of the groups; their document."""
        labels = ["n1", "n2", "n3", "n4"]
        steps_of = [
            [step(1, "prep", None, None),
             step(2, "target", 1, 30, [0.4, 0, 0]),
             step(3, "stress", 2, 60, [1.1, 0, 0])],
            [step(1, "target", 1, 30, [0.5, 0, 0]),
             step(2, "stress", 2, 60, [1.0, 0, 0]),
             step(3, "ceiling", None, 90, [2.0, 0, 0])],
            [step(1, "target", 1, 30, [6.2, 0.3, 0], result="FAIL"),
             step(2, "stress", 2, 60, result="SKIPPED")],
            [step(1, "target", 1, 30, [0.3, 0, 0],
                  crit=(("1 ms", 3), ("8 ms", 1), ("64 ms", 0.1))),
             step(2, "target", 1, 40, [0.3, 0, 0])]]
        groups, unmatched = compare.compare_steps(labels, steps_of)
        self.assertEqual([["target", 1, 30], ["stress", 2, 60]],
                         [g["key"][:3] for g in groups],
                         "groups: kind/test/load")
        self.assertEqual(["n1", "n2", "n3"], list(groups[0]["campaigns"]),
                         "group test 1: members")
        w = groups[0]["worst"]
        self.assertEqual(["n3"], w["worst"], "group test 1: the outlier")
        self.assertEqual("worst: n3, 6.20% over 1 ms at its worst slice, "
                         "13.8x the median of the others (0.45%)", w["line"],
                         "group test 1: the worst line")
        self.assertEqual({"n1": "PASS", "n2": "PASS",
                          "n3": "SKIPPED"},
                         {k: v["result"] for k,
                          v in groups[1]["campaigns"].items()},
                         "group test 2: the skipped step joins")
        self.assertEqual(None, groups[1]["campaigns"]["n3"]["max_pct"],
                         "group test 2: skipped has no values")
        self.assertEqual(["n1"], groups[1]["worst"]["worst"],
                         "group test 2: the outlier of the two with values")
        self.assertEqual([(["target", 1, 30], ["n4"]), (["target", 1, 40],
                                                        ["n4"]),
                          (["ceiling", None, 90], ["n2"])],
                         sorted([(g["key"][:3],
                                  g["only_in"]) for g in unmatched],
                                key=lambda x: (x[0][0] != "target", x[0][2])),
                         "unmatched: other criteria, another load, a rung")
        g1, _ = compare.compare_steps(["a", "b"], [
            [step(1, "target", 1, 30, [0.4, 0, 0])],
            [step(1, "target", 1, 30, result="INCOMPLETE")]])
        self.assertEqual(None, g1[0]["worst"], "one campaign with values: no "
                         "outlier")
        doc = {"campaigns": [], "steps": groups, "unmatched": unmatched,
               "generated_at": "now"}
        return doc

    def test_labels_and_worst(self):
        self.assertEqual(["a", "x/cert", "y/cert"],
                         compare.labels_of(["/t/a/", "x/cert", "y/cert"]),
                         "labels")
        self.assertEqual("4.20% in step 2, hour 3", compare.worst_slice(
            [step(1, "target", 1, 30, [1, 0, 0], series=[0.1, 0.2]),
             step(2, "stress", 2, 60, [1, 0, 0],
                  series=[0.5, 1.0, 4.2, 0.3])]),
            "worst slice, hours")
        self.assertEqual("0.30% in step 1, slice 1",
                         compare.worst_slice([step(1, "target", 1, 30,
                                                   [1, 0, 0], series=[0.3],
                                                   slice_sec=1)]),
                         "worst slice, a trial")
        self.assertEqual(None, compare.worst_slice([step(1, "target", 1, 30)]),
                         "worst slice, no series")

    def test_dirs_and_main(self):
        doc = self.groups()
        with tempfile.TemporaryDirectory(prefix="act-compare-test-") as td:
            plain = os.path.join(td, "plain")
            os.mkdir(plain)
            bad = os.path.join(td, "bad")
            os.mkdir(bad)
            with open(os.path.join(bad, "state.json"), "w") as f:
                f.write('{"format": 1}')
            for what, dirs, text in (
                    ("missing", [os.path.join(td, "nope")],
                     "is not a directory"),
                    ("no state.json", [plain], "is not a campaign directory")):
                try:
                    compare.check_dirs(dirs)
                    self.assertTrue(False, "check_dirs %s: no error" % what)
                except UsageError as e:
                    self.assertEqual(2, e.status, "check_dirs %s: "
                                     "status" % what)
                    self.assertTrue(dirs[0] in str(e) and text in str(e),
                                    "check_dirs %s: message "
                                    "%r" % (what, str(e)))
            rc, out, err = run_main(["--compare", bad, "--out",
                                     os.path.join(td, "fleet")])
            self.assertEqual(0, rc, "a damaged campaign: exit status")
            self.assertTrue("| bad | - | - | damaged: " in out
                            and "Traceback" not in
                            err, "a damaged campaign's "
                            "row:\n%s\n%s" % (out, err))
            self.assertEqual(["compare.html", "compare.json",
                              "compare.md"],
                             sorted(os.listdir(os.path.join(td, "fleet"))),
                             "the files written")
            for what, argv, rc_want, text in (
                    ("no DIR", ["--compare"], 64, "--compare"),
                    ("with --device", ["--compare", bad, "--device", "/x"], 64,
                     "--device"),
                    ("with --report", ["--compare", bad, "--report", bad], 64,
                     "--report"),
                    ("the same DIR twice", ["--compare", bad, bad + "/"], 64,
                     "given twice"),
                    ("not a campaign", ["--compare", plain], 2, plain)):
                rc, out, err = run_main(argv)
                self.assertEqual(rc_want, rc, "main %s: exit status" % what)
                self.assertTrue(text in err, "main %s: "
                                "stderr names %s: %r" % (what, text, err))
        doc["campaigns"] = [{"label": "dmg", "damaged": "x", "verdict":
                             "damaged: x", "directory": "/d"}]
        md = compare_markdown.render_markdown(doc)
        self.assertTrue("## Not compared (in one campaign only)" in md and
                        "- ceiling rung at 90x; criteria: reads over 1 ms "
                        "under 5%, reads over 8 ms under 1%, reads over 64 ms "
                        "under 0.1%: n2, "
                        "step 3, PASS"in md, "markdown: the unmatched "
                        "list:\n%s" % md)
        page = compare_html.render_html(doc)
        p = Page()
        p.feed(page)
        p.close()
        self.assertEqual([], p.external, "html: external references")
        self.assertEqual(["n3", "n1"], p.outliers, "html: the outliers")


if __name__ == "__main__":
    unittest.main()
