"""Description: `--check --print-config` of act_storage and act_index: the
head of the log a run would write, from the code that writes the log,
on stdout - and nothing written (docs/act_storage.md, "The command
line").

- Its output is byte for byte the head of a real run's log with the same
  config and --set items, up to the HISTOGRAM NAMES block, less the run's
  "start time" line: the banner, the config echo (the effective values,
  service-threads' default included), the derived config, the device
  lines and the drives' identity lines. Both programs; a file device, a
  file still to be created and a file to be grown (file-size-mbytes:
  its size and minimum I/O size as the run finds them after creating or
  growing it), and, as root, a loop device with its identity line.
- Nothing is written: the test directory (every file's bytes, size and
  mtime, the listing) is unchanged by --check --print-config, and the
  I/O shim's trace of it has reads (the minimum-I/O probe) and no write.
- act.logfile.header.scan_header reads the output: the version, the
  config and derived items, the device sizes, the identity; read_header
  refuses it (not a log: no HISTOGRAM NAMES).
- Errors are --check's: a bad --set (exit 1) and a missing device (exit
  2) print the same ERROR lines as --check alone, and nothing on stdout;
  stdout that can't be written (/dev/full) is exit 5; --print-config
  without --check is a usage error.
"""

import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

sys.path.insert(0, os.path.join(itest.REPO, "analysis"))
from act.logfile import LogError  # noqa: E402
from act.logfile.header import read_header, scan_header  # noqa: E402

BASE = [("test-duration-sec", 1), ("report-interval-sec", 1),
        ("read-reqs-per-sec", 100), ("write-reqs-per-sec", 50)]


def log_head(log):
    """A log's lines up to its HISTOGRAM NAMES block, less "start time"."""
    head = log.split("HISTOGRAM NAMES\n", 1)[0]
    return "".join(line for line in head.splitlines(True)
                   if not line.startswith("start time = "))



def print_config(c, key, prog, args, root):
    """stdout of PROG --check --print-config ARGS, checking that nothing
    under root changed."""
    before = itest.dir_state(root)
    r = itest.run([itest.binary(prog), "--check", "--print-config"] + args,
                  timeout=30)
    c.eq("[%s] exit status" % key, 0, r.rc, r.describe())
    c.check(r.err.endswith("are usable - nothing was written\n"),
            "[%s] not --check's last line on stderr" % key, r.describe())
    diff = itest.dir_state_diff(before, itest.dir_state(root))
    c.check(diff == "", "[%s] --print-config changed the directory" % key,
            diff)
    return r.out


def same_as_run(c, key, prog, args, root):
    """--print-config equals the head of a run's log; returns it."""
    printed = print_config(c, key, prog, args, root)
    r = itest.run([itest.binary(prog)] + args, timeout=60)
    c.eq("[%s] the run's exit status" % key, 0, r.rc, r.describe())
    c.eq("[%s] --print-config is the head of the run's log" % key,
         log_head(r.out), printed)
    return printed


def check_reads_only(c, td, conf):
    trace = td.join("trace")
    r = itest.run([itest.binary(), "--check", "--print-config", conf],
                  timeout=30, env=itest.shim_env(trace=trace))
    c.eq("[traced] exit status", 0, r.rc, r.describe())
    ops = [t.op for t in itest.read_trace(trace)]
    c.check(ops and set(ops) == {"r"}, "[traced] not only reads: %r" % ops)


def check_parsed(c, printed, device, size):
    h = scan_header(io.BytesIO(printed.encode()))
    config = h.items(h.config)
    derived = h.items(h.derived)
    c.check(h.version is not None and h.version.startswith("6."),
            "scan_header: version %r" % h.version)
    c.eq("scan_header: read-reqs-per-sec (--set)", "200",
         config.get("read-reqs-per-sec"))
    c.check(config.get("service-threads", "").isdigit(), "scan_header: no "
            "effective service-threads: %r" % config)
    c.eq("scan_header: derived", "200",
         derived.get("internal-read-reqs-per-sec"))
    c.eq("scan_header: devices", {device: size}, h.devices)
    try:
        read_header(io.BytesIO(printed.encode()))
        c.fail("read_header accepted --print-config's output as a log")
    except LogError as e:
        c.check("HISTOGRAM NAMES" in str(e), "read_header: %s" % e)


