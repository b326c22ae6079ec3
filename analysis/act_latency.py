#!/usr/bin/env python3
"""act_latency.py: the latency analysis of ACT logs (act/latency/main.py;
--help says how to use it).  This file only finds the act package beside
it, wherever it is run from, through symlinks too."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from act.latency.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
