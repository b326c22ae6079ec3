"""Description: drive health in the log, on a fake NVMe drive (the shim's ACT_SHIM_NVME): the source line, start sample, samples lined up with the reports, and what never changes.

The code that reads a drive is the programs' own; the shim fakes only the
ioctl (tests/shim/act_shim.c). All runs at once, on files (and loop
devices as root):

- ramp: act_storage 8 s, health-interval-sec 2 on a drive whose
  temperature ramps 5 C/s from 40 C, throttles from 55 C, gets a media
  error at second 3 and answers the OCP page (waf=2): source `nvme smart
  log, ocp log c0h`, a start sample (wctemp, cctemp, 40 C, no error), a
  sample after the reports at 2, 4, 6 and the end sample after 8, each
  timed in the second after its report; the temperature follows the ramp,
  the throttle counters count (1 transition, seconds since 55 C), the
  media error shows from second 3 on, data units and physical bytes
  written grow with WAF 2; the strict parser reads the log, and
  act_latency.py's table is the same as without the health lines (the
  reference script's matching passes them by).
- index: act_index 3 s, health-interval-sec 1: samples after 1, 2 and 3.
- hang: admin commands from second 2 hang 30 s: the run still ends within
  5 s (plus a margin) of its end, exit 0, every report there, and a
  sample says `not read - no answer for N sec`; act_latency.py --check on
  that log is never a plain PASS (exit 4: the drive's health at the end
  is not known).
- eperm: admin commands fail with EPERM: `none (NVMe admin command failed:
  Operation not permitted (errno 1))`, no sample, the run as any other.
- off: health-interval-sec 0: `none (health-interval-sec 0)` and not one
  NVMe ioctl in the shim's trace (ramp's trace has them).
- plain: a file without the fake: `none (a regular file)`, no sample.
- check: --check --print-config: the source line, no start sample, no Get
  Log Page (only NVME_IOCTL_ID and Identify in the trace).
- prep: act_prep sends no NVMe command and prints no health line.
- signal: SIGINT after 3 reports: exit 130, no sample after the stop line.
- ioerr: reads fail from 2.5 s (ACT_SHIM_FAULT): exit 4, no sample after
  the stop line.
- state: two runs on one drive kept in a state file, a media error from
  run 2 (from_run=2): run 1 ends with 0, run 2 starts with 1, and its
  data units written go on from run 1's.
- loop (root): a loop device faked as NVMe reads as one; a loop device
  without the fake is `none (a loop device)`.
"""

import math
import os
import re
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import itdevice  # noqa: E402

UNIT = 512000
BASE = [("file-size-mbytes", 64), ("service-threads", 2),
        ("read-reqs-per-sec", 200), ("write-reqs-per-sec", 100)]
INDEX = [("file-size-mbytes", 8), ("service-threads", 2),
         ("cache-threads", 2), ("read-reqs-per-sec", 100),
         ("write-reqs-per-sec", 50)]
EPERM_WHY = "NVMe admin command failed: Operation not permitted (errno 1)"
# The end's bound: 5 s for a drive, and a margin for a loaded host.
HANG_MARGIN = 4.0

# key: (program, config items, fake rule or None, duration)
RUNS = {
    "ramp": ("act_storage", BASE + [("health-interval-sec", 2)],
             "ramp=5,throttle=55,waf=2,media_error_at=3", 8),
    "index": ("act_index", INDEX + [("health-interval-sec", 1)], "temp=33",
              3),
    "hang": ("act_storage", BASE + [("health-interval-sec", 1)],
             "hang_ms=30000,hang_at=2", 6),
    "eperm": ("act_storage", BASE, "errno=EPERM", 3),
    "off": ("act_storage", BASE + [("health-interval-sec", 0)], "waf=1", 3),
    "plain": ("act_storage", BASE, None, 3),
}


def temp(f):
    return int(f["temp"].split()[0])


def pair(f, name):
    a, b = f[name].split()[0].split("/")
    return int(a), int(b)


def num(f, name):
    return int(f[name].split()[0])


def strip_health(text):
    return "".join(l for l in text.splitlines(True)
                   if not l.startswith("health "))


