#!/usr/bin/env python3
"""Description: the Ansible role contrib/ansible (docs/fleet.md) on three
hosts of this machine (ansible_connection: local, each its own device
file, install and output directory; node3's device slowed by the test
shim - LD_PRELOAD and ACT_SHIM_FAULT through act_environment), trial
campaigns of 2 steps of 20 s at 0.1x:

- certify.yml: every host checked (--dry-run), the tools deployed, three
  campaigns started detached (the playbook returns while they run: each
  output directory has its state.json, detach.pid and a live process);
  Each host's metrics file (act_metrics_path, --metrics) passes the
  real parser (prometheus_client) and says the campaign is in progress;
- certify.yml again while they run starts nothing new (no "campaign
  started" or "resumed", changed=0 for every host, the same pids, no
  resume recorded); with another act version on the controller it
  refuses to replace the running campaigns' act (nothing installed);
  status.yml reports each host's campaign;
- fetch.yml waits for the three to finish, fetches their directories to
  the controller and writes the fleet page (act_certify --compare), whose
  outlier is node3, and fails naming node3 (not certified) alone; each
  host's metrics file passes the parser again and says its campaign is
  no longer in progress.
- a host whose device is missing stops the playbook before anything is
  written on any host (no install or output directory made); so does a
  device in use (node2's, flock()ed as act holds a file device: the
  campaign's --dry-run, run from a temporary copy of the tools, refuses
  it), and a mixed fleet
  (node2's act_latency.py of another version): "a mixed fleet", no
  campaign started.

ansible-core is installed with pip into target/ansible-venv (kept for the
next runs; test-only); where it can't be, the test is skipped (77) with
a line saying why. Exit 0 pass, 1 fail, 77 skip."""

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402
import test_certify as tc  # noqa: E402
sys.path.insert(0, os.path.join(itest.REPO, "tests", "lib"))
import promparser  # noqa: E402

ANSIBLE_DIR = os.path.join(itest.REPO, "contrib", "ansible")
VENV = os.path.join(itest.REPO, "target", "ansible-venv")
SLOW = "op=read,size=1536,every=2,delay_ms=5"
HOSTS = ("node1", "node2", "node3")


def ansible_playbook():
    """The venv's ansible-playbook, installed if needed; None (with the
    reason printed) when it can't be."""
    exe = os.path.join(VENV, "bin", "ansible-playbook")
    if os.access(exe, os.X_OK):
        return exe
    for cmd in ([sys.executable, "-m", "venv", VENV],
                [os.path.join(VENV, "bin", "pip"), "install", "-q",
                 "ansible-core"]):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=400)
        except (OSError, subprocess.TimeoutExpired) as e:
            print("SKIP: ansible-core can't be installed (%s: %s)"
                  % (" ".join(cmd[:3]), e))
            return None
        if r.returncode != 0:
            print("SKIP: ansible-core can't be installed (%s: %s)"
                  % (" ".join(cmd[:3]), (r.stderr or r.stdout).strip()
                     .splitlines()[-1:]))
            return None
    return exe if os.access(exe, os.X_OK) else None


def inventory(td, root, devices):
    hosts = {}
    for h in HOSTS:
        env = {"ACT_CERTIFY_DETACH": "fork", "ACT_CERTIFY_REPORT_SEC": "1"}
        if h == "node3":
            shimmed = itest.shim_env(fault="path=%s,%s" % (devices[h], SLOW))
            env.update({k: shimmed[k] for k in ("LD_PRELOAD",
                                                "ACT_SHIM_FAULT",
                                                "ASAN_OPTIONS")})
        hosts[h] = {
            "ansible_connection": "local",
            "ansible_python_interpreter": sys.executable,
            "act_devices": [devices[h]],
            "act_install_dir": td.join(h, "opt"),
            "act_output_dir": td.join(h, "campaign"),
            "act_metrics_path": td.join(h, "textfile", "act_certify.prom"),
            "act_environment": env,
        }
    return {"act": {"hosts": hosts, "vars": {
        "act_load": 0.1, "act_seconds": 20, "act_python": sys.executable,
        "act_build_dir": itest.bin_dir(), "act_fleet_dir": td.join("fleet"),
        "act_wait_poll": 1, "act_wait_timeout": 180}}}


