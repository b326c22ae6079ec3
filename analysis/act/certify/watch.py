"""What a user watches while a campaign runs: the progress line on stderr
(live on a terminal, plain lines otherwise; act_prep's percent and ETA
read from its stderr) and the reports rewritten while a step runs."""

import os
import re
import sys
import time

from act.certify import PROG
from act.certify.fmt import fmt_clock, fmt_duration, fmt_load, warn
from act.certify.publish import write_reports


PROGRESS_EVERY = 300            # seconds between plain progress lines
REPORT_EVERY = 300              # seconds between live report rewrites


class Progress:
    """A live line on a terminal; plain lines otherwise (step start, every
    PROGRESS_EVERY seconds). While a step runs (watch()), each tick also
    gives the live report its chance to be rewritten."""

    def __init__(self, stream=None, metrics=None):
        self.stream = stream or sys.stderr
        self.metrics = metrics      # --metrics PATH, or None
        try:
            self.tty = self.stream.isatty()
        except (OSError, ValueError):
            self.tty = False
        self.shown = False
        self.last_plain = 0.0
        self.dead = False
        self.live = None            # LiveReport of the running step
        self.prep = None            # PrepProgress of a running act_prep

    def _write(self, text):
        if self.dead:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.dead = True        # e.g. the terminal went away (SIGHUP)

    def width(self):
        """The columns of the terminal the line is drawn on (stderr's,
        whatever stdout is), 80 when it can't be told."""
        try:
            cols = os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            cols = 0
        return cols if cols > 0 else 80

    def clear(self):
        if self.shown:
            self._write("\r\x1b[K")
            self.shown = False

    def line(self, text):
        """A plain line on stderr (after clearing the live line)."""
        self.clear()
        self._write(text + "\n")

    def watch(self, live=None, prep=None):
        """The running step's live report and act_prep progress (None
        when no step runs)."""
        self.live, self.prep = live, prep

    def step_started(self, step, total):
        self.last_plain = time.monotonic()
        if not self.tty:
            self.line("%s: step %d/%d started: %s" % (PROG, step.number,
                                                     total, step.title))

    def tick(self, step, total, elapsed, follower, left):
        if self.live is not None:
            self.live.tick(elapsed, follower)
        variants = progress_variants(
            step, total, elapsed, follower, left, self.prep,
            self.live.failing if self.live is not None else ())
        if self.tty:
            width = self.width() - 1
            self._write("\r\x1b[K" + fit_line(variants, width))
            self.shown = True
        elif time.monotonic() - self.last_plain >= PROGRESS_EVERY:
            self.last_plain = time.monotonic()
            self.line("%s: %s" % (PROG, variants[0]))


def progress_variants(step, total, elapsed, follower, left, prep=None,
                      failing=()):
    """The progress line from the most to the least detailed, each made
    of whole fields (what fits is chosen by fit_line): act_storage's
    clock (H:MM:SS elapsed/planned, ETA), the share of reads over 1 ms,
    the drives over a limit so far (failing: their names, from the live
    report's analysis of the step's log)."""
    head = "[%d/%d]" % (step.number, total)
    label = progress_label(step)
    short = label.split(" x")[0] if step.kind != "prep" else label
    dur = step.duration_sec
    if step.kind == "prep":
        got = prep.progress() if prep is not None else None
        clock = fmt_clock(elapsed)
        if got is None:
            return ["%s %s  %s" % (head, label, clock)]
        pct, phase, eta = got
        return ["%s %s  %s  %d%% (%s) ETA %s" % (head, label, clock, pct,
                                                 phase, fmt_clock(eta)),
                "%s %s  %s  %d%% ETA %s" % (head, label, clock, pct,
                                            fmt_clock(eta)),
                "%s %s %d%% ETA %s" % (head, label, pct, fmt_clock(eta)),
                "%s %d%%" % (head, pct)]
    clock = "%s/%s" % (fmt_clock(elapsed), fmt_clock(dur) if dur else "?")
    eta = " ETA %s" % fmt_clock(left) if left is not None else ""
    pct = follower.window(step.slice_sec) if follower else None
    full = brief = ""
    if pct is not None:
        full = "  reads > 1 ms: %.2f%% (last %s)" % (pct[0],
                                                   fmt_duration(pct[1]))
        brief = "  >1ms %.2f%%" % pct[0]
    if failing:
        bad = ", ".join(failing)
        full += "  FAIL: %s over a limit" % bad
        brief += "  FAIL: %s" % bad
    return ["%s %s  %s%s%s" % (head, label, clock, eta, full),
            "%s %s  %s%s%s" % (head, label, clock, eta, brief),
            "%s %s  %s%s%s" % (head, short, clock, eta, brief),
            "%s %s%s%s" % (head, clock, eta, brief),
            "%s %s%s" % (head, clock, eta),
            "%s %s" % (head, clock)]


