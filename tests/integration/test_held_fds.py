"""Description: ACT_HELD_FDS is believed only from the parent that holds the devices (docs/beyond.md, "A parent that holds the devices"): a descriptor a caller merely opened stands for nothing, and the in-use checks run anyway.

Cases - each refused run must exit 2 with the ERROR line given, never
start (no `start time =` line, act_prep no `cleaning`), and leave the
device as it was:

- a mounted loop device (root; an ext4 image mounted read-only, skipped
  with a note when losetup or mount fails; its image checksum is compared
  after the unmount), act_storage:
  - the reproduction's command, `ACT_HELD_FDS=3 act_storage CONF
    3<DEV` (a shell opens the descriptor and execs act_storage):
    `ACT_HELD_FDS=3 without ACT_HELD_PID`; act_prep the same;
  - ACT_HELD_PID=1 (not its parent): `is not this program's parent`;
  - this script as the parent, a read-only descriptor it has: `is open
    read-only`;
  - this script as the parent, a read-write descriptor only the child
    has (the shell's `3<>DEV`): `is not the parent's`;
  - this script as the parent with a read-write descriptor of its own,
    not exclusive (the mount holds the device): the mount check by device
    number, `device DEV is in use (DEV mounted on MNT)`; act_prep the same;
- a file another process holds with flock (a python child, LOCK_EX):
  act_storage and act_prep with the reproduction's command (`without
  ACT_HELD_PID`), and with this script as the parent passing its pid and a
  read-write descriptor that does not hold the lock: the lock taken through
  the parent's descriptor fails - `device F is in use by python3 (pid N)`;
  the file's checksum unchanged;
- the legitimate parent: act_certify (which holds its devices O_RDWR,
  O_EXCL / flock, and passes its pid) runs a short campaign (--load 0.1,
  --seconds 2) on a file and, as root, a loop device: exit 0, certified
  at 0.1x, every step's log has its reports.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MB = 1024 * 1024
RUN_TIMEOUT = 30
CERTIFY = os.path.join(itest.REPO, "analysis", "act_certify.py")
HOLDER = ("import fcntl, os, sys, time\n"
          "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
          "fcntl.flock(fd, fcntl.LOCK_EX)\n"
          "print('locked', flush=True)\n"
          "time.sleep(120)\n")


def config(td, name, dev):
    return itest.write_config(td.join(name + ".conf"), [
        ("device-names", dev), ("service-threads", 2),
        ("test-duration-sec", 2), ("read-reqs-per-sec", 200),
        ("write-reqs-per-sec", 100)])


def env_with(**items):
    env = dict(os.environ)
    env.pop("ACT_HELD_FDS", None)
    env.pop("ACT_HELD_PID", None)
    env.update({k: str(v) for k, v in items.items()})
    return env


def via_shell(args, dev, mode):
    """args run by a shell that opens dev on descriptor 3 (mode "<" or
    "<>") and execs them: the program's parent is this script, which does
    not have that descriptor - the reproduction's `PROG ... 3<DEV`."""
    return ["sh", "-c", 'exec "$@" 3%s"$ACT_TEST_DEV"' % mode, "sh"] + args


def run(args, env, pass_fds=()):
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, universal_newlines=True,
                         errors="replace", env=env, pass_fds=pass_fds)
    out, err, timed_out = itest.communicate(p, RUN_TIMEOUT)
    return itest.Result(p.returncode, out, err, 0, timed_out)


def check_refused(c, key, r, pattern):
    itest.check_program_refused(c, key, r, pattern)


def args_for(progs, prog, td, tag, dev):
    if prog == "act_prep":
        return [progs[prog], dev]
    return [progs[prog], config(td, tag, dev)]


# ----------------------------------------------------------------------------
# A mounted loop device.

