"""Description: `--set NAME=VALUE` of act_storage and act_index: config
items on the command line that override the config file
(docs/act_storage.md, "The command line").

- A run whose file lacks device-names gets it, a two-device list with the
  file's separators, from --set; --set overrides the file's items, the
  last --set of an item wins; the log's config echo shows the effective
  values and the derived config follows them (act_storage and act_index).
- A bad --set is refused exactly as the same item in the file: exit 1,
  the same ERROR line but for where it came from - " (line N)" for the
  file, " (--set NAME=VALUE)" for the command line (a bad number, a bad
  flag, an unknown item with its "did you mean", the other program's
  item, no value); the device file is untouched (bytes and mtime).
- `--set` without NAME=VALUE is a usage error naming it, before the usage.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

BASE = [("test-duration-sec", 1), ("report-interval-sec", 1),
        ("read-reqs-per-sec", 100), ("write-reqs-per-sec", 50),
        ("service-threads", 2)]

# (program, item, value): refused in a file and by --set alike
BAD = [
    ("act_storage", "read-reqs-per-sec", "20x"),
    ("act_storage", "tomb-raider", "maybe"),
    ("act_storage", "large-block-op-kbytes", "100"),
    ("act_storage", "record-byte", "100"),       # did you mean record-bytes
    ("act_storage", "cache-threads", "8"),       # act_index's
    ("act_storage", "record-bytes", ""),         # no value
    ("act_index", "cache-threads", "x"),
    ("act_index", "tomb-raider", "yes"),         # act_storage's
]



def check_run_overrides(c, td, d1, d2):
    conf = itest.write_config(td.join("over.conf"),
                              BASE + [("record-bytes", 1024)])
    r = itest.run([itest.binary(), "--set", "read-reqs-per-sec=300",
                   "--set=record-bytes=2048", "--set",
                   "device-names=%s,%s" % (d1, d2), "--set",
                   "read-reqs-per-sec=200", conf], timeout=60)
    if not c.eq("[act_storage] exit status", 0, r.rc, r.describe()):
        return
    log = itest.parse_log(r.out)
    for item, want in (("device-names", "%s %s" % (d1, d2)),
                       ("num-devices", "2"), ("read-reqs-per-sec", "200"),
                       ("record-bytes", "2048"), ("write-reqs-per-sec", "50"),
                       ("service-threads", "2")):
        c.eq("[act_storage] echo of %s" % item, want, log.cfg(item))
    c.eq("[act_storage] derived from the --set value", "200",
         log.der("internal-read-reqs-per-sec"))
    c.eq("[act_storage] a device line each", 2, len(log.devices),
         "\n".join(log.devices))

    conf = itest.write_config(td.join("index.conf"), BASE + [
        ("device-names", d1), ("cache-threads", 4)])
    r = itest.run([itest.binary("act_index"), "--set", "cache-threads=2",
                   "--set", "read-reqs-per-sec=150", conf], timeout=60)
    if not c.eq("[act_index] exit status", 0, r.rc, r.describe()):
        return
    log = itest.parse_index_log(r.out)
    c.eq("[act_index] echo of cache-threads", "2", log.cfg("cache-threads"))
    c.eq("[act_index] echo of read-reqs-per-sec", "150",
         log.cfg("read-reqs-per-sec"))


def check_same_refusal(c, td, d1):
    for prog, item, value in BAD:
        key = "%s %s=%s" % (prog, item, value)
        before = itest.file_state(d1)
        good = BASE + [("device-names", d1)]
        in_file = itest.write_config(td.join("bad-file.conf"),
                                     good + ["%s: %s" % (item, value)])
        line_no = len(good) + 1
        plain = itest.write_config(td.join("plain.conf"), good)
        arg = "%s=%s" % (item, value)
        rf = itest.run([itest.binary(prog), in_file], timeout=30)
        rs = itest.run([itest.binary(prog), "--set", arg, plain], timeout=30)
        c.eq("[%s] exit status, file" % key, 1, rf.rc, rf.describe())
        c.eq("[%s] exit status, --set" % key, 1, rs.rc, rs.describe())
        fe = itest.error_lines(rf.err)
        se = itest.error_lines(rs.err)
        c.check(len(fe) == 1 and fe[0].endswith(" (line %d)" % line_no),
                "[%s] the file's ERROR line does not name line %d: %r"
                % (key, line_no, fe))
        c.check(len(se) == 1 and se[0].endswith(" (--set %s)" % arg),
                "[%s] the --set ERROR line does not name --set %s: %r"
                % (key, arg, se))
        if len(fe) == 1 and len(se) == 1:
            c.eq("[%s] the same refusal" % key,
                 fe[0][:-len(" (line %d)" % line_no)],
                 se[0][:-len(" (--set %s)" % arg)])
            c.check(item in se[0], "[%s] the item is not named: %s"
                    % (key, se[0]))
        c.check(itest.file_state(d1) == before, "[%s] the device file "
                "changed" % key)
        print("[%s] %s" % (key, se[0] if se else "-"))


def check_usage(c, td, d1):
    conf = itest.write_config(td.join("usage.conf"),
                              BASE + [("device-names", d1)])
    for args, shown in ((["--set", "read-reqs-per-sec", conf],
                         "'read-reqs-per-sec'"),
                        ([conf, "--set"], "''"),
                        (["--set", "=5", conf], "'=5'")):
        r = itest.run([itest.binary()] + args, timeout=10)
        c.eq("[usage %r] exit status" % args, 1, r.rc, r.describe())
        want = (r"^ERROR: --set takes NAME=VALUE, not %s\n\n"
                r"usage: act_storage" % re.escape(shown))
        c.check(re.match(want, r.err) is not None, "[usage %r] stderr does "
                "not match %r" % (args, want), r.describe())


def main():
    c = itest.Checker("test_set_option")
    with itest.TempDir() as td:
        d1 = td.join("d1.img")
        d2 = td.join("d2.img")
        itest.fill_file(d1, 16 * 1024 * 1024)
        itest.fill_file(d2, 16 * 1024 * 1024)
        check_run_overrides(c, td, d1, d2)
        check_same_refusal(c, td, d1)
        check_usage(c, td, d1)
    c.finish()


if __name__ == "__main__":
    main()
