"""Description: act_certify writes and certifies only the drives it
started on, and says when a drive failed I/Os (issue 19), with the real
programs: short campaigns (--seconds 2, --load 1, 8 MiB device files on
/dev/shm when usable).

- file-replaced: a certified campaign's device file is replaced by another
  file of the same size, the steps set back to "planned": --resume is
  refused (exit 2) before anything is written - the message prints both
  identities (inode) and how to accept the replacement; the new file is
  unchanged byte for byte and no step started. Then --resume
  --accept-device FILE=FILE runs the steps on it: exit 0, and summary.json
  / report.html say that the device was replaced (was / now).
- mid-campaign: the device file is replaced (rename over it) while step 1
  runs - once just as step 1 starts (before or after its program opens the
  device), once a second into step 1: whichever step would run on the new
  file is not started or refused by the program (exit 2: "step N not
  started" / "is not one of the devices held by the parent"), never
  written; the new file is unchanged.
- renamed: --accept-device NEW=OLD with a new name: the steps still to run
  use NEW (their --set items and logs say it), the campaign certifies.
- loop (root with losetup; skipped otherwise): a campaign on a loop
  device over file A; the loop device is re-attached to file B (same
  size): --resume is refused (exit 2, the backing files named), B is
  unchanged.
- loop-recreated (issue 25 N27; root with losetup, mkfs.ext4 and mount;
  skipped otherwise): a campaign on a loop device over a file alone on a
  small ext4; the loop device detached, the file deleted and made again
  under the same name (ext4 gives it the same inode number), the loop
  device attached to it again: --resume is refused (exit 2: its
  generation, or the campaign's mark on the backing file, differs), the
  new file is unchanged.
- no-identities (N30): a campaign's state without "identities" (an older
  act_certify's, or edited) and another file at the device's name:
  --resume is refused (exit 2), naming the file there now and the
  --accept-device to give; the file is unchanged. With --accept-device
  DEV=DEV the steps run, and summary.json / summary.md record the
  acceptance as a device change ("not recorded").
- grown (N32): a base config whose file-size-mbytes (16) is larger than
  the device file (8 MiB): step 1 grows the file, and step 2 runs on it -
  the campaign's own drive is not refused as another; certified.
- io-errors: io-error-limit 100 in the base config, the test shim fails 5
  reads and 2 large-block writes of each run with EIO (every kind of failed
  I/O counted): every test passes, but the campaign is
  "certified with I/O errors at 1x", exit 3 - never 0 - and each step's
  failed I/Os are in summary.json, summary.md and report.html.

Exit 0 pass, 1 fail."""

import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402
import test_certify_plan_safety as ps  # noqa: E402


def campaign(c, td, dev, name, extra=(), env=None, base_items=()):
    base = itest.write_config(td.join(name + "-base.conf"), [
        ("service-threads", 4), ("record-bytes", 1536)] + list(base_items))
    out = td.join(name)
    r = tc.certify(["--device", dev, "--load", "1", "--seconds", "2",
                    "--config", base, "--out", out] + list(extra), env=env)
    return out, r


def check_refused(c, what, out, r, new_path, sha, words):
    c.eq("%s: --resume refused (exit 2)" % what, 2, r.rc, r.describe())
    for w in words:
        c.check(w in r.err, "%s: stderr says %r" % (what, w), r.describe())
    c.eq("%s: the new drive is unchanged" % what, sha,
         itest.sha256_file(new_path))
    c.check(re.search(r"step \d+/\d+ started", r.err) is None,
            "%s: a step started" % what, r.describe())
    state = ps.load(os.path.join(out, "state.json"))
    c.eq("%s: no step ran" % what, ["planned"] * len(state["steps"]),
         [s["status"] for s in state["steps"]])