def check_mounted(c, td, progs):
    if os.geteuid() != 0:
        c.skip_part("mounted device")
        return
    me = os.getpid()
    with itest.MountedExt4(c, td) as m:
        if m.dev is None:
            return
        dev = re.escape(m.dev)
        no_pid = r"ACT_HELD_FDS=3 without ACT_HELD_PID - "
        for prog in ("act_storage", "act_prep"):
            args = args_for(progs, prog, td, "mounted-" + prog, m.dev)
            r = run(via_shell(args, m.dev, "<"), env_with(
                ACT_HELD_FDS=3, ACT_TEST_DEV=m.dev))
            check_refused(c, "mounted, %s, ACT_HELD_FDS=3 3<dev" % prog, r,
                          no_pid)
        args = args_for(progs, "act_storage", td, "mounted", m.dev)
        r = run(via_shell(args, m.dev, "<>"), env_with(
            ACT_HELD_FDS=3, ACT_HELD_PID=1, ACT_TEST_DEV=m.dev))
        check_refused(c, "mounted, ACT_HELD_PID=1", r,
                      r"ACT_HELD_PID=1 is not this program's parent")
        fd = os.open(m.dev, os.O_RDONLY)
        try:
            r = run(args, env_with(ACT_HELD_FDS=fd, ACT_HELD_PID=me),
                    pass_fds=(fd,))
        finally:
            os.close(fd)
        check_refused(c, "mounted, a read-only descriptor of the parent", r,
                      r"ACT_HELD_FDS=%d: descriptor %d \(%s\) is open "
                      r"read-only" % (fd, fd, dev))
        r = run(via_shell(args, m.dev, "<>"), env_with(
            ACT_HELD_FDS=3, ACT_HELD_PID=me, ACT_TEST_DEV=m.dev))
        check_refused(c, "mounted, a descriptor only the child has", r,
                      r"ACT_HELD_FDS=3: descriptor 3 \(%s\) is not the "
                      r"parent's \(pid %d has no descriptor" % (dev, me))
        fd = os.open(m.dev, os.O_RDWR)
        try:
            for prog in ("act_storage", "act_prep"):
                r = run(args_for(progs, prog, td, "mounted-rw-" + prog,
                                 m.dev),
                        env_with(ACT_HELD_FDS=fd, ACT_HELD_PID=me),
                        pass_fds=(fd,))
                check_refused(c, "mounted, %s, a read-write descriptor of "
                              "the parent" % prog, r,
                              r"device %s is in use \(%s mounted on %s\) - "
                              r"refusing to write to it" % (
                                  dev, dev, re.escape(m.mnt)))
        finally:
            os.close(fd)


# ----------------------------------------------------------------------------
# A file another process holds with flock.

def check_flocked(c, td, progs):
    f = td.join("held.dev")
    itest.fill_file(f, 32 * MB, b"\x5a")
    before = itest.sha256_file(f)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, f],
                              stdout=subprocess.PIPE,
                              universal_newlines=True)
    me = os.getpid()
    try:
        c.eq("the holder locked the file", "locked\n",
             holder.stdout.readline())
        held_by = r"device %s is in use by python3 \(pid %d\)" % (
            re.escape(f), holder.pid)
        fd = os.open(f, os.O_RDWR)
        try:
            for prog in ("act_storage", "act_prep"):
                args = args_for(progs, prog, td, "flocked-" + prog, f)
                r = run(via_shell(args, f, "<"), env_with(
                    ACT_HELD_FDS=3, ACT_TEST_DEV=f))
                check_refused(c, "flocked file, %s, ACT_HELD_FDS=3 3<file"
                              % prog, r, r"ACT_HELD_FDS=3 without "
                              r"ACT_HELD_PID")
                r = run(args, env_with(ACT_HELD_FDS=fd, ACT_HELD_PID=me),
                        pass_fds=(fd,))
                check_refused(c, "flocked file, %s, a read-write descriptor "
                              "of the parent without the lock" % prog, r,
                              held_by)
        finally:
            os.close(fd)
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    c.eq("[flocked file] checksum", before, itest.sha256_file(f))


# ----------------------------------------------------------------------------
# The legitimate parent: act_certify.

def check_certify(c, td):
    f = td.join("certify.dev")
    itest.fill_file(f, 64 * MB, b"\x5a")
    devices = [f]
    loop = None
    if os.geteuid() == 0:
        img = td.join("certify-loop.img")
        itest.fill_file(img, 64 * MB, b"\x5a")
        loop, why = itest.loop_attach(img)
        if loop is None:
            c.skip_part("act_certify on a loop device", why)
        else:
            devices.append(loop)
    else:
        c.skip_part("act_certify on a loop device")
    try:
        out = td.join("campaign")
        args = [sys.executable, CERTIFY, "--load", "0.1", "--seconds", "2",
                "--out", out]
        for d in devices:
            args += ["--device", d]
        env = env_with(ACT_BIN=itest.bin_dir())
        r = itest.run(args, timeout=240, env=env)
        detail = r.describe()
        c.eq("[act_certify on %s] exit status" % ", ".join(devices), 0, r.rc,
             detail)
        c.check(re.search(r"^verdict: .*certified at 0\.1x", r.out, re.M),
                "[act_certify] no 'certified at 0.1x' verdict", detail)
        logs = sorted(n for n in os.listdir(out) if n.endswith(".log")) \
            if os.path.isdir(out) else []
        c.check(len(logs) >= 2, "[act_certify] step logs: %s" % logs, detail)
        for name in logs:
            with open(os.path.join(out, name), errors="replace") as lf:
                text = lf.read()
            c.check("start time = " in text and "ERROR:" not in text,
                    "[act_certify] step log %s did not run cleanly" % name,
                    text[-2000:])
        print("[act_certify on %d device(s)] exit %s, %d step logs" % (
            len(devices), r.rc, len(logs)))
    finally:
        if loop is not None:
            itest.loop_detach(loop)


def main():
    c = itest.Checker("test_held_fds")
    progs = {p: itest.binary(p) for p in ("act_storage", "act_prep")}
    with itest.TempDir() as td:
        check_mounted(c, td, progs)
        check_flocked(c, td, progs)
        check_certify(c, td)
    c.finish()


if __name__ == "__main__":
    main()
