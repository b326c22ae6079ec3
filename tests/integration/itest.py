"""Description: shared helpers for the act_storage integration tests.

Not a test itself (the runner only runs test_*.py). Provides: locating the
binaries (env ACT_BIN, default target/bin) and analysis/act_latency.py,
temporary directories for file-backed devices, writing configs, running a
binary with a timeout, a strict parser of the log layout of
docs/log-format.md (act_storage's, and act_index's via parse_index_log),
per-interval rates, act_prep salt checks, directory snapshots, loop device
and mount helpers; and, from tests/lib/checker.py, the result collector
Checker and skip() (exit 0 pass, 1 fail, 77 skip).
"""

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
from checker import (FAIL, NOT_ROOT, PASS, SKIP, Checker,  # noqa: E402,F401
                     skip)


def _terminated(signum, _frame):
    """SIGTERM (the runner's timeout): leave like an exception would, so
    `with` blocks and `finally` clauses remove temporary files, unmount and
    detach loop devices."""
    raise SystemExit("FAIL: terminated by signal %d (timeout?)" % signum)


if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGTERM, _terminated)

IDENTITY_LINE_RE = re.compile(
    r"^(?P<name>\S+) model = (?P<model>.*), serial = (?P<serial>.*), "
    r"firmware = (?P<firmware>.*)$")
# the facts line of a block device (a loop device: then what it is over)
# or of a file (docs/log-format.md, "The identity block")
FACTS_LINE_RE = re.compile(
    r"^(?P<name>\S+) (?:rdev = (?P<rdev>\d+:\d+), wwid = (?P<wwid>.*?)"
    r"(?:, backing_dev = (?P<backing_dev>\d+), backing_ino = "
    r"(?P<backing_ino>\d+), backing_gen = (?P<backing_gen>\d+|unknown), "
    r"backing_file = (?P<backing_file>.*))?|dev = (?P<dev>\d+), ino = "
    r"(?P<ino>\d+), gen = (?P<gen>\d+|unknown))$")
START_TIME_RE = re.compile(r"^start time = (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$")
BUCKET_LINE_RE = re.compile(r"^( \(\d\d: \d{10,}\)){1,4}$")
BUCKET_RE = re.compile(r" \((\d\d): (\d{10,})\)")
DEVICE_LINE_RE = re.compile(
    r"^(?P<name>\S+) size = (?P<size>\d+) bytes, (?P<nlb>\d+) large blocks, "
    r"minimum IO size = (?P<minio>\d+) bytes(?P<buffered>, buffered)?$")
# act_index's device line (docs/log-format.md 3); ", buffered" as in act_storage's
# when the file system refuses O_DIRECT.
INDEX_DEVICE_LINE_RE = re.compile(
    r"^(?P<name>\S+) size = (?P<size>\d+) bytes(?P<buffered>, buffered)?$")


# ----------------------------------------------------------------------------
# Locating things.

def bin_dir():
    d = os.environ.get("ACT_BIN", "target/bin")
    if not os.path.isabs(d) and not os.path.isdir(d):
        alt = os.path.join(REPO, d)
        if os.path.isdir(alt):
            d = alt
    return os.path.abspath(d)


def binary(name="act_storage"):
    """Path of a binary; exits the test (FAIL) when it is missing."""
    path = os.path.join(bin_dir(), name)
    if not os.access(path, os.X_OK):
        print("FAIL: binary %s not found or not executable (set ACT_BIN or "
              "run make)" % path)
        sys.exit(FAIL)
    return path


def latency_script():
    """analysis/act_latency.py if it exists and is executable, else None."""
    path = os.path.join(REPO, "analysis", "act_latency.py")
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return None


def run_latency(log_path, *args, timeout=60):
    script = latency_script()
    return subprocess.run([script, "-l", log_path] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)


SLICE_ROW_RE = re.compile(r"^ *\d+( +-?\d+\.\d\d)+( +\d+\.\d)?$")


