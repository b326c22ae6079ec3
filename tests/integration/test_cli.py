"""Description: the command line as a new user meets it.

- A bad argument is named before the usage: `act_storage --bogus`,
  `act_index a.conf b.conf`, no argument at all: exit 1, stderr starts
  with an ERROR line saying what was wrong, then the usage. A mistyped
  long option gets the closest one (`--chek`: did you mean '--check'?,
  act_index and act_prep too); an option close to none (`--bogus`, a
  short one) gets none. After `--`, an argument starting with '-' is the
  config file.
- Each message once per destination: `act_storage CONF > log 2>&1` (and
  act_prep the same way, the README's own recipe) has each ERROR line
  once in the file, not twice.
- `--help` points at real files: in the source tree at config/*.conf and
  analysis/act_latency.py; after `make install PREFIX=<tmp>` the installed
  binaries point at <tmp>/share/act/config/... and <tmp>/bin/act_latency.py,
  which exist; the man pages are installed too.
- `act_prep --size` with a block device is a usage error (exit 1; root
  with a loop device, skipped otherwise).
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


def check_bad_args(c, td):
    cfg = itest.write_config(td.join("ok.conf"), [
        ("device-names", td.join("d")), ("file-size-mbytes", 8),
        ("test-duration-sec", 1), ("read-reqs-per-sec", 100)])
    cases = [
        ("act_storage", ["--bogus"], r"^ERROR: unknown option '--bogus'\n"),
        ("act_storage", [cfg, "--bogus"],
         r"^ERROR: unknown option '--bogus'\n"),
        ("act_storage", ["--chek", cfg], r"^ERROR: unknown option '--chek' - "
         r"did you mean '--check'\?\n"),
        ("act_storage", ["--sett=read-reqs-per-sec=5", cfg],
         r"^ERROR: unknown option '--sett=read-reqs-per-sec=5' - did you "
         r"mean '--set'\?\n"),
        ("act_index", ["--check", "--print_config", cfg],
         r"^ERROR: unknown option '--print_config' - did you mean "
         r"'--print-config'\?\n"),
        ("act_storage", ["-x", cfg], r"^ERROR: unknown option '-x'\n"),
        ("act_prep", ["--sise", "8M", td.join("d")],
         r"^ERROR: unknown option '--sise' - did you mean '--size'\?\n"),
        ("act_prep", ["--max-stal-sec=5", td.join("d")],
         r"^ERROR: unknown option '--max-stal-sec=5' - did you mean "
         r"'--max-stall-sec'\?\n"),
        ("act_index", [cfg, cfg], r"^ERROR: one config file expected, got 2"),
        ("act_storage", [], r"^ERROR: no config file given"),
    ]
    for prog, args, want in cases:
        r = itest.run([itest.binary(prog)] + args, timeout=30)
        what = "%s %s" % (prog, " ".join(args) or "(no argument)")
        c.eq("%s: exit status" % what, 1, r.rc, r.describe())
        c.check(re.search(want, r.err), "%s: the first line does not say "
                "what was wrong" % what, r.describe())
        c.check("usage: %s" % prog in r.err, "%s: no usage after the error"
                % what, r.describe())
        c.check(not os.path.exists(td.join("d")), "%s: a device was created"
                % what)

    # "--": what follows is the config file, even starting with '-'.
    r = itest.run([itest.binary(), "--", "-no-such.conf"], timeout=30,
                  cwd=td.path)
    c.eq("-- -no-such.conf: exit status", 1, r.rc, r.describe())
    c.check("ERROR: can't open config file -no-such.conf" in r.err,
            "-- -no-such.conf: not read as the config file", r.describe())


def check_once(c, td):
    bad = itest.write_config(td.join("bad.conf"), [
        ("device-names", "/dev/act-no-such-device"), ("test-duration-sec", 1),
        ("read-reqs-per-sec", 100)])
    log = td.join("both.log")
    with open(log, "w") as f:
        r = subprocess.run([itest.binary(), bad], stdout=f,
                           stderr=subprocess.STDOUT, timeout=30)
    text = open(log).read()
    c.eq("2>&1: exit status", 2, r.returncode, text)
    errors = [l for l in text.splitlines() if l.startswith("ERROR:")]
    c.eq("2>&1: ERROR lines in the file", 1, len(errors), text)

    plog = td.join("prep.log")
    with open(plog, "w") as f:
        r = subprocess.run([itest.binary("act_prep"),
                            "/dev/act-no-such-device"], stdout=f,
                           stderr=subprocess.STDOUT, timeout=30)
    text = open(plog).read()
    c.eq("act_prep 2>&1: exit status", 2, r.returncode, text)
    errors = [l for l in text.splitlines() if l.startswith("ERROR:")]
    c.eq("act_prep 2>&1: ERROR lines in the file", 1, len(errors), text)

    # Separate destinations still both get it (stdout is the log, stderr
    # the person watching).
    r = itest.run([itest.binary(), bad], timeout=30)
    c.check("ERROR:" in r.out and "ERROR:" in r.err, "separate stdout and "
            "stderr: the ERROR line should be in both", r.describe())


def help_paths(text):
    conf = re.search(r"(/\S+\.conf)", text)
    lat = re.search(r"(/\S+act_latency\.py) -l LOG", text)
    return (conf.group(1) if conf else None, lat.group(1) if lat else None)


def check_help_paths(c, td):
    for prog in ("act_storage", "act_index"):
        r = itest.run([itest.binary(prog), "--help"], timeout=30)
        conf, lat = help_paths(r.out)
        c.check(conf and os.path.isfile(conf) and conf.endswith(
            "config/%s.conf" % prog), "%s --help: config path %r does not "
            "exist" % (prog, conf), r.out)
        c.check(lat and os.path.isfile(lat), "%s --help: act_latency.py path "
                "%r does not exist" % (prog, lat), r.out)

    prefix = td.join("prefix")
    r = subprocess.run(["make", "-s", "install", "PREFIX=" + prefix],
                       cwd=itest.REPO, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=300)
    if not c.eq("make install: exit status", 0, r.returncode, r.stdout):
        return
    for prog in ("act_storage", "act_index"):
        r = itest.run([os.path.join(prefix, "bin", prog), "--help"],
                      timeout=30)
        conf, lat = help_paths(r.out)
        c.eq("installed %s --help: config" % prog, os.path.join(
            prefix, "share", "act", "config", prog + ".conf"), conf, r.out)
        c.eq("installed %s --help: act_latency.py" % prog,
             os.path.join(prefix, "bin", "act_latency.py"), lat, r.out)
    for page in ("act_storage.1", "act_index.1", "act_prep.1"):
        c.check(os.path.isfile(os.path.join(prefix, "share", "man", "man1",
                                            page)),
                "make install: man page %s not installed" % page)


def check_prep_size_block(c, td):
    if os.geteuid() != 0:
        c.skip_part("act_prep --size on a block device")
        return
    img = td.join("blk.img")
    with open(img, "wb") as f:
        f.truncate(8 * 1024 * 1024)
    dev, why = itest.loop_attach(img)
    if dev is None:
        c.skip_part("act_prep --size on a block device", "no loop device: %s" %
                    why)
        return
    try:
        r = itest.run([itest.binary("act_prep"), "--size", "1M", dev],
                      timeout=30)
        c.eq("act_prep --size with a block device: exit status", 1, r.rc,
             r.describe())
        c.check("applies to files only" in r.err, "act_prep --size with a "
                "block device: no reason given", r.describe())
    finally:
        itest.loop_detach(dev)


def main():
    c = itest.Checker("test_cli")
    with itest.TempDir() as td:
        check_bad_args(c, td)
        check_once(c, td)
        check_help_paths(c, td)
        check_prep_size_block(c, td)
    c.finish()


if __name__ == "__main__":
    main()
