"""Helpers of the benchmarks that trace act_storage on a RAM loop device
(bench_rate_process.py, bench_threads.py): the device, the runs, the trace
and the log's reads over 1 ms.
"""

import contextlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHIM = os.path.join(ROOT, "target", "tests", "libact_shim.so")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kw)


def require(prog):
    """Exit with a message unless prog and the shim are built and we are
    root (losetup)."""
    for p in (prog, SHIM):
        if not os.path.exists(p):
            sys.exit("%s missing: run make && make unit" % p)
    if os.geteuid() != 0:
        sys.exit("needs root (losetup)")


@contextlib.contextmanager
def ram_loop(size_mib):
    """(loop device, scratch directory): a loop device over a size_mib
    file in /dev/shm, detached and removed at the end."""
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        img = os.path.join(tmp, "ram.img")
        with open(img, "wb") as f:
            f.truncate(size_mib * 1024 * 1024)
        dev = run(["losetup", "--find", "--show", img]).stdout.strip()
        try:
            yield dev, tmp
        finally:
            subprocess.run(["losetup", "-d", dev])


def traced_run(prog, conf, trace):
    """Runs prog conf with every I/O traced to trace; returns its log."""
    env = dict(os.environ, LD_PRELOAD=SHIM, ACT_SHIM_TRACE=trace)
    return run([prog, conf], env=env).stdout


def small_read_times(trace):
    """The issue times (ns, sorted) of the small reads in a shim trace."""
    times = []
    with open(trace) as f:
        for line in f:
            p = line.split()
            if len(p) == 8 and p[4] == "r" and int(p[6]) < 128 * 1024:
                times.append(int(p[0]))
    times.sort()
    return times


def reads_over_1ms(log_text):
    """% of reads over 1 ms in the last report's cumulative reads."""
    blocks = log_text.split("\nreads (")
    last = blocks[-1]
    total = int(last.split(" total)", 1)[0])
    b0 = re.search(r"\(00: (\d+)\)", last)
    under = int(b0.group(1)) if b0 else 0
    return 100.0 * (total - under) / total if total else 0.0