def check_errors(c, td, d1, root):
    conf = itest.write_config(td.join("err.conf"),
                              BASE + [("device-names", d1)])
    missing = itest.write_config(td.join("missing.conf"), BASE + [
        ("device-names", os.path.join(root, "none.img"))])
    for key, args, status in (
            ("bad --set", ["--set", "read-reqs-per-sec=20x", conf], 1),
            ("missing device", [missing], 2)):
        before = itest.dir_state(root)
        r = itest.run([itest.binary(), "--check", "--print-config"] + args,
                      timeout=30)
        check = itest.run([itest.binary(), "--check"] + args, timeout=30)
        c.eq("[%s] exit status" % key, status, r.rc, r.describe())
        c.eq("[%s] stdout" % key, "", r.out)
        got, want = itest.error_lines(r.err), itest.error_lines(check.err)
        c.check(got and got == want, "[%s] not --check's ERROR lines: %r vs "
                "%r" % (key, got, want))
        c.eq("[%s] directory" % key, "",
             itest.dir_state_diff(before, itest.dir_state(root)))

    with open("/dev/full", "w") as full:
        p = subprocess.run([itest.binary(), "--check", "--print-config",
                            conf], stdout=full, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=30,
                           universal_newlines=True)
    c.eq("[stdout full] exit status", 5, p.returncode, p.stderr)
    c.check(any("can't write the config to stdout" in line
                for line in itest.error_lines(p.stderr)),
            "[stdout full] no ERROR line", p.stderr)

    r = itest.run([itest.binary(), "--print-config", conf], timeout=10)
    c.eq("[without --check] exit status", 1, r.rc, r.describe())
    c.check(r.err.startswith("ERROR: --print-config is used with --check"),
            "[without --check] no ERROR line first", r.describe())


def main():
    c = itest.Checker("test_print_config")
    with itest.TempDir() as td:
        root = td.join("area")
        os.mkdir(root)
        d1 = os.path.join(root, "d1.img")
        itest.fill_file(d1, 16 * 1024 * 1024)
        conf = itest.write_config(td.join("base.conf"),
                                  BASE + [("device-names", d1)])
        sets = ["--set", "read-reqs-per-sec=200"]

        printed = same_as_run(c, "act_storage", "act_storage",
                              sets + [conf], root)
        check_parsed(c, printed, d1, 16 * 1024 * 1024)
        check_reads_only(c, td, conf)
        same_as_run(c, "act_index", "act_index", sets + [conf], root)

        new = os.path.join(root, "new.img")
        small = os.path.join(root, "small.img")
        itest.fill_file(small, 1000)
        same_as_run(c, "files to create and to grow", "act_storage",
                    sets + ["--set", "device-names=%s,%s" % (new, small),
                            "--set", "file-size-mbytes=8", conf], root)

        if os.geteuid() != 0:
            c.skip_part("a loop device's identity")
        else:
            loop_file = td.join("loop.img")
            itest.fill_file(loop_file, 16 * 1024 * 1024)
            loop, why = itest.loop_attach(loop_file)
            if loop is None:
                c.skip_part("a loop device's identity", why)
            else:
                try:
                    printed = same_as_run(c, "loop device", "act_storage",
                                          ["--set", "device-names=" + loop,
                                           conf], root)
                    c.check(("%s model = " % loop) in printed, "[loop "
                            "device] no identity line", printed)
                finally:
                    itest.loop_detach(loop)

        check_errors(c, td, d1, root)
    c.finish()


if __name__ == "__main__":
    main()
