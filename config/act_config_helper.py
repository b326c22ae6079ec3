#!/usr/bin/env python3
"""Write an act_storage config file: the standard Nx load, or a node's
production storage profile.

Usage::

    act_config_helper.py [--interactive] [--force]
    act_config_helper.py [--read-sizes FILE] [--write-sizes FILE]
                         [--defrag-log FILE] [--devices N] [--load-factor X]
                         [--device-names LIST] [--duration-sec N]
                         [--lbr-req-offset P] [--lbw-req-offset P]
                         [--read-size-offset P] [--write-size-offset P]
                         [--output FILE [--force]]
    act_config_helper.py --help | --version

Interactive mode (no arguments, or --interactive) asks the questions of the
"Advanced Flash Device Sizing" paper - devices, test duration, the standard
Nx load (2000 reads/s and 1000 writes/s per device, times N) or custom
rates - and saves actconfig_<load>_<n>d.txt in the current directory, or
prints the config.  The dialogue goes to stderr, so stdout holds only the
config; when stdin is not a terminal each answer is echoed after its
prompt, so a piped session reads like the paper's transcript.

An existing file is never overwritten silently: interactive mode asks
(`file X exists - overwrite? [y/N]`) and keeps it unless the answer is yes
(the config is then printed instead); --output asks too when stdin is a
terminal, and otherwise refuses (exit status 2).  --force overwrites
without asking.

Non-interactive mode turns the paper's production data into a config:

--read-sizes / --write-sizes FILE
    asloglatency output of the {ns}-device-read-size / -device-write-size
    histogram (run with -e 1 and a -n large enough to reach a 0 column).
    The avg row, trimmed after its first 0, becomes storage-read-histogram /
    storage-write-histogram; its ops/sec becomes read-reqs-per-sec /
    write-reqs-per-sec.  A direction without a table gets the standard 1x
    rate (2000 reads/s, 1000 writes/s per device).  record-bytes is 0 when
    every direction with load has its histogram, else 1536.
--defrag-log FILE
    drv_ssd log lines (`grep defrag`, with drv_ssd detail logging on): the
    last `write (N,R)` rate gives total-lbw-per-sec, the last
    `direct-frees (N,R)` rate gives direct-frees (summed over devices when
    the lines name several).  They only enter act_storage as a ratio, so
    they are not scaled.  `defrag-read (N,R)` is reported for information.
--devices N
    drives per namespace per node in production: the rates are divided by N
    (the per-drive load).
--load-factor X
    multiplies the rates (the paper's 2x / 3x step; default 1).
--device-names LIST
    comma-separated devices to test; the rates are for all of them together,
    so the per-drive load is multiplied by their number.  Without it the
    config names /dev/CHANGE-ME, with a comment saying to edit it.

Rates are rounded half up to integers.  Where each number came from is
printed on stderr; the config goes to stdout or --output.

Exit status: 0 success, 1 nothing written: end of input at a prompt
(stderr says so), or an existing --output kept, 2 a user error (bad option,
unreadable or malformed input, an existing --output without --force and no
terminal to ask), 130 interrupted.
"""

import argparse
import collections
import math
import os
import re
import sys

PROG = "act_config_helper.py"
VERSION = "6.7"                   # act's version (src/common/version.h)
USAGE = """%(prog)s [--interactive] [--force]
       %(prog)s [--read-sizes FILE] [--write-sizes FILE]
           [--defrag-log FILE] [--devices N] [--load-factor X]
           [--device-names LIST] [--duration-sec N]
           [--lbr-req-offset P] [--lbw-req-offset P]
           [--read-size-offset P] [--write-size-offset P]
           [--output FILE [--force]]
       %(prog)s --help | --version"""

ONE_X_READS = 2000                # the standard 1x load, per device
ONE_X_WRITES = 1000
DEFAULT_DURATION_SEC = 86400
DEFAULT_RECORD_BYTES = 1536
PLACEHOLDER_DEVICE = "/dev/CHANGE-ME"
MAX_DEVICES = 128                 # act_storage's limits
MAX_DEVICE_NAME = 127
MAX_BUCKETS = 27                  # histogram values p0..p26
MAX_U32 = 0xFFFFFFFF

_NUMBER_RE = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")
_UNIT_RE = re.compile(r"%\s*>\s*\((\w+)\)")
_HIST_NAME_RE = re.compile(r"device-(read|write)-size\b")