def latency_slice_rows(text):
    """The numbered slice rows of an act_latency.py table."""
    return [l for l in text.split("\n") if SLICE_ROW_RE.match(l)]


# ----------------------------------------------------------------------------
# Temporary directories and files.

def _supports_odirect(d):
    probe = os.path.join(d, ".odirect-probe")
    try:
        fd = os.open(probe, os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o600)
        os.close(fd)
        return True
    except OSError:
        return False
    finally:
        try:
            os.unlink(probe)
        except OSError:
            pass


class TempDir:
    """A fresh directory (on a file system with O_DIRECT where possible),
    removed with everything in it on exit."""

    def __init__(self, tag="act-itest"):
        self.path = None
        for base in ("/var/tmp", "/tmp", None):
            if base is not None and not os.path.isdir(base):
                continue
            d = tempfile.mkdtemp(prefix=tag + "-", dir=base)
            if _supports_odirect(d) or base is None:
                self.path = d
                break
            shutil.rmtree(d, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def cleanup(self):
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None

    def join(self, *parts):
        return os.path.join(self.path, *parts)


def write_config(path, items):
    """items: a str (written as is) or a list of (name, value) pairs / raw
    lines."""
    if isinstance(items, str):
        text = items
    else:
        lines = []
        for it in items:
            if isinstance(it, str):
                lines.append(it)
            else:
                lines.append("%s: %s" % it)
        text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return path


def make_filled_file(path, mbytes, byte=b"\0"):
    """A device file with real (allocated) content, so writes do not
    allocate blocks during the run."""
    chunk = byte * (1024 * 1024)
    with open(path, "wb") as f:
        for _ in range(mbytes):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())


def file_state(path):
    """(bytes, mtime_ns) of a file, or None if it does not exist."""
    if not os.path.lexists(path):
        return None
    st = os.stat(path)
    with open(path, "rb") as f:
        data = f.read()
    return (data, st.st_mtime_ns)


# ----------------------------------------------------------------------------
# Running.

class Result:
    def __init__(self, rc, out, err, elapsed, timed_out=False):
        self.rc = rc
        self.out = out
        self.err = err
        self.elapsed = elapsed
        self.timed_out = timed_out

    def describe(self, max_chars=3000):
        def cut(s):
            return s if len(s) <= max_chars else \
                s[:max_chars // 2] + "\n...\n" + s[-max_chars // 2:]
        return ("exit status %s%s after %.1f s\n--- stdout ---\n%s\n"
                "--- stderr ---\n%s" % (self.rc,
                                       " (TIMED OUT)" if self.timed_out
                                       else "", self.elapsed, cut(self.out),
                                       cut(self.err)))


def run(args, timeout=60, prefix=None, env=None, cwd=None):
    """Run a command (args: list; a bare config path runs act_storage on
    it) in cwd (default: ours), capturing stdout and stderr as text. Never
    hangs: killed after timeout seconds."""
    if isinstance(args, str):
        args = [binary(), args]
    if prefix:
        args = list(prefix) + list(args)
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, universal_newlines=True,
                         errors="replace", env=env, cwd=cwd)
    out, err, timed_out = communicate(p, timeout)
    return Result(p.returncode, out, err, time.monotonic() - t0, timed_out)


def communicate(p, timeout):
    """p.communicate(), but a process still running after timeout seconds
    is killed: (stdout, stderr, timed_out)."""
    try:
        out, err = p.communicate(timeout=timeout)
        return out, err, False
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return out, err, True


def start(args):
    """Start a command in the background with stdout/stderr to pipes."""
    if isinstance(args, str):
        args = [binary(), args]
    return subprocess.Popen(args, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            universal_newlines=True, errors="replace")