def parse(c, key, r, program="act_storage", **kw):
    try:
        return (itest.parse_log if program == "act_storage" else
                itest.parse_index_log)(r.out, **kw)
    except itest.ParseError as e:
        c.fail("[%s] log does not parse: %s" % (key, e), r.describe())
        return None


def check_timing(c, key, log, interval, duration, detail):
    """A sample after each report whose time reached a multiple of the
    interval, and the end sample after the last, each taken in the second
    after its report."""
    want = sorted(set([s for s in range(interval, duration, interval)] +
                      [duration]))
    c.eq("[%s] the reports the samples follow" % key, want,
         [s.report_sec for s in log.samples], detail)
    for s in log.samples:
        c.check(s.report_sec <= s.t < s.report_sec + 1.5, "[%s] the sample "
                "after the report at %d sec is timed %.3f" % (
                    key, s.report_sec, s.t), detail)


def check_ramp(c, r, dev, trace):
    key = "ramp"
    detail = r.describe()
    c.eq("[ramp] exit status", 0, r.rc, detail)
    log = parse(c, key, r)
    if log is None:
        return
    c.eq("[ramp] source", "nvme smart log, ocp log c0h", log.health.get(dev),
         detail)
    st = log.health_start.get(dev, {})
    c.eq("[ramp] start sample", ("70 C", "80 C", 40, 0, (0, 0), "-"),
         (st.get("wctemp"), st.get("cctemp"), temp(st) if st else None,
          num(st, "media_errors") if st else None,
          pair(st, "throttle_transitions") if st else None,
          st.get("sensors")), detail)
    check_timing(c, key, log, 2, 8, detail)
    samples = [s for s in log.samples if s.device == dev and s.fields]
    if not c.check(len(samples) == 4, "[ramp] %d samples read, expected 4"
                   % len(samples), detail):
        return
    prev = None
    for s in samples:
        f = s.fields
        lo = 40 + 5 * math.floor(s.t)
        c.check(lo <= temp(f) <= min(85, lo + 5), "[ramp] %s at %.3f sec, "
                "expected %d C (the ramp, +5 C a second)" % (
                    f["temp"], s.t, lo), detail)
        c.check("wctemp" not in f and "cctemp" not in f, "[ramp] the limits "
                "in a run's sample", detail)
        pw, uw = num(f, "physical_written"), num(f, "units_written")
        c.check(2 * UNIT * (uw - 1) < pw <= 2 * UNIT * uw, "[ramp] "
                "physical_written %d for %d units written: not WAF 2" % (
                    pw, uw), detail)
        if prev is not None:
            c.check(uw > num(prev, "units_written") and
                    num(f, "units_read") > num(prev, "units_read"),
                    "[ramp] data units did not grow: %s then %s" % (
                        prev["units_written"], f["units_written"]), detail)
        prev = f
    first, end = samples[0], samples[-1]
    c.eq("[ramp] media errors after report 2, at the end", (0, 1),
         (num(first.fields, "media_errors"), num(end.fields, "media_errors")),
         detail)
    c.eq("[ramp] error log entries at the end", 1,
         num(end.fields, "error_log_entries"), detail)
    c.eq("[ramp] throttle transitions at the end", (1, 0),
         pair(end.fields, "throttle_transitions"), detail)
    secs = pair(end.fields, "throttle_time")[0]
    c.check(math.floor(end.t) - 3 <= secs <= math.floor(end.t) - 2,
            "[ramp] throttled %d s by %.3f sec, expected since second 3" % (
                secs, end.t), detail)
    print("[ramp] start %s C; samples %s" % (
        temp(st), ["%.3f: %s, media %s, throttle %s, WAF %.2f" % (
            s.t, s.fields["temp"], s.fields["media_errors"],
            s.fields["throttle_time"], num(s.fields, "physical_written") /
            max(1, num(s.fields, "units_written") * UNIT))
            for s in samples]))
    kinds = sorted(set(w for _, w, _ in itest.read_ioctls(trace)))
    c.eq("[ramp] NVMe commands sent", ["id", "identify-cns01", "log-lid02",
                                       "log-lidc0"], kinds)

    # The reference's reading: the table is as if the lines were not there.
    with itest.TempDir() as td:
        full, bare = td.join("full.log"), td.join("bare.log")
        with open(full, "w") as f:
            f.write(r.out)
        with open(bare, "w") as f:
            f.write(strip_health(r.out))
        a = itest.run_latency(full, "-t", "1")
        b = itest.run_latency(bare, "-t", "1")
        c.eq("[ramp] act_latency.py exit status", 0, a.returncode, a.stderr)
        c.eq("[ramp] act_latency.py's table with and without the health "
             "lines", b.stdout.replace(bare, "LOG"),
             a.stdout.replace(full, "LOG"))
        c.eq("[ramp] act_latency.py slice rows", 8,
             len(itest.latency_slice_rows(a.stdout)), a.stdout)