_DRV_KEY_RE = re.compile(r"(\{[^}\s]*\})\s+(\S+):")
_PAIR = r"\(([^,()]*),([^()]*)\)"
_WRITE_RE = re.compile(r"(?<![\w-])write " + _PAIR)
_DEFRAG_READ_RE = re.compile(r"(?<![\w-])defrag-read " + _PAIR)
_DIRECT_FREES_RE = re.compile(r"(?<![\w-])direct-frees " + _PAIR)


class UsageError(Exception):
    """A user error: reported as one message on stderr, exit status 2."""


SizeTable = collections.namedtuple(
    "SizeTable", "values ops columns line")
# values: the avg row's percentages trimmed after the first 0 (floats);
# ops: the avg ops/sec; columns: number of size columns in the table;
# line: 1-based line number of the avg row.

DefragData = collections.namedtuple(
    "DefragData", "total_lbw direct_frees defrag_read write_rate frees_rate "
                  "source_lbw source_frees source_defrag_read")


# ---------------------------------------------------------------------------
# Small helpers.

def round_half_up(x):
    return int(math.floor(x + 0.5))


def fmt_factor(x):
    """3.0 -> '3', 1.5 -> '1.5' (load names, file names, messages)."""
    return "%g" % x


def read_text(path, what):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise UsageError("cannot read %s %s: %s"
                         % (what, path, e.strerror or e))


def parse_number(token, where):
    if not _NUMBER_RE.match(token):
        raise UsageError("%s: %r is not a number" % (where, token))
    return float(token)


def check_device_names(names):
    """Return an error text for a bad device list, or None."""
    if not names:
        return "no device name"
    if len(names) > MAX_DEVICES:
        return "%d devices, at most %d" % (len(names), MAX_DEVICES)
    for name in names:
        if not name:
            return "an empty device name"
        if re.search(r"[\s,;#]", name):
            return "device name %r contains a space, ',', ';' or '#'" % name
        if len(name) > MAX_DEVICE_NAME:
            return "device name %r is longer than %d characters" % (
                name, MAX_DEVICE_NAME)
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        return "device %s is named twice" % dups[0]
    return None


# ---------------------------------------------------------------------------
# Parsing the inputs.

def parse_size_table(text, name, direction):
    """Parse asloglatency output of a device-<direction>-size histogram.

    direction is "read" or "write".  Returns a SizeTable; raises UsageError
    naming the file and line on anything unexpected.
    """
    lines = text.splitlines()
    header = None          # (line number, column thresholds)
    avg = None             # (line number, tokens)
    for no, line in enumerate(lines, 1):
        tokens = line.split()
        if not tokens:
            continue
        m = _HIST_NAME_RE.search(line)
        if m and m.group(1) != direction:
            raise UsageError(
                "%s line %d: this is a device-%s-size table; --%s-sizes "
                "needs the device-%s-size histogram"
                % (name, no, m.group(1), direction, direction))
        m = _UNIT_RE.search(line)
        if m and m.group(1) != "bytes":
            raise UsageError(
                "%s line %d: a histogram in %s, not a size histogram in "
                "bytes (use asloglatency -h {ns}-device-%s-size)"
                % (name, no, m.group(1), direction))
        if tokens[-1] == "ops/sec":
            cols = []
            for tok in reversed(tokens[:-1]):
                if not tok.isdigit():
                    break
                cols.append(int(tok))
            cols.reverse()
            if not cols:
                continue
            if header is not None:
                raise UsageError(
                    "%s line %d: a second table (the first starts at line "
                    "%d); give one histogram per file" % (name, no, header[0]))
            header = (no, cols)
        elif tokens[0] == "avg":
            if header is None:
                raise UsageError("%s line %d: avg row before the table's "
                                 "header line" % (name, no))
            if avg is not None:
                raise UsageError("%s line %d: a second avg row (the first is "
                                 "line %d)" % (name, no, avg[0]))
            avg = (no, tokens[1:])
    if header is None:
        raise UsageError(
            "%s: no asloglatency table (no header line ending in 'ops/sec')"
            % name)
    hno, cols = header
    for k, c in enumerate(cols):
        if c != 1 << k:
            raise UsageError(
                "%s line %d: size columns must be 1, 2, 4, 8, ... bytes "
                "(asloglatency -e 1, no -b), column %d is %d"
                % (name, hno, k + 1, c))
    if avg is None:
        raise UsageError("%s: no avg row in the table" % name)
    ano, tokens = avg
    if len(tokens) != len(cols) + 1:
        raise UsageError(
            "%s line %d: avg row has %d values, expected %d (%d size "
            "columns and ops/sec)"
            % (name, ano, len(tokens), len(cols) + 1, len(cols)))
    where = "%s line %d" % (name, ano)
    values = []
    for k, tok in enumerate(tokens[:-1]):
        v = parse_number(tok, "%s, column > %d bytes" % (where, cols[k]))
        if not 0.0 <= v <= 100.0:
            raise UsageError("%s: percentage %s for > %d bytes is not "
                             "within 0..100" % (where, tok, cols[k]))
        if values and v > values[-1]:
            raise UsageError(
                "%s: percentages increase: %s for > %d bytes after %s for "
                "> %d bytes" % (where, tok, cols[k], tokens[k - 1],
                                cols[k - 1]))
        values.append(v)
    ops = parse_number(tokens[-1], "%s, ops/sec" % where)
    if ops < 0:
        raise UsageError("%s: negative ops/sec %s" % (where, tokens[-1]))
    if 0.0 not in values:
        raise UsageError(
            "%s: the avg row never reaches 0 (%s%% of sizes are > %d bytes): "
            "rerun asloglatency with a larger -n (up to 26)"
            % (where, tokens[len(cols) - 1], cols[-1]))
    values = values[:values.index(0.0) + 1]
    if len(values) > MAX_BUCKETS:
        raise UsageError("%s: %d buckets before the first 0, at most %d"
                         % (where, len(values), MAX_BUCKETS))
    return SizeTable(values, ops, len(cols), ano)


