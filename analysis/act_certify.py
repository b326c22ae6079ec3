#!/usr/bin/env python3
"""act_certify.py: runs an ACT certification campaign and reports on it
(see --help). The code is the package act.certify, in act/certify/ beside
this script; make builds the single-file zipapp target/bin/act_certify.py."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from act.certify.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
