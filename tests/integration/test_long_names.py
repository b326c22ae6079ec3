"""Description: a log is never cut short by its own length.

128 file-backed devices (the maximum), each named by a path of about 100
characters, as /dev/disk/by-id/... names are: the config echo alone is
over 12 KiB (the log used to be built in an 8 KiB buffer, which silently
dropped num-devices and the whole DERIVED CONFIGURATION block and still
exited 0). act_storage runs 2 s; the log must be complete: every device
name in the echo, num-devices 128, the derived block, 128 device lines,
the 2 + 2 x 128 histogram names, two whole reports; exit 0; and
analysis/act_latency.py reads it.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

N_DEVICES = 128
DURATION = 2


def main():
    c = itest.Checker("test_long_names")
    with itest.TempDir() as td:
        sub = td.join("by-id")
        os.mkdir(sub)
        prefix = os.path.join(sub, "nvme-VENDOR_MODEL_X_1234567890_")
        # Pad every name to exactly 100 characters (limit 127).
        pad = 100 - len(prefix) - 4
        c.check(pad > 0, "temporary directory path too long: %s" % prefix)
        devs = ["%s%s%04d" % (prefix, "S" * pad, i) for i in range(N_DEVICES)]
        cfg = itest.write_config(td.join("long.conf"), [
            ("device-names", ",".join(devs)), ("file-size-mbytes", 1),
            ("service-threads", 4), ("test-duration-sec", DURATION),
            ("read-reqs-per-sec", 1280), ("write-reqs-per-sec", 128)])

        res = itest.run(cfg, timeout=DURATION + 60)
        c.eq("exit status", 0, res.rc, res.describe())
        try:
            log = itest.parse_log(res.out)
        except itest.ParseError as e:
            c.fail("log does not parse: %s" % e, res.describe())
            c.finish()

        echoed = (log.cfg("device-names") or "").split(" ")
        c.eq("device names echoed", devs, echoed)
        c.eq("num-devices", str(N_DEVICES), log.cfg("num-devices"))
        c.eq("derived block", "1280", log.der("internal-read-reqs-per-sec"))
        c.check(log.der("large-block-writes-per-sec") is not None,
                "large-block-writes-per-sec missing from the derived block")
        c.eq("device lines", N_DEVICES, len(log.devices))
        want = (["reads"] + ["%s-reads" % d for d in devs] +
                ["large-block-reads", "large-block-writes"])
        c.eq("histogram names", want, log.names)
        c.eq("reports", [1, 2], [r.sec for r in log.reports])
        c.check(len(res.out) > 12 * 1024 and
                sum(len(d) + 1 for d in devs) > 12 * 1024,
                "the echo should be over 12 KiB (test set-up)")

        log_path = td.join("long.log")
        with open(log_path, "w") as f:
            f.write(res.out)
        if itest.latency_script() is not None:
            lat = itest.run_latency(log_path, "-t", "1")
            c.eq("act_latency.py exit", 0, lat.returncode, lat.stderr)
            c.eq("act_latency.py slice rows", 2,
                 len(itest.latency_slice_rows(lat.stdout)), lat.stdout)
    c.finish()


if __name__ == "__main__":
    main()