class Reader:
    """Collects a started process's stdout and stderr in threads; .seen is
    set when stdout has the line watch (without its newline)."""

    def __init__(self, p, watch=None):
        self.p = p
        self.watch = None if watch is None else watch + "\n"
        self.out, self.err = [], []
        self.seen = threading.Event()
        self.threads = [
            threading.Thread(target=self._read, args=(p.stdout, self.out,
                                                      True)),
            threading.Thread(target=self._read, args=(p.stderr, self.err,
                                                      False))]
        for t in self.threads:
            t.daemon = True
            t.start()

    def _read(self, f, acc, watch):
        for line in f:
            acc.append(line)
            if watch and line == self.watch:
                self.seen.set()

    def finish(self, timeout=30):
        """Wait for the process (killed after timeout); returns
        (stdout, stderr, timed_out)."""
        timed_out = False
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            timed_out = True
        for t in self.threads:
            t.join(10)
        return "".join(self.out), "".join(self.err), timed_out


class Running:
    """A program started in the background (stdout and stderr read as
    text); .wait_started() waits until a stdout line starts with `ready`,
    .finish() waits for the end (killed after timeout s) and gives its
    Result."""

    def __init__(self, args, ready, env=None, pass_fds=(), timeout=30):
        self.t0 = time.monotonic()
        self.p = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, universal_newlines=True,
            errors="replace", env=env, pass_fds=pass_fds)
        self.rd = Reader(self.p)
        self.ready = ready
        self.timeout = timeout

    def wait_started(self, timeout=15):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(l.startswith(self.ready) for l in list(self.rd.out)):
                return True
            if self.p.poll() is not None:
                return False
            time.sleep(0.02)
        return False

    def finish(self):
        out, err, timed_out = self.rd.finish(self.timeout)
        return Result(self.p.returncode, out, err,
                      time.monotonic() - self.t0, timed_out)