def check_file_replaced(c, td, root):
    dev = tc.make_device(os.path.join(root, "replaced.img"), mib=8)
    out, r = campaign(c, td, dev, "replaced")
    if not c.eq("file-replaced: the campaign certifies", 0, r.rc,
                r.describe()):
        return
    recorded = ps.load(os.path.join(out, "state.json"))["campaign"][
        "identities"][dev]
    c.eq("file-replaced: identity recorded", ("file", os.stat(dev).st_ino),
         (recorded.get("kind"), recorded.get("ino")))
    os.unlink(dev)
    with open(dev, "wb") as f:
        f.write(os.urandom(8 << 20))
    sha = itest.sha256_file(dev)
    ps.replan(out)
    r = tc.certify(["--resume", out])
    check_refused(c, "file-replaced", out, r, dev, sha, [
        "is not the drive this campaign started on", "recorded: kind file",
        "ino %d" % recorded["ino"], "ino %d" % os.stat(dev).st_ino,
        "--accept-device %s=%s" % (dev, dev)])
    r = tc.certify(["--resume", out, "--accept-device", dev])
    c.eq("file-replaced: --accept-device: certified", 0, r.rc, r.describe())
    s = ps.load(os.path.join(out, "summary.json"))
    ch = s.get("device_changes") or [{}]
    c.eq("file-replaced: summary.json device_changes",
         (dev, dev, 1), (ch[0].get("new"), ch[0].get("old"),
                         ch[0].get("from_step")))
    c.check("ino %d" % os.stat(dev).st_ino in ch[0].get("now", ""),
            "file-replaced: the change names the new inode", str(ch))
    page = tc.read(os.path.join(out, "report.html"))
    c.check("replaced %s from step 1 (accepted with --accept-device" % dev
            in page, "file-replaced: report.html says the drive was "
            "replaced", page[:3000])


def check_mid_campaign(c, td, root):
    for when in ("at-start", "in-step"):
        mid_campaign(c, td, root, when)


