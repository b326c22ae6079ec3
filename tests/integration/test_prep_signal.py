"""Description: act_prep stopped by SIGINT names each device and how far its preparation got.

Two file devices: fast.dev (16 MiB) and slow.dev (64 MiB, whose writes the
test shim delays by 200 ms each: ~40 MiB/s with 8 writes in flight). ~0.8 s
after act_prep prints `cleaning device .../slow.dev` it gets SIGINT: exit
status 130, and one ERROR line (on stderr and stdout) says `stopped by
signal SIGINT - the devices are NOT fully prepared: ` followed by each
device once, in the order given, with its state - slow.dev `cleaned N%,
not salted` (N below 100), fast.dev any of `prepared (cleaned and
salted)`, `cleaned, salted N%`, `cleaned N%, not salted` (it is usually
done by then; not guaranteed on a loaded machine).
"""

import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MB = 1024 * 1024
STATE = (r"(?:prepared \(cleaned and salted\)|cleaned, salted \d{1,2}%|"
         r"cleaned \d{1,2}%, not salted|not started)")


def main():
    c = itest.Checker("test_prep_signal")
    prep = itest.binary("act_prep")
    with itest.TempDir() as td:
        fast, slow = td.join("fast.dev"), td.join("slow.dev")
        itest.fill_file(fast, 16 * MB, b"\x11")
        itest.fill_file(slow, 64 * MB, b"\x22")
        env = itest.shim_env(fault="op=write,path=slow.dev,delay_ms=200")
        p = subprocess.Popen([prep, fast, slow], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             universal_newlines=True, errors="replace",
                             env=env)
        rd = itest.Reader(p, "cleaning device %s" % slow)
        if not rd.seen.wait(20):
            c.fail("no 'cleaning device %s' within 20 s" % slow)
        time.sleep(0.8)
        p.send_signal(signal.SIGINT)
        out, err, timed_out = rd.finish(30)
        r = itest.Result(p.returncode, out, err, 0, timed_out)
        detail = r.describe()
        c.eq("exit status", 130, r.rc, detail)
        want = (r"^ERROR: stopped by signal SIGINT - the devices are NOT "
                r"fully prepared: %s (?P<fast>%s); %s (?P<slow>%s)$" % (
                    re.escape(fast), STATE, re.escape(slow), STATE))
        for where, text in (("stderr", err), ("stdout", out)):
            lines = [l for l in text.split("\n") if l.startswith("ERROR:")]
            m = [re.match(want, l) for l in lines]
            m = [x for x in m if x]
            if not c.check(m, "%s: expected an ERROR line matching %r, "
                           "actual %r" % (where, want, lines), detail):
                continue
            state = m[0].group("slow")
            c.check(re.match(r"cleaned \d{1,2}%, not salted$", state),
                    "%s: slow.dev: expected 'cleaned N%%, not salted', "
                    "actual %r" % (where, state))
            print("%s: %s" % (where, m[0].group(0)))
    c.finish()


if __name__ == "__main__":
    main()