def playbook(exe, td, inv, name, timeout=300):
    env = dict(os.environ)
    env.update(ANSIBLE_CONFIG=os.path.join(ANSIBLE_DIR, "ansible.cfg"),
               ANSIBLE_HOME=td.join("ansible-home"),
               ANSIBLE_LOCAL_TEMP=td.join("ansible-tmp"),
               ANSIBLE_REMOTE_TEMP=td.join("ansible-tmp"),
               ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    path = td.join("inventory-%d.json" % len(os.listdir(td.path)))
    with open(path, "w") as f:
        json.dump(inv, f)
    return itest.run([exe, "-i", path, os.path.join(ANSIBLE_DIR, name)],
                     timeout=timeout, env=env, cwd=ANSIBLE_DIR)


def recap_changed(out):
    """{host: changed count} from the PLAY RECAP."""
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) > 2 and parts[1] == ":" and parts[0] in HOSTS:
            for p in parts[2:]:
                if p.startswith("changed="):
                    res[parts[0]] = int(p.split("=")[1])
    return res


def pid_of(td, h):
    try:
        with open(td.join(h, "campaign", "detach.pid")) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def nothing_written(td):
    """No host has act installed or a campaign directory."""
    return not any(os.path.exists(td.join(h, d)) for h in HOSTS
                   for d in ("opt", "campaign"))


def staged():
    """The check's temporary directories (stage.yml) there are now."""
    tmp = os.environ.get("TMPDIR") or "/tmp"
    return {n for n in os.listdir(tmp) if n.startswith("act-check-")}


def check_metrics(td, check, running):
    """Each host's metrics file (act_metrics_path) passes the real parser
    (prometheus_client, or the format's rules alone where it can't be
    installed) and names its campaign, in progress or not."""
    parser, why = promparser.parser()
    if parser is None:
        print("note: the metrics checked by the format's rules only: %s"
              % why)
    for h in HOSTS:
        path = td.join(h, "textfile", "act_certify.prom")
        if running:     # the first report's rewrite: within seconds
            tc.wait_for(lambda: os.path.exists(path), 20)
        try:
            text = tc.read(path)
        except OSError as e:
            check(False, "%s: no metrics file %s: %s" % (h, path, e))
            continue
        series, problems = promparser.validate(text, parser)
        check(not problems, "%s's metrics file (%s): %s"
              % (h, "running" if running else "finished", problems))
        got = promparser.value(series, "act_campaign_in_progress",
                               campaign="campaign")
        check(got == (1 if running else 0), "%s's metrics: "
              "act_campaign_in_progress %r, not %d"
              % (h, got, 1 if running else 0))


