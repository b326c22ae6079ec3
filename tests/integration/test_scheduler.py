"""Description: scheduler-mode is announced and put back however the run ends.

Root only, with losetup and a loop device that offers more than one I/O
scheduler (else skip, exit 77). A 64 MiB file on a loop device; the test
picks a scheduler other than the active one and names it in scheduler-mode:

- SIGINT mid-run: during the run sysfs shows the new scheduler and stderr
  names the device, the old and the new one; after exit 130 the old one is
  active again and stderr says so;
- a run stopped by I/O errors (the test shim fails reads after 0.5 s):
  exit 4, the old scheduler is back;
- a run refused at setup after the device was opened (a second device that
  holds no large block): exit 2, and the scheduler was never changed.

The loop device is always detached and its scheduler put back in a finally
block; no other device is touched.
"""

import os
import re
import shutil
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402


def sched_file(dev):
    return "/sys/block/%s/queue/scheduler" % os.path.basename(dev)


def read_sched(dev):
    """(active, [available])."""
    with open(sched_file(dev)) as f:
        text = f.read().strip()
    m = re.search(r"\[([^\]]+)\]", text)
    words = text.replace("[", "").replace("]", "").split()
    return (m.group(1) if m else text), words


def write_sched(dev, mode):
    with open(sched_file(dev), "w") as f:
        f.write(mode)


def config(td, name, dev, mode, duration, extra=()):
    return itest.write_config(td.join(name), [
        ("device-names", dev), ("service-threads", 2),
        ("test-duration-sec", duration), ("read-reqs-per-sec", 500),
        ("write-reqs-per-sec", 100), ("scheduler-mode", mode)] + list(extra))


def check_sigint(c, td, dev, old, new):
    p = itest.start([itest.binary(), config(td, "int.conf", dev, new, 60)])
    rd = itest.Reader(p, watch="after 1 sec:")
    if not rd.seen.wait(20):
        out, err, _ = rd.finish(5)
        c.fail("sigint: no first report", "%s\n%s" % (out, err))
        return
    c.eq("sigint: scheduler during the run", new, read_sched(dev)[0])
    p.send_signal(signal.SIGINT)
    out, err, timed_out = rd.finish(30)
    detail = "stdout:\n%s\nstderr:\n%s" % (out[-2000:], err)
    c.check(not timed_out, "sigint: did not stop", detail)
    c.eq("sigint: exit status", 130, p.returncode, detail)
    c.eq("sigint: scheduler after the run", old, read_sched(dev)[0], detail)
    c.check(re.search(r"scheduler of %s changed from %s to %s" % (
        re.escape(dev), old, new), err), "sigint: no stderr line naming "
        "device, old and new scheduler", detail)
    c.check(re.search(r"scheduler of %s restored to %s" % (
        re.escape(dev), old), err), "sigint: no stderr line saying the "
        "scheduler was put back", detail)


def check_io_errors(c, td, dev, old, new):
    cfg = config(td, "err.conf", dev, new, 30)
    r = itest.run([itest.binary(), cfg], timeout=60, env=itest.shim_env(
        fault="op=read,after_ms=500,errno=EIO"))
    c.eq("I/O errors: exit status", 4, r.rc, r.describe())
    c.eq("I/O errors: scheduler after the run", old, read_sched(dev)[0],
         r.describe())


def check_refused(c, td, dev, old, new):
    small = td.join("small.dev")
    with open(small, "wb") as f:
        f.truncate(64 * 1024)
    cfg = itest.write_config(td.join("refused.conf"), [
        ("device-names", "%s,%s" % (dev, small)), ("service-threads", 2),
        ("test-duration-sec", 5), ("read-reqs-per-sec", 500),
        ("write-reqs-per-sec", 100), ("scheduler-mode", new)])
    r = itest.run([itest.binary(), cfg], timeout=60)
    c.eq("refused: exit status", 2, r.rc, r.describe())
    c.eq("refused: scheduler after the run", old, read_sched(dev)[0],
         r.describe())
    c.check("changed from" not in r.err, "refused: the scheduler was "
            "changed for a run refused at setup", r.describe())


def main():
    if os.geteuid() != 0:
        itest.skip("not root: no loop devices")
    if shutil.which("losetup") is None:
        itest.skip("losetup not installed")
    c = itest.Checker("test_scheduler")
    with itest.TempDir() as td:
        img = td.join("sched.img")
        with open(img, "wb") as f:
            f.truncate(64 * 1024 * 1024)
        dev, why = itest.loop_attach(img)
        if dev is None:
            itest.skip("losetup --find --show does not work here: %s" % why)
        old = None
        try:
            try:
                old, avail = read_sched(dev)
            except OSError as e:
                itest.skip("no scheduler file for %s: %s" % (dev, e))
            others = [w for w in avail if w != old and w in (
                "none", "mq-deadline", "kyber", "bfq", "deadline", "cfq")]
            if not others:
                itest.skip("%s offers one scheduler only (%s)" % (dev, avail))
            new = "mq-deadline" if "mq-deadline" in others else others[0]
            check_sigint(c, td, dev, old, new)
            check_io_errors(c, td, dev, old, new)
            check_refused(c, td, dev, old, new)
        finally:
            if old is not None and read_sched(dev)[0] != old:
                write_sched(dev, old)
            itest.loop_detach(dev)
    c.finish()


if __name__ == "__main__":
    main()
