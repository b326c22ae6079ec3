"""Description: the live status line fits an 80-column terminal.

stderr is a pseudo-terminal of 80 columns (and, for the narrow case, 40).
act_storage (1x with commit-to-device: the longest set of rates) and
act_prep on two files each redraw one status line (`\\r\\033[K...`); every
line drawn must fit the terminal (at most columns - 1 characters), show the
elapsed and total time as h:mm:ss, and - at 80 columns - an ETA;
act_prep's lines show each device's phase and the ETA (over cleaning and
salting together). stdout (the log) is unchanged: it
parses.

act_index (read-reqs-per-sec 2000, write-reqs-per-sec 1000: 3000 service
reads/s, 2000 cache reads and writes/s) tells what each figure is and its
target: at 80 columns every line shows `svc reads N/3000 cache r N/2000 w
N/2000`, at 200 columns `service reads N.N/3000.0/s  cache reads
N.N/2000.0/s  cache writes N.N/2000.0/s`; the service reads shown are not
the sum of service and cache reads (under 4000/s).
"""

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

HMS = r"\d+:\d\d:\d\d"


def run_on_pty(args, columns, timeout=60):
    """Run args with stderr on a pty of the given width; returns (exit
    status, stdout text, the status lines drawn)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ,
                struct.pack("HHHH", 24, columns, 0, 0))
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave,
                         stdin=subprocess.DEVNULL)
    os.close(slave)
    deadline = time.monotonic() + timeout
    got = itest.read_pty(master, deadline)
    out = p.stdout.read().decode("utf-8", "replace")
    try:
        p.wait(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    os.close(master)
    text = got.decode("utf-8", "replace")
    lines = [seg.split("\r")[0].split("\n")[0]
             for seg in text.split("\x1b[K")[1:]]
    # Status redraws only: not the notes printed as whole lines (act_prep's
    # "... done: N bytes in S s").
    return p.returncode, out, [l for l in lines if l.strip() and
                               " done: " not in l]


def check_lines(c, what, lines, columns, want_eta):
    if not c.check(lines, "%s: no status line drawn" % what):
        return
    for line in lines:
        c.check(len(line) <= columns - 1, "%s: status line of %d characters "
                "on a %d-column terminal: %r" % (what, len(line), columns,
                                                 line))
    last = lines[-1]
    c.check(re.search(HMS, last), "%s: no h:mm:ss in %r" % (what, last))
    if want_eta:
        c.check("ETA" in last, "%s: no ETA in %r" % (what, last))


INDEX_FORMS = {
    80: r"svc reads (\d+)/3000 cache r \d+/2000 w \d+/2000 >1ms ",
    200: r"  service reads (\d+)\.\d/3000\.0/s  cache reads "
         r"\d+\.\d/2000\.0/s  cache writes \d+\.\d/2000\.0/s  reads > 1 ms: ",
}


def check_index(c, td):
    cfg = itest.write_config(td.join("i.conf"), [
        ("device-names", td.join("idev")), ("file-size-mbytes", 64),
        ("test-duration-sec", 3), ("read-reqs-per-sec", 2000),
        ("write-reqs-per-sec", 1000)])
    for columns, form in sorted(INDEX_FORMS.items()):
        what = "act_index at %d columns" % columns
        rc, out, lines = run_on_pty([itest.binary("act_index"), cfg],
                                    columns)
        c.eq("%s: exit status" % what, 0, rc)
        try:
            itest.parse_index_log(out)
        except itest.ParseError as e:
            c.fail("%s: log does not parse: %s" % (what, e))
        check_lines(c, what, lines, columns, columns > 80)
        for line in lines:
            m = re.search(form, line)
            if c.check(m, "%s: expected a line matching %r, actual %r" % (
                    what, form, line)):
                c.check(int(m.group(1)) < 4000, "%s: service reads include "
                        "the cache reads: %r" % (what, line))
        print("%s: %s" % (what, lines[-1] if lines else None))


def main():
    c = itest.Checker("test_status_line")
    with itest.TempDir() as td:
        cfg = itest.write_config(td.join("s.conf"), [
            ("device-names", td.join("dev")), ("file-size-mbytes", 64),
            ("service-threads", 4), ("test-duration-sec", 3),
            ("read-reqs-per-sec", 2000), ("write-reqs-per-sec", 1000),
            ("commit-to-device", "yes")])
        for columns in (80, 40):
            rc, out, lines = run_on_pty([itest.binary(), cfg], columns)
            what = "act_storage at %d columns" % columns
            c.eq("%s: exit status" % what, 0, rc)
            try:
                itest.parse_log(out)
            except itest.ParseError as e:
                c.fail("%s: log does not parse: %s" % (what, e))
            check_lines(c, what, lines, columns, columns >= 80)
            c.check(re.search(r"0:00:0\d/0:00:03", lines[-1] if lines
                              else ""), "%s: elapsed/total not h:mm:ss: %r"
                    % (what, lines[-1:] and lines[-1]))

        check_index(c, td)

        files = [td.join("p0"), td.join("p1")]
        rc, out, lines = run_on_pty([itest.binary("act_prep"), "--size",
                                     "768M"] + files, 80, timeout=120)
        c.eq("act_prep: exit status", 0, rc)
        check_lines(c, "act_prep at 80 columns", lines, 80, True)
        # Every redraw shows the phase and an ETA (over clean and salt).
        for l in lines:
            c.check(re.search(r"(clean|salt).*ETA " + HMS, l),
                    "act_prep: a status line without phase and ETA: %r" % l)
    c.finish()


if __name__ == "__main__":
    main()
