#!/usr/bin/env python3
"""Description: act_config_helper's derived rates
(analysis/act/sizing/rates.py), called directly on the "Advanced Flash
Device Sizing" paper's worked example:

- the interactive session (1 device /dev/nvme0n1, 24 hours, load factor
  3): standard_config gives 6000 reads/s and 3000 writes/s, "3x", the
  paper's title and the file name actconfig_3x_1d.txt; custom totals are
  "non-standard";
- the production data (avg ops/sec 10427 reads and 5916 writes of the
  paper's asloglatency tables, drv_ssd write 1543/s and direct-frees
  369/s): production_config gives the paper's rates, record-bytes 0 and
  the provenance lines of tests/helper/fixtures/expected-paper-report.txt,
  then scaled per drive (--devices), by --load-factor and by the number of
  test devices;
- round_half_up (0.5 up, unlike round()), scaled_rate, rate_source and
  the refusals (a rate over 2^32-1, no load at all)."""

import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expect  # noqa: E402

from act.sizing import config_file, rates, tables  # noqa: E402
from act.sizing.shared import UsageError, round_half_up  # noqa: E402

FIXTURES = os.path.join(expect.REPO, "tests", "helper", "fixtures")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def opts(**kw):
    o = dict(device_names=None, load_factor=1.0, devices=1,
             read_sizes=None, write_sizes=None, defrag_log=None,
             duration_sec=86400, read_size_offset=None,
             write_size_offset=None, lbr_req_offset=None,
             lbw_req_offset=None)
    o.update(kw)
    return types.SimpleNamespace(**o)


def check_rounding(c):
    for x, want in ((0.5, 1), (1.5, 2), (2.5, 3), (1.4999, 1), (0.0, 0),
                    (10427.0, 10427), (2606.75, 2607), (-0.5, 0)):
        c.eq("round_half_up(%r)" % x, want, round_half_up(x))
    for x, want in ((3.0, "3"), (1.5, "1.5"), (0.25, "0.25")):
        c.eq("fmt_factor(%r)" % x, want, rates.fmt_factor(x))
    # ops x factor / drives per node x test devices
    for args, want in (((10427.0, 1, 1, 1), 10427.0),
                       ((10427.0, 2, 4, 1), 5213.5),
                       ((5916.0, 3, 2, 2), 17748.0),
                       ((0.0, 3, 2, 2), 0.0)):
        c.eq("scaled_rate%r" % (args,), want, rates.scaled_rate(*args))


def check_standard(c):
    cfg = rates.standard_config(["/dev/nvme0n1"], 3.0, 86400)
    c.eq("the paper's session: 3x on one device", {
        "title": "testing 1 device(s) at 3x load", "load": "3x",
        "devices": ["/dev/nvme0n1"], "duration": 86400,
        "record_bytes": 1536, "read": 6000, "write": 3000,
        "rates_note": "3x = 3 x 2000 reads/s and 1000 writes/s per device, "
                      "x 1 device(s)", "read_note": None,
        "write_note": None, "read_hist": None, "write_hist": None,
        "defrag": None, "offsets": [], "production": False}, cfg)
    c.eq("the paper's session: the file name", "actconfig_3x_1d.txt",
         config_file.config_file_name(cfg))
    for devices, factor, want in (
            (["/dev/a", "/dev/b", "/dev/c"], 1.5, (9000, 4500, "1.5x")),
            (["/dev/a"], 0.25, (500, 250, "0.25x")),
            (["/dev/a"], 0.0005, (1, 1, "0.0005x"))):   # 1 and 0.5 up
        cfg = rates.standard_config(devices, factor, 3600)
        c.eq("standard_config(%d devices, %s)" % (len(devices), factor),
             want, (cfg["read"], cfg["write"], cfg["load"]))
    cfg = rates.standard_config(["/dev/a", "/dev/b"], 1, 60, 100, 0)
    c.eq("custom totals", ("non-standard", 100, 0, None,
                           "testing 2 device(s) at non-standard load",
                           "actconfig_non-standard_2d.txt"),
         (cfg["load"], cfg["read"], cfg["write"], cfg["rates_note"],
          cfg["title"], config_file.config_file_name(cfg)))


