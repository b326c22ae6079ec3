"""The config file: its text (every non-comment line an act_storage item),
its default name, and writing it without overwriting a file silently."""

import os

from act.sizing.rates import PLACEHOLDER_DEVICE
from act.cli import UsageError


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
