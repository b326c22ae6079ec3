"""Text of numbers, loads, durations, sizes and signals, and the two
ways act_certify speaks: say() on stdout, warn() on stderr."""

import os
import signal
import sys
import time

from act.certify import PROG


def fmt_num(x):
    """30.0 -> '30', 2.5 -> '2.5'."""
    return "%g" % x


def fmt_load(x):
    return fmt_num(x) + "x"


def fmt_duration(sec):
    """86400 -> '24 h', 4 -> '4 s', 345600 -> '4 d', 5400 -> '1 h 30 min'."""
    sec = int(round(sec))
    days = 0
    if sec >= 2 * 86400:
        days, sec = divmod(sec, 86400)
    hours, sec = divmod(sec, 3600)
    mins, sec = divmod(sec, 60)
    parts = ["%d %s" % (v, u) for v, u in ((days, "d"), (hours, "h"),
                                           (mins, "min"), (sec, "s")) if v]
    return " ".join(parts) or "0 s"


def fmt_clock(sec):
    """Seconds as H:MM:SS, hours unbounded (90:47:51) - the clock of
    act_storage's and act_prep's status lines (log_hms in
    src/common/log.c)."""
    sec = max(0, int(sec))
    return "%d:%02d:%02d" % (sec // 3600, sec // 60 % 60, sec % 60)


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def fmt_bytes(n):
    if n is None:
        return "unknown"
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20),
                       ("KiB", 1 << 10)):
        if n >= size:
            return "%.1f %s" % (n / size, unit)
    return "%d bytes" % n


def say(text=""):
    """A line on stdout (quietly dropped when stdout is gone)."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def _same_file(a, b):
    try:
        sa, sb = os.fstat(a.fileno()), os.fstat(b.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def say_both(text=""):
    """A line the user must see: on stderr always (the terminal, when
    stdout is redirected to a file), and on stdout too when stdout is
    elsewhere (with the rest of what act_certify says)."""
    if not _same_file(sys.stdout, sys.stderr):
        say(text)
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def warn(text):
    try:
        sys.stderr.write("%s: %s\n" % (PROG, text))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def signame(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return str(n)


# Markdown (summary.md, compare.md) of text that comes from a campaign:
# device names, drive identity strings, the hostname, log lines, and any
# string of a state.json copied from elsewhere. Each character that could
# make a renderer (raw HTML is on in most) see markup is written as what
# renders as that character: HTML's & and < as entities (no tag, no
# entity can start; > alone is text - and "0.40% -> 2.90%" stays
# readable - as a value never begins a line, where it would quote), the
# backtick as an entity (a code span would end at it), \ [ ] * | with a
# backslash (links, images, emphasis, table cells); line breaks become
# spaces (a value stays on its line).
_MD_ESCAPES = {"&": "&amp;", "<": "&lt;", "`": "&#96;", "\\": "\\\\",
               "[": "\\[", "]": "\\]", "*": "\\*", "|": "\\|",
               "\n": " ", "\r": " "}


def md_text(value):
    """str(value) as Markdown text that renders as that text, never as
    markup ("-" for None)."""
    text = "-" if value is None else str(value)
    return "".join(_MD_ESCAPES.get(ch, ch) for ch in text)
