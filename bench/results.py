"""bench/RESULTS.md: each benchmark owns one "## " section of it.

update(section, text) replaces that section in place (or adds it at the
end) and keeps every other section as it is, so the benchmarks can be run
in any order and any number of times.
"""

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "RESULTS.md")


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
