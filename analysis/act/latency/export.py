"""act_latency's documents for other programs: --json (act_latency/1, and
act_latency/compare/1 for several logs: JsonWriter, a sink of the
analysis, json_document the same as a dict) and --csv rows (CsvWriter,
csv_rows)."""

import csv
import io
import json
import tempfile
from itertools import islice, zip_longest

from act.latency.compare import COMPARE_FORMAT
from act.latency.health_report import health_json
from act.latency.judge import FuncCache


def _head(a):
    """The --json document's members before "histograms"."""
    h = a.header
    return {
        "format": "act_latency/1",
        "log": a.log,
        "version": h.version,
        "config_heading": h.config[0],
        "config": h.items(h.config),
        "derived_config": h.items(h.derived),
        "histogram_names": h.names,
        "report_interval_sec": h.interval,
        "slice_sec": a.slice_sec,
        "unit": a.unit,
        "scale_known": h.microsecond is not None,
        "buckets": a.buckets,
        "thresholds": [1 << b for b in a.buckets],
    }


def _tail(a):
    """The --json document's members after "histograms"."""
    doc = {
        "complete": a.run.complete,
        "planned_sec": a.run.planned,
        "ran_sec": a.run.ran,
        "stop_reason": a.run.reason,
        "notes": a.notes,
        "check": None,
    }
    if a.results is not None:
        not_judged, not_analysed = a.judged_lists()
        v = a.verdict
        doc["check"] = {
            "criteria": [{"threshold": c.label, "threshold_ms": c.ms,
                          "bucket": c.bucket, "limit_pct": c.limit}
                         for c in a.criteria],
            "results": [dict(r) for r in a.results],
            "not_judged": not_judged,
            "not_analysed": not_analysed,
            "stress": a.spec.stress,
            "criteria_pass": all(r["pass"] for r in a.results),
            "complete": a.run.complete,
            "result": v.result,
            "pass": v.passed,
            "reasons": list(v.reasons),
            "health_warnings": list(v.health),
        }
    if a.spec.health:
        doc["health"] = health_json(a)
    return doc


CACHE_LIMIT = 20000               # over_pct texts kept

_SLICE = ('{"slice": %d, "end_sec": %d, "ops": %d, "rate": %r, '
          '"over_pct": [%s]}')


def _slices_text(first, n, slice_sec, values, rates, ops, texts):
    """n slices of one histogram as the document's JSON objects, joined
    with ", " (json.dumps's own text for them).  texts: a cache of the
    over_pct lists' text, by their values."""
    over = map(texts.__getitem__, zip(*values))
    return ", ".join(
        _SLICE % (k, k * slice_sec, o, r, p) for k, o, r, p in
        zip(range(first, first + n), ops, rates, over))


def _over_text(values):
    return ", ".join(map(float.__repr__, values))


class JsonWriter:
    """The --json document (act_latency/1) of one log, written as the
    slices are computed: the text is json.dumps(json_document(a))'s, byte
    for byte.  A sink of analyse(): the head and the first histogram's
    slices go out at once; the other histograms' slices wait in temporary
    files (they come later in the document); finish(a) writes the rest
    (without a newline). Nothing is written before the first slice (so an
    analysis without one prints no partial document)."""

    def __init__(self, write):
        self.write = write
        self.later = None           # temporary files, histograms 2..
        self.started = False
        self.texts = FuncCache(_over_text)

    def _start(self, a):
        head = json.dumps(_head(a))
        name = json.dumps(a.histograms[0])
        self.write('%s, "histograms": [{"name": %s, "slices": ['
                   % (head[:-1], name))
        self.later = [tempfile.TemporaryFile("w+", encoding="ascii",
                                             prefix="act_latency.")
                      for _ in a.histograms[1:]]
        self.started = True

    def batch(self, a, first, n, batch):
        nb = len(a.buckets)
        sep = ", " if self.started else ""
        if not self.started:
            self._start(a)
        for i, (values, rates, ops) in enumerate(batch):
            text = sep + _slices_text(first, n, a.slice_sec, values[:nb],
                                      rates, ops, self.texts)
            if i == 0:
                self.write(text)
            else:
                self.later[i - 1].write(text)
        if len(self.texts) > CACHE_LIMIT:
            self.texts.clear()

    def finish(self, a):
        """The rest of the document, after the last batch."""
        if not self.started:
            self._start(a)
        nb = len(a.buckets)
        for i, name in enumerate(a.histograms):
            if i:
                self.write(', {"name": %s, "slices": [' % json.dumps(name))
                f = self.later[i - 1]
                f.seek(0)
                while True:
                    text = f.read(1 << 20)
                    if not text:
                        break
                    self.write(text)
                f.close()
            avg, top = _avg_max(a, i, nb)
            self.write('], "avg": %s, "max": %s}'
                       % (json.dumps(avg), json.dumps(top)))
        self.write("], " + json.dumps(_tail(a))[1:])


def json_text(a, write):
    """Write the --json document of an analysis whose slices were kept
    (analyse(keep=True)), from its spool."""
    w = JsonWriter(write)
    first = 1
    for batch in a.batches():
        n = len(batch[0][1])
        w.batch(a, first, n, batch)
        first += n
    w.finish(a)