def _rate(match, name, no, what):
    count, rate = match.group(1).strip(), match.group(2).strip()
    where = "%s line %d, %s" % (name, no, what)
    if not count.isdigit():
        raise UsageError("%s: bad count %r" % (where, count))
    value = parse_number(rate, where + " rate")
    if value < 0:
        raise UsageError("%s: negative rate %s" % (where, rate))
    return value


def parse_defrag_log(text, name):
    """Parse drv_ssd log lines; returns a DefragData.

    For each device ({ns} /dev/x: prefix) the last write, direct-frees and
    defrag-read rates count; several devices are summed.
    """
    last = collections.OrderedDict()     # device -> {kind: (rate, line)}
    namespaces = set()
    for no, line in enumerate(text.splitlines(), 1):
        found = {}
        for kind, regex in (("write", _WRITE_RE),
                            ("direct-frees", _DIRECT_FREES_RE),
                            ("defrag-read", _DEFRAG_READ_RE)):
            m = regex.search(line)
            if m:
                found[kind] = (_rate(m, name, no, kind), no)
        if not found:
            continue
        key = _DRV_KEY_RE.search(line)
        device = key.group(2) if key else None
        if key:
            namespaces.add(key.group(1))
        last.setdefault(device, {}).update(found)
    if len(namespaces) > 1:
        ns = sorted(namespaces)
        raise UsageError(
            "%s: drv_ssd lines of several namespaces (%s); keep the lines of "
            "the namespace under test (e.g. grep '%s')"
            % (name, ", ".join(ns), ns[0]))
    if not any("write" in d for d in last.values()):
        raise UsageError(
            "%s: no drv_ssd line with 'write (N,R)' (grep the server log "
            "for defrag)" % name)
    for device, d in last.items():
        label = " for %s" % device if device else ""
        if "write" not in d:
            raise UsageError("%s: no 'write (N,R)' line%s" % (name, label))
        if "direct-frees" not in d:
            raise UsageError(
                "%s: no 'direct-frees (N,R)' line%s (turn on drv_ssd detail "
                "logging: asinfo -v \"log-set:id=0;drv_ssd=detail\")"
                % (name, label))

    def combine(kind):
        items = [d[kind] for d in last.values() if kind in d]
        return sum(r for r, _ in items), [no for _, no in items]

    write_rate, write_lines = combine("write")
    frees_rate, frees_lines = combine("direct-frees")
    dread_rate, dread_lines = combine("defrag-read")
    total, frees = round_half_up(write_rate), round_half_up(frees_rate)

    def source(what, lines):
        if len(lines) == 1:
            return "%s in %s line %d" % (what, name, lines[0])
        return "sum of the last %ss of %d devices in %s (lines %s)" % (
            what, len(lines), name, ", ".join(map(str, lines)))

    src_lbw = source("write rate", write_lines)
    src_frees = source("direct-frees rate", frees_lines)
    if total <= 0:
        raise UsageError("%s: the write rate is 0 (%s): no large-block "
                         "writes to scale defrag by" % (name, src_lbw))
    if total > MAX_U32:
        raise UsageError("%s: the write rate %d is too large (%s)"
                         % (name, total, src_lbw))
    if frees > total:
        raise UsageError(
            "%s: direct-frees %d is more than the write rate %d (%s; %s)"
            % (name, frees, total, src_frees, src_lbw))
    src_dread = source("defrag-read rate", dread_lines) if dread_lines \
        else None
    return DefragData(total, frees, dread_rate if dread_lines else None,
                      write_rate, frees_rate, src_lbw, src_frees, src_dread)


