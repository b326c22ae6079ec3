"""Description: act_prep on regular files: every byte cleaned then salted, tail included.

(1) A file of 64 MiB + 3*4096 + 100 bytes (not a multiple of 128 KiB nor
of 4 KiB) filled with 0xA5: exit 0; stdout exactly `<name> size = <bytes>
bytes, <n> large blocks` (n = size // 131072), `cleaning device <name>`,
`salting device <name>`; size unchanged; salted: no 4 KiB block (the
partial last one included) all zero or still 0xA5, no two 128 KiB blocks
identical, the last 100 bytes not all zero; stderr has the phase summaries
`act_prep: cleaning <name> done: <bytes> bytes in S s, M MB/s` then
`salting`. (2) The clean phase observed: a 256 MiB + 12388-byte 0xA5 file
is prepared while the test watches the process's written bytes
(/proc/PID/io wchar) and stops it (SIGSTOP ~1.2 s, then SIGCONT) once in
each phase; stopped mid-salt, no 4 KiB block may still be 0xA5 and the
tail must be zero (so cleaning covered every byte); each stop must make a
non-tty progress line `act_prep: cleaning|salting <name>: N% M MB/s ETA
h:mm:ss (clean and salt)` appear. (3) `--size 10M` on a nonexistent file creates it at
exactly 10 MiB, salted; `--size 8M` on a 12 MiB file sizes it to 8 MiB,
salted; a 0-byte file without --size exits 2, untouched; `act_prep a b`
salts both; a 100-byte file (`--size 100`), smaller than any O_DIRECT
I/O, is prepared too (docs/act_prep.md: the whole size, a tail smaller than the
I/O size included).
"""

import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

MIB = 1024 * 1024
OLD = b"\xa5"
DONE_RE = (r"^act_prep: %s (?P<name>\S+) done: (?P<bytes>\d+) bytes in "
           r"\d+\.\d+ s, (?P<mbps>\d+\.\d) MB/s$")
PROGRESS_RE = re.compile(r"^act_prep: (?P<phase>cleaning|salting) "
                         r"(?P<name>\S+): (?P<pct>\d+)% (?P<mbps>\d+) MB/s "
                         r"ETA \d+:\d\d:\d\d \(clean and salt\)$")


def main():
    c = itest.Checker("test_prep_file")
    prog = itest.binary("act_prep")
    with itest.TempDir() as td:
        check_odd_file(c, prog, td)
        check_observed(c, prog, td)
        check_size_option(c, prog, td)
        check_parallel(c, prog, td)
        check_tiny(c, prog, td)
    c.finish()


