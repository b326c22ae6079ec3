"""Description: the one helper module of the Python tests (tests/python and
its folders; tests/golden too) - not a test itself:

- analysis/ (the package act) and tests/lib/ (synthlog, the one
  synthetic-log writer) on sys.path;
- programs: act_latency.py run on the fixture logs (run_latency), a
  stand-in for act_storage (stub_program);
- the lines of the C programs, as their own formatters write them (the
  samples of tests/unit/test_loglines), and small act_storage logs made
  of them (header, report, reports; analysed: act.latency's Analysis of
  one);
- the fixture logs of tests/golden/fixtures (written by
  tests/golden/make_fixtures.py, their expected outputs in
  fixtures/expected/), synthetic logs whose field widths change, a plain
  reading of docs/log-format.md, line by line, that the fast reader is
  checked against, the rows of a table parsed back, and a TestCase with a
  temporary folder (TempLogs);
- act.sizing (act_config_helper.py): the "Advanced Flash Device Sizing"
  paper's inputs (sizing/fixtures/), the helper run as a program, a
  config's items, and HelperCase.

A test in a folder of tests/python (latency/, logfile/, ...) puts this
folder on sys.path first:

    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    import support  # noqa: E402
"""

import io
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
LIB = os.path.join(REPO, "tests", "lib")
for _d in (ANALYSIS, LIB):
    if _d not in sys.path:
        sys.path.insert(0, _d)

import synthlog  # noqa: E402

LATENCY = os.path.join(ANALYSIS, "act_latency.py")
GOLDEN = os.path.join(REPO, "tests", "golden")
FIXTURES = os.path.join(GOLDEN, "fixtures")
EXPECTED = os.path.join(FIXTURES, "expected")


# ---------------------------------------------------------------------------
# act_latency.py as a program.

