"""bench/RESULTS.md: each benchmark owns one "## " section of it.

update(section, text) replaces that section in place (or adds it at the
end) and keeps every other section as it is, so the benchmarks can be run
in any order and any number of times. prog_options() adds the options the
benchmarks of a program share (--prog, --before, --label, --no-write).
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "RESULTS.md")
DEFAULT_PROG = os.path.join(os.path.dirname(HERE), "target", "bin",
                            "act_storage")


def prog_options(ap):
    """--prog (the act_storage to run), --before (an older one, run by
    run alternating with it), --label and --no-write, on an argparse
    parser."""
    ap.add_argument("--prog", default=DEFAULT_PROG,
                    help="the act_storage to run (default target/bin's)")
    ap.add_argument("--before", metavar="PATH",
                    help="an older act_storage to measure too, run by run "
                    "alternating with --prog")
    ap.add_argument("--label", default="",
                    help="what is measured, for the section's heading line")
    ap.add_argument("--no-write", action="store_true",
                    help="print only; leave bench/RESULTS.md alone")


def require_prog(path):
    """Exits with a message when path is not an executable."""
    if not os.access(path, os.X_OK):
        sys.exit("ERROR: %s is not an executable (run make first)" % path)


def replace_section(old, section, text):
    """old with the section headed `section` replaced by text (which starts
    with that heading), or text added at the end."""
    pattern = re.compile(r"^%s\n.*?(?=^## |\Z)" % re.escape(section),
                         re.S | re.M)
    body = text.rstrip("\n") + "\n\n"
    if pattern.search(old):
        new = pattern.sub(lambda m: body, old, count=1)
    else:
        new = old.rstrip("\n") + "\n\n" + body
    return new.rstrip("\n") + "\n"


def update(section, text, path=RESULTS):
    """Write text as the section `section` of RESULTS.md (path)."""
    try:
        with open(path) as f:
            old = f.read()
    except FileNotFoundError:
        old = "# Benchmark results\n"
    with open(path, "w") as f:
        f.write(replace_section(old, section, text))
