"""Description: the fault shim refuses a rule it can't read, and a valid rule injects.

A test whose ACT_SHIM_FAULT has a typo must fail, not pass without its
fault. Each malformed rule below, given to `act_prep --size 2M NEWFILE`
through the shim (tests/shim/act_shim.c): exit status 97 before the program
runs (no stdout, NEWFILE not created) and stderr is exactly `act_shim: bad
rule 'RULE': WHAT` for the rule's part that is wrong.

The fake NVMe drive's rules (ACT_SHIM_NVME) likewise: an unknown key, no
path=, a bad number, errno or warning byte, more than 8 rules.

Valid rules, the same act_prep on a new 2 MiB file (two 1 MiB writes per
phase, at offsets 0 and 1048576):
- `op=write,offset=1048576,errno=EIO`: exit 4, an ERROR line naming the
  write at offset 1048576 and "Input/output error" (the rule injected);
- `op=write,offset=1048577,errno=EIO`: exit 0 (no write at that offset:
  offset= matches exactly, so the case above is not vacuous);
- `op=write,errno=28`: exit 4, "No space left on device" (errno by number).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

# The rule text, the rule named in the message, and what is wrong.
BAD = [
    ("op=bogus", "op=bogus", "op=bogus is not read, write or any"),
    ("op=read,sise=512", "op=read,sise=512",
     "unknown key 'sise' (op, size, offset, path, after_ms, every, count, "
     "delay_ms, errno)"),
    ("op=read,errno=EFOO", "op=read,errno=EFOO",
     "errno=EFOO is not one of EIO, ENOSPC, EROFS, EPIPE, EINVAL, ENXIO or "
     "a number"),
    ("errno=0", "errno=0", "errno=0 is not an errno (1 to 4095)"),
    ("op=read,delay_ms=3s", "op=read,delay_ms=3s",
     "delay_ms=3s is not a whole number"),
    ("op=write,count", "op=write,count", "'count' is not key=value"),
    ("op=write;op=read,offset=-1", "op=read,offset=-1",
     "offset=-1 is not a whole number"),
    (";".join(["op=read"] * 9), "op=read", "more than 8 rules"),
]

# ACT_SHIM_NVME's: the rule, the rule named, what is wrong.
NVME_KEYS = ("path, state, temp, ramp, max, throttle, wctemp, cctemp, "
             "media_error_at, media_errors, warning_at, spare, spare_to, "
             "spare_at, spare_threshold, hang_at, from_run, warning, waf, "
             "hang_ms, errno")
BAD_NVME = [
    ("path=dev,tmep=40", "path=dev,tmep=40",
     "unknown key 'tmep' (%s)" % NVME_KEYS),
    ("temp=40", "temp=40", "no path= (the fds the drive answers on)"),
    ("path=dev,ramp=-1", "path=dev,ramp=-1", "ramp=-1 is not a whole number"),
    ("path=dev,errno=EIOO", "path=dev,errno=EIOO",
     "errno=EIOO is not one of EPERM, EACCES, EIO, EINVAL, ENOTTY, ENODEV "
     "or a number"),
    ("path=dev,warning=0x100", "path=dev,warning=0x100",
     "warning=0x100 is not a byte (0x00 to 0xff)"),
    ("path=dev,waf=x", "path=dev,waf=x", "waf=x is not a number from 0 to "
     "1000"),
    ("path=dev;path", "path", "'path' is not key=value"),
    (";".join(["path=dev"] * 9), "path=dev", "more than 8 rules"),
]

MIB = 1024 * 1024


def main():
    c = itest.Checker("test_shim_rules")
    prog = itest.binary("act_prep")
    itest.shim_path()
    with itest.TempDir() as td:
        jobs, envs = {}, {}
        for i, (rule, _, _) in enumerate(BAD):
            jobs["bad%d" % i] = [prog, "--size", "2M", td.join("bad%d" % i)]
            envs["bad%d" % i] = itest.shim_env(fault=rule)
        for i, (rule, _, _) in enumerate(BAD_NVME):
            jobs["nvme%d" % i] = [prog, "--size", "2M",
                                  td.join("nvme%d" % i)]
            envs["nvme%d" % i] = itest.shim_env(nvme=rule)
        good = {
            "eio": ("op=write,offset=1048576,errno=EIO", 4),
            "miss": ("op=write,offset=1048577,errno=EIO", 0),
            "number": ("op=write,errno=28", 4),
        }
        for name, (rule, _) in good.items():
            jobs[name] = [prog, "--size", "2M", td.join(name)]
            envs[name] = itest.shim_env(fault=rule)
        res = itest.run_parallel(jobs, timeout=60, envs=envs)

        for key, i, (rule, named, what) in \
                [("bad%d" % i, i, b) for i, b in enumerate(BAD)] + \
                [("nvme%d" % i, i, b) for i, b in enumerate(BAD_NVME)]:
            r = res[key]
            detail = r.describe()
            want = "act_shim: bad rule '%s': %s\n" % (named, what)
            print("[%s] exit %s, stderr %r" % (rule, r.rc, r.err))
            c.eq("[%s] exit status" % rule, 97, r.rc, detail)
            c.eq("[%s] stderr" % rule, want, r.err, detail)
            c.eq("[%s] stdout" % rule, "", r.out, detail)
            c.check(not os.path.lexists(td.join(key)), "[%s] the "
                    "program ran: it created its device file" % rule, detail)

        for name, (rule, want) in good.items():
            r = res[name]
            detail = r.describe()
            errs = [l for l in r.err.split("\n") if l.startswith("ERROR:")]
            print("[%s] exit %s, %s" % (rule, r.rc, errs[0] if errs else
                                        "no ERROR line"))
            c.eq("[%s] exit status" % rule, want, r.rc, detail)
            if name == "eio":
                c.check(any(re.search(r"write .*offset 1048576.*"
                                      r"Input/output error", l) or
                            re.search(r"Input/output error.*offset 1048576",
                                      l) for l in errs),
                        "[%s] no ERROR line naming offset 1048576 and "
                        "Input/output error" % rule, detail)
            elif name == "number":
                c.check(any("No space left on device" in l for l in errs),
                        "[%s] no ERROR line with 'No space left on device'"
                        % rule, detail)
            else:
                c.eq("[%s] ERROR lines" % rule, [], errs, detail)
    c.finish()


if __name__ == "__main__":
    main()
