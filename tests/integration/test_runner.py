"""Description: tests/run.sh itself - per-test timeout, PATTERN, stale unit binaries, skipped parts.

Builds a fake repo in a temp dir (a copy of tests/run.sh, fake unit sources
and binaries with chosen mtimes, fake Python tests) and runs the copy with
ACT_TEST_TIMEOUT=2 from another directory:
- a test sleeping 600 s, one whose child `sleep` must die with it, one
  ignoring SIGTERM (SIGKILLed by --kill-after) and one leaving a
  SIGTERM-ignoring child behind each FAIL "(timeout after 2s)" in a few
  seconds, with the tail of their log shown, and no `sleep` of theirs is
  left running;
- the tests after them run; the final line is exactly
  "4 passed, 8 failed, 1 skipped"; exit status non-zero; ACT_BIN is the
  temp tree's target/bin; logs are in its target/test-logs/;
- unit binaries: current runs, missing / older than its source / older
  than unit.h / older than target/lib/libact.a FAIL "not built from
  current sources - run make unit", one without a source is not run;
- a passing test's skipped parts (tests/lib/checker.py's lines `skipped
  without root: PART`, `skipped: PART (WHY)`) are named on its PASS line:
  "(skipped without root: loop device, mounted device; skipped:
  overlay)"; a PASS without them has nothing after its time;
- `run.sh unit` runs only unit/*, `run.sh test_ok` only that test (exit 0),
  `run.sh unit/test_x sizing/` both (a Python test in a folder of
  tests/python found), `run.sh nomatch` nothing (exit 1);
- SIGINT to the runner stops the running test's group and the runner (130);
- ACT_TEST_TIMEOUT=abc is refused (exit 2).
"""

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_SH = os.path.join(os.path.dirname(HERE), "run.sh")

MARK = "%06d" % random.randrange(1000000)
# One sleep duration per fake test, unique to this run, to find its `sleep`.
SLEEPS = {"child": "601." + MARK, "stubborn": "602." + MARK,
          "orphan": "603." + MARK, "sigint": "604." + MARK}

FAKE_TESTS = {
    "integration/test_hang.py":
        "import time\nprint('hanging now', flush=True)\ntime.sleep(600)\n",
    "integration/test_child.py":
        "import subprocess\nprint('child started', flush=True)\n"
        "subprocess.Popen(['sleep', '%s']).wait()\n" % SLEEPS["child"],
    "integration/test_stubborn.py":
        "import signal, subprocess, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "subprocess.Popen(['sleep', '%s'])\n"
        "print('ignoring SIGTERM', flush=True)\n"
        "while True:\n    time.sleep(1)\n" % SLEEPS["stubborn"],
    "integration/test_orphan.py":
        "import signal, subprocess, time\n"
        "subprocess.Popen(['sleep', '%s'], preexec_fn=lambda: "
        "signal.signal(signal.SIGTERM, signal.SIG_IGN))\n"
        "print('left a child', flush=True)\ntime.sleep(600)\n"
        % SLEEPS["orphan"],
    "integration/test_int.py":
        "import subprocess\nprint('child started', flush=True)\n"
        "subprocess.Popen(['sleep', '%s']).wait()\n" % SLEEPS["sigint"],
    "integration/test_ok.py":
        "import os, sys\nprint('ACT_BIN=' + os.environ.get('ACT_BIN', ''))\n"
        "sys.exit(0)\n",
    "integration/test_skip.py":
        "import sys\nprint('SKIP: nothing to do here')\nsys.exit(77)\n",
    "python/sizing/test_h.py": "print('python/sizing ok')\n",
    "integration/test_parts.py":
        "print('skipped without root: loop device')\n"
        "print('note: not a part')\n"
        "print('skipped: overlay (mount failed: (exit 32))')\n"
        "print('skipped without root: mounted device')\n",
}

UNIT_BIN = "#!/bin/sh\necho 'unit %s ran'\n%sexit 0\n"