# ---------------------------------------------------------------------------
# Computing the config.

def standard_config(devices, factor, duration, read=None, write=None):
    """The interactive mode's config: Nx load, or custom totals."""
    if read is None:
        load = "%sx" % fmt_factor(factor)
        read = round_half_up(factor * ONE_X_READS * len(devices))
        write = round_half_up(factor * ONE_X_WRITES * len(devices))
        note = ("%s = %s x %d reads/s and %d writes/s per device, x %d "
                "device(s)" % (load, fmt_factor(factor), ONE_X_READS,
                               ONE_X_WRITES, len(devices)))
    else:
        load = "non-standard"
        note = None
    return {
        "title": "testing %d device(s) at %s load" % (len(devices), load),
        "load": load,
        "devices": list(devices),
        "duration": duration,
        "record_bytes": DEFAULT_RECORD_BYTES,
        "read": read, "write": write,
        "rates_note": note, "read_note": None, "write_note": None,
        "read_hist": None, "write_hist": None, "defrag": None,
        "offsets": [], "production": False,
    }


def scaled_rate(ops, factor, devices, ntest):
    return ops * factor / devices * ntest


def rate_source(table_name, ops, one_x, option, factor, devices, ntest):
    """Provenance text of a rate (without the item name and value)."""
    if table_name is not None:
        text = "avg ops/sec"
        if factor != 1 or devices != 1 or ntest != 1:
            text += " %s" % ("%.1f" % ops)
        text += " of %s" % table_name
        if devices != 1:
            text += " / %d devices per node" % devices
    else:
        text = "standard 1x rate %d/s per device (no %s)" % (one_x, option)
    if factor != 1:
        text += " x load factor %s" % fmt_factor(factor)
    if ntest != 1:
        text += " x %d test devices" % ntest
    return text


