#!/usr/bin/env python3
"""Description: act_certify (as root) never writes through a file planted
in the directory it writes in, and refuses a directory another user can
write in (docs/certify.md, "The directory").

Victims: root-owned 0600 files outside the directories. A trial campaign
"ref" (1 file device, --load 0.1, --seconds 2) is made first, then:

- refused, exit 2, with an error naming the directory, its owner and mode,
  nothing written and every victim untouched: a new campaign whose --out
  is an empty directory owned by nobody (uid 65534); one owned by nobody
  holding what a killed setup leaves (.lock, base.conf, a step config,
  a temporary file) as symbolic links to the victims; root's own
  directories of mode 0775 and 1777; --compare --out a directory owned by
  nobody with compare.json.tmp (the name act_certify used), compare.json,
  compare.md and compare.html linked to victims; --report and --resume of
  a copy of ref owned by nobody with summary.json and state.json.tmp
  linked to victims;
- in root's own 0755 directories with the same names linked to victims
  (planted by root here, as a race would): --compare --out, --report (the
  reports, a step plot, state.json.tmp and a temporary name of
  act_certify's own) and --resume of a copy of ref whose step 2 is to
  run again (its log and stderr linked to victims) - each exits 0, every
  victim is untouched and the names are regular files now (the stale
  temporary names removed).

Skipped unless root (it chowns to nobody). Exit 0 pass, 1 fail, 77 skip."""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

NOBODY = 65534
ARGS = ["--load", "0.1", "--seconds", "2"]


class Victims:
    def __init__(self, td):
        self.dir = td.join("victims")
        os.mkdir(self.dir, 0o700)
        self.n = 0

    def new(self):
        self.n += 1
        path = os.path.join(self.dir, "victim%d" % self.n)
        with open(path, "w") as f:
            f.write("ROOT-ONLY-%d\n" % self.n)
        os.chmod(path, 0o600)
        return path

    def check(self, c, what):
        for k in range(1, self.n + 1):
            path = os.path.join(self.dir, "victim%d" % k)
            c.eq("%s: victim%d" % (what, k), "ROOT-ONLY-%d\n" % k,
                 tc.read(path))


def plant(c, victims, d, names, owner=None):
    for name in names:
        path = os.path.join(d, name)
        os.symlink(victims.new(), path)
        if owner is not None:
            os.lchown(path, owner, owner)


def refused(c, what, r, d, mode):
    c.eq("%s: exit status" % what, 2, r.rc, r.describe()
         if hasattr(r, "describe") else r.err)
    want = "refusing to write in %s: it is owned by " % d
    c.check(want in r.err, "%s: no refusal naming the directory" % what,
            r.err)
    c.check(("mode %04o" % mode) in r.err, "%s: the mode not named" % what,
            r.err)
    if os.stat(d).st_uid == NOBODY:
        c.check("(uid %d)" % NOBODY in r.err, "%s: the owner not named"
                % what, r.err)
    c.check("Traceback" not in r.err, "%s: a traceback" % what, r.err)


def nobody_dir(path, mode=0o755):
    os.mkdir(path)
    os.chmod(path, mode)
    os.chown(path, NOBODY, NOBODY)
    return path


