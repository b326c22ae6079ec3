#!/usr/bin/env python3
"""act_config_helper.py: writes an act_storage config (see --help). The
code is the package act.sizing, in ../analysis/act/sizing/; make builds
the single-file zipapp target/bin/act_config_helper.py."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))), "analysis"))
from act.sizing.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