def production_config(opts, read_table, write_table, defrag):
    """Build the non-interactive config and the provenance lines.

    read_table / write_table: SizeTable or None; defrag: DefragData or None.
    Returns (config dict, list of provenance lines for stderr).
    """
    report = []
    devices = opts.device_names
    ntest = len(devices) if devices else 1
    factor, per_node = opts.load_factor, opts.devices

    def rate(table, path, one_x, option):
        base = os.path.basename(path) if path else None
        if table is not None:
            value = round_half_up(scaled_rate(table.ops, factor, per_node,
                                              ntest))
        else:
            value = round_half_up(factor * one_x * ntest)
        return (value,
                rate_source(path, table.ops if table else 0, one_x, option,
                            factor, per_node, ntest),
                rate_source(base, table.ops if table else 0, one_x, option,
                            factor, per_node, ntest))

    read, read_src, read_note = rate(read_table, opts.read_sizes,
                                     ONE_X_READS, "--read-sizes")
    write, write_src, write_note = rate(write_table, opts.write_sizes,
                                        ONE_X_WRITES, "--write-sizes")
    if read > MAX_U32 or write > MAX_U32:
        raise UsageError("the rates (%d reads/s, %d writes/s) are too large "
                         "for act_storage" % (read, write))
    if read == 0 and write == 0:
        raise UsageError("read-reqs-per-sec and write-reqs-per-sec are both "
                         "0: nothing to test")

    hists = {}
    for direction, table, path in (("read", read_table, opts.read_sizes),
                                   ("write", write_table, opts.write_sizes)):
        if table is None:
            continue
        trimmed = table.columns > len(table.values)
        report.append(
            "storage-%s-histogram: avg row of %s (%d buckets%s)"
            % (direction, path, len(table.values),
               ", trimmed after the first 0" if trimmed else ""))
        hists[direction] = (table.values, os.path.basename(path))

    loaded = [d for d, r in (("read", read), ("write", write)) if r > 0]
    if hists and all(d in hists for d in loaded):
        record_bytes = 0
        report.append("record-bytes 0: every direction with load has its "
                      "size histogram")
    else:
        record_bytes = DEFAULT_RECORD_BYTES
        if hists:
            missing = [d for d in loaded if d not in hists]
            report.append(
                "record-bytes %d: no %s size histogram (--%s-sizes)"
                % (record_bytes, missing[0], missing[0]))
    report.append("read-reqs-per-sec %d: %s" % (read, read_src))
    report.append("write-reqs-per-sec %d: %s" % (write, write_src))

    if defrag is not None:
        report.append("total-lbw-per-sec %d: %s"
                      % (defrag.total_lbw, defrag.source_lbw))
        report.append("direct-frees %d: %s"
                      % (defrag.direct_frees, defrag.source_frees))
        if defrag.defrag_read is not None:
            report.append(
                "defrag-read %.1f/s: %s (for information: defrag-read + "
                "direct-frees = %.1f/s, write %.1f/s; about equal in steady "
                "state)" % (defrag.defrag_read, defrag.source_defrag_read,
                            defrag.defrag_read + defrag.frees_rate,
                            defrag.write_rate))

    offsets = []
    for item in ("read-size-offset", "write-size-offset", "lbr-req-offset",
                 "lbw-req-offset"):
        value = getattr(opts, item.replace("-", "_"))
        if value is not None:
            offsets.append((item, value))
            report.append("%s %d: --%s" % (item, value, item))
    for item, direction in (("read-size-offset", "read"),
                            ("write-size-offset", "write")):
        if getattr(opts, item.replace("-", "_")) is not None \
                and direction not in hists:
            report.append("warning: %s has no effect without "
                          "--%s-sizes" % (item, direction))

    if devices:
        report.append("device-names %s: --device-names" % ",".join(devices))
    else:
        report.append("device-names %s: placeholder - edit it before running"
                      " (or use --device-names)" % PLACEHOLDER_DEVICE)

    production = bool(read_table or write_table or defrag)
    load = "%sx" % fmt_factor(factor)
    title = "testing %d device(s) at %s %sload" % (
        ntest, load, "production " if (read_table or write_table) else "")
    cfg = {
        "title": title,
        "load": load,
        "devices": devices,
        "duration": opts.duration_sec,
        "record_bytes": record_bytes,
        "read": read, "write": write,
        "rates_note": None, "read_note": read_note, "write_note": write_note,
        "read_hist": hists.get("read"), "write_hist": hists.get("write"),
        "defrag": (defrag.total_lbw, defrag.direct_frees) if defrag else None,
        "defrag_file": os.path.basename(opts.defrag_log)
        if opts.defrag_log else None,
        "offsets": offsets, "production": production,
    }
    return cfg, report


# ---------------------------------------------------------------------------
# Formatting.

def format_histogram(values):
    return ",".join("%.2f" % v for v in values)


