"""Description: act_certify has act_storage check the base config and
every step config before anything starts (issue 20, part 2): a base
config with a misspelt item (report-intervall-sec) is refused with the
program's own words ("did you mean 'report-interval-sec'?", its line)
and exit status 78

- by --dry-run: no DIR, the device file unchanged;
- with --prep: before act_prep writes a byte - the device file (8 MiB of
  zeros) is still all zeros, no DIR;
- on --resume of a campaign whose act_prep has not run yet and whose
  DIR/base.conf (every step's config, with its --set items) was given
  the same misspelt item: still all zeros, the campaign's state.json
  unchanged.

A base config whose report-interval-sec - as act_storage reads it (its
--print-config) - cannot give the criteria's one-hour slices (7200, or
7: not a divisor of 3600) is refused the same way (issue 25, n21),
naming the file and value - by --dry-run and a real run (--prep: nothing
written), and on --resume of a DIR/base.conf edited to it.

Exit 0 pass, 1 fail."""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

MIB = 8
TYPO = "report-intervall-sec"
SAID = "unknown config item 'report-intervall-sec' - did you mean " \
    "'report-interval-sec'?"


def zeros(path):
    with open(path, "wb") as f:
        f.write(bytes(MIB << 20))
    return path


def all_zero(path):
    with open(path, "rb") as f:
        data = f.read()
    return len(data) == MIB << 20 and not any(data)


def check_refused(c, what, r, dev, out):
    c.eq("%s: exit status" % what, 78, r.rc, r.describe())
    c.check(SAID in r.err, "%s: the program's words are not on stderr"
            % what, r.describe())
    c.check(all_zero(dev), "%s: the device was written" % what)
    c.check(not os.path.exists(out), "%s: DIR was created" % what)


def check_new(c, td, root):
    dev = zeros(os.path.join(root, "typo.img"))
    base = itest.write_config(td.join("typo.conf"), [
        ("service-threads", 4), (TYPO, 1)])
    for what, extra in (("--dry-run", ["--dry-run"]),
                        ("--dry-run --prep", ["--dry-run", "--prep"]),
                        ("--prep", ["--prep"])):
        out = td.join("typo-" + extra[-1].strip("-"))
        r = tc.certify(["--device", dev, "--load", "1", "--seconds", "2",
                        "--config", base, "--out", out] + extra)
        check_refused(c, what, r, dev, out)
        c.check("(line 2)" in r.err, "%s: the line is not named" % what,
                r.describe())


def edited_campaign(c, td, root, name, edit):
    """A finished trial campaign made interrupted again, every step
    planned, DIR/base.conf passed through edit(text): (device, DIR,
    state.json's path, its sha256) - or None when it did not certify."""
    dev = zeros(os.path.join(root, "%s.img" % name))
    base = itest.write_config(td.join("%s-good.conf" % name),
                              [("service-threads", 4)])
    out = td.join(name)
    r = tc.certify(["--device", dev, "--prep", "--load", "1", "--seconds",
                    "1", "--config", base, "--out", out])
    if not c.eq("%s: the first campaign certifies" % name, 0, r.rc,
                r.describe()):
        return None
    path = os.path.join(out, "state.json")
    with open(path) as f:
        state = json.load(f)
    state.update(status="interrupted", ended_at=None)
    for s in state["steps"]:
        s.update(status="planned", result=None, exit_status=None,
                 message=None, started_at=None, ended_at=None)
    conf = os.path.join(out, "base.conf")
    with open(conf) as f:
        text = f.read()
    with open(conf, "w") as f:
        f.write(edit(text))
    with open(path, "w") as f:
        json.dump(state, f)
    zeros(dev)
    return dev, out, path, itest.sha256_file(path)


def check_resume(c, td, root):
    made = edited_campaign(c, td, root, "resume",
                           lambda text: text + "%s: 1\n" % TYPO)
    if made is None:
        return
    dev, out, path, before = made
    r = tc.certify(["--resume", out])
    c.eq("resume: exit status", 78, r.rc, r.describe())
    c.check(SAID in r.err, "resume: the program's words are not on stderr",
            r.describe())
    c.check(all_zero(dev), "resume: act_prep wrote the device")
    c.eq("resume: state.json unchanged", before, itest.sha256_file(path))


INTERVAL_RE = (r"the base config %s: report-interval-sec (7200|7) cannot give "
               r"the criteria's one-hour slices \(an hour would be judged "
               r"on slices of (7200|3605) s\): give a divisor of 3600")


def check_interval_new(c, td, root):
    dev = zeros(os.path.join(root, "interval.img"))
    for value in (7200, 7):
        base = itest.write_config(td.join("interval-%d.conf" % value), [
            ("service-threads", 4), ("report-interval-sec", value)])
        for extra in (["--dry-run"], ["--prep"]):
            what = "report-interval-sec %d %s" % (value, extra[0])
            out = td.join("interval-%d-%s" % (value, extra[0].strip("-")))
            r = tc.certify(["--device", dev, "--load", "1", "--hours", "24",
                            "--config", base, "--out", out] + extra)
            c.eq("%s: exit status" % what, 78, r.rc, r.describe())
            m = re.search(INTERVAL_RE % re.escape(base), r.err)
            c.check(m and m.group(1) == str(value),
                    "%s: the refusal does not name the config and value"
                    % what, r.describe())
            c.check(all_zero(dev), "%s: the device was written" % what)
            c.check(not os.path.exists(out), "%s: DIR was created" % what)


def check_interval_resume(c, td, root):
    made = edited_campaign(
        c, td, root, "interval-resume",
        lambda text: text.replace("report-interval-sec: 1\n", "") +
        "report-interval-sec: 7200\n")
    if made is None:
        return
    dev, out, path, before = made
    r = tc.certify(["--resume", out])
    c.eq("interval resume: exit status", 78, r.rc, r.describe())
    c.check(re.search(INTERVAL_RE % re.escape(os.path.join(out,
                                                         "base.conf")),
                      r.err),
            "interval resume: the refusal does not name DIR/base.conf",
            r.describe())
    c.check(all_zero(dev), "interval resume: act_prep wrote the device")
    c.eq("interval resume: state.json unchanged", before,
         itest.sha256_file(path))


def main():
    c = itest.Checker("test_certify_refuse_early")
    itest.binary("act_storage")
    itest.binary("act_prep")
    tc.with_devices(c, "act-certify-refuse", [
        check_new, check_resume, check_interval_new, check_interval_resume])


if __name__ == "__main__":
    main()