def run_latency(args, cwd=FIXTURES, stdin=None):
    """Run act_latency.py ARGS in cwd (default: the fixture logs' folder);
    returns (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, LATENCY] + args, cwd=cwd,
                       capture_output=True, text=True, input=stdin)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path) as f:
        return f.read()


def stub_program(path):
    """A stand-in for act_storage or act_index whose --check
    --print-config passes: it prints a config echo (what
    act.certify.precheck reads of it) and exits 0."""
    with open(path, "w") as f:
        f.write("#!/bin/sh\nprintf 'ACT-STORAGE CONFIGURATION\\n"
                "service-threads: 4\\n\\n'\n")
    os.chmod(path, stat.S_IRWXU)


# ---------------------------------------------------------------------------
# The lines of the C programs, and small act_storage logs made of them.

# The lines of the C programs, as their own formatters write them: one
# sample (or a few) of every kind of line of the log's catalogue
# (src/common/loglines.h), from tests/unit/test_loglines --samples (built
# by make unit; beside ACT_BIN's target/bin), read once, when first used.
LOGLINES = os.path.join(os.path.dirname(
    os.environ.get("ACT_BIN") or os.path.join(REPO, "target", "bin")),
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
    why = None
    if not os.access(LOGLINES, os.X_OK):
        why = "%s is missing" % LOGLINES
    else:
        for src in LOGLINES_SOURCES:
            if os.path.getmtime(LOGLINES) < os.path.getmtime(
                    os.path.join(REPO, src)):
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
    from act.latency import Spec, analyse
    from act.logfile.header import LogFile
    log = LogFile(path, io.BytesIO(text.encode() if isinstance(text, str)
                                   else text))
    log.read_header()
    return analyse(log, spec or Spec(), keep=True)


# ---------------------------------------------------------------------------
# The fixture logs (tests/golden/fixtures) and what the tests of
# act_latency.py read in its outputs.

# The --check note of several logs, and of one 8-second run in 2-second
# slices (docs/act_latency.md: a certification is 24 hours in 3600 s
# slices).
MULTI_NOTE = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
              "slices (-t 3600); not every log here is: these verdicts are "
              "not a certification\n")
NOTE_8S = ("note: an ACT certification needs 24-hour runs judged in 3600 s "
           "slices (-t 3600); this run is 8 sec and its slices are 2 sec: "
           "this verdict is not a certification\n")

# The three nodes of a cluster (fixtures node1.log .. node3.log) and the
# outlier line of their comparison (-t 2).
NODES = ["-l", "node1.log", "-l", "node2.log", "-l", "node3.log"]
NODES_WORST = ("worst: node3.log, 8.18% over 1 ms at its worst slice, 4.0x "
               "the median of the others (2.05%)")


# ---------------------------------------------------------------------------
# Logs made to order, and a plain reading of docs/log-format.md, line by
# line, to check the fast parser.

def synthetic_log(seconds, names, seed, interval=1, widen=True,
                  junk=False, gaps=(), base=0):
    """A log whose field widths change often (counts crossing powers of
    ten, buckets appearing), optionally with junk lines, missing reports,
    and a big start count in bucket 0 (base)."""
    rnd = random.Random(seed)
    head = ["", "ACT version 6.6", "Storage device IO test", "x", "",
            "ACT-STORAGE CONFIGURATION", "device-names: /dev/sdb",
            "report-interval-sec: %d" % interval,
            "microsecond-histograms: no", "",
            "DERIVED CONFIGURATION", "large-block-reads-per-sec: 1.00", "",
            "HISTOGRAM NAMES"] + names + [""]
    cum = {n: [base] + [0] * 64 for n in names}
    out = head
    for t in range(interval, seconds + 1, interval):
        if t in gaps:
            continue
        out.append("after %d sec:" % t)
        for h, n in enumerate(names):
            c = cum[n]
            scale = 10 ** (t // 7 % 4) if widen else 1
            for b in range(0, 12):
                if rnd.random() < 0.5 ** b:
                    c[b] += rnd.randint(0, 3 * scale)
            if widen and rnd.random() < 0.05:
                c[rnd.randint(12, 64)] += 1
            if junk and rnd.random() < 0.1:
                out.append("ERROR: something %d" % t)
            out.extend(synthlog.histogram(n, c))
        if junk and rnd.random() < 0.1:
            out.append("WARNING: between reports")
        out.append("")
    return "\n".join(out) + "\n"


def naive_reports(text, names):
    """{time: {name: (total, {bucket: count}) or None if cut short}} from a
    log's text, following docs/log-format.md line by line; a partial last line
    is dropped."""
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
    reports, cur, hist = {}, None, None
    body = text[text.index("HISTOGRAM NAMES"):]
    for line in body.split("\n"):
        m = re.match(r"after (\d+) sec:$", line)
        if m:
            cur = reports.setdefault(int(m.group(1)), {})
            hist = None
            continue
        if cur is None:
            continue
        m = re.match(r"(.*) \((\d+) total\)$", line)
        if m and m.group(1) in names:
            hist = None
            if m.group(1) not in cur:
                hist = cur[m.group(1)] = (int(m.group(2)), {})
            continue
        if line.startswith(" (") and hist is not None:
            for b, c in re.findall(r"\((\d+): (\d+)\)", line):
                hist[1][int(b)] = int(c)
    return reports


def naive_slices(text, names, selected, slice_sec, buckets):
    """Per slice: per selected histogram (percentages, rate), by the
    spec's formula; stops at the first missing or incomplete report, slice
    end or not (then at the slice ends before it)."""
    reports = naive_reports(text, names)
    interval = int(re.search(r"report-interval-sec: (\d+)", text).group(1))
    t = interval
    while t in reports and all(
            n in reports[t] and
            sum(reports[t][n][1].values()) == reports[t][n][0]
            for n in selected):
        t += interval
    rows, prev, k = [], {n: ({}, 0) for n in selected}, 1
    while True:
        rep = reports.get(k * slice_sec)
        if rep is None or k * slice_sec >= t:
            return rows
        row = []
        for name in selected:
            if name not in rep:
                return rows
            total, counts = rep[name]
            if sum(counts.values()) != total:
                return rows
            pcounts, ptotal = prev[name]
            d = {b: counts.get(b, 0) - pcounts.get(b, 0) for b in range(65)}
            ops = total - ptotal
            pcts = []
            for b in buckets:
                over = ops - sum(d[i] for i in range(b + 1))
                pcts.append(round(100.0 * over / ops, 2) if ops else 0.0)
            row.append((tuple(pcts), round(ops / slice_sec, 1)))
        for name in selected:
            prev[name] = (rep[name][1], rep[name][0])
        rows.append(row)
        k += 1


# ---------------------------------------------------------------------------
# Tables parsed back, and a temporary folder.

def table_rows(out):
    """{slice label: [values...]} from a table output."""
    rows = {}
    for line in out.split("\n"):
        m = re.match(r"^ *(\d+|avg|max) ((?: +-?\d+\.\d+)+)$", line)
        if m:
            rows[m.group(1)] = [float(v) for v in m.group(2).split()]
    return rows


def compare_rows(out):
    """{slice label: [cells]} of a comparison table; a cell is a float or
    None for a slice the log does not have."""
    rows = {}
    for line in out.split("\n"):
        m = re.match(r"^ *(\d+|avg|max) ((?: +(?:-?\d+\.\d+|-))+)$", line)
        if m:
            rows[m.group(1)] = [None if v == "-" else float(v)
                                for v in m.group(2).split()]
    return rows


class TempDir(unittest.TestCase):
    """A TestCase with a temporary folder of its own for each test,
    self.td (PREFIX its name's start)."""

    PREFIX = "act-test-"

    def setUp(self):
        self._td = tempfile.TemporaryDirectory(prefix=self.PREFIX)
        self.td = self._td.name

    def tearDown(self):
        self._td.cleanup()


class TempLogs(TempDir):
    """Tests that write their logs in a temporary folder (self.tmp), and
    run the script there."""

    def setUp(self):
        super().setUp()
        self.tmp = self.td

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_here(self, args):
        return run_latency(args, cwd=self.tmp)


class SmallLog(TempLogs):
    """TempLogs with self.log: a 10-second act_storage log planning 100
    reads a second and doing them, 2 of each 102 over 1 ms."""

    def setUp(self):
        super().setUp()
        self.log = make(os.path.join(self.tmp, "x.log"),
                        header(duration=10, reads_per_sec=100) +
                        reports(range(1, 11), over=2))


# ---------------------------------------------------------------------------
# act.sizing (act_config_helper.py): the helper run as a program, a
# config's items, and HelperCase (a temporary directory and the checks of a
# config and of a user error).
#
# sizing/fixtures/ holds the "Advanced Flash Device Sizing" paper's own
# inputs: read-sizes.txt / write-sizes.txt (its asloglatency tables of
# {ycsb}-device-read-size / -device-write-size, verbatim with the command
# lines around them), defrag.log (its two drv_ssd lines), paper-session.txt
# (its interactive transcript) and paper-sample-config.txt (the config that
# session generated); expected-paper.conf / expected-paper-report.txt are
# the helper's checked output on the paper's inputs.

HELPER = os.path.join(REPO, "config", "act_config_helper.py")
SIZING_FIXTURES = os.path.join(HERE, "sizing", "fixtures")
HELPER_PROG = "act_config_helper.py"

PAPER_READ_HIST = ("100.00,100.00,100.00,100.00,100.00,100.00,100.00,100.00,"
                   "100.00,100.00,100.00,83.97,68.26,52.89,38.48,25.52,"
                   "12.65,0.00")
PAPER_WRITE_HIST = ("100.00,100.00,100.00,100.00,100.00,100.00,100.00,"
                    "100.00,100.00,100.00,85.72,85.72,71.44,57.11,42.90,"
                    "28.44,14.26,0.00")
PAPER_ARGS = ("--read-sizes", "read-sizes.txt", "--write-sizes",
              "write-sizes.txt", "--defrag-log", "defrag.log")
# The paper's interactive session: 1 device /dev/nvme0n1, the default 24
# hours, the standard load, factor 3, saved.
PAPER_ANSWERS = "1\n/dev/nvme0n1\n\n\n\n3\ny\n"
EOF_MESSAGE = HELPER_PROG + ": end of input - nothing written\n"

# Every item act_storage accepts (spec docs/act_storage.md and
# docs/advanced-sizing.md).
STORAGE_ITEMS = {
    "device-names", "file-size-mbytes", "service-threads",
    "test-duration-sec", "report-interval-sec", "microsecond-histograms",
    "read-reqs-per-sec", "write-reqs-per-sec", "record-bytes",
    "record-bytes-range-max", "large-block-op-kbytes", "replication-factor",
    "update-pct", "defrag-lwm-pct", "no-defrag-reads", "compress-pct",
    "disable-odsync", "commit-to-device", "commit-min-bytes", "tomb-raider",
    "tomb-raider-sleep-usec", "max-lag-sec", "scheduler-mode",
    "io-error-limit", "total-latency",
    "storage-read-histogram", "storage-write-histogram", "read-size-offset",
    "write-size-offset", "lbr-req-offset", "lbw-req-offset",
    "total-lbw-per-sec", "direct-frees",
}
ITEM_RE = re.compile(r"^([a-z-]+):? +(\S+)$")


def run_helper(*args, cwd=SIZING_FIXTURES, stdin_text=None, timeout=30):
    return subprocess.run(
        [sys.executable, HELPER] + list(args), cwd=cwd,
        input=stdin_text if stdin_text is not None else "",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True, timeout=timeout)


def fixture(name):
    with open(os.path.join(SIZING_FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def items(config_text):
    """{item: value} of a config; fails on a line that is not an item."""
    found = {}
    for no, line in enumerate(config_text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        m = ITEM_RE.match(body)
        if not m:
            raise AssertionError("line %d is not 'item: value': %r"
                                 % (no, line))
        found[m.group(1)] = m.group(2)
    return found


def opts(**kw):
    """The options production_config reads, as the parser gives them."""
    o = dict(device_names=None, load_factor=1.0, devices=1,
             read_sizes=None, write_sizes=None, defrag_log=None,
             duration_sec=86400, read_size_offset=None,
             write_size_offset=None, lbr_req_offset=None,
             lbw_req_offset=None)
    o.update(kw)
    return types.SimpleNamespace(**o)


class HelperCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="act-helper-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check_config(self, text):
        """Every line a comment or a known act_storage item; returns items."""
        found = items(text)
        unknown = set(found) - STORAGE_ITEMS
        self.assertFalse(unknown, "not act_storage items: %s" % unknown)
        for legacy in ("num-queues", "threads-per-queue"):
            self.assertNotIn(legacy, found)
        return found

    def ok(self, *args, **kw):
        r = run_helper(*args, **kw)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        return r

    def user_error(self, *args, expect=(), **kw):
        r = run_helper(*args, **kw)
        self.assertEqual(r.returncode, 2, "stdout=%r stderr=%r"
                         % (r.stdout, r.stderr))
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertTrue(r.stderr.startswith(HELPER_PROG + ": error: "),
                        r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        for text in expect:
            self.assertIn(text, r.stderr)
        return r

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path
