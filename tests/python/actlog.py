"""Helpers of the tests in tests/python: the act package on sys.path, and
small ACT logs made to order (the layout of docs/log-format.md)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "analysis"))

# The lines of the C programs, as their own formatters write them: one
# sample (or a few) of every kind of line of the log's catalogue
# (src/common/loglines.h), from tests/unit/test_loglines --samples (built
# by make unit; beside ACT_BIN's target/bin), read once, when first used.
LOGLINES = os.path.join(os.path.dirname(
    os.environ.get("ACT_BIN") or os.path.join(ROOT, "target", "bin")),
    "tests", "test_loglines")
# the files of the formatters the samples come from
LOGLINES_SOURCES = (
    "tests/unit/test_loglines.c", "src/common/loglines.c",
    "src/common/loglines.h", "src/common/stop.h", "src/common/version.h",
    "src/common/report.c", "src/common/hist.c", "src/common/cfg.c",
    "src/storage/storage_cfg.c", "src/index/index_cfg.c")


class Sample:
    """One sample: its kind's token, the line, and the values its
    formatter was given ({field: text}) - a field the line lacks is not
    there."""

    def __init__(self, token, line, fields):
        self.token, self.line, self.fields = token, line, fields

    def __repr__(self):
        return "Sample(%r, %r)" % (self.token, self.line)


_SAMPLES = []


def loglines(option):
    """The output of test_loglines OPTION (--samples, --kinds); fails the
    test run (RuntimeError) when it is missing or older than its
    sources."""
    import subprocess
    why = None
    if not os.access(LOGLINES, os.X_OK):
        why = "%s is missing" % LOGLINES
    else:
        for src in LOGLINES_SOURCES:
            if os.path.getmtime(LOGLINES) < os.path.getmtime(
                    os.path.join(ROOT, src)):
                why = "%s is older than %s" % (LOGLINES, src)
    if why:
        raise RuntimeError(why + " - run make unit")
    r = subprocess.run([LOGLINES, option], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: exit status %d\n%s" % (
            LOGLINES, option, r.returncode, r.stderr))
    return r.stdout


def samples():
    """Every Sample, in the order the program printed them."""
    if not _SAMPLES:
        for text in loglines("--samples").splitlines():
            token, line, *fields = text.split("\t")
            _SAMPLES.append(Sample(token, line, dict(
                f.split("=", 1) for f in fields)))
    return _SAMPLES


def samples_of(token):
    """The samples of kind token."""
    return [smp for smp in samples() if smp.token == token]


def line(token, **want):
    """The line of the first sample of kind token whose fields include
    want (field=text; field=None: a field the sample lacks)."""
    for smp in samples():
        if smp.token == token and all(smp.fields.get(k) == v
                                      for k, v in want.items()):
            return smp.line
    raise LookupError("no sample of %s with %r" % (token, want))


# The stop lines of the C programs, one pair or line of each kind
# (docs/log-format.md, "End of run"), as module attributes.
_STOPS = {
    "HOST_LAG": lambda: [line("lag"), line("host-limit")],
    "DRIVE_LAG": lambda: [line("lag"), line("drive-limit", n_io="2")],
    "DRIVE_STALL": lambda: [line("stall"), line("drive-limit", n_io=None)],
    "HUNG": lambda: [line("hung-io", stopped="test stopped")],
    "IO_ERRORS": lambda: [line("io-failed", op="read"),
                          line("io-failed", op="large-block write"),
                          line("io-errors")],
}


def __getattr__(name):
    if name in _STOPS:
        return _STOPS[name]()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def header(duration=5, interval=1, micro=False, commit=False,
           names=("reads", "writes"), identity=True, reads_per_sec=2000):
    """The head of an act_storage log, up to the HISTOGRAM NAMES block, on
    the device of the first storage-device sample; its derived
    configuration plans reads_per_sec reads a second (reports() does 100
    + over: a log judged with --check plans what it does, or is NOT
    JUDGED)."""
    dev = line("storage-device", buffered="no")
    device = dev.split(" size = ")[0]
    lines = ["", line("version"), "Storage device IO test", "",
             line("config-heading", program="ACT-STORAGE"),
             "device-names: " + device]
    if duration is not None:
        lines.append("test-duration-sec: %d" % duration)
    lines += ["report-interval-sec: %d" % interval,
              "microsecond-histograms: %s" % ("yes" if micro else "no"),
              "commit-to-device: %s" % ("yes" if commit else "no"), "",
              line("derived-heading"),
              "internal-read-reqs-per-sec: %d" % reads_per_sec, "", dev, ""]
    if identity:
        lines += [line("identity", device=device), line("start-time"), ""]
    lines += [line("names-heading")] + list(names) + [""]
    return "\n".join(lines) + "\n"


def report(sec, hists):
    """One report: hists maps a name to its cumulative bucket counts
    {bucket: count}."""
    out = ["after %d sec:" % sec]
    for name, buckets in hists.items():
        out.append("%s (%d total)" % (name, sum(buckets.values())))
        if buckets:
            out.append(" " + " ".join("(%02d: %010d)" % (b, c) for b, c in
                                      sorted(buckets.items())))
    return "\n".join(out) + "\n\n"


def reports(secs, names=("reads", "writes"), over=1):
    """Reports at each of secs: per second 100 operations in bucket 0 and
    `over` in bucket 3 (over 1 ms), cumulative."""
    return "".join(report(t, {n: {0: 100 * t, 3: over * t} for n in names})
                   for t in secs)


def make(path, text):
    with open(path, "wb") as f:
        f.write(text.encode() if isinstance(text, str) else text)
    return path


def analysed(text, spec=None, path="x.log"):
    """act.latency's Analysis of log text (named path) as spec (an
    act.latency.Spec; default: Spec()) asks, its slices kept (no table
    printed)."""
    import io
    from act.latency import Spec, analyse
    from act.logfile.header import LogFile
    log = LogFile(path, io.BytesIO(text.encode() if isinstance(text, str)
                                   else text))
    log.read_header()
    return analyse(log, spec or Spec(), keep=True)