def format_config(cfg):
    """The config file text: every non-comment line is an act_storage item."""
    out = ["##########",
           "# act config file for %s" % cfg["title"],
           "##########",
           "",
           "# Comma-separated list. ALL DATA ON THESE DEVICES IS DESTROYED."]
    if cfg["devices"]:
        out.append("device-names: %s" % ",".join(cfg["devices"]))
    else:
        out += ["# CHANGE-ME: %s is a placeholder - put the device(s) to test"
                % PLACEHOLDER_DEVICE,
                "# here (the test cannot start until you do).",
                "device-names: %s" % PLACEHOLDER_DEVICE]
    out += ["",
            "# Test length (86400 = 24 hours) and report interval, seconds:",
            "test-duration-sec: %d" % cfg["duration"],
            "report-interval-sec: 1",
            "",
            "# Size of large-block (write buffer / defrag) I/O, KiB:",
            "large-block-op-kbytes: 128",
            "",
            "# service-threads defaults to 5 x the number of CPUs; if ACT "
            "says it",
            "# can't do the requested load, set more, e.g.:",
            "# service-threads: 40",
            ""]
    if cfg["record_bytes"] == 0:
        out.append("# Record sizes come from the storage histograms:")
    else:
        out.append("# Record size in bytes:")
    out.append("record-bytes: %d" % cfg["record_bytes"])
    for direction in ("read", "write"):
        hist = cfg["read_hist" if direction == "read" else "write_hist"]
        if hist is None:
            continue
        values, source = hist
        out += ["",
                "# Data from the device-%s-size histogram (avg row of %s):"
                % (direction, source),
                "# percent of %ss larger than 1, 2, 4, ... bytes; the last "
                "must be 0." % direction,
                "storage-%s-histogram: %s" % (direction,
                                              format_histogram(values))]
    if cfg["defrag"] is not None:
        out += ["",
                "# Effects of the post-write queue (drv_ssd lines of %s):"
                % cfg["defrag_file"],
                "# large-block writes/s, and blocks/s freed without defrag.",
                "total-lbw-per-sec: %d" % cfg["defrag"][0],
                "direct-frees: %d" % cfg["defrag"][1]]
    if cfg["production"] or cfg["offsets"]:
        given = dict(cfg["offsets"])
        items = ["lbr-req-offset", "lbw-req-offset"]
        if cfg["read_hist"] or "read-size-offset" in given:
            items.append("read-size-offset")
        if cfg["write_hist"] or "write-size-offset" in given:
            items.append("write-size-offset")
        out += ["",
                "# To match the cluster's iostat, adjust large-block reads and"
                " writes",
                "# and record sizes, percent (default 100):"]
        for item in items:
            if item in given:
                out.append("%s: %d" % (item, given[item]))
            else:
                out.append("# %s: 100" % item)
    out += ["", "# Requests per second, for all devices together:"]
    if cfg["rates_note"]:
        out.append("# %s" % cfg["rates_note"])
    if cfg["read_note"]:
        out.append("# %s" % cfg["read_note"])
    out.append("read-reqs-per-sec: %d" % cfg["read"])
    if cfg["write_note"]:
        out.append("# %s" % cfg["write_note"])
    out += ["write-reqs-per-sec: %d" % cfg["write"],
            "",
            "# yes|no - default is no:",
            "microsecond-histograms: no",
            "",
            "# noop|cfq|none|mq-deadline|... - default is noop:",
            "scheduler-mode: noop"]
    return "\n".join(out) + "\n"


def config_file_name(cfg):
    return "actconfig_%s_%dd.txt" % (cfg["load"], len(cfg["devices"]))


def may_write(path, dialogue, force):
    """Whether to write the file path: yes if it does not exist or with
    force; otherwise the dialogue's answer to `file X exists - overwrite?`,
    or, without a dialogue (no terminal to ask), a UsageError."""
    if force or not os.path.lexists(path):
        return True
    if dialogue is None:
        raise UsageError("%s exists: use --force to overwrite it, or "
                         "another --output" % path)
    return dialogue.ask_yes_no("file %s exists - overwrite? [y/N] " % path)


