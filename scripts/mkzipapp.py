#!/usr/bin/env python3
"""Build one of act's Python tools as a single-file zipapp (python.mk).

    scripts/mkzipapp.py OUT MODULE:FUNCTION [SRC]

OUT is a zip archive of the act package (SRC/act/**/*.py, SRC defaulting
to analysis; no __pycache__) with the shebang /usr/bin/env python3 and a
__main__.py that exits with FUNCTION()'s return value (zipapp's own -m
__main__ drops it, and the tools' exit statuses are their contract).
python3 runs a zip archive whatever its name, so OUT may end in .py.
"""

import os
import shutil
import sys
import tempfile
import zipapp

MAIN = """\
# The entry of this zipapp (scripts/mkzipapp.py).
import sys

from {module} import {function}

sys.exit({function}())
"""


def main(argv):
    if len(argv) not in (2, 3) or ":" not in argv[1]:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    out, entry = argv[0], argv[1]
    src = argv[2] if len(argv) == 3 else "analysis"
    module, function = entry.split(":")
    with tempfile.TemporaryDirectory() as stage:
        shutil.copytree(os.path.join(src, "act"),
                        os.path.join(stage, "act"),
                        ignore=lambda d, names: [
                            n for n in names if n == "__pycache__" or
                            (os.path.isfile(os.path.join(d, n)) and
                             not n.endswith(".py"))])
        with open(os.path.join(stage, "__main__.py"), "w") as f:
            f.write(MAIN.format(module=module, function=function))
        tmp = out + ".tmp"
        zipapp.create_archive(stage, tmp,
                              interpreter="/usr/bin/env python3")
    os.chmod(tmp, 0o755)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