def fit_line(variants, width):
    """The first variant that fits width columns - whole fields dropped,
    never a word cut - or, on a terminal too narrow for any, the last
    one."""
    for v in variants:
        if len(v) <= width:
            return v
    return variants[-1]


class PrepProgress:
    """act_prep's progress from its stderr (the step's .err file): its
    lines "act_prep: cleaning DEV: 45% 1532 MB/s ETA 0:31:02 (...)",
    one per device every 5 % (src/prep/act_prep.c)."""

    LINE = re.compile(r"act_prep: (cleaning|salting) (\S+): (\d+)% .*"
                      r"ETA (\d+):(\d\d):(\d\d)")

    def __init__(self, err_path, devices):
        self.path = err_path
        self.devices = list(devices)
        self.pos = 0
        self.rest = b""
        self.seen = {}              # device: (overall %, phase, ETA sec)

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read(1 << 16)
        except OSError:
            return
        self.pos += len(data)
        text = self.rest + data
        cut = text.rfind(b"\n") + 1
        self.rest = text[cut:]
        for line in text[:cut].decode("utf-8", "replace").splitlines():
            m = self.LINE.search(line)
            if m:
                pct = int(m.group(3))
                overall = pct / 2 if m.group(1) == "cleaning" else \
                    50 + pct / 2
                eta = int(m.group(4)) * 3600 + int(m.group(5)) * 60 + \
                    int(m.group(6))
                self.seen[m.group(2)] = (overall, m.group(1), eta)

    def progress(self):
        """(% of the clean and salt done, averaged over the devices, the
        phase of the slowest, the longest ETA in seconds) or None."""
        self.poll()
        if not self.seen:
            return None
        n = max(len(self.devices), len(self.seen))
        pct = sum(v[0] for v in self.seen.values()) / n
        slowest = min(self.seen.values(), key=lambda v: v[0])
        return (int(pct), slowest[1], max(v[2] for v in
                                          self.seen.values()))


def report_every():
    """Seconds between two rewrites of the reports while a step runs:
    ACT_CERTIFY_REPORT_SEC (for tests and watchers), else REPORT_EVERY."""
    try:
        sec = float(os.environ.get("ACT_CERTIFY_REPORT_SEC", ""))
    except ValueError:
        return REPORT_EVERY
    return sec if sec > 0 else REPORT_EVERY


class LiveReport:
    """Rewrites the reports while a step runs - marked in progress, with
    the step's slices so far - every report_every() seconds and each time
    a slice of the log is complete, so a week-long campaign can be
    watched in a browser."""

    def __init__(self, dirpath, state, step, cache, metrics=None):
        self.dirpath, self.state, self.step = dirpath, state, step
        self.metrics = metrics
        self.cache = cache
        self.every = report_every()
        self.last = None
        self.slices = 0
        self.failed = False
        self.failing = ()           # the drives over a limit so far

    def tick(self, elapsed, follower):
        now = time.monotonic()
        done = 0
        if follower is not None and follower.last:
            done = follower.last // max(1, self.step.slice_sec)
        if self.last is not None and done <= self.slices and \
                now - self.last < self.every:
            return
        self.last, self.slices = now, done
        self.write(elapsed)

    def write(self, elapsed):
        try:
            s = write_reports(self.dirpath, self.state, self.cache, live={
                "step": self.step.number, "elapsed_sec": elapsed,
                "every_sec": self.every}, metrics=self.metrics)
            if self.step.judge == "criteria":   # a stress test passes
                self.failing = tuple((s.get("running") or {}).get(
                    "failing_drives") or ())
        except Exception as e:      # noqa: BLE001 - never stop the run
            if not self.failed:
                warn("can't rewrite the reports while step %d runs: %s "
                     "(the run goes on)" % (self.step.number, e))
            self.failed = True


def progress_label(step):
    """'test 3 30x x4', 'ceiling 60x', 'act_prep'."""
    if step.kind == "prep":
        return "act_prep"
    text = "test %d %s" % (step.test, fmt_load(step.load)) \
        if step.test else "ceiling %s" % fmt_load(step.load)
    n = len(step.devices)
    return text + (" x%d devices" % n if n > 1 else "")
