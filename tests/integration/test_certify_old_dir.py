"""Description: a campaign directory written by the act_certify before
issue 26 - every step with its own config file, the drive's identity read
by act_certify itself (tests/integration/fixtures/certify-v1, made by
afe9a79: step 1 done, step 2 interrupted) - still resumes, reports and
compares with the act_certify that asks the C programs (--set,
--check --print-config), on a fresh 16 MiB device file:

- resume: the identity recorded the old way (os.stat's device and inode,
  FS_IOC_GETVERSION's generation, the campaign's mark) is the one
  act_storage's facts line gives now: --resume runs step 2 on its own
  config file - edited before the resume, as the old act_certify invited
  (record-bytes 2048): its log echoes it, its config_echo (recorded now,
  from that file) too, so it PASSes, not INVALID; step 1's log is kept
  byte for byte and step 1, which has no recorded echo, stays PASS; the
  campaign certifies (trial, exit 0); --report gives the same verdict, and
  --compare of it exits 0 with the campaign certified;
- replaced: another file at the device's name is refused (exit 2) before
  anything runs, naming the inode that differs - the old identity is
  compared, not passed for lack of common facts;
- renamed: --resume --accept-device NEW=OLD with a new name turns step 2
  into a step of the new kind (DIR/base.conf with --set items on NEW, no
  config file), which runs on NEW; certified.

Exit 0 pass, 1 fail."""

import fcntl
import json
import os
import shutil
import struct
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "fixtures", "certify-v1")
FILES = ("base.conf", "01-test1-target-0.1x.conf", "01-test1-target-0.1x.log",
         "01-test1-target-0.1x.err", "02-test2-stress-0.2x.conf")
MARK = "user.act_certify.campaign"


def old_identity(dev):
    """A file device's identity as the old act_certify recorded it, its
    mark set as it set it."""
    st = os.stat(dev)
    ident = {"kind": "file", "dev": st.st_dev, "ino": st.st_ino,
             "size": st.st_size}
    req = (2 << 30) | (struct.calcsize("l") << 16) | (ord("v") << 8) | 1
    with open(dev, "rb") as f:
        try:
            raw = fcntl.ioctl(f.fileno(), req, bytes(8))
            ident["gen"] = struct.unpack("=I", raw[:4])[0]
        except OSError:
            pass
    mark = uuid.uuid4().hex
    try:
        os.setxattr(dev, MARK, mark.encode())
        ident["mark"] = mark
    except OSError:
        pass
    return ident


def old_dir(td, root, name):
    """The fixture instantiated: (DIR, device)."""
    out = td.join(name)
    os.mkdir(out)
    dev = tc.make_device(os.path.join(root, name + ".img"), mib=16)
    subst = {"@DIR@": out, "@DEV@": dev, "@BASE@": os.path.join(
        itest.REPO, "config", "act_storage.conf"),
        "@PROGRAM@": os.path.join(itest.bin_dir(), "act_storage")}
    for fname in FILES + ("state.json",):
        with open(os.path.join(FIXTURE, fname)) as f:
            text = f.read()
        for k, v in subst.items():
            text = text.replace(k, v)
        if fname == "state.json":
            state = json.loads(text)
            state["campaign"]["identities"][dev] = old_identity(dev)
            text = json.dumps(state, indent=1)
        with open(os.path.join(out, fname), "w") as f:
            f.write(text)
    return out, dev


def check_resume(c, td, root):
    out, dev = old_dir(td, root, "resume")
    conf2 = os.path.join(out, "02-test2-stress-0.2x.conf")
    text = tc.read(conf2)
    c.check("record-bytes: 1536\n" in text, "the old step 2 config sets "
            "record-bytes 1536", text)
    with open(conf2, "w") as f:
        f.write(text.replace("record-bytes: 1536\n", "record-bytes: 2048\n"))
    log1 = os.path.join(out, "01-test1-target-0.1x.log")
    sha1 = itest.sha256_file(log1)
    r = tc.certify(["--resume", out])
    c.eq("resume: certified (trial)", 0, r.rc, r.describe())
    c.check("step 2/2 started" in r.err and "step 1/2 started" not in
            r.err, "resume: not step 2 alone run", r.describe())
    c.eq("resume: step 1's log kept", sha1, itest.sha256_file(log1))
    state = tc.load_json(os.path.join(out, "state.json"))
    s1, s2 = state["steps"]
    c.eq("resume: the steps' results", [("done", "PASS"), ("done", "PASS")],
         [(s["status"], s["result"]) for s in state["steps"]])
    c.eq("resume: step 2 ran its own config file", (
        "02-test2-stress-0.2x.conf", None),
        (s2["files"].get("config"), s2.get("set")))
    c.eq("resume: step 2's config echo, from its own file", "2048",
         s2.get("config_echo", {}).get("record-bytes"))
    log2 = tc.read(os.path.join(out, s2["files"]["log"]))
    c.check("record-bytes: 2048\n" in log2, "resume: step 2's log does "
            "not echo its config file's record-bytes", log2[:1500])
    c.check("config_echo" not in s1, "resume: step 1 got an echo", str(s1))
    r = tc.certify(["--report", out])
    c.eq("--report: exit status", 0, r.rc, r.describe())
    summary = tc.load_json(os.path.join(out, "summary.json"))
    c.eq("--report: verdict", (True, ["PASS", "PASS"]),
         (summary["verdict"]["certified"],
          [s["result"] for s in summary["steps"]]))
    c.check("judged" not in tc.read(os.path.join(out, "summary.md")),
            "--report judged a step otherwise", r.describe())
    r = tc.certify(["--compare", out, "--out", td.join("resume-compare")])
    c.eq("--compare: exit status", 0, r.rc, r.describe())
    rows = tc.load_json(os.path.join(td.join("resume-compare"),
                                     "compare.json"))["campaigns"]
    c.eq("--compare: the campaign certified at 0.1x", [("certified", 0.1)],
         [(row.get("verdict_status"), row.get("certified_load"))
          for row in rows])


def check_replaced(c, td, root):
    out, dev = old_dir(td, root, "replaced")
    os.unlink(dev)
    tc.make_device(dev, mib=16)
    sha = itest.sha256_file(dev)
    r = tc.certify(["--resume", out])
    c.eq("replaced: refused", 2, r.rc, r.describe())
    c.check("is not the drive this campaign started on (ino " in r.err,
            "replaced: the inode is not named", r.describe())
    c.eq("replaced: the file unchanged", sha, itest.sha256_file(dev))


def check_renamed(c, td, root):
    out, dev = old_dir(td, root, "renamed")
    new = os.path.join(root, "renamed-new.img")
    os.rename(dev, new)
    r = tc.certify(["--resume", out, "--accept-device", "%s=%s" % (new,
                                                                  dev)])
    c.eq("renamed: certified", 0, r.rc, r.describe())
    s2 = tc.load_json(os.path.join(out, "state.json"))["steps"][1]
    c.eq("renamed: step 2 runs base.conf with --set on the new name", (
        None, "device-names=%s" % new),
        (s2["files"].get("config"), (s2.get("set") or [None])[0]))
    c.check("device-names: %s\n" % new in tc.read(
        os.path.join(out, s2["files"]["log"])), "renamed: step 2's log "
        "does not run on the new name")


def main():
    c = itest.Checker("test_certify_old_dir")
    itest.binary("act_storage")
    tc.with_devices(c, "act-certify-old", [
        check_resume, check_replaced, check_renamed])


if __name__ == "__main__":
    main()
