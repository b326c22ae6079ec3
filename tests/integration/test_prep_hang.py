"""Description: a hung drive stops act_prep with exit 3 - never "prepared".

act_prep's stall watchdog (--max-stall-sec, default 60): a device that
completes no write for that long is reported and act_prep exits 3, without
waiting for the writes stuck in the kernel. The test shim
(tests/shim/act_shim.c) delays act_prep's writes from outside; every case
runs on its own file in a temp dir, all at once:

Each device is 16 MiB (16 writes of 1 MiB per phase, 8 in flight).

- hang: every 5th write hangs 30 s (3 of the cleaning writes: the rest
  complete, then nothing), --max-stall-sec 2: exit 3 in
  under 10 s with `ERROR: device F is not responding: no write has
  completed for S sec while cleaning (N of M bytes written), more than
  --max-stall-sec 2 - stopped, the devices are NOT fully prepared` (S >= 2)
  on stderr (its last line) and stdout, and no `salting` line;
- hang-two: two devices, only the second one's writes hang: exit 3, the
  error names the second device and not the first;
- slow: every write takes 0.3 s, --max-stall-sec 1 - writes complete
  (8 in flight), so the device is making progress: exit 0, both phases
  done;
- off: --max-stall-sec 0, the 5th, 10th and 15th writes hang 4 s: no
  watchdog, exit 0 once they complete (after >= 4 s);
- default: no option, the same with 3 s, under the default 60 s: exit 0.
Each exit-0 case's file is fully salted (itest.salt_problems), so the
slow paths really wrote every byte.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MIB = 1024 * 1024

# name: (devices (file names), extra args, fault, expected exit status)
CASES = {
    "hang": (["hang.dev"], ["--max-stall-sec", "2"],
             "op=write,every=5,delay_ms=30000", 3),
    "hang-two": (["ok.dev", "stuck.dev"], ["--max-stall-sec=2"],
                 "op=write,path=stuck.dev,every=5,delay_ms=30000", 3),
    "slow": (["slow.dev"], ["--max-stall-sec", "1"],
             "op=write,delay_ms=300", 0),
    "off": (["off.dev"], ["--max-stall-sec", "0"],
            "op=write,every=5,count=3,delay_ms=4000", 0),
    "default": (["default.dev"], [],
                "op=write,every=5,count=3,delay_ms=3000", 0),
}

ERROR_RE = (r"^ERROR: device %s is not responding: no write has completed "
            r"for (\d+\.\d) sec while cleaning \((\d+) of %d bytes "
            r"written\), more than --max-stall-sec 2 - stopped, the devices "
            r"are NOT fully prepared$")


def main():
    c = itest.Checker("test_prep_hang")
    prog = itest.binary("act_prep")
    itest.shim_path()
    size = 16 * MIB
    with itest.TempDir() as td:
        jobs, envs = {}, {}
        for name, (devs, extra, fault, _) in CASES.items():
            paths = [td.join(d) for d in devs]
            for path in paths:
                itest.fill_file(path, size, b"\xa5")
            jobs[name] = [prog] + extra + paths
            envs[name] = itest.shim_env(fault=fault)
        res = itest.run_parallel(jobs, timeout=60, envs=envs)

        for name, (devs, extra, fault, want) in CASES.items():
            r = res[name]
            detail = r.describe()
            if not c.eq("%s: exit status" % name, want, r.rc, detail):
                continue
            if want == 3:
                stuck = td.join(devs[-1])
                pat = re.compile(ERROR_RE % (re.escape(stuck), size), re.M)
                for where, text in (("stderr", r.err), ("stdout", r.out)):
                    m = pat.search(text)
                    if c.check(m, "%s: no 'not responding' error naming %s "
                               "on %s" % (name, stuck, where), detail):
                        c.check(float(m.group(1)) >= 2.0, "%s: reported "
                                "after %s sec, under --max-stall-sec 2" % (
                                    name, m.group(1)))
                c.check(r.elapsed < 10, "%s: exit after %.1f s (the writes "
                        "hang 30 s: the watchdog should end it in ~3 s)" % (
                            name, r.elapsed), detail)
                c.check("salting device %s\n" % stuck not in r.out,
                        "%s: salting began after a hang" % name, detail)
                c.check(r.err.rstrip().splitlines()[-1].startswith("ERROR:"),
                        "%s: the error is not the last line on stderr" %
                        name, detail)
                for d in devs[:-1]:
                    c.check(not re.search(r"ERROR: device %s " % re.escape(
                        td.join(d)), r.out + r.err, re.M), "%s: the device "
                        "that works (%s) is reported" % (name, d), detail)
            else:
                c.check("not responding" not in r.out + r.err, "%s: a stall "
                        "reported" % name, detail)
                for d in devs:
                    probs = itest.salt_problems(td.join(d), b"\xa5", size)
                    c.check(not probs, "%s: %s not fully salted: %s" % (
                        name, d, probs))
                if name == "off":
                    c.check(r.elapsed >= 4, "off: exit after %.1f s, before "
                            "the 4 s hang ended" % r.elapsed, detail)
    c.finish()


if __name__ == "__main__":
    main()
