"""Description: shared helpers for the act_storage integration tests.

Not a test itself (the runner only runs test_*.py). Provides: locating the
binaries (env ACT_BIN, default target/bin) and analysis/act_latency.py,
temporary directories for file-backed devices, writing configs, running a
binary with a timeout (and with a given stdout), the I/O shim; and, from
the modules beside it, under the same names (itest.X):

- itlog.py: a strict parser of the log layout of docs/log-format.md
  (act_storage's, and act_index's via parse_index_log), per-interval
  rates;
- itdevice.py: act_prep salt checks, directory snapshots, loop device and
  mount helpers;
- tests/lib/checker.py: the result collector Checker and skip() (exit 0
  pass, 1 fail, 77 skip).
"""

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
from itdevice import (  # noqa: E402,F401
    MountedExt4, dir_state, dir_state_diff, fill_file, loop_attach,
    loop_attach_readonly, loop_detach, salt_problems, sh, sha256_file,
    umount)
from itlog import (  # noqa: E402,F401
    BUCKET_LINE_RE, BUCKET_RE, DEVICE_LINE_RE, FACTS_LINE_RE,
    IDENTITY_LINE_RE, INDEX_DEVICE_LINE_RE, START_TIME_RE, Hist, Log,
    ParseError, Report, interval_rates, parse_index_log, parse_log)


def _terminated(signum, _frame):
    """SIGTERM (the runner's timeout): leave like an exception would, so
    `with` blocks and `finally` clauses remove temporary files, unmount and
    detach loop devices."""
    raise SystemExit("FAIL: terminated by signal %d (timeout?)" % signum)


if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGTERM, _terminated)

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


def shim_env(trace=None, fault=None, nvme=None):
    """The environment that preloads the shim: ACT_SHIM_TRACE=trace,
    ACT_SHIM_FAULT=fault, ACT_SHIM_NVME=nvme (a fake NVMe drive; see the
    shim's header comment)."""
    env = dict(os.environ)
    env["LD_PRELOAD"] = shim_path()
    # A sanitized build wants its runtime first; the shim is not sanitized.
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                           ":verify_asan_link_order=0").lstrip(":")
    env.pop("ACT_SHIM_TRACE", None)
    env.pop("ACT_SHIM_FAULT", None)
    env.pop("ACT_SHIM_NVME", None)
    if trace:
        env["ACT_SHIM_TRACE"] = trace
    if fault:
        env["ACT_SHIM_FAULT"] = fault
    if nvme:
        env["ACT_SHIM_NVME"] = nvme
    return env


def read_ioctls(path):
    """The NVMe ioctls of the shim's trace: [(fd, what, result)], what =
    id, identify-cnsNN, log-lidNN, admin-opNN."""
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 6 and parts[0] == "ioctl":
                    out.append((int(parts[3]), parts[4], int(parts[5])))
    return out


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
