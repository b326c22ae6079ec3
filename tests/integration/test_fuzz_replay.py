"""Description: the fuzz corpus and every past crash input, replayed.

`make fuzz` (clang's libFuzzer) explores the config parsers and the
size-histogram parser; what it keeps - the seed corpus in tests/fuzz/corpus
and every input that once crashed, in tests/fuzz/crashes - is replayed here
through the same fuzz targets built with the normal compiler (and, in a
sanitized build, under its sanitizers): target/tests/replay_<target> must
be newer than what it is built from (its sources, libact.a and the config
objects), run every file and exit 0. The act_latency.py mutation fuzzer's
saved inputs (tests/fuzz/crashes/act_latency) are replayed through the
script: never a traceback, always a documented exit status.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itest  # noqa: E402

FUZZ = os.path.join(itest.REPO, "tests", "fuzz")
TARGETS = ("storage_cfg", "index_cfg", "size_hist")


def inputs(d):
    if not os.path.isdir(d):
        return []
    return [f for f in os.listdir(d) if not f.startswith(".")]


def older_than(prog, t, target):
    """The first file replay_<t> is built from (the Makefile's
    $(TBIN)/replay_% rule) that is newer than prog, or None."""
    for dep in (os.path.join(FUZZ, "fuzz_%s.c" % t),
                os.path.join(FUZZ, "replay.c"),
                os.path.join(target, "lib", "libact.a"),
                os.path.join(target, "obj", "storage", "storage_cfg.o"),
                os.path.join(target, "obj", "index", "index_cfg.o")):
        if os.path.exists(dep) and \
                os.path.getmtime(dep) > os.path.getmtime(prog):
            return dep
    return None


def main():
    c = itest.Checker("test_fuzz_replay")
    target = os.path.dirname(itest.bin_dir())
    tbin = os.path.join(target, "tests")
    for t in TARGETS:
        prog = os.path.join(tbin, "replay_" + t)
        if not c.check(os.access(prog, os.X_OK), "%s missing (make unit)" %
                       prog):
            continue
        dep = older_than(prog, t, target)
        if not c.check(dep is None, "%s is older than %s: not built from "
                       "current sources - run make unit" % (prog, dep)):
            continue
        dirs = [os.path.join(FUZZ, "corpus", t), os.path.join(FUZZ, "crashes",
                                                              t)]
        n = sum(len(inputs(d)) for d in dirs)
        c.check(len(inputs(dirs[0])) >= 2, "%s: seed corpus too small" % t)
        r = itest.run([prog] + [d for d in dirs if os.path.isdir(d)],
                      timeout=120)
        c.eq("%s: exit status" % t, 0, r.rc, r.describe())
        c.eq("%s: inputs replayed" % t, "%d inputs replayed" % n,
             r.out.strip().splitlines()[-1] if r.out.strip() else "",
             r.describe())

    fuzzer = os.path.join(FUZZ, "fuzz_act_latency.py")
    if c.check(os.path.isfile(fuzzer), "%s missing" % fuzzer):
        r = itest.run([sys.executable, fuzzer, "--replay"], timeout=300)
        c.eq("act_latency.py replay: exit status", 0, r.rc, r.describe())
    c.finish()


if __name__ == "__main__":
    main()