def paper_inputs():
    return (tables.parse_size_table(fixture("read-sizes.txt"),
                                    "read-sizes.txt", "read"),
            tables.parse_size_table(fixture("write-sizes.txt"),
                                    "write-sizes.txt", "write"),
            tables.parse_defrag_log(fixture("defrag.log"), "defrag.log"))


def check_production(c):
    read, write, defrag = paper_inputs()
    c.eq("the paper's avg ops/sec", (10427.0, 5916.0), (read.ops, write.ops))
    o = opts(read_sizes="read-sizes.txt", write_sizes="write-sizes.txt",
             defrag_log="defrag.log")
    cfg, report = rates.production_config(o, read, write, defrag)
    c.eq("the paper's production config: numbers",
         (10427, 5916, 0, (1543, 369), True, "1x",
          "testing 1 device(s) at 1x production load"),
         (cfg["read"], cfg["write"], cfg["record_bytes"], cfg["defrag"],
          cfg["production"], cfg["load"], cfg["title"]))
    c.eq("the paper's production config: where each number came from",
         fixture("expected-paper-report.txt").rstrip("\n").split("\n"),
         report)

    # per drive (4 per node), x 2, on 3 test devices
    o = opts(read_sizes="/in/read-sizes.txt", write_sizes=None,
             devices=4, load_factor=2.0,
             device_names=["/dev/a", "/dev/b", "/dev/c"])
    cfg, report = rates.production_config(o, read, None, None)
    c.eq("scaled: rates (10427 x 2 / 4 x 3 = 15640.5 -> 15641; writes "
         "1x x 2 x 3)", (15641, 6000, 1536),
         (cfg["read"], cfg["write"], cfg["record_bytes"]))
    c.eq("scaled: the read note (file name only)",
         "avg ops/sec 10427.0 of read-sizes.txt / 4 devices per node x "
         "load factor 2 x 3 test devices", cfg["read_note"])
    c.eq("scaled: the write note", "standard 1x rate 1000/s per device "
         "(no --write-sizes) x load factor 2 x 3 test devices",
         cfg["write_note"])
    c.check("read-reqs-per-sec 15641: avg ops/sec 10427.0 of "
            "/in/read-sizes.txt / 4 devices per node x load factor 2 x 3 "
            "test devices" in report, "scaled: the read line (full path)",
            "\n".join(report))
    c.check("record-bytes 1536: no write size histogram (--write-sizes)"
            in report, "scaled: why record-bytes is 1536", "\n".join(report))

    for table, ops, factor, devices, ntest, want in (
            ("r.txt", 10427.0, 1, 1, 1, "avg ops/sec of r.txt"),
            ("r.txt", 10427.0, 1.5, 1, 1,
             "avg ops/sec 10427.0 of r.txt x load factor 1.5"),
            ("r.txt", 10427.0, 1, 2, 1,
             "avg ops/sec 10427.0 of r.txt / 2 devices per node"),
            ("r.txt", 10427.0, 1, 1, 2,
             "avg ops/sec 10427.0 of r.txt x 2 test devices"),
            (None, 0, 1, 1, 1, "standard 1x rate 2000/s per device (no "
             "--read-sizes)"),
            (None, 0, 3, 8, 2, "standard 1x rate 2000/s per device (no "
             "--read-sizes) x load factor 3 x 2 test devices")):
        c.eq("rate_source(%r, %s, factor %s, %d per node, %d test)"
             % (table, ops, factor, devices, ntest), want,
             rates.rate_source(table, ops, 2000, "--read-sizes", factor,
                               devices, ntest))

    big = read._replace(ops=float(1 << 32))
    c.raises("a rate over 2^32-1", UsageError, rates.production_config,
             opts(read_sizes="r"), big, None, None,
             expect_text="the rates (4294967296 reads/s, 1000 writes/s) "
                         "are too large for act_storage")
    zero_r, zero_w = read._replace(ops=0.0), write._replace(ops=0.0)
    c.raises("no load at all", UsageError, rates.production_config,
             opts(read_sizes="r", write_sizes="w"), zero_r, zero_w, None,
             expect_text="read-reqs-per-sec and write-reqs-per-sec are both "
                         "0: nothing to test")


def main():
    c = expect.Checker("test_sizing")
    check_rounding(c)
    check_standard(c)
    check_production(c)
    c.finish()


if __name__ == "__main__":
    main()