def check_all(c, td, root):
    victims = Victims(td)
    dev = tc.make_device(os.path.join(root, "a.dev"))
    ref = td.join("ref")
    r = tc.certify(["--device", dev, "--out", ref] + ARGS)
    if not c.eq("the reference campaign: exit status", 0, r.rc, r.err):
        return

    # refused: owned by nobody, or writable by others
    camp = nobody_dir(td.join("camp"))
    r = tc.certify(["--device", dev, "--out", camp] + ARGS)
    refused(c, "a new campaign in an empty directory of nobody's", r, camp,
            0o755)
    c.eq("... nothing written in it", [], os.listdir(camp))

    left = nobody_dir(td.join("leftovers"))
    names = [".lock", "base.conf", "01-test1-target-0.1x.conf",
             ".state.json.act-tmp-abcdefgh"]
    plant(c, victims, left, names, NOBODY)
    r = tc.certify(["--device", dev, "--out", left] + ARGS)
    refused(c, "a new campaign in nobody's directory of setup leftovers",
            r, left, 0o755)
    c.eq("... its files left as they were", sorted(names),
         sorted(os.listdir(left)))

    for mode in (0o775, 0o1777):
        d = td.join("mode%o" % mode)
        os.mkdir(d)
        os.chmod(d, mode)
        r = tc.certify(["--device", dev, "--out", d] + ARGS)
        refused(c, "a new campaign in root's directory of mode %04o" % mode,
                r, d, mode)
        c.eq("... nothing written in it", [], os.listdir(d))

    out = nobody_dir(td.join("out"))
    plant(c, victims, out, ["compare.json.tmp", "compare.json",
                            "compare.md", "compare.html"], NOBODY)
    r = tc.certify(["--compare", ref, "--out", out])
    refused(c, "--compare --out a directory of nobody's", r, out, 0o755)

    for opt in ("--report", "--resume"):
        d = td.join("copy" + opt)
        shutil.copytree(ref, d, symlinks=True)
        os.unlink(os.path.join(d, "summary.json"))
        plant(c, victims, d, ["summary.json", "state.json.tmp"])
        os.chown(d, NOBODY, NOBODY)
        r = tc.certify([opt, d])
        refused(c, "%s of a campaign directory of nobody's" % opt, r, d,
                0o755)
    victims.check(c, "refused runs")

    # root's own directories, links planted in them: replaced, never
    # followed
    out2 = td.join("out2")
    os.mkdir(out2, 0o755)
    names = ["compare.json.tmp", "compare.json", "compare.md",
             "compare.html"]
    plant(c, victims, out2, names)
    r = tc.certify(["--compare", ref, "--out", out2])
    c.eq("--compare --out root's directory with links: exit status", 0,
         r.rc, r.err)
    for name in names[1:]:
        c.check(os.path.isfile(os.path.join(out2, name)) and
                not os.path.islink(os.path.join(out2, name)),
                "--compare --out: %s is not a regular file" % name)

    rep = td.join("rep")
    shutil.copytree(ref, rep, symlinks=True)
    names = ["summary.json", "summary.md", "report.html",
             "01-test1-target-0.1x.svg"]
    for name in names:
        os.unlink(os.path.join(rep, name))
    stale = [".summary.json.act-tmp-abcdefgh", "state.json.tmp",
             "report.html.tmp123"]
    plant(c, victims, rep, names + stale)
    r = tc.certify(["--report", rep])
    c.eq("--report with links in DIR: exit status", 0, r.rc, r.err)
    for name in names:
        path = os.path.join(rep, name)
        c.check(os.path.isfile(path) and not os.path.islink(path),
                "--report: %s is not a regular file" % name)
    for name in stale:
        c.check(not os.path.lexists(os.path.join(rep, name)),
                "--report: the stale %s is still there" % name)

    res = td.join("res")
    shutil.copytree(ref, res, symlinks=True)
    sp = os.path.join(res, "state.json")
    state = tc.load_json(sp)
    state["status"] = "interrupted"
    state["ended_at"] = None
    step = state["steps"][1]
    step.update(status="planned", result=None, exit_status=None,
                message=None, started_at=None, ended_at=None)
    with open(sp, "w") as f:
        json.dump(state, f)
    names = [step["files"]["log"], step["files"]["stderr"],
             step["files"]["plot"]]
    for name in names:
        os.unlink(os.path.join(res, name))
    plant(c, victims, res, names)
    r = tc.certify(["--resume", res])
    c.eq("--resume with links at step 2's files: exit status", 0, r.rc,
         r.out + r.err)
    for name in names:
        path = os.path.join(res, name)
        c.check(os.path.isfile(path) and not os.path.islink(path),
                "--resume: %s is not a regular file" % name)
    c.check("after 2 sec:" in tc.read(os.path.join(res, names[0])),
            "--resume: step 2's log is not its run's")
    victims.check(c, "root's directories")


def main():
    if os.geteuid() != 0:
        itest.skip("needs root (chown to nobody)")
    c = itest.Checker("test_certify_outdir")
    tc.with_devices(c, "act-certify-outdir", [check_all])


if __name__ == "__main__":
    main()