def run_parallel(jobs, timeout=60, envs=None):
    """jobs: dict key -> args; envs: key -> environment for some of them.
    Runs them all at once; returns key -> Result."""
    results = {}
    envs = envs or {}

    def one(key, args):
        results[key] = run(args, timeout=timeout, env=envs.get(key))

    threads = [threading.Thread(target=one, args=(k, a))
               for k, a in jobs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


# ----------------------------------------------------------------------------
# Parsing a log (docs/log-format.md).

class ParseError(Exception):
    def __init__(self, line_no, msg, line=None):
        Exception.__init__(self, "line %d: %s%s" % (
            line_no, msg, "" if line is None else " (got %r)" % line))


class Hist:
    def __init__(self, name, total, buckets):
        self.name = name
        self.total = total
        self.buckets = buckets  # list of (index, count), as printed

    def counts(self):
        return dict(self.buckets)


class Report:
    def __init__(self, sec, line_no):
        self.sec = sec
        self.line_no = line_no
        self.hists = {}


class Log:
    def __init__(self):
        self.lines = []
        self.version = None
        self.program_line = None
        self.notice = None
        self.cpus = None
        self.heading = None
        self.config = []      # [(name, value)] in order
        self.derived = []     # [(name, value)] in order
        self.devices = []     # device lines
        self.identity = []    # {name, model, serial, firmware} per block dev
        self.facts = []       # FACTS_LINE_RE's groups per device
        self.start_time = None  # "2026-11-23T03:47:33Z"
        self.names = []       # histogram names
        self.reports = []     # complete reports
        self.tail = []        # lines after the last complete report
        self.tail_line_no = None
        self.incomplete = False  # EOF inside a report
        self.skipped = []     # lines skipped between reports (allow_between)

    def cfg(self, name):
        for n, v in self.config:
            if n == name:
                return v
        return None

    def der(self, name):
        for n, v in self.derived:
            if n == name:
                return v
        return None

    def totals(self, name):
        """[(sec, total)] of one histogram over the complete reports."""
        return [(r.sec, r.hists[name].total) for r in self.reports]


def _kv(line, line_no):
    m = re.match(r"^([a-z0-9-]+): (.*)$", line)
    if m is None:
        raise ParseError(line_no, "expected 'name: value'", line)
    return m.group(1), m.group(2)


def parse_log(text, heading="ACT-STORAGE CONFIGURATION",
              program_line="Storage device IO test", allow_between=(),
              strict_buckets=True, device_re=None):
    """Parse a whole log. Header violations raise ParseError; reports are
    parsed while they are complete and well formed; a malformed report
    raises ParseError; what follows the last complete report is left in
    log.tail (log.incomplete if EOF came inside a report); a log stopped
    in device setup - an ERROR or stop line where the device lines would
    be - has no devices, no reports, and that line on in log.tail. Lines
    starting with one of allow_between are skipped between reports
    (log.skipped).
    device_re: the device line pattern (default act_storage's)."""
    if device_re is None:
        device_re = DEVICE_LINE_RE
    log = Log()
    # A last line without its newline is not whole: left out (a report
    # cut there counts as incomplete).
    lines = text.split("\n")[:-1]
    log.lines = lines
    n = len(lines)
    i = 0

    def need(cond, msg):
        if not cond:
            raise ParseError(i + 1, msg, lines[i] if i < n else "<EOF>")

    def line(k=None):
        return lines[i] if i < n else None

    need(line() == "", "line 1 must be empty")
    i += 1
    m = re.match(r"^ACT version (\S+)$", line() or "")
    need(m is not None, "expected 'ACT version V'")
    log.version = m.group(1)
    i += 1
    need(line() == program_line, "expected %r" % program_line)
    log.program_line = line()
    i += 1
    need(line() is not None and line() != "", "expected a notice line")
    log.notice = line()
    i += 1
    need(line() == "", "expected an empty line after the notice")
    i += 1

    m = re.match(r"^detected (\d+) CPUs$", line() or "")
    if m is not None:
        log.cpus = int(m.group(1))
        i += 1
        need(line() == "", "expected an empty line after 'detected N CPUs'")
        i += 1

    need(line() == heading, "expected %r" % heading)
    log.heading = line()
    i += 1
    while i < n and lines[i] != "":
        log.config.append(_kv(lines[i], i + 1))
        i += 1
    need(line() == "", "config block must end with an empty line")
    i += 1

    need(line() == "DERIVED CONFIGURATION",
         "expected 'DERIVED CONFIGURATION'")
    i += 1
    while i < n and lines[i] != "":
        log.derived.append(_kv(lines[i], i + 1))
        i += 1
    need(line() == "", "derived block must end with an empty line")
    i += 1

    # Stopped while the devices were set up (docs/log-format.md: a signal,
    # a hung setup I/O, a device error): no device line, no report - what
    # follows is the tail.
    if line() is not None and line().startswith((
            "ERROR: ", "stopped by signal ", "stopped on request: ")):
        log.tail = lines[i:]
        log.tail_line_no = i + 1
        return log

    while i < n and lines[i] != "":
        need(device_re.match(lines[i]) is not None,
             "device line does not match %s" % device_re.pattern)
        log.devices.append(lines[i])
        i += 1
    need(len(log.devices) > 0, "expected at least one device line")
    need(line() == "", "device lines must end with an empty line")
    i += 1

    # Our identity block (docs/log-format.md): per block device its model,
    # serial and firmware and its facts line, per file its facts line,
    # then the start time, then an empty line. Reference logs have none.
    if line() is not None and line() != "HISTOGRAM NAMES":
        while i < n and lines[i] != "":
            m = IDENTITY_LINE_RE.match(lines[i])
            f = FACTS_LINE_RE.match(lines[i])
            if m is not None:
                log.identity.append(m.groupdict())
            elif f is not None:
                log.facts.append(f.groupdict())
            else:
                m = START_TIME_RE.match(lines[i])
                need(m is not None, "expected '<device> model = M, serial = "
                     "S, firmware = F', '<device> rdev = ...', '<device> "
                     "dev = ...' or 'start time = <ISO 8601 UTC>'")
                need(log.start_time is None, "two start time lines")
                log.start_time = m.group(1)
            i += 1
        need(log.start_time is not None, "identity block without start time")
        need(line() == "", "the identity block must end with an empty line")
        i += 1

    need(line() == "HISTOGRAM NAMES", "expected 'HISTOGRAM NAMES'")
    i += 1
    while i < n and lines[i] != "":
        log.names.append(lines[i])
        i += 1
    need(line() == "", "histogram names must end with an empty line")
    i += 1

    # Reports.
    while True:
        while allow_between and i < n and lines[i].startswith(allow_between):
            log.skipped.append(lines[i])
            i += 1
        start_i = i
        m = re.match(r"^after (\d+) sec:$", line() or "")
        if m is None:
            break
        rep = Report(int(m.group(1)), i + 1)
        i += 1
        ok = True
        for name in log.names:
            if i >= n:
                ok = False
                break
            hm = re.match(r"^" + re.escape(name) + r" \((\d+) total\)$",
                          lines[i])
            need(hm is not None, "expected '%s (T total)' in the report "
                 "'after %d sec'" % (name, rep.sec))
            total = int(hm.group(1))
            i += 1
            bucket_lines = []
            while i < n and lines[i].startswith(" ("):
                need(BUCKET_LINE_RE.match(lines[i]) is not None,
                     "bad bucket line (want %s)" % BUCKET_LINE_RE.pattern)
                bucket_lines.append(lines[i])
                i += 1
            if i >= n:
                ok = False  # EOF: this histogram may be cut short
                break
            buckets = []
            for k, bl in enumerate(bucket_lines):
                found = [(int(a), int(b)) for a, b in BUCKET_RE.findall(bl)]
                if strict_buckets and k < len(bucket_lines) - 1 and \
                        len(found) != 4:
                    raise ParseError(i + 1 - len(bucket_lines) + k,
                                     "only the last bucket line of %s may "
                                     "have fewer than 4 buckets" % name, bl)
                buckets.extend(found)
            idx = [b for b, _ in buckets]
            if strict_buckets:
                if any(idx[j] >= idx[j + 1] for j in range(len(idx) - 1)):
                    raise ParseError(rep.line_no, "bucket indexes of %s not "
                                     "strictly increasing: %s" % (name, idx))
                if any(c == 0 for _, c in buckets):
                    raise ParseError(rep.line_no, "zero bucket printed in %s"
                                     % name)
                if any(b > 64 for b in idx):
                    raise ParseError(rep.line_no, "bucket index > 64 in %s"
                                     % name)
            if sum(c for _, c in buckets) != total:
                raise ParseError(rep.line_no, "%s: total %d != sum of "
                                 "buckets %d" % (name, total,
                                                 sum(c for _, c in buckets)))
            rep.hists[name] = Hist(name, total, buckets)
        if ok and i < n and lines[i] == "":
            i += 1
            log.reports.append(rep)
            continue
        if i >= n:
            log.incomplete = True
            i = start_i
            break
        raise ParseError(i + 1, "report 'after %d sec' must end with an "
                         "empty line" % rep.sec, lines[i])
    log.tail = lines[i:]
    log.tail_line_no = i + 1
    return log


def parse_index_log(text, **kw):
    """parse_log for act_index: its banner line, heading and device line."""
    kw.setdefault("heading", "ACT-INDEX CONFIGURATION")
    kw.setdefault("program_line", "Index device IO test")
    kw.setdefault("device_re", INDEX_DEVICE_LINE_RE)
    return parse_log(text, **kw)


def interval_rates(log, name):
    """Operations per second of one histogram in each interval between
    consecutive complete reports (the first interval, from the start, is
    left out): [(sec of the interval's end, rate)]."""
    t = log.totals(name)
    return [(t[k][0], (t[k][1] - t[k - 1][1]) / float(t[k][0] - t[k - 1][0]))
            for k in range(1, len(t))]


# ----------------------------------------------------------------------------
# act_prep results, files and directories.

def fill_file(path, size, byte=b"\xa5"):
    """A regular file of exactly size bytes, every byte `byte`, on disk."""
    chunk = byte * (1024 * 1024)
    with open(path, "wb") as f:
        left = size
        while left > 0:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
        f.flush()
        os.fsync(f.fileno())


def salt_problems(path, old_byte=None, size=None, max_each=5):
    """Checks that a prepared device (file or block device) is fully salted
    over its first size bytes (default: all of it): no 4 KiB block -
    including a partial last one - all zero or (old_byte) all the old fill
    byte, no two whole 128 KiB blocks identical. Returns a list of problem
    strings (empty: salted)."""
    zero4 = bytes(4096)
    old4 = None if old_byte is None else old_byte * 4096
    problems = []
    counts = {"zero": 0, "old": 0, "dup": 0}
    seen = {}
    off = 0
    with open(path, "rb") as f:
        while size is None or off < size:
            want = 131072 if size is None else min(131072, size - off)
            blk = f.read(want)
            if not blk:
                break
            for k in range(0, len(blk), 4096):
                b = blk[k:k + 4096]
                kind = None
                if b == zero4[:len(b)]:
                    kind = "zero"
                elif old4 is not None and b == old4[:len(b)]:
                    kind = "old"
                if kind is not None:
                    counts[kind] += 1
                    if counts[kind] <= max_each:
                        problems.append("%d-byte block at offset %d is all %s"
                                        % (len(b), off + k, "zero" if
                                           kind == "zero" else
                                           "the old fill byte"))
            if len(blk) == 131072:
                h = hashlib.sha256(blk).digest()
                if h in seen:
                    counts["dup"] += 1
                    if counts["dup"] <= max_each:
                        problems.append("128 KiB block at offset %d is "
                                        "identical to the one at offset %d"
                                        % (off, seen[h]))
                else:
                    seen[h] = off
            off += len(blk)
    if size is not None and off != size:
        problems.append("only %d of %d bytes could be read" % (off, size))
    for kind, n in counts.items():
        if n > max_each:
            problems.append("... %d %s blocks in all" % (n, kind))
    return problems


def dir_state(root):
    """{relative path: ('dir',) or (size, mtime_ns, sha256)} of everything
    under root: compare before/after to show nothing was created or
    modified."""
    state = {}
    for d, dirs, files in os.walk(root):
        for name in dirs:
            p = os.path.join(d, name)
            state[os.path.relpath(p, root)] = ("dir",)
        for name in files:
            p = os.path.join(d, name)
            st = os.lstat(p)
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            state[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns,
                                               h.hexdigest())
    return state


def dir_state_diff(before, after):
    """Human-readable differences between two dir_state results ('' if
    none)."""
    out = []
    for k in sorted(set(before) | set(after)):
        if k not in before:
            out.append("created: %s" % k)
        elif k not in after:
            out.append("removed: %s" % k)
        elif before[k] != after[k]:
            out.append("modified: %s %r -> %r" % (k, before[k][:2],
                                                   after[k][:2]))
    return "\n".join(out)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ----------------------------------------------------------------------------
# The I/O shim (tests/shim/act_shim.c): trace, slow, hang or fail the
# programs' preads and pwrites from outside.

def shim_path():
    """target/tests/libact_shim.so (beside ACT_BIN's target/bin); exits the
    test (FAIL) when it is missing."""
    for d in (os.path.join(os.path.dirname(bin_dir()), "tests"),
              os.path.join(REPO, "target", "tests")):
        path = os.path.join(d, "libact_shim.so")
        if os.path.isfile(path):
            return path
    print("FAIL: target/tests/libact_shim.so not found (run make unit)")
    sys.exit(FAIL)


def read_pty(master, deadline):
    """Everything a child writes to the pty whose master side is master,
    until it closes it (EIO or end of file) or time.monotonic() passes
    deadline, as bytes."""
    chunks = []
    while time.monotonic() < deadline:
        try:
            data = os.read(master, 65536)
        except OSError:            # EIO: the child closed the pty
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def shim_env(trace=None, fault=None):
    """The environment that preloads the shim: ACT_SHIM_TRACE=trace,
    ACT_SHIM_FAULT=fault (see the shim's header comment)."""
    env = dict(os.environ)
    env["LD_PRELOAD"] = shim_path()
    # A sanitized build wants its runtime first; the shim is not sanitized.
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                           ":verify_asan_link_order=0").lstrip(":")
    env.pop("ACT_SHIM_TRACE", None)
    env.pop("ACT_SHIM_FAULT", None)
    if trace:
        env["ACT_SHIM_TRACE"] = trace
    if fault:
        env["ACT_SHIM_FAULT"] = fault
    return env