def main():
    exe = ansible_playbook()
    if exe is None:
        return 77
    c = itest.Checker("test_ansible")

    def check(ok, what, r=None):
        return c.check(ok, what, r.describe(6000) if r else None)

    itest.shim_path()
    with itest.TempDir("act-ansible") as td:
        root = tc.device_root(td)
        try:
            devices = {h: tc.make_device(os.path.join(root, h + ".img"))
                       for h in HOSTS}
            for h in HOSTS:
                os.makedirs(td.join(h, "textfile"))
            inv = inventory(td, root, devices)
            # a host with a missing device stops everything first
            bad = json.loads(json.dumps(inv))
            bad["act"]["hosts"]["node2"]["act_devices"] = [td.join("nope")]
            stages = staged()
            r = playbook(exe, td, bad, "certify.yml")
            check(r.rc != 0 and td.join("nope") in r.out and
                  nothing_written(td),
                  "a missing device on node2: the playbook stops, nothing "
                  "written anywhere", r)
            # a device in use (node2's, held as a running test holds it)
            # stops everything before anything is written: --dry-run, run
            # from a temporary copy of the tools, refuses it
            with open(devices["node2"], "rb") as held:
                fcntl.flock(held, fcntl.LOCK_EX)
                r = playbook(exe, td, inv, "certify.yml")
            check(r.rc != 0 and "in use" in r.out and nothing_written(td),
                  "node2's device in use: the playbook stops, nothing "
                  "written anywhere", r)
            # a mixed fleet (node2's act_latency.py another version) is
            # refused before any campaign starts
            mixed = json.loads(json.dumps(inv))
            other = td.join("other-bin")
            shutil.copytree(itest.bin_dir(), other)
            with open(os.path.join(other, "act_latency.py"), "w") as f:
                f.write("print('act_latency.py 0.0-other')\n")
            mixed["act"]["hosts"]["node2"]["act_build_dir"] = other
            r = playbook(exe, td, mixed, "certify.yml")
            check(r.rc != 0 and "a mixed fleet" in r.out and
                  "0.0-other" in r.out and nothing_written(td),
                  "a mixed fleet: refused, nothing written anywhere", r)
            check(staged() == stages, "the checks' temporary directories "
                  "removed: %r" % (staged() - stages))
            t0 = time.monotonic()
            r = playbook(exe, td, inv, "certify.yml")
            took = time.monotonic() - t0
            check(r.rc == 0 and r.out.count("campaign started in") == 3,
                  "certify.yml: three campaigns started", r)
            pids = {h: pid_of(td, h) for h in HOSTS}
            check(all(p and os.path.exists("/proc/%d" % p)
                      for p in pids.values()),
                  "three detached campaigns running after the playbook "
                  "returned (%.0f s): %r" % (took, pids))
            check_metrics(td, check, running=True)
            # another version while they run: refused, nothing replaced
            newer = json.loads(json.dumps(inv))
            newer["act"]["vars"]["act_build_dir"] = other
            r = playbook(exe, td, newer, "certify.yml")
            check(r.rc != 0 and "has not finished and runs with" in r.out
                  and "0.0-other" in r.out and not any(
                      "0.0-other" in tc.read(td.join(h, "opt", "bin",
                                                     "act_latency.py"))
                      for h in HOSTS if os.path.exists(td.join(
                          h, "opt", "bin", "act_latency.py"))),
                  "another act while the campaigns run: refused, the "
                  "installed act left as it is", r)
            check(all(pids[h] and os.path.exists("/proc/%d" % pids[h])
                      for h in ("node1", "node2")), "node1's and node2's "
                  "campaigns still ran after the refused upgrade (node3's "
                  "may have failed fast)")
            r = playbook(exe, td, inv, "certify.yml")
            check(r.rc == 0 and "campaign started" not in r.out and
                  "campaign resumed" not in r.out and
                  recap_changed(r.out) == {h: 0 for h in HOSTS},
                  "certify.yml again: nothing new (changed: %r)"
                  % recap_changed(r.out), r)
            check({h: pid_of(td, h) for h in HOSTS} == pids,
                  "the same campaigns after the second run")
            r = playbook(exe, td, inv, "status.yml")
            check(r.rc == 0 and all('"campaign: %s"' % td.join(h, "campaign")
                                    in r.out for h in HOSTS) and
                  r.out.count('"steps finished: ') == 3,
                  "status.yml: each host's campaign and its steps", r)
            r = playbook(exe, td, inv, "fetch.yml")
            # node3 failed: the fleet page is written, and the play fails
            # naming it (never a fleet that looks certified)
            bad = [l for l in r.out.splitlines() if "not certified:" in l]
            check(r.rc != 0 and bad and "node3: " in bad[0] and
                  "not certified at 0.1x" in bad[0]
                  and "node1" not in bad[0] and "node2" not in bad[0],
                  "fetch.yml: fails, naming node3 only", r)
            for h in HOSTS:
                try:
                    with open(td.join(h, "campaign", "state.json")) as f:
                        st = json.load(f)
                except (OSError, ValueError) as e:
                    check(False, "%s: no campaign: %s" % (h, e))
                    continue
                check(st["status"] == "finished" and not st["resumes"],
                      "%s: one campaign, finished (%s, %d resumes)"
                      % (h, st["status"], len(st["resumes"])))
            check_metrics(td, check, running=False)
            md = td.join("fleet", "compare.md")
            text = tc.read(md) if os.path.exists(md) else ""
            check("worst: node3," in text and os.path.exists(
                td.join("fleet", "compare.html")),
                "the fleet page names node3:\n" + text[:3000])
        finally:
            for h in HOSTS:
                p = pid_of(td, h)
                if p and os.path.exists("/proc/%d" % p):
                    os.kill(p, 15)
                    tc.wait_for(lambda: not os.path.exists(
                        "/proc/%d" % p), 20)
            if root.startswith("/dev/shm/"):
                shutil.rmtree(root, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
