"""The config's numbers, derived without I/O: the standard Nx load, the
production rates scaled per drive, the load factor and the test devices,
with the text that says where each number came from."""

import math
import os

from act import MAX_U32
from act.cli import UsageError


ONE_X_READS = 2000                # the standard 1x load, per device
ONE_X_WRITES = 1000
DEFAULT_DURATION_SEC = 86400
DEFAULT_RECORD_BYTES = 1536
PLACEHOLDER_DEVICE = "/dev/CHANGE-ME"


def round_half_up(x):
    """x rounded to an integer, 0.5 up (round() would take 2.5 to 2)."""
    return int(math.floor(x + 0.5))


def fmt_factor(x):
    """3.0 -> '3', 1.5 -> '1.5' (load names, file names, messages)."""
    return "%g" % x


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