def stdout_lines(name, size):
    return ["%s size = %d bytes, %d large blocks" % (name, size,
                                                      size // 131072),
            "cleaning device %s" % name, "salting device %s" % name]


def check_salted(c, what, path, size, old=OLD):
    c.eq("%s: file size" % what, size, os.path.getsize(path))
    problems = itest.salt_problems(path, old_byte=old, size=size)
    c.check(problems == [], "%s: not fully salted" % what,
            "\n".join(problems))
    with open(path, "rb") as f:
        f.seek(max(0, size - 100))
        last = f.read()
    c.check(last.count(0) < len(last), "%s: the last %d bytes are all zero"
            % (what, len(last)))


def check_summaries(c, what, err, name, size):
    lines = err.split("\n")
    pos = []
    for ph in ("cleaning", "salting"):
        rx = re.compile(DONE_RE % ph)
        found = [(k, rx.match(l)) for k, l in enumerate(lines)
                 if rx.match(l)]
        found = [(k, m) for k, m in found if m.group("name") == name]
        if c.eq("%s: '%s ... done' lines on stderr" % (what, ph), 1,
                len(found), err):
            k, m = found[0]
            c.eq("%s: bytes in the %s summary" % (what, ph), size,
                 int(m.group("bytes")))
            c.check(float(m.group("mbps")) > 0, "%s: %s summary shows %s "
                    "MB/s" % (what, ph, m.group("mbps")))
            pos.append(k)
    if len(pos) == 2:
        c.check(pos[0] < pos[1], "%s: the salting summary comes before the "
                "cleaning one" % what, err)


# ----------------------------------------------------------------------------

def check_odd_file(c, prog, td):
    size = 64 * MIB + 3 * 4096 + 100
    path = td.join("odd.dev")
    itest.fill_file(path, size, OLD)
    r = itest.run([prog, path], timeout=60)
    detail = r.describe()
    if not c.eq("odd file: exit status", 0, r.rc, detail):
        return
    c.eq("odd file: stdout", stdout_lines(path, size),
         r.out.rstrip("\n").split("\n"), detail)
    c.check("ERROR" not in r.out + r.err, "odd file: an ERROR line", detail)
    check_summaries(c, "odd file", r.err, path, size)
    check_salted(c, "odd file", path, size)
    print("odd file: %d bytes prepared; stderr: %s" % (
        size, r.err.strip().replace("\n", " | ")))


# ----------------------------------------------------------------------------

def wchar(pid):
    try:
        with open("/proc/%d/io" % pid) as f:
            for line in f:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def all_stopped(pid, timeout=5.0):
    """True once every thread of pid is stopped (state T or t)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = []
        try:
            for tid in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
        except OSError:
            return False
        if states and all(s in ("T", "t") for s in states):
            return True
        time.sleep(0.005)
    return False


def stopped_state_problems(path, size, tail_off):
    """Mid-salt: every 4 KiB block is salted or zero (never the old
    byte), and the tail (written last) is still all zero."""
    problems = []
    zero = old = 0
    zero4, old4 = bytes(4096), OLD * 4096
    with open(path, "rb") as f:
        off = 0
        while off < size:
            blk = f.read(min(MIB, size - off))
            if not blk:
                break
            for k in range(0, len(blk), 4096):
                b = blk[k:k + 4096]
                if b == old4[:len(b)]:
                    old += 1
                    if old <= 5:
                        problems.append("block at %d still holds the old "
                                        "byte 0xA5: not cleaned" % (off + k))
                elif b == zero4[:len(b)]:
                    zero += 1
            off += len(blk)
        f.seek(tail_off)
        tail = f.read()
    if old > 5:
        problems.append("... %d old blocks in all" % old)
    if tail != bytes(len(tail)):
        problems.append("the %d-byte tail at %d is not all zero mid-salt "
                        "(not cleaned, or salted too early)" % (len(tail),
                                                                tail_off))
    return problems, zero


def check_observed(c, prog, td):
    if not os.path.exists("/proc/self/io"):
        c.skip_part("observed run", "no /proc/PID/io")
        return
    size = 256 * MIB + 3 * 4096 + 100
    tail_off = size // MIB * MIB
    path = td.join("observed.dev")
    itest.fill_file(path, size, OLD)
    rd = itest.Reader(itest.start([prog, path]))
    pid = rd.p.pid
    stops = []
    try:
        # Stop once in each phase: at 20% of the size written (cleaning)
        # and at 120% (salting).
        for phase, mark in (("cleaning", 0.2), ("salting", 1.2)):
            while rd.p.poll() is None:
                w = wchar(pid)
                if w is not None and w >= mark * size:
                    break
                time.sleep(0.0003)
            if rd.p.poll() is not None:
                break
            rd.p.send_signal(signal.SIGSTOP)
            t_stop = time.monotonic()
            w = wchar(pid)
            if not all_stopped(pid):
                c.fail("observed run: threads did not stop")
                rd.p.send_signal(signal.SIGCONT)
                break
            stops.append((phase, 100.0 * (w or 0) / size))
            if phase == "salting" and (w or 0) < 2 * size:
                problems, zero = stopped_state_problems(path, size, tail_off)
                c.check(problems == [], "observed run, stopped mid-salt "
                        "(%.0f%% of 2 x size written)" % (50.0 * w / size),
                        "\n".join(problems))
                print("observed run: stopped mid-salt at %.0f%%: %d zero "
                      "4 KiB blocks, no 0xA5 block, zero tail" % (
                          100.0 * w / size - 100, zero))
            time.sleep(max(0.0, 1.2 - (time.monotonic() - t_stop)))
            rd.p.send_signal(signal.SIGCONT)
    finally:
        if rd.p.poll() is None:
            rd.p.send_signal(signal.SIGCONT)
        out, err, timed_out = rd.finish(timeout=60)
    r = itest.Result(rd.p.returncode, out, err, 0, timed_out)
    detail = r.describe()
    if not c.eq("observed run: exit status", 0, r.rc, detail):
        return
    c.eq("observed run: stdout", stdout_lines(path, size),
         out.rstrip("\n").split("\n"), detail)
    c.eq("observed run: phases it was stopped in (phase, %% of size "
         "written)", ["cleaning", "salting"], [p for p, _ in stops],
         "stops: %s" % stops)
    check_summaries(c, "observed run", err, path, size)

    lines = err.rstrip("\n").split("\n")
    progress = [PROGRESS_RE.match(l) for l in lines]
    done_clean = [k for k, l in enumerate(lines)
                  if re.match(DONE_RE % "cleaning", l)]
    for phase in ("cleaning", "salting"):
        ks = [k for k, m in enumerate(progress)
              if m and m.group("phase") == phase and
              m.group("name") == path]
        if not c.check(ks, "observed run: no non-tty progress line "
                       "'act_prep: %s %s: N%% M MB/s ETA h:mm:ss' after "
                       "the process was held > 1 s in that phase" % (
                           phase, path), detail):
            continue
        pcts = [int(progress[k].group("pct")) for k in ks]
        c.check(all(5 <= p <= 100 for p in pcts) and
                pcts == sorted(pcts), "observed run: %s progress "
                "percentages %s" % (phase, pcts))
        if done_clean:
            c.check(all((k < done_clean[0]) == (phase == "cleaning")
                        for k in ks), "observed run: %s progress lines on "
                    "the wrong side of the cleaning summary" % phase, err)
    for l in lines:
        c.check(PROGRESS_RE.match(l) or re.match(DONE_RE % "cleaning", l) or
                re.match(DONE_RE % "salting", l),
                "observed run: unexpected stderr line %r" % l)
    check_salted(c, "observed run", path, size)
    print("observed run: stopped at %s; progress lines: %s" % (
        ", ".join("%s %.0f%%" % s for s in stops),
        [l for l in lines if PROGRESS_RE.match(l)]))


# ----------------------------------------------------------------------------

def check_size_option(c, prog, td):
    # A nonexistent file, created at exactly --size.
    path = td.join("new10.dev")
    r = itest.run([prog, "--size", "10M", path], timeout=60)
    if c.eq("--size 10M (new file): exit status", 0, r.rc, r.describe()):
        c.eq("--size 10M: stdout", stdout_lines(path, 10 * MIB),
             r.out.rstrip("\n").split("\n"), r.describe())
        check_salted(c, "--size 10M (new file)", path, 10 * MIB, old=None)

    # An existing larger file: sized to --size ("size a file to BYTES").
    path = td.join("big12.dev")
    itest.fill_file(path, 12 * MIB + 4096, OLD)
    r = itest.run([prog, "--size=8M", path], timeout=60)
    if c.eq("--size 8M on a 12 MiB file: exit status", 0, r.rc,
            r.describe()):
        c.eq("--size 8M on a 12 MiB file: stdout",
             stdout_lines(path, 8 * MIB), r.out.rstrip("\n").split("\n"),
             r.describe())
        check_salted(c, "--size 8M on a 12 MiB file", path, 8 * MIB)

    # A 0-byte file without --size: refused, left as it is.
    path = td.join("empty.dev")
    open(path, "wb").close()
    before = itest.file_state(path)
    r = itest.run([prog, path], timeout=30)
    c.eq("0-byte file: exit status", 2, r.rc, r.describe())
    c.check(any(l.startswith("ERROR:") and path in l
                for l in r.err.split("\n")),
            "0-byte file: no ERROR on stderr naming %s" % path, r.describe())
    c.check("cleaning device" not in r.out, "0-byte file: cleaning started",
            r.describe())
    c.eq("0-byte file: (content, mtime) afterwards", before,
         itest.file_state(path))


def check_parallel(c, prog, td):
    sizes = {td.join("par_a.dev"): 16 * MIB + 5000,
             td.join("par_b.dev"): 24 * MIB + 7 * 4096}
    for p, s in sizes.items():
        itest.fill_file(p, s, OLD)
    names = sorted(sizes)
    r = itest.run([prog] + names, timeout=60)
    detail = r.describe()
    if not c.eq("act_prep a b: exit status", 0, r.rc, detail):
        return
    lines = r.out.rstrip("\n").split("\n")
    want = set()
    for p in names:
        want.update(stdout_lines(p, sizes[p]))
        # Each device: size line, then cleaning, then salting.
        idx = [lines.index(l) if l in lines else -1
               for l in stdout_lines(p, sizes[p])]
        c.check(-1 not in idx and idx == sorted(idx), "act_prep a b: lines "
                "of %s missing or out of order" % p, detail)
    c.eq("act_prep a b: stdout lines (any interleaving)", sorted(want),
         sorted(lines), detail)
    for p in names:
        check_summaries(c, "act_prep a b (%s)" % os.path.basename(p), r.err,
                        p, sizes[p])
        check_salted(c, "act_prep a b: %s" % os.path.basename(p), p,
                     sizes[p])


def check_tiny(c, prog, td):
    path = td.join("tiny.dev")
    r = itest.run([prog, "--size", "100", path], timeout=30)
    if c.eq("100-byte file (--size 100): exit status", 0, r.rc,
            r.describe()):
        c.eq("100-byte file: stdout", stdout_lines(path, 100),
             r.out.rstrip("\n").split("\n"))
        check_salted(c, "100-byte file", path, 100, old=None)


if __name__ == "__main__":
    main()