def check_index(c, r, dev):
    detail = r.describe()
    c.eq("[index] exit status", 0, r.rc, detail)
    log = parse(c, "index", r, "act_index")
    if log is None:
        return
    c.eq("[index] source and start temp", ("nvme smart log", "33 C"),
         (log.health.get(dev), log.health_start.get(dev, {}).get("temp")),
         detail)
    check_timing(c, "index", log, 1, 3, detail)
    c.check(all(s.fields.get("temp") == "33 C" for s in log.samples),
            "[index] a sample without its 33 C", detail)


def check_hang(c, r, dev):
    detail = r.describe()
    c.eq("[hang] exit status", 0, r.rc, detail)
    c.check(r.elapsed < 6 + 5 + HANG_MARGIN, "[hang] the run took %.1f s: "
            "a drive that does not answer held its end up more than 5 s" %
            r.elapsed, detail)
    log = parse(c, "hang", r)
    if log is None:
        return
    c.eq("[hang] reports", list(range(1, 7)), [p.sec for p in log.reports],
         detail)
    unread = [s for s in log.samples if s.why is not None]
    c.check(any(re.match(r"^no answer for \d+\.\d sec$", s.why) and
                s.t >= 1.9 for s in unread), "[hang] no sample 'not read - "
            "no answer for N sec' from second 2", detail)
    c.check(all(s.t < 2.5 for s in log.samples if s.fields), "[hang] a "
            "sample read after the drive hung", detail)
    # The drive's health at the end is not known: never a plain PASS.
    with itest.TempDir() as td:
        path = td.join("hang.log")
        with open(path, "w") as f:
            f.write(r.out)
        a = itest.run_latency(path, "-t", "1", "--check")
        c.eq("[hang] act_latency.py --check exit status (4: PASS WITH "
             "DRIVE HEALTH WARNINGS)", 4, a.returncode, a.stdout + a.stderr)
        c.check(re.search(r"^health: %s: health at the end not known: the "
                          r"last \d+ samples? not read \(no answer for "
                          % re.escape(dev), a.stdout, re.M),
                "[hang] --check names the drive that stopped answering",
                a.stdout)
    print("[hang] %.1f s; samples %s" % (r.elapsed, [
        "%.3f: %s" % (s.t, s.why or "read") for s in log.samples]))


def check_none(c, key, r, dev, source, plain_log, trace=None):
    detail = r.describe()
    c.eq("[%s] exit status" % key, 0, r.rc, detail)
    log = parse(c, key, r)
    if log is None:
        return
    c.eq("[%s] source" % key, source, log.health.get(dev), detail)
    c.eq("[%s] start sample, samples" % key, ({}, []),
         (log.health_start, log.samples), detail)
    c.eq("[%s] health lines" % key, 1, sum(
        l.startswith("health ") for l in log.lines), detail)
    if plain_log is not None:
        c.eq("[%s] reports as a file's" % key, [p.sec for p in
                                                plain_log.reports],
             [p.sec for p in log.reports], detail)
    if trace is not None:
        c.eq("[%s] NVMe ioctls (shim trace)" % key, [],
             itest.read_ioctls(trace), detail)


def check_check(c, r, dev, trace):
    detail = r.describe()
    c.eq("[check] exit status", 0, r.rc, detail)
    c.check("health %s: nvme smart log, ocp log c0h\n" % dev not in r.out and
            "health %s: nvme smart log\n" % dev in r.out, "[check] no source "
            "line 'nvme smart log' in --print-config", detail)
    c.check(" at start: " not in r.out, "[check] a start sample", detail)
    c.eq("[check] NVMe commands", ["id", "identify-cns01"],
         sorted(set(w for _, w, _ in itest.read_ioctls(trace))), detail)