class TraceRec:
    __slots__ = ("issue", "done", "tid", "fd", "op", "off", "size", "res")

    def __init__(self, f):
        self.issue, self.done = int(f[0]), int(f[1])
        self.tid, self.fd, self.op = int(f[2]), int(f[3]), f[4]
        self.off, self.size, self.res = int(f[5]), int(f[6]), int(f[7])


def read_trace(path):
    """The shim's trace: TraceRec per I/O, sorted by issue time."""
    recs = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 8:
                    recs.append(TraceRec(parts))
    recs.sort(key=lambda r: r.issue)
    return recs


def error_lines(text):
    """The ERROR: lines of a program's stderr."""
    return [l for l in text.split("\n") if l.startswith("ERROR:")]


def check_program_refused(c, key, r, pattern, trace=None):
    """A program run (r: .rc, .out, .err, .describe()) was refused before
    any work: exit 2, an ERROR line matching pattern, no start of a test or
    of act_prep's cleaning - and, with trace (the shim's trace file), not
    one I/O."""
    detail = r.describe()
    if trace is not None:
        c.eq("[%s] I/Os made by the refused program (shim trace)" % key, [],
             ["%s %d+%d" % (t.op, t.off, t.size)
              for t in read_trace(trace)][:5], detail)
    c.eq("[%s] exit status" % key, 2, r.rc, detail)
    errs = error_lines(r.err)
    c.check(any(re.search(pattern, l) for l in errs),
            "[%s] no ERROR line matching %r" % (key, pattern), detail)
    c.check("start time = " not in r.out and "cleaning" not in r.out,
            "[%s] the program started its work" % key, detail)
    print("[%s] exit %s: %s" % (key, r.rc, errs[0] if errs else
                                r.err.strip()[:200]))


