#!/usr/bin/env python3
"""Description: summary.md and compare.md carry a campaign's strings as
text, never as markup (docs/certify.md, "The report"): a Markdown
renderer with raw HTML on (most are) must not see a tag, a link or a
code span in them.

A trial campaign (--load 0.1, --seconds 2) runs on a file device named
`x<svg/onload=alert(1)>` (a directory `x<svg` and a file in it). Then its
state and logs are made to say what a drive's firmware, a host or a log
could: step 1's log gets the identity line `DEV model = <img src=x
onerror=alert(4)>, serial = [s](javascript:alert(5)), firmware = \\`f\\`
*b* | &amp;`; the host's name is `<script>alert(2)</script>`, its CPU
model `[c](javascript:alert(3))`; step 2 stopped by an error whose text
is `ERROR: <iframe src=javascript:alert(6)>`. --report, and --compare of
it with --out, then write summary.md and compare.md: neither holds a `<`
or a backtick, each of those strings is there escaped (`&lt;`, `&#96;`,
`\\[`, `\\*`, `\\|`, `&amp;amp;`), and the table rows keep their columns.
report.html and compare.html have no element with an on* attribute and no
img, script or iframe element. With python3-markdown installed, both
Markdown files are also rendered: no img, script, iframe, a or code
element, no on* attribute.

Exit 0 pass, 1 fail."""

import html.parser
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

MODEL = "<img src=x onerror=alert(4)>"
SERIAL = "[s](javascript:alert(5))"
FIRMWARE = "`f` *b* | &amp;"
HOSTNAME = "<script>alert(2)</script>"
CPU = "[c](javascript:alert(3))"
ERROR = "ERROR: <iframe src=javascript:alert(6)>"


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.handlers = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.handlers += ["%s %s" % (tag, k) for k, _v in attrs
                          if k.lower().startswith("on")]


def tags_of(text):
    p = Tags()
    p.feed(text)
    p.close()
    return p


def check_markdown(c, what, text, wanted):
    c.check("<" not in text, "%s: a raw <" % what, text)
    c.check("`" not in text, "%s: a raw backtick" % what, text)
    for w in wanted:
        c.check(w in text, "%s: %r is not there" % (what, w), text)
    for line in text.split("\n"):
        if line.startswith("| ") and not line.startswith("|---"):
            cells = line.replace("\\|", "").count("|")
            c.check(cells in (8, 13, 6, 7), "%s: a table row with %d "
                    "cells: %s" % (what, cells - 1, line))
    try:
        import markdown
    except ImportError:
        return
    rendered = markdown.markdown(text, extensions=["tables"])
    p = tags_of(rendered)
    bad = [t for t in p.tags if t in ("img", "script", "iframe", "a",
                                      "code", "svg")]
    c.eq("%s rendered: no such element" % what, [], bad)
    c.eq("%s rendered: no handler" % what, [], p.handlers)


def check_html(c, what, path):
    p = tags_of(tc.read(path))
    c.eq("%s: no handler attribute" % what, [], p.handlers)
    c.eq("%s: no img, script or iframe" % what, [],
         [t for t in p.tags if t in ("img", "script", "iframe")])


def check_all(c, td, root):
    os.mkdir(os.path.join(root, "x<svg"))
    dev = tc.make_device(os.path.join(root, "x<svg", "onload=alert(1)>"))
    camp = td.join("camp")
    r = tc.certify(["--device", dev, "--load", "0.1", "--seconds", "2",
                    "--out", camp])
    if not c.eq("the campaign on %s: exit status" % dev, 0, r.rc, r.err):
        return
    sp = os.path.join(camp, "state.json")
    state = tc.load_json(sp)
    state["host"].update(hostname=HOSTNAME, cpu_model=CPU)
    state["status"] = "error"
    state["steps"][1].update(status="error", result=None, exit_status=2,
                             message="act_storage exit status 2 (device or "
                             "setup error): " + ERROR)
    with open(sp, "w") as f:
        json.dump(state, f)
    log = os.path.join(camp, state["steps"][0]["files"]["log"])
    lines = tc.read(log).split("\n")
    at = next(i for i, line in enumerate(lines)
              if line.startswith(dev + " size = "))
    lines.insert(at + 1, "%s model = %s, serial = %s, firmware = %s"
                 % (dev, MODEL, SERIAL, FIRMWARE))
    with open(log, "w") as f:
        f.write("\n".join(lines))
    r = tc.certify(["--report", camp])
    c.check(r.rc in (1, 2) and "Traceback" not in r.err,
            "--report: exit status %s" % r.rc, r.err)
    wanted = ["x&lt;svg/onload=alert(1)>", "&lt;img src=x onerror=alert(4)>",
              "\\[s\\](javascript:alert(5))", "&#96;f&#96; \\*b\\* \\| "
              "&amp;amp;", "&lt;script>alert(2)&lt;/script>",
              "\\[c\\](javascript:alert(3))",
              "ERROR: &lt;iframe src=javascript:alert(6)>"]
    check_markdown(c, "summary.md", tc.read(os.path.join(camp,
                                                         "summary.md")),
                   wanted)
    check_html(c, "report.html", os.path.join(camp, "report.html"))
    out = td.join("cmp")
    r = tc.certify(["--compare", camp, "--out", out])
    c.eq("--compare: exit status", 0, r.rc, r.err)
    check_markdown(c, "compare.md", tc.read(os.path.join(out,
                                                         "compare.md")),
                   wanted[1:4] + ["&lt;script>alert(2)&lt;/script>"])
    check_html(c, "compare.html", os.path.join(out, "compare.html"))


def main():
    c = itest.Checker("test_certify_markdown")
    tc.with_devices(c, "act-certify-markdown", [check_all])


if __name__ == "__main__":
    main()