def _avg_max(a, i, nb):
    return ({"over_pct": [round(v, 2) for v in a.avg[i][0][:nb]],
             "rate": round(a.avg[i][1], 1)},
            {"over_pct": list(a.max[i][0][:nb]), "rate": a.max[i][1]})


def json_document(a):
    """The --json document of an analysis whose slices were kept, as a
    dict: what json.loads gives of the text act_latency.py --json prints
    (JsonWriter)."""
    nb = len(a.buckets)
    doc = _head(a)
    doc["histograms"] = hists = []
    for name in a.histograms:
        hists.append({"name": name, "slices": []})
    t = a.slice_sec
    for k, row in enumerate(a.rows(), 1):
        for h, (values, rate, ops) in zip(hists, row):
            h["slices"].append({"slice": k, "end_sec": k * t, "ops": ops,
                                "rate": rate,
                                "over_pct": list(values[:nb])})
    for i, h in enumerate(hists):
        h["avg"], h["max"] = _avg_max(a, i, nb)
    doc.update(_tail(a))
    return doc


def chunks(items, size=4096):
    """An iterable's items as lists of size (the last one shorter): what
    is written a few thousand rows or lines at a time."""
    it = iter(items)
    while True:
        part = list(islice(it, size))
        if not part:
            return
        yield part


def write_csv(write, rows):
    """Write an iterator of CSV rows, a few thousand at a time."""
    for part in chunks(rows):
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(part)
        write(out.getvalue())


class CsvWriter:
    """The --csv rows of one log (label: its name in the rows), written
    as its slices are computed (a sink of analyse()); the header before
    the first."""

    def __init__(self, write, label):
        self.write = write
        self.label = label
        self.started = False

    def batch(self, a, first, n, batch):
        if not self.started:
            write_csv(self.write, [csv_head(a)])
            self.started = True
        write_csv(self.write, csv_batch_rows(a, self.label, first, n, batch))


CSV_HEAD = ["slice", "seconds", "log", "histogram"]


def csv_head(a0):
    """The CSV header row."""
    return CSV_HEAD + ["pct_over_%d%s" % (1 << b, a0.unit)
                       for b in a0.buckets] + ["rate"]


def _csv_values(vals, rate, nb):
    return ["%.2f" % v for v in vals[:nb]] + ["%.1f" % rate]


def csv_batch_rows(a, label, first, n, batch):
    """The CSV rows of a batch of one log's slices (see Analysis.add())."""
    nb = len(a.buckets)
    names = a.histograms
    per_hist = [zip(zip(*values[:nb]), rates)
                for values, rates, ops in batch]
    for k, cells in zip(range(first, first + n), zip(*per_hist)):
        for name, (vals, rate) in zip(names, cells):
            yield [str(k), str(k * a.slice_sec), label, name] + \
                _csv_values(vals, rate, nb)


def csv_tail_rows(labels, analyses):
    """The CSV's avg and max rows."""
    nb = len(analyses[0].buckets)
    names = analyses[0].histograms
    for what in ("avg", "max"):
        for label, a in zip(labels, analyses):
            for i, name in enumerate(names):
                yield [what, "", label, name] + \
                    _csv_values(*getattr(a, what)[i], nb)


def csv_rows(labels, analyses):
    """The table as CSV rows (an iterator): a header, then one row per
    slice, log and histogram (slice, end second, log label, histogram, %
    over each displayed threshold, rate), then each log's avg and max
    rows.  The logs' slices are read back from their spools, side by
    side."""
    a0 = analyses[0]
    nb = len(a0.buckets)
    names = a0.histograms
    yield csv_head(a0)
    for k, cells in enumerate(zip_longest(*[a.rows() for a in analyses]),
                              1):
        for label, a, slice_cells in zip(labels, analyses, cells):
            if slice_cells is None:
                continue
            for name, (vals, rate, ops) in zip(names, slice_cells):
                yield [str(k), str(k * a.slice_sec), label, name] + \
                    _csv_values(vals, rate, nb)
    yield from csv_tail_rows(labels, analyses)


def compare_json_text(labels, analyses, worst, check, write):
    """Write the --json document of several logs: each log's own document
    (with its label), the outlier and the overall --check result - the
    text of json.dumps(compare_json(...))."""
    head = json.dumps({"format": COMPARE_FORMAT, "labels": labels,
                       "slice_sec": analyses[0].slice_sec})
    write(head[:-1] + ', "logs": [')
    for n, (label, a) in enumerate(zip(labels, analyses)):
        write('%s{"label": %s, ' % (", " if n else "", json.dumps(label)))
        started = []

        def skip_brace(text):
            if not started:
                started.append(True)
                text = text[1:]
            write(text)
        json_text(a, skip_brace)
    write("], " + json.dumps({"worst": worst, "check": check})[1:])


def compare_json(labels, analyses, worst, check):
    """The --json document of several logs (a dict)."""
    out = io.StringIO()
    compare_json_text(labels, analyses, worst, check, out.write)
    return json.loads(out.getvalue())