def write(path, text, mode=0o644, mtime=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    if mtime is not None:
        os.utime(path, ns=(mtime, mtime))


def make_tree(root):
    write(os.path.join(root, "tests", "run.sh"), open(RUN_SH).read(), 0o755)
    for name, text in FAKE_TESTS.items():
        if name != "integration/test_int.py":
            write(os.path.join(root, "tests", name), text)
    now = time.time_ns()
    s = 1000000000
    unit = os.path.join(root, "tests", "unit")
    tbin = os.path.join(root, "target", "tests")
    # Sources at now-300 s, unit.h at now-200 s, libact.a at now-150 s.
    for n in ("test_x", "test_hdr", "test_missing", "test_lib"):
        write(os.path.join(unit, n + ".c"), "/* %s */\n" % n, mtime=now - 300 * s)
    write(os.path.join(unit, "test_old.c"), "/* new */\n", mtime=now - 50 * s)
    write(os.path.join(unit, "unit.h"), "/* unit.h */\n", mtime=now - 200 * s)
    write(os.path.join(root, "target", "lib", "libact.a"), "!<arch>\n",
          mtime=now - 150 * s)
    # test_x current; test_hdr newer than its source, older than unit.h;
    # test_lib newer than both, older than libact.a; test_old older than
    # its source; test_gone has no source.
    for n, t in (("test_x", 100), ("test_hdr", 250), ("test_lib", 180),
                 ("test_old", 300), ("test_gone", 100)):
        extra = ""
        if n == "test_gone":
            extra = "touch '%s'\n" % os.path.join(root, "GONE_RAN")
        write(os.path.join(tbin, n), UNIT_BIN % (n, extra), 0o755,
              mtime=now - t * s)
    os.makedirs(os.path.join(root, "target", "bin"))


def sleeps_running():
    """The pids of live `sleep` processes of this run (by their duration)."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        for key, dur in SLEEPS.items():
            if dur.encode() in argv:
                found[int(pid)] = key
    return found


def run(root, args, env_extra=None, timeout=60):
    env = dict(os.environ)
    env.pop("ACT_BIN", None)
    env.pop("ACT_TARGET", None)   # the fake tree's own target/
    env["ACT_TEST_TIMEOUT"] = "2"
    env.update(env_extra or {})
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(root, "tests", "run.sh")] + args,
                       cwd="/", env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=timeout)
    return p.returncode, p.stdout, time.monotonic() - t0


def result_lines(out):
    """{name: (status, secs, rest)} of the runner's per-test lines."""
    res = {}
    for line in out.split("\n"):
        m = re.match(r"^(PASS|FAIL|SKIP)  (\S+) +(\d+\.\d)s(?:  \((.*)\))?$",
                     line)
        if m:
            res[m.group(2)] = (m.group(1), float(m.group(3)), m.group(4))
    return res


def kill_leftovers():
    for pid in sleeps_running():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def main():
    c = itest.Checker("test_runner")
    if shutil.which("timeout") is None or shutil.which("bash") is None:
        itest.skip("needs bash and coreutils timeout")
    if not os.path.isdir("/proc/self"):
        itest.skip("needs /proc to look for leftover processes")

    with itest.TempDir("act-runner-test") as td:
        root = td.join("repo")
        make_tree(root)
        try:
            check_full_run(c, root)
            check_patterns(c, root)
            check_sigint(c, root)
            rc, out, _ = run(root, ["test_ok"], {"ACT_TEST_TIMEOUT": "abc"})
            c.eq("ACT_TEST_TIMEOUT=abc: exit status", 2, rc, out)
            c.check("ACT_TEST_TIMEOUT" in out,
                    "ACT_TEST_TIMEOUT=abc: no message naming it", out)
        finally:
            kill_leftovers()
    c.finish()


def check_full_run(c, root):
    rc, out, dt = run(root, [])
    print("--- full run (%.1f s, exit %d):\n%s" % (dt, rc, out))
    res = result_lines(out)
    lines = out.rstrip("\n").split("\n")

    c.check(rc != 0, "full run: exit status 0 with failures", out)
    c.eq("full run: last line", "4 passed, 8 failed, 1 skipped", lines[-1],
         out)
    c.check(re.search(r"timeout 2s", lines[0]) is not None,
            "full run: header does not show the timeout", out)
    c.eq("full run: tests shown", sorted([
        "unit/test_x", "unit/test_hdr", "unit/test_old", "unit/test_missing",
        "unit/test_lib", "integration/test_hang.py",
        "integration/test_child.py", "integration/test_stubborn.py",
        "integration/test_orphan.py", "integration/test_ok.py",
        "integration/test_skip.py", "integration/test_parts.py",
        "python/sizing/test_h.py"]), sorted(res), out)

    for name, tail in (("test_hang", "hanging now"),
                       ("test_child", "child started"),
                       ("test_stubborn", "ignoring SIGTERM"),
                       ("test_orphan", "left a child")):
        n = "integration/%s.py" % name
        st, secs, why = res.get(n, (None, None, None))
        c.eq(n + ": status", "FAIL", st, out)
        c.eq(n + ": reason", "timeout after 2s", why, out)
        if secs is not None:
            # 2 s, plus the 5 s --kill-after for the one ignoring SIGTERM.
            limit = 9 if name == "test_stubborn" else 4
            c.check(2 <= secs <= limit, "%s: took %.1f s (2..%d expected)"
                    % (n, secs, limit), out)
        c.check(re.search(r"^FAIL  %s .*\n(      \| .*\n)*      \| %s$"
                          % (re.escape(n), tail), out, re.M) is not None,
                "%s: the tail of its log (%r) is not shown" % (n, tail), out)
    c.check("Killed" not in out, "full run: bash's job notice shown", out)
    c.check("      | tests/run.sh: killed processes the test left running"
            in out, "test_orphan: its leftover child is not reported", out)

    c.eq("test_ok (after the hung ones): status and reason", ("PASS", None),
         res.get("integration/test_ok.py", (None, None, None))[::2], out)
    c.eq("test_parts: status and the parts it skipped", (
        "PASS", "skipped without root: loop device, mounted device; "
        "skipped: overlay"),
        res.get("integration/test_parts.py", (None, None, None))[::2], out)
    c.eq("test_skip: status", "SKIP",
         res.get("integration/test_skip.py", (None,))[0], out)
    c.eq("python/sizing/test_h.py: status", "PASS",
         res.get("python/sizing/test_h.py", (None,))[0], out)
    c.eq("unit/test_x (current): status", "PASS",
         res.get("unit/test_x", (None,))[0], out)
    for n in ("unit/test_hdr", "unit/test_old", "unit/test_missing",
              "unit/test_lib"):
        st, _, why = res.get(n, (None, None, None))
        c.eq(n + ": status", "FAIL", st, out)
        c.eq(n + ": reason", "not built from current sources - run make unit",
             why, out)
    for n, what in (("test_hdr", "older than tests/unit/unit.h"),
                    ("test_lib", "older than target/lib/libact.a"),
                    ("test_old", "older than tests/unit/test_old.c"),
                    ("test_missing", "does not exist")):
        c.check(re.search(r"\| target/tests/%s (is )?%s" % (n, re.escape(what)),
                          out) is not None,
                "unit/%s: no detail %r" % (n, what), out)
    c.check(not re.search(r"unit test_(old|hdr|lib) ran", out),
            "a stale unit binary was run", out)
    c.check(not os.path.exists(os.path.join(root, "GONE_RAN")),
            "target/tests/test_gone (no source) was run", out)

    logs = os.path.join(root, "target", "test-logs")
    log_ok = os.path.join(logs, "integration_test_ok.py.log")
    text = open(log_ok).read() if os.path.exists(log_ok) else ""
    c.eq("ACT_BIN seen by the tests (from the log)",
         "ACT_BIN=" + os.path.join(root, "target", "bin"), text.strip())
    c.check(os.path.exists(os.path.join(logs, "integration_test_hang.py.log")),
            "no log of test_hang in target/test-logs", out)

    time.sleep(0.2)
    left = sleeps_running()
    c.check(not left, "sleep processes left running: %s" % left, out)


def check_patterns(c, root):
    rc, out, _ = run(root, ["unit"])
    print("--- run.sh unit (exit %d):\n%s" % (rc, out))
    res = result_lines(out)
    c.eq("run.sh unit: tests run", sorted(
        ["unit/test_x", "unit/test_hdr", "unit/test_old",
         "unit/test_missing", "unit/test_lib"]), sorted(res), out)
    c.check(rc != 0, "run.sh unit: exit 0 with failures", out)
    c.eq("run.sh unit: last line", "1 passed, 4 failed, 0 skipped",
         out.rstrip("\n").split("\n")[-1], out)

    rc, out, _ = run(root, ["test_ok"])
    print("--- run.sh test_ok (exit %d):\n%s" % (rc, out))
    c.eq("run.sh test_ok: tests run", ["integration/test_ok.py"],
         sorted(result_lines(out)), out)
    c.eq("run.sh test_ok: exit status", 0, rc, out)
    c.eq("run.sh test_ok: last line", "1 passed, 0 failed, 0 skipped",
         out.rstrip("\n").split("\n")[-1], out)

    rc, out, _ = run(root, ["unit/test_x", "sizing/"])
    c.eq("run.sh unit/test_x sizing/: tests run",
         ["python/sizing/test_h.py", "unit/test_x"],
         sorted(result_lines(out)), out)
    c.eq("run.sh unit/test_x sizing/: exit status", 0, rc, out)

    rc, out, _ = run(root, ["nomatch"])
    c.eq("run.sh nomatch: tests run", [], sorted(result_lines(out)), out)
    c.eq("run.sh nomatch: exit status", 1, rc, out)
    c.eq("run.sh nomatch: last line", "0 passed, 0 failed, 0 skipped",
         out.rstrip("\n").split("\n")[-1], out)


def check_sigint(c, root):
    write(os.path.join(root, "tests", "integration", "test_int.py"),
          FAKE_TESTS["integration/test_int.py"])
    env = dict(os.environ, ACT_TEST_TIMEOUT="60")
    env.pop("ACT_BIN", None)
    env.pop("ACT_TARGET", None)
    p = subprocess.Popen([os.path.join(root, "tests", "run.sh"),
                          "test_int", "test_ok"], cwd="/", env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and \
            "sigint" not in sleeps_running().values():
        time.sleep(0.05)
    c.check("sigint" in sleep_keys(),
            "SIGINT: the test's child sleep never started")
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    dt = time.monotonic() - t0
    print("--- SIGINT to run.sh test_int test_ok after %.1f s (exit %d):\n%s"
          % (dt, p.returncode, out))
    c.eq("SIGINT: runner exit status", 130, p.returncode, out)
    c.check(dt < 3, "SIGINT: runner took %.1f s to stop" % dt, out)
    c.check("interrupted by SIGINT during integration/test_int.py" in out,
            "SIGINT: not reported (with the test's name)", out)
    c.check("integration/test_ok.py" not in out,
            "SIGINT: the runner went on with the next test", out)
    time.sleep(0.2)
    c.check("sigint" not in sleep_keys(),
            "SIGINT: the test's child sleep is left running", out)


def sleep_keys():
    return set(sleeps_running().values())


if __name__ == "__main__":
    main()
