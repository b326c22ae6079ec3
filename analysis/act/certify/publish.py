"""The writer of the report files: a campaign's summary.json, summary.md
and report.html (write_reports), and a comparison's compare.json,
compare.md and compare.html (write_compare, compare_main), each replaced
atomically (safefile.write_file: a temporary file renamed - a reader, a
browser reloading the page while a step runs, never sees half a file)."""

import json
import os

from act import EXIT_SETUP
from act.certify import compare_html, compare_markdown, html, markdown
from act.certify.compare import compare_campaigns
from act.certify.fmt import say, warn
from act.certify.metrics import render_metrics
from act.certify.state import check_private_dir, make_private_dir
from act.certify.summary import build_summary
from act.cli import UsageError
from act.safefile import write_file


def write_reports(dirpath, state, cache, live=None, in_progress=None,
                  metrics=None):
    """Writes summary.json, summary.md and report.html in dirpath, and
    the metrics file at the path metrics when given (a file that can't be
    written is a warning) and returns the summary
    (summary.build_summary)."""
    s = build_summary(dirpath, state, cache, live, in_progress)
    doc = dict(s)
    doc["steps"] = [{k: v for k, v in st.items() if k != "svg"}
                    for st in s["steps"]]
    for name, text in (("summary.json", json.dumps(doc, indent=1) + "\n"),
                       ("summary.md", markdown.render_markdown(s)),
                       ("report.html", html.render_html(s))):
        try:
            write_file(dirpath, name, text.encode("utf-8", "replace"))
        except OSError as e:
            warn("can't write %s: %s" % (os.path.join(dirpath, name),
                                         e.strerror or e))
    if metrics:
        write_metrics(metrics, s)
    return s


def write_metrics(path, summary):
    """The campaign's Prometheus metrics (metrics.render_metrics) at path,
    replaced atomically - node_exporter's textfile collector reads only
    *.prom files, never write_file's temporary one; a warning when it
    can't be written or made - never the campaign's end."""
    try:
        write_file(os.path.dirname(path) or ".", os.path.basename(path),
                   render_metrics(summary))
    except OSError as e:
        warn("can't write %s: %s" % (path, e.strerror or e))
    except Exception as e:      # noqa: BLE001 - a bug: the run goes on
        warn("can't make the metrics for %s: %s: %s" % (
            path, type(e).__name__, e))


def write_compare(doc, outdir):
    """compare.html, compare.md and compare.json in outdir (made if
    needed; only the user running may write in it: state.check_private_dir);
    a UsageError (setup error) naming the directory or the file
    otherwise. Returns their paths."""
    make_private_dir(outdir, "make")
    paths = []
    for name, text in (("compare.json", json.dumps(doc, indent=1) + "\n"),
                       ("compare.md", compare_markdown.render_markdown(doc)),
                       ("compare.html", compare_html.render_html(doc))):
        path = os.path.join(outdir, name)
        try:
            write_file(outdir, name, text.encode("utf-8", "replace"))
        except OSError as e:
            raise UsageError("can't write %s: %s" % (path, e.strerror or e),
                             status=EXIT_SETUP) from None
        paths.append(path)
    return paths


def compare_main(dirs, outdir):
    """--compare DIR... [--out OUTDIR]: the Markdown on stdout, the three
    files in OUTDIR when given; exit status 0 (a damaged campaign is a
    row that says so), a UsageError for a DIR that is not a campaign."""
    if outdir and os.path.isdir(outdir):
        check_private_dir(outdir)   # refused before any campaign is read
    doc = compare_campaigns(dirs)
    paths = write_compare(doc, outdir) if outdir else []
    say(compare_markdown.render_markdown(doc).rstrip("\n"))
    for path in paths:
        warn("wrote %s" % path)
    return 0
