"""What the two pages, report.html and compare.html, share: the CSS (each
page inlines it: nothing is loaded from elsewhere), text escaped for HTML,
and a result in its colour."""

import html


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
margin:0 auto;max-width:1100px;padding:16px 24px;color:#222;
line-height:1.4}
h1{font-size:22px;margin:8px 0}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:16px;margin:20px 0 6px}
.verdict{padding:14px 18px;border-radius:6px;font-size:24px;
font-weight:bold;margin:12px 0}
.ok{background:#e6f4ea;border:2px solid #2ca02c;color:#17601a}
.bad{background:#fdecea;border:2px solid #d62728;color:#8b1a1a}
.open{background:#fff4e0;border:2px solid #e08a00;color:#7a4a00}
.trial{background:#e8f0fe;border:2px solid #1a56c8;color:#0b3a8c}
.live{background:#fff8d6;border:1px solid #d9b300;padding:6px 12px;
border-radius:4px;font-size:15px}
.reasons{font-size:15px;font-weight:normal;margin:6px 0 0;color:#333}
table{border-collapse:collapse;margin:6px 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;
vertical-align:top;font-size:14px}
th{background:#f3f3f3}
td.num{text-align:right}
.PASS{color:#17601a;font-weight:bold}
.FAIL,.INCOMPLETE,.INVALID,.ERROR{color:#b01c1c;font-weight:bold}
.INTERRUPTED,.RUNNING,.NOT{color:#7a4a00;font-weight:bold}
.SKIPPED{color:#777}
.WARNINGS{color:#7a4a00;font-weight:bold}
pre{background:#f8f8f8;border:1px solid #e2e2e2;padding:8px;
overflow-x:auto;font-size:12px;line-height:1.25}
.step{border-top:2px solid #ccc;margin-top:24px}
.muted{color:#666;font-size:13px}
svg{max-width:100%;height:auto}
"""


def esc(x):
    """x as HTML text ("" for None)."""
    return html.escape("" if x is None else str(x))


def result_span(result):
    """A result ("PASS", "FAIL ...") in the colour of its first word; a
    PASS with warnings (drive health) in the colour of a warning."""
    r = result or "-"
    cls = "WARNINGS" if r.startswith("PASS with") else r.split()[0]
    return '<span class="%s">%s</span>' % (esc(cls), esc(r))