def check_prep(c, r, trace):
    detail = r.describe()
    c.eq("[prep] exit status", 0, r.rc, detail)
    c.check("health" not in r.out, "[prep] act_prep printed a health line",
            detail)
    c.eq("[prep] NVMe ioctls", [], itest.read_ioctls(trace), detail)


def check_stopped(c, key, r, status, stop_re, kw):
    detail = r.describe()
    c.eq("[%s] exit status" % key, status, r.rc, detail)
    log = parse(c, key, r, **kw)   # raises on a sample after a stop line
    if log is None:
        return
    c.check(any(re.search(stop_re, l) for l in log.lines), "[%s] no stop "
            "line %r" % (key, stop_re), detail)
    c.check(len([s for s in log.samples if s.fields]) >= 1, "[%s] no "
            "sample before the stop" % key, detail)
    print("[%s] exit %s: samples after reports %s, tail %s" % (
        key, r.rc, [s.report_sec for s in log.samples], log.tail[-2:]))


def run_signal(td, dev, env):
    cfg = itest.write_config(td.join("signal.conf"), [
        ("device-names", dev), ("test-duration-sec", 30),
        ("health-interval-sec", 1)] + BASE)
    run = itest.Running([itest.binary(), cfg], "after 3 sec:", env=env)
    run.wait_started(20)
    run.p.send_signal(signal.SIGINT)
    return run.finish()


def run_state(td, dev):
    """Two runs on one drive kept in a state file; a media error from run
    2 on."""
    state = td.join("drive.state")
    rule = ("path=%s,state=%s,from_run=2,media_error_at=0;path=%s,state=%s"
            % (dev, state, dev, state))
    cfg = itest.write_config(td.join("state.conf"), [
        ("device-names", dev), ("test-duration-sec", 2)] + BASE)
    env = itest.shim_env(nvme=rule)
    return [itest.run([itest.binary(), cfg], env=env, timeout=60)
            for _ in range(2)]


def check_state(c, rs, dev):
    logs = []
    for k, r in enumerate(rs):
        c.eq("[state] run %d exit status" % (k + 1), 0, r.rc, r.describe())
        logs.append(parse(c, "state run %d" % (k + 1), r))
    if None in logs:
        return
    read = [s for s in logs[0].samples if s.fields]
    if not c.check(read, "[state] run 1 has no sample", rs[0].describe()):
        return
    end1 = read[-1].fields
    start2 = logs[1].health_start.get(dev, {})
    c.eq("[state] media errors at run 1's end, run 2's start", (0, 1),
         (num(end1, "media_errors"), num(start2, "media_errors")
          if start2 else None), rs[1].describe())
    c.check(start2 and num(start2, "units_written") >=
            num(end1, "units_written") > 0, "[state] run 2 starts with %s "
            "units written, run 1 ended with %s" % (
                start2.get("units_written"), end1["units_written"]),
            rs[1].describe())


def run_loops(c, td):
    """As root: a loop device faked as NVMe, one without the fake."""
    if os.geteuid() != 0:
        c.skip_part("loop devices")
        return
    devs = []
    try:
        for k in range(2):
            path = td.join("loop%d.img" % k)
            itest.make_filled_file(path, 64)
            dev, why = itdevice.loop_attach(path)
            if dev is None:
                c.skip_part("loop devices", why)
                return
            devs.append(dev)
        jobs, envs = {}, {}
        for k, dev in enumerate(devs):
            cfg = itest.write_config(td.join("loop%d.conf" % k), [
                ("device-names", dev), ("test-duration-sec", 2),
                ("service-threads", 2), ("read-reqs-per-sec", 100),
                ("write-reqs-per-sec", 50)])
            jobs[k] = [itest.binary(), cfg]
            envs[k] = itest.shim_env(nvme="path=%s,temp=51" % dev
                                     if k == 0 else None)
        res = itest.run_parallel(jobs, timeout=60, envs=envs)
        for k, dev in enumerate(devs):
            r = res[k]
            key = "loop%d" % k
            c.eq("[%s] exit status" % key, 0, r.rc, r.describe())
            log = parse(c, key, r)
            if log is None:
                continue
            if k == 0:
                c.eq("[loop0] source, start temp, samples", (
                    "nvme smart log", "51 C", [2]), (
                    log.health.get(dev), log.health_start.get(dev, {}).get(
                        "temp"), [s.report_sec for s in log.samples]),
                    r.describe())
                c.check(log.lines.index("health %s: nvme smart log" % dev) ==
                        1 + next(i for i, l in enumerate(log.lines)
                                 if l.startswith(dev + " rdev = ")),
                        "[loop0] the source line is not right after the "
                        "facts line", r.describe())
            else:
                check_none(c, key, r, dev, "none (a loop device)", None)
    finally:
        for dev in devs:
            itdevice.loop_detach(dev)


