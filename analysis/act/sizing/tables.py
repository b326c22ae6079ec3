"""Reading the "Advanced Flash Device Sizing" paper's production data:
asloglatency's device-read-size / device-write-size tables (the avg row
and its ops/sec) and drv_ssd's defrag log lines (the write and
direct-frees rates)."""

import collections
import re

from act import MAX_U32
from act.cli import UsageError
from act.sizing.rates import round_half_up


MAX_BUCKETS = 27                  # histogram values p0..p26
# A number in the inputs and the answers: digits, maybe a sign and a
# decimal point.
NUMBER_RE = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")
_UNIT_RE = re.compile(r"%\s*>\s*\((\w+)\)")
_HIST_NAME_RE = re.compile(r"device-(read|write)-size\b")
_DRV_KEY_RE = re.compile(r"(\{[^}\s]*\})\s+(\S+):")
_PAIR = r"\(([^,()]*),([^()]*)\)"
_WRITE_RE = re.compile(r"(?<![\w-])write " + _PAIR)
_DEFRAG_READ_RE = re.compile(r"(?<![\w-])defrag-read " + _PAIR)
_DIRECT_FREES_RE = re.compile(r"(?<![\w-])direct-frees " + _PAIR)

SizeTable = collections.namedtuple(
    "SizeTable", "values ops columns line")
# values: the avg row's percentages trimmed after the first 0 (floats);
# ops: the avg ops/sec; columns: number of size columns in the table;
# line: 1-based line number of the avg row.

DefragData = collections.namedtuple(
    "DefragData", "total_lbw direct_frees defrag_read write_rate frees_rate "
                  "source_lbw source_frees source_defrag_read")


def parse_number(token, where):
    if not NUMBER_RE.match(token):
        raise UsageError("%s: %r is not a number" % (where, token))
    return float(token)


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