def write_file(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise UsageError("cannot write %s: %s" % (path, e.strerror or e))


# ---------------------------------------------------------------------------
# Interactive mode.

class Dialogue:
    """Prompts on stderr, answers from stdin (echoed when not a terminal)."""

    def __init__(self, inp, err):
        self.inp, self.err = inp, err
        try:
            self.echo = not inp.isatty()
        except (AttributeError, ValueError):
            self.echo = True

    def say(self, text):
        self.err.write(text + "\n")
        self.err.flush()

    def ask(self, prompt):
        self.err.write(prompt)
        self.err.flush()
        line = self.inp.readline()
        if not line:
            raise EOFError
        answer = line.rstrip("\r\n")
        if self.echo:
            self.err.write(answer + "\n")
            self.err.flush()
        return answer.strip()

    def ask_yes_no(self, prompt):
        while True:
            answer = self.ask(prompt).lower()
            if answer in ("", "n", "no"):
                return False
            if answer in ("y", "yes"):
                return True
            self.say("Please answer y or n.")

    def ask_number(self, prompt, parse, hint, before=None):
        """Re-ask until parse(answer) returns a value (None = invalid);
        an empty answer is re-asked silently, as in the paper."""
        while True:
            if before:
                self.say(before)
            answer = self.ask(prompt)
            if not answer:
                continue
            value = parse(answer)
            if value is not None:
                return value
            self.say("%r is not valid: %s." % (answer, hint))


def parse_int_answer(lo, hi):
    def parse(text):
        if not text.isdigit():
            return None
        v = int(text)
        return v if lo <= v <= hi else None
    return parse


def parse_positive_answer(text):
    if not _NUMBER_RE.match(text):
        return None
    v = float(text)
    return v if v > 0 and math.isfinite(v) else None


def interactive(dialogue, out, force=False):
    """Run the paper's dialogue; returns the exit status.  An existing
    config file is overwritten only if the user says so (or with force);
    kept, the config is printed instead."""
    n = dialogue.ask_number(
        "Enter the number of devices you want to create config for: ",
        parse_int_answer(1, MAX_DEVICES),
        "enter a whole number from 1 to %d" % MAX_DEVICES)
    dialogue.say("Enter either raw device if over-provisioned using hdparm "
                 "or partition if over-provisioned using fdisk:")
    devices = []
    for i in range(1, n + 1):
        while True:
            name = dialogue.ask("Enter device name #%d (e.g. /dev/sdb or "
                                "/dev/sdb1): " % i)
            if not name:
                continue
            problem = check_device_names(devices + [name])
            if problem is None:
                devices.append(name)
                break
            dialogue.say("Not valid: %s." % problem)
    duration = DEFAULT_DURATION_SEC
    if dialogue.ask_yes_no("Change test duration default of 24 hours? "
                           "(y/N): "):
        def parse_hours(text):
            h = parse_positive_answer(text)
            if h is None or not 1 <= round_half_up(h * 3600) <= MAX_U32:
                return None
            return h
        hours = dialogue.ask_number("Enter the test duration in hours: ",
                                    parse_hours,
                                    "enter a number of hours greater than 0")
        duration = round_half_up(hours * 3600)
    if dialogue.ask_yes_no("Use non-standard configuration? (y/N): "):
        rate = parse_int_answer(0, MAX_U32)
        while True:
            read = dialogue.ask_number(
                "Enter read-reqs-per-sec (all devices together): ", rate,
                "enter a whole number, 0 or more")
            write = dialogue.ask_number(
                "Enter write-reqs-per-sec (all devices together): ", rate,
                "enter a whole number, 0 or more")
            if read or write:
                break
            dialogue.say("read-reqs-per-sec and write-reqs-per-sec can't "
                         "both be 0.")
        cfg = standard_config(devices, 1, duration, read, write)
    else:
        def parse_factor(text):
            f = parse_positive_answer(text)
            if f is None or f * ONE_X_READS * n > MAX_U32:
                return None
            return f
        factor = dialogue.ask_number(
            "Enter the load factor (e.g. enter 1 for 1x test): ",
            parse_factor, "enter a number greater than 0",
            before='"1x" load is  %d reads per second and %d writes per '
                   'second.' % (ONE_X_READS, ONE_X_WRITES))
        cfg = standard_config(devices, factor, duration)
    text = format_config(cfg)
    if dialogue.ask_yes_no("Do you want to save this config to a file? "
                           "(y/N): "):
        name = config_file_name(cfg)
        if may_write(name, dialogue, force):
            write_file(name, text)
            dialogue.say("Config file %s successfully created." % name)
            return 0
        dialogue.say("Kept the existing %s; the config follows on stdout."
                     % name)
    out.write(text)
    out.flush()
    return 0


# ---------------------------------------------------------------------------
# Command line.

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message + " (see --help)")


def _int_in(lo, hi, what):
    def conv(text):
        if not re.match(r"^[0-9]+$", text):
            raise argparse.ArgumentTypeError(
                "%s must be a whole number, not %r" % (what, text))
        v = int(text, 10)
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(
                "%s must be within %d..%d, not %s" % (what, lo, hi, text))
        return v
    return conv


def _load_factor(text):
    if not _NUMBER_RE.match(text) or float(text) <= 0:
        raise argparse.ArgumentTypeError(
            "the load factor must be a number greater than 0, not %r" % text)
    return float(text)


def _device_list(text):
    names = text.split(",")
    problem = check_device_names(names)
    if problem:
        raise argparse.ArgumentTypeError("bad --device-names: %s" % problem)
    return names


