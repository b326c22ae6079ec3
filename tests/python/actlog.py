"""Helpers of the tests in tests/python: the act package on sys.path, and
small ACT logs made to order (the layout of docs/log-format.md)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "analysis"))

# The stop lines of the C programs, one of each kind (docs/log-format.md,
# "End of run").
HOST_LAG = [
    "ERROR: service threads can't keep up: 10.412 sec behind schedule, "
    "more than max-lag-sec (10)",
    "ERROR: ACT can't do the requested load - test stopped - try "
    "configuring more service-threads (in the 10.4 sec since this thread "
    "was last on schedule its I/Os took only 3% of the time; the CPUs were "
    "100% busy)"]
DRIVE_LAG = [
    "ERROR: service threads can't keep up: 2.981 sec behind schedule, more "
    "than max-lag-sec (2)",
    "ERROR: the drive is the limit: in the 3.0 sec since this thread was "
    "last on schedule its 2 I/Os took 3.0 sec (100% of the time, average "
    "1.500 sec; longest 1.500 sec, a 1536-byte read at offset 56176128 on "
    "/dev/sdb) - drive(s) can't keep up - test stopped"]
DRIVE_STALL = [
    "ERROR: device /dev/sdb stalled: a 1536-byte read at offset 4096 took "
    "11.002 sec, more than max-lag-sec (10) - the drive, not the thread "
    "count, is the limit",
    "ERROR: drive(s) can't keep up - test stopped"]
HUNG = [
    "ERROR: device /dev/nvme0n1 is not responding: a 1536-byte read at "
    "offset 39300608 has not completed after 2.004 sec, more than "
    "max-lag-sec (2) - test stopped"]
IO_ERRORS = [
    "ERROR: read failed on device /dev/sdb at offset 4096, size 1536: "
    "Input/output error (errno 5)",
    "ERROR: read failed on device /dev/sdb at offset 8192, size 1536: "
    "Input/output error (errno 5)",
    "ERROR: stopping: 2 I/O errors, more than io-error-limit 1"]


def header(duration=5, interval=1, micro=False, commit=False,
           names=("reads", "writes"), identity=True, reads_per_sec=2000):
    """The head of an act_storage log, up to the HISTOGRAM NAMES block;
    its derived configuration plans reads_per_sec reads a second (reports()
    does 100 + over: a log judged with --check plans what it does, or is
    NOT JUDGED)."""
    lines = ["", "ACT version 6.7", "Storage device IO test", "",
             "ACT-STORAGE CONFIGURATION", "device-names: /dev/sdb"]
    if duration is not None:
        lines.append("test-duration-sec: %d" % duration)
    lines += ["report-interval-sec: %d" % interval,
              "microsecond-histograms: %s" % ("yes" if micro else "no"),
              "commit-to-device: %s" % ("yes" if commit else "no"), "",
              "DERIVED CONFIGURATION",
              "internal-read-reqs-per-sec: %d" % reads_per_sec, "",
              "/dev/sdb size = 2147483648 bytes, 16384 large blocks, "
              "minimum IO size = 512 bytes", ""]
    if identity:
        lines += ["/dev/sdb model = SAMSUNG MZQL21T9HCJR-00A07, serial = "
                  "S64GNA0T123456, firmware = GDC5602Q",
                  "start time = 2026-11-23T03:47:33Z", ""]
    lines += ["HISTOGRAM NAMES"] + list(names) + [""]
    return "\n".join(lines) + "\n"


def report(sec, hists):
    """One report: hists maps a name to its cumulative bucket counts
    {bucket: count}."""
    out = ["after %d sec:" % sec]
    for name, buckets in hists.items():
        out.append("%s (%d total)" % (name, sum(buckets.values())))
        if buckets:
            out.append(" " + " ".join("(%02d: %010d)" % (b, c) for b, c in
                                      sorted(buckets.items())))
    return "\n".join(out) + "\n\n"


def reports(secs, names=("reads", "writes"), over=1):
    """Reports at each of secs: per second 100 operations in bucket 0 and
    `over` in bucket 3 (over 1 ms), cumulative."""
    return "".join(report(t, {n: {0: 100 * t, 3: over * t} for n in names})
                   for t in secs)


def make(path, text):
    with open(path, "wb") as f:
        f.write(text.encode() if isinstance(text, str) else text)
    return path


def analysed(text, spec=None, path="x.log"):
    """act.latency's Analysis of log text (named path) as spec (an
    act.latency.Spec; default: Spec()) asks, its slices kept (no table
    printed)."""
    import io
    from act.latency import Spec, analyse
    from act.logfile.header import LogFile
    log = LogFile(path, io.BytesIO(text.encode() if isinstance(text, str)
                                   else text))
    log.read_header()
    return analyse(log, spec or Spec(), keep=True)
