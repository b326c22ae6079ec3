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
  HTML parses, no external reference)."""

import contextlib
import html.parser
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect  # noqa: E402

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


def check_groups(c):
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
    c.eq("groups: kind/test/load", [["target", 1, 30], ["stress", 2, 60]],
         [g["key"][:3] for g in groups])
    c.eq("group test 1: members", ["n1", "n2", "n3"],
         list(groups[0]["campaigns"]))
    w = groups[0]["worst"]
    c.eq("group test 1: the outlier", ["n3"], w["worst"])
    c.eq("group test 1: the worst line", "worst: n3, 6.20% over 1 ms at its "
         "worst slice, 13.8x the median of the others (0.45%)", w["line"])
    c.eq("group test 2: the skipped step joins", {"n1": "PASS", "n2": "PASS",
                                                  "n3": "SKIPPED"},
         {k: v["result"] for k, v in groups[1]["campaigns"].items()})
    c.eq("group test 2: skipped has no values", None,
         groups[1]["campaigns"]["n3"]["max_pct"])
    c.eq("group test 2: the outlier of the two with values", ["n1"],
         groups[1]["worst"]["worst"])
    c.eq("unmatched: other criteria, another load, a rung",
         [(["target", 1, 30], ["n4"]), (["target", 1, 40], ["n4"]),
          (["ceiling", None, 90], ["n2"])],
         sorted([(g["key"][:3], g["only_in"]) for g in unmatched],
                key=lambda x: (x[0][0] != "target", x[0][2])))
    g1, _ = compare.compare_steps(["a", "b"], [
        [step(1, "target", 1, 30, [0.4, 0, 0])],
        [step(1, "target", 1, 30, result="INCOMPLETE")]])
    c.eq("one campaign with values: no outlier", None, g1[0]["worst"])
    doc = {"campaigns": [], "steps": groups, "unmatched": unmatched,
           "generated_at": "now"}
    return doc


def check_labels_and_worst(c):
    c.eq("labels", ["a", "x/cert", "y/cert"],
         compare.labels_of(["/t/a/", "x/cert", "y/cert"]))
    c.eq("worst slice, hours", "4.20% in step 2, hour 3", compare.worst_slice(
        [step(1, "target", 1, 30, [1, 0, 0], series=[0.1, 0.2]),
         step(2, "stress", 2, 60, [1, 0, 0], series=[0.5, 1.0, 4.2, 0.3])]))
    c.eq("worst slice, a trial", "0.30% in step 1, slice 1",
         compare.worst_slice([step(1, "target", 1, 30, [1, 0, 0],
                                   series=[0.3], slice_sec=1)]))
    c.eq("worst slice, no series", None,
         compare.worst_slice([step(1, "target", 1, 30)]))


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


def check_dirs_and_main(c, doc):
    with tempfile.TemporaryDirectory(prefix="act-compare-test-") as td:
        plain = os.path.join(td, "plain")
        os.mkdir(plain)
        bad = os.path.join(td, "bad")
        os.mkdir(bad)
        with open(os.path.join(bad, "state.json"), "w") as f:
            f.write('{"format": 1}')
        for what, dirs, text in (
                ("missing", [os.path.join(td, "nope")], "is not a directory"),
                ("no state.json", [plain], "is not a campaign directory")):
            try:
                compare.check_dirs(dirs)
                c.check(False, "check_dirs %s: no error" % what)
            except UsageError as e:
                c.eq("check_dirs %s: status" % what, 2, e.status)
                c.check(dirs[0] in str(e) and text in str(e),
                        "check_dirs %s: message %r" % (what, str(e)))
        rc, out, err = run_main(["--compare", bad, "--out",
                                 os.path.join(td, "fleet")])
        c.eq("a damaged campaign: exit status", 0, rc)
        c.check("| bad | - | - | damaged: " in out and "Traceback" not in
                err, "a damaged campaign's row:\n%s\n%s" % (out, err))
        c.eq("the files written", ["compare.html", "compare.json",
                                   "compare.md"],
             sorted(os.listdir(os.path.join(td, "fleet"))))
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
            c.eq("main %s: exit status" % what, rc_want, rc)
            c.check(text in err, "main %s: stderr names %s: %r"
                    % (what, text, err))
    doc["campaigns"] = [{"label": "dmg", "damaged": "x", "verdict":
                         "damaged: x", "directory": "/d"}]
    md = compare_markdown.render_markdown(doc)
    c.check("## Not compared (in one campaign only)" in md and
            "- ceiling rung at 90x; criteria: reads over 1 ms under 5%, "
            "reads over 8 ms under 1%, reads over 64 ms under 0.1%: n2, "
            "step 3, PASS" in md, "markdown: the unmatched list:\n%s" % md)
    page = compare_html.render_html(doc)
    p = Page()
    p.feed(page)
    p.close()
    c.eq("html: external references", [], p.external)
    c.eq("html: the outliers", ["n3", "n1"], p.outliers)


def main_():
    c = expect.Checker("test_certify_compare")
    check_labels_and_worst(c)
    doc = check_groups(c)
    check_dirs_and_main(c, doc)
    c.finish()


if __name__ == "__main__":
    main_()
