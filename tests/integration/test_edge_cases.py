"""Description: the edge cases of issue 12, each stopped early and clearly.

- Histogram names are unique: act_storage with a device named
  `large-block` (it would give a second `large-block-reads`) or `total`
  (a second `total-reads`), act_index with one named `total`: exit 1, a
  message naming the device and the clash, nothing created.
- Control characters in a config (an unknown item, a bad value) or on the
  command line (act_storage, act_prep) are shown escaped (`\\x1b`), never
  raw: no ESC byte on stdout or stderr.
- io-error-limit: every read fails (the test shim, from 0.3 s in, 4000
  reads/s) with io-error-limit 500: exit 4, the line `stopping: 501 I/O
  errors, more than io-error-limit 500` (or a count a little over 501 when
  threads fail at once) is there (never hidden by the rate limit), the
  first second of failures shows at most 10 failure lines, and the rest
  are counted in `N more I/O errors were not shown`.
- Thread counts beyond what the host can start: `service-threads:
  4294967295` (act_storage), `cache-threads: 4294967295` (act_index):
  exit 1 with the limit in the message, and the device file that
  file-size-mbytes would have created does not exist.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

ESC = "\x1b"


def base(dev, **over):
    items = {"device-names": dev, "file-size-mbytes": 16,
             "test-duration-sec": 2, "read-reqs-per-sec": 200,
             "write-reqs-per-sec": 20}
    items.update(over)
    return list(items.items())


def check_names(c, td):
    cases = [
        ("act_storage", "large-block", [], "large-block-reads"),
        ("act_storage", "total", [("total-latency", "yes")], "total-reads"),
        ("act_index", "total", [("total-latency", "yes")], "total-reads"),
    ]
    for prog, name, extra, clash in cases:
        sub = td.join("names-%s-%s" % (prog, name))
        os.mkdir(sub)
        cfg = itest.write_config(os.path.join(sub, "c.conf"),
                                 base(name) + extra)
        r = itest.run([itest.binary(prog), cfg], timeout=30)
        what = "%s, device %s" % (prog, name)
        c.eq("%s: exit status" % what, 1, r.rc, r.describe())
        c.check(re.search(r"(?m)^ERROR: .*device %s would give a histogram "
                          r"named %s" % (name, clash), r.out),
                "%s: no message naming the clash" % what, r.describe())
        c.check(not os.path.exists(os.path.join(sub, name)),
                "%s: the device file was created" % what)
    # The same file named by a longer path is fine.
    sub = td.join("names-ok")
    os.mkdir(sub)
    cfg = itest.write_config(os.path.join(sub, "c.conf"),
                             base(os.path.join(sub, "large-block"),
                                  **{"test-duration-sec": 1}))
    r = itest.run([itest.binary(), cfg], timeout=30)
    c.eq("./large-block: exit status", 0, r.rc, r.describe())


def check_escapes(c, td):
    dev = td.join("esc-dev")
    cases = [
        ("unknown item", [itest.binary(), itest.write_config(
            td.join("esc1.conf"), base(dev) + ["read" + ESC + "[31m: 5"])],
         1, r"read\\x1b\[31m"),
        ("bad value", [itest.binary(), itest.write_config(
            td.join("esc2.conf"), base(dev, **{"record-bytes":
                                               "15" + ESC + "]0;x"}))],
         1, r"15\\x1b\]0;x"),
        ("act_storage argument", [itest.binary(), "--x" + ESC + "[2J"], 1,
         None),
        ("act_prep option", [itest.binary("act_prep"), "--x" + ESC + "[2J"],
         1, r"--x\\x1b\[2J"),
        ("act_prep --size", [itest.binary("act_prep"), "--size",
                             "1" + ESC + "G", dev], 1, r"1\\x1bG"),
    ]
    for what, args, want_rc, want_re in cases:
        r = itest.run(args, timeout=30)
        c.eq("%s: exit status" % what, want_rc, r.rc, r.describe())
        c.check(ESC not in r.out and ESC not in r.err,
                "%s: a raw ESC byte reached the terminal" % what,
                r.describe())
        if want_re is not None:
            c.check(re.search(want_re, r.out + r.err),
                    "%s: the escaped text is not shown" % what, r.describe())
    c.check(not os.path.exists(dev), "escapes: a device file was created")


def check_io_errors(c, td):
    # 4000 reads/s all failing from 0.3 s: more than io-error-limit (500)
    # within about an eighth of a second - all inside the first second of
    # failures, which may show at most 10 lines.
    dev = td.join("err-dev")
    cfg = itest.write_config(td.join("err.conf"), [
        ("device-names", dev), ("file-size-mbytes", 16),
        ("service-threads", 4), ("test-duration-sec", 20),
        ("read-reqs-per-sec", 4000), ("write-reqs-per-sec", 0),
        ("io-error-limit", 500)])
    r = itest.run([itest.binary(), cfg], timeout=60, env=itest.shim_env(
        fault="op=read,after_ms=300,errno=EIO"))
    c.eq("io-error-limit: exit status", 4, r.rc, r.describe())
    # 501 - or a little more when threads fail at the same moment.
    m = re.search(r"(?m)^ERROR: stopping: (\d+) I/O errors, more than "
                  r"io-error-limit 500$", r.out)
    c.check(m and 501 <= int(m.group(1)) <= 510, "io-error-limit: no stop "
            "line 'stopping: 501 I/O errors, more than io-error-limit 500'",
            r.describe())
    fails = [l for l in r.out.split("\n") if l.startswith("ERROR: read "
                                                          "failed")]
    c.check(0 < len(fails) <= 10, "io-error-limit: %d failure lines in the "
            "first second of failures (at most 10)" % len(fails),
            r.describe())
    hidden = re.findall(r"(?m)^ERROR: (\d+) more I/O errors were not "
                        r"shown$", r.out)
    c.check(hidden and len(fails) + sum(map(int, hidden)) >= 501,
            "io-error-limit: the failures not shown are not counted",
            r.describe())


def check_threads(c, td):
    cases = [
        ("act_storage", "service-threads",
         base(td.join("thr-s"), **{"service-threads": 4294967295,
                                   "read-reqs-per-sec": 4294967295,
                                   "write-reqs-per-sec": 0})),
        ("act_index", "cache-threads",
         base(td.join("thr-i"), **{"cache-threads": 4294967295})),
    ]
    for prog, item, items in cases:
        cfg = itest.write_config(td.join(prog + "-thr.conf"), items)
        r = itest.run([itest.binary(prog), cfg], timeout=30)
        c.eq("%s %s: exit status" % (prog, item), 1, r.rc, r.describe())
        c.check(re.search(r"(?m)^ERROR: config item '%s': the config needs "
                          r"\d+ threads, more than this host can start "
                          r"\(at most \d+" % item, r.out),
                "%s %s: no message with the limit" % (prog, item),
                r.describe())
        c.check(not os.path.exists(dict(items)["device-names"]),
                "%s %s: the device file was created" % (prog, item))


def main():
    c = itest.Checker("test_edge_cases")
    with itest.TempDir() as td:
        check_names(c, td)
        check_escapes(c, td)
        check_io_errors(c, td)
        check_threads(c, td)
    c.finish()


if __name__ == "__main__":
    main()
