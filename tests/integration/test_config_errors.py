"""Description: act_storage config validation, syntax and command line.

Each invalid config must exit 1 with an `ERROR:` line on stdout (and the
same on stderr, stdout not being a tty) naming the item and the value, and
must not touch the devices: a pre-existing file named in device-names stays
byte-identical with the same mtime, and a missing one named with
file-size-mbytes is not created. A line written with '=' for ':' (`name =
value`, `name=value`) is an error that shows the line and how to write it
(`the separator is ':', as in 'name: value'`). Valid syntax variants (leading zeros,
separators, comments, blank lines, duplicates, flag spellings, legacy ACT 4
items) run 1 s and are checked through the config echo. Also: no argument,
--help, --version, a missing config file.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

EXIST = "EXIST"   # placeholders, replaced by the temp paths
NEW = "NEW"

BASE = [
    ("device-names", EXIST + " " + NEW),
    ("file-size-mbytes", "1"),
    ("service-threads", "4"),
    ("test-duration-sec", "1"),
    ("read-reqs-per-sec", "200"),
    ("write-reqs-per-sec", "100"),
]

# (case name, overrides {item: value or None to drop}, extra raw lines,
#  things the ERROR line must name: plain substrings, or ("tok", v) for a
#  value that must appear as a whole token)
def T(v):
    return ("tok", v)


ERROR_CASES = [
    ("unknown item", {}, ["no-such-item: 5"], ["no-such-item"]),
    ("trailing garbage", {"record-bytes": "2000abc"}, [],
     ["record-bytes", T("2000abc")]),
    ("exponent", {"record-bytes": "5e1"}, [], ["record-bytes", T("5e1")]),
    ("32-bit overflow", {"read-reqs-per-sec": "4294967296"}, [],
     ["read-reqs-per-sec", T("4294967296")]),
    ("flag not yes/no", {"tomb-raider": "maybe"}, [],
     ["tomb-raider", T("maybe")]),
    ("update-pct 101", {"update-pct": "101"}, [], ["update-pct", T("101")]),
    ("defrag-lwm-pct 100", {"defrag-lwm-pct": "100"}, [],
     ["defrag-lwm-pct", T("100")]),
    ("large block not power of 2", {"large-block-op-kbytes": "100"}, [],
     ["large-block-op-kbytes", T("100")]),
    ("large block too big", {"large-block-op-kbytes": "16384"}, [],
     ["large-block-op-kbytes", T("16384")]),
    ("record-bytes 0", {"record-bytes": "0"}, [], ["record-bytes", T("0")]),
    ("record-bytes over 8 MiB", {"record-bytes": "8388609"}, [],
     ["record-bytes", T("8388609")]),
    ("range-max equal", {"record-bytes": "1536",
                         "record-bytes-range-max": "1536"}, [],
     ["record-bytes-range-max", T("1536")]),
    ("range-max smaller", {"record-bytes": "1536",
                           "record-bytes-range-max": "1000"}, [],
     ["record-bytes-range-max", T("1000")]),
    ("commit-min-bytes not power of 2", {"commit-to-device": "yes",
                                         "commit-min-bytes": "3000"}, [],
     ["commit-min-bytes", T("3000")]),
    ("disable-odsync with commit-to-device", {"disable-odsync": "yes",
                                              "commit-to-device": "yes"}, [],
     ["disable-odsync", "commit-to-device"]),
    ("no load", {"read-reqs-per-sec": "0", "write-reqs-per-sec": "0"}, [],
     ["read-reqs-per-sec", "write-reqs-per-sec"]),
    ("missing device-names", {"device-names": None}, [], ["device-names"]),
    ("missing test-duration-sec", {"test-duration-sec": None}, [],
     ["test-duration-sec"]),
    ("test-duration-sec 0", {"test-duration-sec": "0"}, [],
     ["test-duration-sec", T("0")]),
    ("report-interval-sec 0", {"report-interval-sec": "0"}, [],
     ["report-interval-sec", T("0")]),
    ("service-threads 0", {"service-threads": "0"}, [],
     ["service-threads", T("0")]),
    ("load config too small", {"read-reqs-per-sec": "3",
                               "write-reqs-per-sec": "0",
                               "service-threads": "4"}, [],
     ["load config too small"]),
    ("record larger than large block", {"record-bytes": "200000",
                                        "large-block-op-kbytes": "128"}, [],
     ["record-bytes", "large-block-op-kbytes"]),
    ("act_index item", {}, ["cache-threads: 8"], ["cache-threads"]),
    ("bad scheduler-mode", {"scheduler-mode": "fast"}, [],
     ["scheduler-mode", T("fast")]),
    ("item without value", {"record-bytes": None}, ["record-bytes:"],
     ["record-bytes"]),
    ("'=' for ':' (name = value)", {"read-reqs-per-sec": None},
     ["read-reqs-per-sec = 200"],
     ["config item 'read-reqs-per-sec': 'read-reqs-per-sec = 200' - the "
      "separator is ':', as in 'read-reqs-per-sec: 200' (line 6)"]),
    ("'=' for ':' (name=value)", {"write-reqs-per-sec": None},
     ["write-reqs-per-sec=100"],
     ["config item 'write-reqs-per-sec': 'write-reqs-per-sec=100' - the "
      "separator is ':', as in 'write-reqs-per-sec: 100' (line 6)"]),
    ("'=' for ':' (device-names = ...)", {"device-names": None},
     ["device-names = " + EXIST],
     ["the separator is ':', as in 'device-names: " + EXIST + "'"]),
    ("'=' for ':' (unknown item)", {}, ["no-such-item=5"],
     ["unknown config item 'no-such-item' - and the separator is ':', "
      "not '='"]),
    ("device named twice", {"device-names": EXIST + "," + EXIST}, [],
     [EXIST]),
    ("129 devices", {"device-names": " ".join(
        [EXIST] + ["NEW%d" % k for k in range(128)])}, [],
     ["device-names", T("128")]),
]

# (case name, config lines (raw; EXIST-free, DEV is replaced), expected echo
#  {item: value}, stderr must contain (regexes), echo must not contain)
VALID_BASE = ["device-names: DEV", "file-size-mbytes: 1",
              "test-duration-sec: 1"]
VALID_CASES = [
    ("leading zero is decimal",
     ["service-threads: 4", "read-reqs-per-sec: 093",
      "write-reqs-per-sec: 010"],
     {"read-reqs-per-sec": "93", "write-reqs-per-sec": "10"}, [], []),
    ("separators",
     ["service-threads\t4", "read-reqs-per-sec 150",
      "write-reqs-per-sec:90", "record-bytes : 1024",
      "  defrag-lwm-pct   :   60  "],
     {"service-threads": "4", "read-reqs-per-sec": "150",
      "write-reqs-per-sec": "90", "record-bytes": "1024",
      "defrag-lwm-pct": "60"}, [], []),
    ("comments and blank lines",
     ["# a comment line", "", "   ", "service-threads: 4 # four",
      "read-reqs-per-sec: 120# no space", "\t# indented comment",
      "write-reqs-per-sec: 60   #"],
     {"service-threads": "4", "read-reqs-per-sec": "120",
      "write-reqs-per-sec": "60"}, [], []),
    ("duplicates: last wins",
     ["service-threads: 2", "read-reqs-per-sec: 100",
      "write-reqs-per-sec: 50", "read-reqs-per-sec: 250",
      "service-threads: 4"],
     {"service-threads": "4", "read-reqs-per-sec": "250"}, [], []),
    ("flag spellings",
     ["service-threads: 4", "read-reqs-per-sec: 100",
      "write-reqs-per-sec: 50", "tomb-raider: YES",
      "microsecond-histograms: True", "no-defrag-reads: n",
      "disable-odsync: FALSE"],
     {"tomb-raider": "yes", "microsecond-histograms": "yes",
      "no-defrag-reads": "no", "disable-odsync": "no"}, [], []),
    ("legacy num-queues x threads-per-queue",
     ["read-reqs-per-sec: 100", "write-reqs-per-sec: 50",
      "num-queues: 2", "threads-per-queue: 3"],
     {"service-threads": "6"},
     [r"(?m)^WARNING: .*num-queues", r"(?m)^WARNING: .*threads-per-queue"],
     ["num-queues", "threads-per-queue"]),
    ("legacy use-valloc",
     ["service-threads: 4", "read-reqs-per-sec: 100",
      "write-reqs-per-sec: 50", "use-valloc: yes"],
     {"service-threads": "4"}, [r"(?m)^WARNING: .*use-valloc"],
     ["use-valloc"]),
]


def build(overrides, extra, exist, new, td):
    lines = []
    for name, value in BASE:
        if name in overrides:
            continue
        lines.append("%s: %s" % (name, value))
    for name, value in overrides.items():
        if value is not None:
            lines.append("%s: %s" % (name, value))
    lines += extra

    def sub(s):
        s = re.sub(r"\bNEW(\d+)\b", lambda m: td.join("new%s" % m.group(1)),
                   s)
        return s.replace(EXIST, exist).replace(NEW, new)
    return [sub(l) for l in lines], sub


def error_lines(text):
    return [l for l in text.split("\n") if l.startswith("ERROR:")]


def names_all(line, wants):
    for w in wants:
        if isinstance(w, tuple):
            if re.search(r"(?<![\w.])" + re.escape(w[1]) + r"(?![\w.])",
                         line) is None:
                return False
        elif w not in line:
            return False
    return True


def main():
    c = itest.Checker("test_config_errors")
    prog = itest.binary()
    with itest.TempDir() as td:
        exist = td.join("existing_dev")
        new = td.join("new_dev")
        with open(exist, "wb") as f:
            f.write(os.urandom(1024 * 1024))
        os.utime(exist, ns=(1000000000 * 10 ** 9, 1000000000 * 10 ** 9))
        before = itest.file_state(exist)

        for name, over, extra, wants in ERROR_CASES:
            lines, sub = build(over, extra, exist, new, td)
            cfg = itest.write_config(td.join("err.conf"), lines)
            r = itest.run([prog, cfg], timeout=20)
            wants = [(w[0], sub(w[1])) if isinstance(w, tuple) else sub(w)
                     for w in wants]
            detail = "config:\n%s\n%s" % ("\n".join(lines), r.describe())
            c.eq("[%s] exit status" % name, 1, r.rc, detail)
            out_err = error_lines(r.out)
            c.check(any(names_all(l, wants) for l in out_err),
                    "[%s] no ERROR line on stdout naming %s" % (name, wants),
                    detail)
            c.check(any(names_all(l, wants) for l in error_lines(r.err)),
                    "[%s] no ERROR line on stderr naming %s" % (name, wants),
                    detail)
            c.check("after 1 sec:" not in r.out and
                    "HISTOGRAM NAMES" not in r.out,
                    "[%s] a rejected config ran" % name, detail)
            after = itest.file_state(exist)
            c.check(after == before, "[%s] existing device file %s was "
                    "modified (content or mtime)" % (name, exist))
            c.check(not os.path.lexists(new), "[%s] device file %s was "
                    "created" % (name, new))
            extra_new = [p for p in os.listdir(td.path)
                         if p.startswith("new")]
            c.check(extra_new == [], "[%s] device files created: %s" % (
                name, extra_new))
            for p in extra_new:
                os.unlink(td.join(p))
            if os.path.lexists(new):
                os.unlink(new)
            print("[%s] exit %s: %s" % (name, r.rc,
                                        out_err[0] if out_err else "-"))

        # The error names the line too (one case is enough).
        cfg = itest.write_config(td.join("line.conf"), [
            "device-names: " + exist, "test-duration-sec: 1", "",
            "read-reqs-per-sec: 12x"])
        r = itest.run([prog, cfg], timeout=20)
        c.check(r.rc == 1 and any("line 4" in l for l in error_lines(r.out)),
                "error for line 4 does not say 'line 4'", r.describe())

        check_valid(c, prog, td)
        check_command_line(c, prog, td)
    c.finish()


def check_valid(c, prog, td):
    jobs = {}
    cases = {}
    for k, (name, lines, echo, err_res, not_echoed) in enumerate(VALID_CASES):
        dev = td.join("valid%d" % k)
        text = "\n".join(l.replace("DEV", dev) for l in VALID_BASE + lines)
        cfg = itest.write_config(td.join("valid%d.conf" % k), text + "\n")
        jobs[name] = [prog, cfg]
        cases[name] = (text, echo, err_res, not_echoed)
    res = itest.run_parallel(jobs, timeout=30)
    for name, (text, echo, err_res, not_echoed) in cases.items():
        r = res[name]
        detail = "config:\n%s\n%s" % (text, r.describe())
        if not c.eq("[valid: %s] exit status" % name, 0, r.rc, detail):
            continue
        try:
            log = itest.parse_log(r.out)
        except itest.ParseError as e:
            c.fail("[valid: %s] log does not parse: %s" % (name, e), detail)
            continue
        for item, value in echo.items():
            c.eq("[valid: %s] echo of %s" % (name, item), value,
                 log.cfg(item), detail)
        for rx in err_res:
            c.check(re.search(rx, r.err) is not None,
                    "[valid: %s] stderr does not match %r" % (name, rx),
                    detail)
        for item in not_echoed:
            c.check(log.cfg(item) is None, "[valid: %s] legacy item %s "
                    "echoed" % (name, item), detail)
        c.check(log.cpus is None, "[valid: %s] 'detected N CPUs' printed "
                "although service-threads is known" % name, detail)
        c.check("ERROR" not in r.out + r.err, "[valid: %s] ERROR printed"
                % name, detail)
        c.eq("[valid: %s] reports" % name, [1],
             [rp.sec for rp in log.reports], detail)
        print("[valid: %s] exit 0, echo ok" % name)


def check_command_line(c, prog, td):
    r = itest.run([prog], timeout=10)
    c.eq("no argument: exit status", 1, r.rc, r.describe())
    c.check("usage" in r.err.lower(), "no argument: no usage on stderr",
            r.describe())
    c.check("ACT version" not in r.out, "no argument: a log was started",
            r.describe())

    r = itest.run([prog, "--help"], timeout=10)
    c.eq("--help: exit status", 0, r.rc, r.describe())
    c.check("usage" in r.out.lower() and "act_storage" in r.out,
            "--help: no usage on stdout", r.describe())

    r = itest.run([prog, "--version"], timeout=10)
    c.eq("--version: exit status", 0, r.rc, r.describe())
    m = re.search(r"\b(\d+\.\d+)\b", r.out)
    c.check(m is not None and 6.0 <= float(m.group(1)) < 7.0,
            "--version: no version 6.x on stdout", r.describe())

    missing = td.join("no-such.conf")
    r = itest.run([prog, missing], timeout=10)
    c.eq("missing config file: exit status", 1, r.rc, r.describe())
    c.check(any(missing in l for l in error_lines(r.out)),
            "missing config file: no ERROR naming %s on stdout" % missing,
            r.describe())

    r = itest.run([prog, "a.conf", "b.conf"], timeout=10)
    c.eq("two arguments: exit status", 1, r.rc, r.describe())


if __name__ == "__main__":
    main()