# ----------------------------------------------------------------------------
# Loop devices and mounts (root only; callers skip when they fail).

def sh(args, timeout=60):
    return subprocess.run(args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=timeout)


def loop_attach(path, read_only=False):
    """Attach a file to a free loop device (read-only with read_only):
    (device, None) or (None, why)."""
    if shutil.which("losetup") is None:
        return None, "losetup not installed"
    try:
        r = sh(["losetup"] + (["--read-only"] if read_only else []) +
               ["--find", "--show", path])
    except (OSError, subprocess.SubprocessError) as e:
        return None, str(e)
    if r.returncode != 0:
        return None, r.stderr.strip()
    dev = r.stdout.strip()
    if not dev.startswith("/dev/loop"):
        return None, "unexpected losetup output %r" % r.stdout
    return dev, None


def loop_detach(dev):
    """Detach a loop device we attached (retried while it is busy)."""
    for _ in range(25):
        if sh(["losetup", "-d", dev]).returncode == 0:
            return True
        time.sleep(0.2)
    print("warning: could not detach %s" % dev)
    return False


def umount(path):
    for _ in range(25):
        if sh(["umount", path]).returncode == 0:
            return True
        time.sleep(0.2)
    print("warning: could not unmount %s" % path)
    return False


# ----------------------------------------------------------------------------
# A mounted device (results are collected by Checker, tests/lib/checker.py).