def main():
    c = itest.Checker("test_health")
    itest.shim_path()
    with itest.TempDir() as td:
        jobs, envs, devs, traces = {}, {}, {}, {}
        for key, (prog, items, rule, secs) in RUNS.items():
            dev = devs[key] = td.join("dev_" + key)
            traces[key] = td.join(key + ".trace")
            cfg = itest.write_config(td.join(key + ".conf"), [
                ("device-names", dev), ("test-duration-sec", secs)] + items)
            jobs[key] = [itest.binary(prog), cfg]
            envs[key] = itest.shim_env(trace=traces[key], nvme=rule and (
                "path=%s,%s" % (dev, rule)))
        dev = devs["check"] = td.join("dev_check")
        itest.make_filled_file(dev, 64)
        traces["check"] = td.join("check.trace")
        cfg = itest.write_config(td.join("check.conf"), [
            ("device-names", dev), ("test-duration-sec", 3)] + BASE)
        jobs["check"] = [itest.binary(), "--check", "--print-config", cfg]
        envs["check"] = itest.shim_env(trace=traces["check"], nvme=(
            "path=%s,waf=1" % dev))
        dev = devs["prep"] = td.join("dev_prep")
        traces["prep"] = td.join("prep.trace")
        jobs["prep"] = [itest.binary("act_prep"), "--size", "2M", dev]
        envs["prep"] = itest.shim_env(trace=traces["prep"], nvme=(
            "path=%s" % dev))
        dev = devs["ioerr"] = td.join("dev_ioerr")
        cfg = itest.write_config(td.join("ioerr.conf"), [
            ("device-names", dev), ("test-duration-sec", 20),
            ("health-interval-sec", 1)] + BASE)
        jobs["ioerr"] = [itest.binary(), cfg]
        envs["ioerr"] = itest.shim_env(
            fault="op=read,path=dev_ioerr,after_ms=2500,errno=EIO",
            nvme="path=%s" % dev)

        side = {}
        devs["signal"] = td.join("dev_signal")
        devs["state"] = td.join("dev_state")
        threads = [
            threading.Thread(target=lambda: side.__setitem__(
                "signal", run_signal(td, devs["signal"], itest.shim_env(
                    nvme="path=%s" % devs["signal"])))),
            threading.Thread(target=lambda: side.__setitem__(
                "state", run_state(td, devs["state"])))]
        for t in threads:
            t.start()
        res = itest.run_parallel(jobs, timeout=90, envs=envs)
        for t in threads:
            t.join()

        plain = parse(c, "plain", res["plain"])
        check_ramp(c, res["ramp"], devs["ramp"], traces["ramp"])
        check_index(c, res["index"], devs["index"])
        check_hang(c, res["hang"], devs["hang"])
        check_none(c, "eperm", res["eperm"], devs["eperm"],
                   "none (%s)" % EPERM_WHY, plain)
        check_none(c, "off", res["off"], devs["off"],
                   "none (health-interval-sec 0)", plain, traces["off"])
        check_none(c, "plain", res["plain"], devs["plain"],
                   "none (a regular file)", None)
        check_check(c, res["check"], devs["check"], traces["check"])
        check_prep(c, res["prep"], traces["prep"])
        check_stopped(c, "signal", side["signal"], 130,
                      r"^stopped by signal SIGINT after \d+ sec$", {})
        check_stopped(c, "ioerr", res["ioerr"], 4, r"^ERROR: stopping: ",
                      {"allow_between": ("ERROR:",)})
        check_state(c, side["state"], devs["state"])
        run_loops(c, td)
    c.finish()


if __name__ == "__main__":
    main()
