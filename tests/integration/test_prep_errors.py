"""Description: act_prep's command line and device errors: right exit status, nothing written.

No argument: usage on stderr, nothing on stdout, exit 1. `--help`: usage on
stdout, exit 0. `--version`: `act_prep <V>` (6.0 <= V < 7.0), exit 0.
Unknown options, `--size` without a value or with a bad one (`abc`, `10X`,
`0`, `-5`, `1e3`, `10MB`, empty), `--max-stall-sec` without a value or
with a bad one (`abc`, `-1`, `1.5`, 2^32, `10s`, empty), a device named
twice: exit 1, the message naming the option and the value. A
nonexistent device without --size: exit 2 with an ERROR naming it. A
directory (with and without --size): exit 2. A nonexistent directory
under --size: exit 2. `--` ends the options: `act_prep -- -weird-name`
prepares a file named `-weird-name` (exit 0, every byte rewritten), and
`--help` after `--` is a device name. An existing file named with a
nonexistent one: exit 2
and the existing file untouched (every device is checked before any is
written). In every error case no file is created, removed or modified
(content, size and mtime of everything in the temp dir compared).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


def main():
    c = itest.Checker("test_prep_errors")
    prog = itest.binary("act_prep")
    with itest.TempDir() as td:
        root = td.join("area")
        os.mkdir(root)
        exist = os.path.join(root, "exist.dev")
        itest.fill_file(exist, 1024 * 1024 + 4096, b"\xa5")
        os.mkdir(os.path.join(root, "adir"))
        missing = os.path.join(root, "missing.dev")
        adir = os.path.join(root, "adir")
        nodir = os.path.join(root, "no-such-dir", "x.dev")

        # (what, args, exit status, where the message is, regexes the
        # message must match)
        cases = [
            ("no argument", [], 1, "err", [r"^usage: act_prep"]),
            ("unknown option", ["--bogus", exist], 1, "err",
             [r"--bogus", r"usage: act_prep"]),
            ("unknown short option", ["-x", exist], 1, "err", [r"-x"]),
            ("--size without a value", [exist, "--size"], 1, "err",
             [r"ERROR: --size"]),
            ("only --size", ["--size", "10M"], 1, "err",
             [r"^usage: act_prep"]),
            ("device named twice", [exist, exist], 1, "err",
             [r"ERROR: .*" + re.escape(exist)]),
        ]
        for bad in ("abc", "10X", "0", "-5", "1e3", "10MB", ""):
            cases.append(("--size %r" % bad, ["--size", bad, missing], 1,
                          "err", [r"ERROR: --size: '%s'" % re.escape(bad)]))
            cases.append(("--size=%r on an existing file" % bad,
                          ["--size=" + bad, exist], 1, "err",
                          [r"ERROR: --size"]))
        for bad in ("abc", "-1", "1.5", "4294967296", "10s", ""):
            cases.append(("--max-stall-sec %r" % bad,
                          ["--max-stall-sec", bad, missing], 1, "err",
                          [r"ERROR: --max-stall-sec: '%s' is not a number "
                           r"of seconds" % re.escape(bad)]))
        cases.append(("--max-stall-sec without a value",
                      [missing, "--max-stall-sec"], 1, "err",
                      [r"ERROR: --max-stall-sec"]))
        cases += [
            ("nonexistent device", [missing], 2, "both",
             [r"^ERROR: .*" + re.escape(missing)]),
            ("a directory", [adir], 2, "both",
             [r"^ERROR: .*" + re.escape(adir)]),
            ("a directory with --size", ["--size", "1M", adir], 2, "both",
             [r"^ERROR: .*" + re.escape(adir)]),
            ("--size in a nonexistent directory", ["--size", "1M", nodir],
             2, "both", [r"^ERROR: .*" + re.escape(nodir)]),
            ("an existing file and a nonexistent one", [exist, missing], 2,
             "both", [r"^ERROR: .*" + re.escape(missing)]),
            ("a nonexistent file and an existing one", [missing, exist], 2,
             "both", [r"^ERROR: .*" + re.escape(missing)]),
        ]

        for what, args, status, where, patterns in cases:
            before = itest.dir_state(root)
            r = itest.run([prog] + args, timeout=20)
            detail = r.describe()
            c.eq("%s: exit status" % what, status, r.rc, detail)
            texts = {"err": [r.err], "out": [r.out],
                     "both": [r.out, r.err]}[where]
            for text in texts:
                for pat in patterns:
                    c.check(re.search(pat, text, re.M) is not None,
                            "%s: no match for %r" % (what, pat), detail)
            if where == "err":
                c.eq("%s: stdout" % what, "", r.out, detail)
            c.check("cleaning device" not in r.out, "%s: cleaning started"
                    % what, detail)
            diff = itest.dir_state_diff(before, itest.dir_state(root))
            c.check(diff == "", "%s: files created or modified" % what,
                    diff)

        # "--" ends the options: a device may start with '-'.
        weird = os.path.join(root, "-weird-name")
        itest.fill_file(weird, 1024 * 1024, b"\xa5")
        r = itest.run([prog, "--", "-weird-name"], timeout=60, cwd=root)
        c.eq("-- -weird-name: exit status", 0, r.rc, r.describe())
        c.check("salting device -weird-name" in r.out,
                "-- -weird-name: not prepared", r.describe())
        with open(weird, "rb") as f:
            data = f.read()
        c.check(len(data) == 1024 * 1024 and b"\xa5" * 4096 not in data,
                "-- -weird-name: not rewritten")
        os.unlink(weird)
        r = itest.run([prog, "--", "--help"], timeout=20, cwd=root)
        c.eq("-- --help: a device, missing: exit status", 2, r.rc,
             r.describe())
        c.check("ERROR: can't use device --help" in r.err,
                "-- --help: not taken as a device", r.describe())

        r = itest.run([prog, "--help"], timeout=20)
        c.eq("--help: exit status", 0, r.rc, r.describe())
        c.check(r.out.startswith("usage: act_prep") and "--size" in r.out,
                "--help: usage with --size on stdout", r.describe())
        c.eq("--help: stderr", "", r.err)

        r = itest.run([prog, "--version"], timeout=20)
        c.eq("--version: exit status", 0, r.rc, r.describe())
        m = re.match(r"^act_prep (\d+\.\d+)\n$", r.out)
        c.check(m is not None and 6.0 <= float(m.group(1)) < 7.0,
                "--version: expected 'act_prep V' with 6.0 <= V < 7.0",
                r.describe())
        c.eq("--version: stderr", "", r.err)
    c.finish()


if __name__ == "__main__":
    main()