def mid_campaign(c, td, root, when):
    dev = tc.make_device(os.path.join(root, "mid-%s.img" % when), mib=8)
    new = tc.make_device(os.path.join(root, "mid-%s-new.img" % when), mib=8)
    sha = itest.sha256_file(new)
    base = itest.write_config(td.join("mid-base.conf"), [
        ("service-threads", 4), ("record-bytes", 1536)])
    out = td.join("mid-" + when)
    p = subprocess.Popen([sys.executable, tc.CERTIFY, "--device", dev,
                          "--load", "1", "--seconds", "3", "--config", base,
                          "--out", out], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=tc.env_for(),
                         universal_newlines=True)

    def step1_running():
        try:
            st = ps.load(os.path.join(out, "state.json"))
        except (OSError, ValueError):
            return False
        return st["steps"][0]["status"] == "running"
    ok = tc.wait_for(step1_running, 30)
    c.check(ok, "mid-campaign: step 1 never ran")
    if when == "in-step":
        time.sleep(1)
    os.replace(new, dev)
    try:
        so, se = p.communicate(timeout=tc.TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        so, se = p.communicate()
    r = itest.Result(p.returncode, so, se, 0)
    what = "mid-campaign, " + when
    c.eq("%s: exit 2" % what, 2, r.rc, r.describe())
    c.check(("not started" in r.err and "is not the drive" in r.err) or
            "is not one of the devices held by the parent" in r.err,
            "%s: stderr says why no step ran on the new file" % what,
            r.describe())
    c.eq("%s: the new file is unchanged" % what, sha,
         itest.sha256_file(dev))
    state = ps.load(os.path.join(out, "state.json"))
    c.check(state["steps"][1]["status"] in ("planned", "error"),
            "%s: step 2 ran" % what, str(state["steps"][1]))


def check_renamed(c, td, root):
    dev = tc.make_device(os.path.join(root, "old-name.img"), mib=8)
    out, r = campaign(c, td, dev, "renamed")
    if not c.eq("renamed: the campaign certifies", 0, r.rc, r.describe()):
        return
    new = os.path.join(root, "new-name.img")
    os.rename(dev, new)
    ps.replan(out, steps=[2])
    r = tc.certify(["--resume", out, "--accept-device", "%s=%s" % (new,
                                                                  dev)])
    c.eq("renamed: certified", 0, r.rc, r.describe())
    log = tc.read(os.path.join(out, "02-test2-stress-2x.log"))
    c.check("device-names: %s" % new in log, "renamed: step 2's log runs "
            "on the new name", log[:1500])
    state = ps.load(os.path.join(out, "state.json"))
    c.eq("renamed: the campaign's devices", [new],
         state["campaign"]["devices"])
    c.eq("renamed: step 1 keeps its device", [dev],
         state["steps"][0]["devices"])
    c.eq("renamed: step 2's --set items name the new device",
         "device-names=%s" % new, state["steps"][1]["set"][0])
    r = tc.certify(["--resume", out, "--accept-device", "/nope=%s" % dev])
    c.eq("renamed: an OLD not in the campaign is a usage error", 64, r.rc,
         r.describe())


def check_loop(c, td, root):
    if os.geteuid() != 0:
        c.skip_part("loop")
        return
    if shutil.which("losetup") is None:
        c.skip_part("loop", "no losetup")
        return
    a = tc.make_device(os.path.join(root, "loop-a.img"), mib=8)
    b = tc.make_device(os.path.join(root, "loop-b.img"), mib=8)
    sha = itest.sha256_file(b)
    r = subprocess.run(["losetup", "--find", "--show", a],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        c.skip_part("loop", "losetup: %s" % r.stderr.strip())
        return
    loop = r.stdout.strip()
    try:
        out, r = campaign(c, td, loop, "loop")
        if r.rc not in (0, 1):
            c.check(False, "loop: the campaign ran", r.describe())
            return
        subprocess.run(["losetup", "-d", loop])
        for _ in range(50):
            if subprocess.run(["losetup", loop, b]).returncode == 0:
                break
            time.sleep(0.1)
        ps.replan(out)
        r = tc.certify(["--resume", out])
        check_refused(c, "loop", out, r, b, sha, [
            "is not the drive this campaign started on", a, b])
    finally:
        subprocess.run(["losetup", "-d", loop], stderr=subprocess.DEVNULL)


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def check_loop_recreated(c, td, root):
    if os.geteuid() != 0:
        c.skip_part("loop-recreated")
        return
    if not all(shutil.which(p) for p in ("losetup", "mkfs.ext4", "mount",
                                         "umount")):
        c.skip_part("loop-recreated", "needs losetup, mkfs.ext4 and mount")
        return
    img = os.path.join(root, "recreated-ext4.img")
    with open(img, "wb") as f:
        f.truncate(32 << 20)
    mnt = td.join("recreated-mnt")
    os.mkdir(mnt)
    r = run(["mkfs.ext4", "-q", "-F", img])
    if r.returncode != 0:
        c.skip_part("loop-recreated", "mkfs.ext4: %s" % r.stderr.strip())
        return
    r = run(["losetup", "--find", "--show", img])
    if r.returncode != 0:
        c.skip_part("loop-recreated", "losetup: %s" % r.stderr.strip())
        return
    fs_loop, loop, mounted = r.stdout.strip(), None, False
    try:
        r = run(["mount", "-t", "ext4", fs_loop, mnt])
        if r.returncode != 0:
            c.skip_part("loop-recreated", "mount: %s" % r.stderr.strip())
            return
        mounted = True
        back = tc.make_device(os.path.join(mnt, "back.img"), mib=8)
        ino = os.stat(back).st_ino
        r = run(["losetup", "--find", "--show", back])
        if r.returncode != 0:
            c.skip_part("loop-recreated", "losetup: %s" %
                        r.stderr.strip())
            return
        loop = r.stdout.strip()
        out, r = campaign(c, td, loop, "recreated")
        if r.rc not in (0, 1):
            c.check(False, "loop-recreated: the campaign ran", r.describe())
            return
        recorded = ps.load(os.path.join(out, "state.json"))["campaign"][
            "identities"][loop]
        c.check("backing_gen" in recorded and "backing_mark" in recorded,
                "loop-recreated: the backing file's generation and mark "
                "recorded", str(recorded))
        run(["losetup", "-d", loop])
        os.unlink(back)
        tc.make_device(back, mib=8)
        sha = itest.sha256_file(back)
        if os.stat(back).st_ino != ino:
            print("note: loop-recreated: the new file has another inode "
                  "number (%d, was %d)" % (os.stat(back).st_ino, ino))
        for _ in range(50):
            if run(["losetup", loop, back]).returncode == 0:
                break
            time.sleep(0.1)
        else:
            c.skip_part("loop-recreated", "%s taken meanwhile" % loop)
            loop = None
            return
        ps.replan(out)
        r = tc.certify(["--resume", out])
        check_refused(c, "loop-recreated", out, r, back, sha, [
            "is not the drive this campaign started on",
            "--accept-device %s=%s" % (loop, loop)])
        c.check(re.search(r"started on \((backing_ino \d+, now \d+|"
                          r"backing_gen \d+, now \d+ - another file|"
                          r"backing_mark \w+, now none)", r.err),
                "loop-recreated: the refusal names what differs",
                r.describe())
    finally:
        if loop:
            run(["losetup", "-d", loop])
        if mounted:
            run(["umount", mnt])
        run(["losetup", "-d", fs_loop])


def check_no_identities(c, td, root):
    dev = tc.make_device(os.path.join(root, "no-identities.img"), mib=8)
    out, r = campaign(c, td, dev, "no-identities")
    if not c.eq("no-identities: the campaign certifies", 0, r.rc,
                r.describe()):
        return
    path = os.path.join(out, "state.json")
    state = ps.load(path)
    del state["campaign"]["identities"]
    ps.save(path, state)
    os.unlink(dev)              # another drive has the name now
    tc.make_device(dev, mib=8)
    sha = itest.sha256_file(dev)
    ps.replan(out)
    r = tc.certify(["--resume", out])
    check_refused(c, "no-identities", out, r, dev, sha, [
        "device %s: no identity recorded" % dev,
        "now at %s: kind file" % dev, "ino %d" % os.stat(dev).st_ino,
        "--accept-device %s=%s" % (dev, dev)])
    r = tc.certify(["--resume", out, "--accept-device", "%s=%s" % (dev,
                                                                  dev)])
    c.eq("no-identities: --accept-device: certified", 0, r.rc,
         r.describe())
    s = ps.load(os.path.join(out, "summary.json"))
    ch = s.get("device_changes") or [{}]
    c.eq("no-identities: summary.json device_changes", (dev, dev, 1),
         (ch[0].get("new"), ch[0].get("old"), ch[0].get("from_step")))
    c.check(ch[0].get("was", "").startswith("not recorded"),
            "no-identities: the change says none was recorded", str(ch))
    md = tc.read(os.path.join(out, "summary.md"))
    c.check("replaced %s from step 1 (accepted with --accept-device" % dev
            in md and "was not recorded" in md, "no-identities: summary.md "
            "records the acceptance", md)
    c.eq("no-identities: the identity is recorded now",
         os.stat(dev).st_ino, ps.load(path)["campaign"]["identities"].get(
             dev, {}).get("ino"))


def check_grown(c, td, root):
    dev = tc.make_device(os.path.join(root, "grown.img"), mib=8)
    out, r = campaign(c, td, dev, "grown",
                      base_items=[("file-size-mbytes", 16)])
    c.eq("grown: certified (step 2 runs on the grown file)", 0, r.rc,
         r.describe())
    c.eq("grown: the file grew to file-size-mbytes", 16 << 20,
         os.path.getsize(dev))
    state = ps.load(os.path.join(out, "state.json"))
    c.eq("grown: every step done", ["done"] * len(state["steps"]),
         [s["status"] for s in state["steps"]])


def check_io_errors(c, td, root):
    dev = tc.make_device(os.path.join(root, "errors.img"), mib=8)
    # 5 reads of each run fail, then (after them: not in their running
    # total) 2 large-block writes
    fault = ("op=write,size=131072,after_ms=1200,count=2,errno=EIO;"
             "op=read,after_ms=300,every=50,count=5,errno=EIO")
    out, r = campaign(c, td, dev, "errors", env=tc.env_for(fault),
                      base_items=[("io-error-limit", 100)])
    c.eq("io-errors: exit 3, never 0", 3, r.rc, r.describe())
    c.check(re.search(r"verdict: (TRIAL \(not a certification\): )?"
                      r"certified with I/O errors at 1x", r.out),
            "io-errors: the verdict line", r.describe())
    try:
        s = ps.load(os.path.join(out, "summary.json"))
    except (OSError, ValueError) as e:
        c.check(False, "io-errors: summary.json: %s" % e)
        return
    c.eq("io-errors: verdict status", "certified with I/O errors",
         s["verdict"]["status"])
    c.eq("io-errors: failed I/Os per step", [7, 7],
         [st["io_errors"] for st in s["steps"]])
    md = tc.read(os.path.join(out, "summary.md"))
    c.check("PASS (7 failed I/Os)" in md and "14 failed I/Os within "
            "io-error-limit (step 1: 7, step 2: 7)" in md,
            "io-errors: summary.md shows them", md)
    page = tc.read(os.path.join(out, "report.html"))
    c.check("PASS (7 failed I/Os)" in page, "io-errors: report.html shows "
            "them", page[:3000])


def main():
    c = itest.Checker("test_certify_identity")
    itest.binary("act_storage")
    itest.shim_path()
    tc.with_devices(c, "act-certify-identity", [
        check_file_replaced, check_mid_campaign, check_renamed, check_loop,
        check_loop_recreated, check_no_identities, check_grown,
        check_io_errors], parallel=True)


if __name__ == "__main__":
    main()