def build_parser():
    p = _Parser(
        prog=PROG, usage=USAGE,
        description="Write an act_storage config: interactively (no "
                    "arguments) for the standard Nx load, or from a "
                    "production node's asloglatency size histograms and "
                    "drv_ssd log lines.",
        epilog="Rates are for all test devices together: per drive, "
               "production ops/sec / --devices x --load-factor, times the "
               "number of --device-names.")
    p.add_argument("--version", action="version",
                   version="%s %s" % (PROG, VERSION),
                   help="print the version and exit")
    p.add_argument("--interactive", action="store_true",
                   help="ask the questions (the default without arguments)")
    p.add_argument("--force", action="store_true",
                   help="overwrite an existing --output file (or, with "
                        "--interactive, config file) without asking; "
                        "without it the helper asks, or refuses when it "
                        "cannot ask")
    p.add_argument("--read-sizes", metavar="FILE",
                   help="asloglatency output of {ns}-device-read-size")
    p.add_argument("--write-sizes", metavar="FILE",
                   help="asloglatency output of {ns}-device-write-size")
    p.add_argument("--defrag-log", metavar="FILE",
                   help="server log lines with write (...) and "
                        "direct-frees (...)")
    p.add_argument("--devices", metavar="N", default=1,
                   type=_int_in(1, MAX_DEVICES, "--devices"),
                   help="drives per namespace per node (divides the rates; "
                        "default 1)")
    p.add_argument("--load-factor", metavar="X", default=1.0,
                   type=_load_factor,
                   help="multiplies the rates (default 1)")
    p.add_argument("--device-names", metavar="LIST", type=_device_list,
                   help="comma-separated devices to test (default: a "
                        "placeholder to edit)")
    p.add_argument("--duration-sec", metavar="N",
                   default=DEFAULT_DURATION_SEC,
                   type=_int_in(1, MAX_U32, "--duration-sec"),
                   help="test-duration-sec (default 86400)")
    for item, lo in (("lbr-req-offset", 0), ("lbw-req-offset", 0),
                     ("read-size-offset", 1), ("write-size-offset", 1)):
        p.add_argument("--" + item, metavar="P",
                       type=_int_in(lo, 1000, "--" + item),
                       help="%s, percent %d..1000 (default: not written)"
                            % (item, lo))
    p.add_argument("--output", metavar="FILE",
                   help="write the config here (default stdout)")
    return p


def run_non_interactive(opts, out, err, dialogue=None):
    read_table = write_table = defrag = None
    if opts.read_sizes:
        read_table = parse_size_table(
            read_text(opts.read_sizes, "--read-sizes"), opts.read_sizes,
            "read")
    if opts.write_sizes:
        write_table = parse_size_table(
            read_text(opts.write_sizes, "--write-sizes"), opts.write_sizes,
            "write")
    if opts.defrag_log:
        defrag = parse_defrag_log(
            read_text(opts.defrag_log, "--defrag-log"), opts.defrag_log)
    cfg, report = production_config(opts, read_table, write_table, defrag)
    text = format_config(cfg)
    if opts.output and not may_write(opts.output, dialogue, opts.force):
        err.write("Kept the existing %s: nothing written.\n" % opts.output)
        return 1
    for line in report:
        err.write(line + "\n")
    if opts.output:
        write_file(opts.output, text)
        err.write("Config file %s successfully created.\n" % opts.output)
    else:
        out.write(text)
    return 0


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _interactive_options_only(argv):
    """Whether argv holds only --interactive and --force (or
    abbreviations of them, as argparse accepts)."""
    for token in argv:
        name = token.split("=", 1)[0]
        if not (len(name) > 2 and ("--interactive".startswith(name) or
                                   "--force".startswith(name))):
            return False
    return True


def run(argv):
    opts = build_parser().parse_args(argv)
    if not argv or opts.interactive:
        if not _interactive_options_only(argv):
            raise UsageError("--interactive takes no other option than "
                             "--force")
        return interactive(Dialogue(sys.stdin, sys.stderr), sys.stdout,
                           opts.force)
    if opts.force and not opts.output:
        raise UsageError("--force applies to --output FILE (or to "
                         "--interactive)")
    dialogue = Dialogue(sys.stdin, sys.stderr) \
        if _is_terminal(sys.stdin) else None
    return run_non_interactive(opts, sys.stdout, sys.stderr, dialogue)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    try:
        try:
            return run(argv)
        finally:
            sys.stdout.flush()
    except UsageError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 2
    except EOFError:
        # End of input at a prompt: end the prompt's line, and say so.
        sys.stderr.write("\n%s: end of input - nothing written\n" % PROG)
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. | head): stop quietly.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 1
    except OSError as e:
        print("%s: error: %s" % (PROG, e.strerror or e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
