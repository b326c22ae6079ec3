"""act_config_helper's own copies of what the shared package will hold:
act's VERSION (act/__init__.py), the user-error exception (act/cli.py),
act_storage's limits on devices and rates, and rounding.

To be replaced by act and act.cli (branch pylat) once merged."""

import math
import re


PROG = "act_config_helper.py"
VERSION = "6.7"                   # act's version (src/common/version.h)
MAX_DEVICES = 128                 # act_storage's limits
MAX_DEVICE_NAME = 127
MAX_U32 = 0xFFFFFFFF
NUMBER_RE = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")


class UsageError(Exception):
    """A user error: reported as one message on stderr, exit status 2."""


def round_half_up(x):
    return int(math.floor(x + 0.5))
