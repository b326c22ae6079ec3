#!/usr/bin/env python3
"""Benchmark: act_prep's MB/s per phase against fio's sequential write.

Description: on one RAM-backed loop device (a file in /dev/shm), alternate
fio (--rw=write --bs=1M --direct=1 --ioengine=libaio --iodepth=8) and
act_prep, several rounds, and report act_prep's clean and salt MB/s as a
ratio of fio's. Needs root (losetup); installs fio (Debian package) when
missing. Writes its section of bench/RESULTS.md.

Usage: sudo bench/bench_prep.py [--size-mib 2048] [--rounds 3]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import results  # bench/results.py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## act_prep vs fio"


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def ensure_fio():
    if shutil.which("fio"):
        return
    print("installing fio (apt-get)...", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(["apt-get", "install", "-y", "-qq", "fio"], check=True)


def fio_mbps(dev, size):
    out = run(["fio", "--name=seq", "--filename=" + dev, "--rw=write",
               "--bs=1M", "--direct=1", "--ioengine=libaio", "--iodepth=8",
               "--size=%d" % size, "--output-format=json"]).stdout
    job = json.loads(out[out.index("{"):])["jobs"][0]["write"]
    return job["bw_bytes"] / 1e6


def prep_mbps(act_prep, dev):
    err = run([act_prep, dev]).stderr
    found = dict(re.findall(r"act_prep: (cleaning|salting) \S+ done: .* "
                            r"([0-9.]+) MB/s", err))
    return float(found["cleaning"]), float(found["salting"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mib", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)

    if os.geteuid() != 0:
        print("bench_prep: needs root (losetup)", file=sys.stderr)
        return 2

    act_prep = os.path.join(ROOT, "target", "bin", "act_prep")
    if not os.access(act_prep, os.X_OK):
        print("bench_prep: build first (make)", file=sys.stderr)
        return 2
    ensure_fio()

    size = args.size_mib * 1024 * 1024
    img = tempfile.mktemp(prefix="act-bench-", dir="/dev/shm")
    loop = None
    fio, clean, salt = [], [], []
    try:
        with open(img, "wb") as f:
            f.truncate(size)
        loop = run(["losetup", "--find", "--show", img]).stdout.strip()
        fio_mbps(loop, size)  # warm-up: the first pass allocates the RAM
        for r in range(args.rounds):
            fio.append(fio_mbps(loop, size))
            c, s = prep_mbps(act_prep, loop)
            clean.append(c)
            salt.append(s)
            print("round %d: fio %.0f MB/s, act_prep clean %.0f, salt %.0f"
                  % (r + 1, fio[-1], c, s), flush=True)
    finally:
        if loop:
            subprocess.run(["losetup", "-d", loop], check=False)
        if os.path.exists(img):
            os.unlink(img)

    f, c, s = (statistics.median(x) for x in (fio, clean, salt))
    fio_ver = run(["fio", "--version"]).stdout.strip()
    text = "\n".join([
        SECTION, "",
        "`sudo bench/bench_prep.py --size-mib %d --rounds %d`: a %d MiB loop "
        "device over a file in /dev/shm, fio (%s, --rw=write --bs=1M "
        "--direct=1 --ioengine=libaio --iodepth=8) and act_prep alternated "
        "after one unmeasured fio pass; medians of %d rounds, %d CPUs."
        % (args.size_mib, args.rounds, args.size_mib, fio_ver, args.rounds,
           os.cpu_count()), "",
        "| | MB/s | ratio to fio |",
        "|---|---|---|",
        "| fio sequential write | %.0f | 1.00 |" % f,
        "| act_prep cleaning (zeros) | %.0f | %.2f |" % (c, c / f),
        "| act_prep salting (random) | %.0f | %.2f |" % (s, s / f),
        "",
        "Rounds (fio / clean / salt MB/s): " + "; ".join(
            "%.0f / %.0f / %.0f" % t for t in zip(fio, clean, salt)), ""])
    print(text)
    results.update(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