class MountedExt4:
    """A loop device holding an ext4 file system mounted read-only on a
    temp dir, for the "refuse a mounted device" tests (root only). Use as
    `with MountedExt4(c, td) as m:`; m.dev is None (a part skipped on c)
    when it could not be set up. On exit it unmounts, detaches, and checks that
    the image is byte-identical to what it was once mounted: a read-only
    mount only changes if the program under test wrote to the device."""

    def __init__(self, checker, td, mib=32):
        self.c = checker
        self.img = td.join("ext4.img")
        self.mnt = td.join("mnt")
        self.mib = mib
        self.dev = None
        self._loop = None
        self._mounted = False
        self._before = None

    def _skip(self, why):
        self.c.skip_part("mounted device", why)
        self.dev = None
        return self

    def __enter__(self):
        if os.geteuid() != 0:
            return self._skip(NOT_ROOT)
        if shutil.which("mkfs.ext4") is None or shutil.which("mount") is None:
            return self._skip("no mkfs.ext4 or mount")
        os.mkdir(self.mnt)
        with open(self.img, "wb") as f:
            f.truncate(self.mib * 1024 * 1024)
        self._loop, why = loop_attach(self.img)
        if self._loop is None:
            return self._skip("losetup failed: %s" % why)
        r = sh(["mkfs.ext4", "-q", "-F", self._loop])
        if r.returncode != 0:
            return self._skip("mkfs.ext4 failed: %s" % r.stderr.strip())
        r = sh(["mount", "-o", "ro", self._loop, self.mnt])
        if r.returncode != 0:
            return self._skip("mount not permitted: %s" % r.stderr.strip())
        self._mounted = True
        sh(["sync"])
        self._before = sha256_file(self.img)
        self.dev = self._loop
        return self

    def __exit__(self, *exc):
        if self._mounted:
            self._mounted = not umount(self.mnt)
        if self._loop is not None and not self._mounted:
            loop_detach(self._loop)
        if self._before is not None and not self._mounted:
            sh(["sync"])
            self.c.eq("mounted device: image checksum after unmount",
                      self._before, sha256_file(self.img))
        return False

    def check_refused(self, r, started):
        """r: the Result of running the program on self.dev; started: a
        text whose presence on stdout means it began its work."""
        detail = r.describe()
        self.c.eq("mounted device: exit status", 2, r.rc, detail)
        errs = [l for l in (r.out + r.err).split("\n")
                if l.startswith("ERROR:")]
        self.c.check(any(self.dev in l and self.mnt in l for l in errs),
                     "mounted device: no ERROR line naming %s and the mount "
                     "point %s" % (self.dev, self.mnt), detail)
        self.c.check(started not in r.out, "mounted device: the program "
                     "started its work", detail)
        print("mounted %s: exit %s: %s" % (self.dev, r.rc,
                                           errs[0] if errs else "-"))


# ----------------------------------------------------------------------------
# Where the log goes: running with a given stdout, read-only loop devices.

def ignore_sigpipe():
    """preexec_fn: SIGPIPE ignored in the child, as systemd starts
    services (a write to a closed pipe then fails with EPIPE)."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)


def run_stdout(args, stdout, timeout=60, env=None, preexec_fn=None):
    """Run a command with stdout as given (a file object, an fd, or
    subprocess.DEVNULL), stderr captured as text. Never hangs: killed after
    timeout seconds. Result.out is ''."""
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=stdout, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, universal_newlines=True,
                         errors="replace", env=env, preexec_fn=preexec_fn)
    _, err, timed_out = communicate(p, timeout)
    return Result(p.returncode, "", err, time.monotonic() - t0, timed_out)


def loop_attach_readonly(path):
    """Attach a file to a free loop device read-only (losetup -r):
    (device, None) or (None, why)."""
    return loop_attach(path, read_only=True)
