"""act_certify's own copies of what the shared package will hold:
act's VERSION and the C programs' exit statuses (act/__init__.py), the
user-error exception and the argparse subclass (act/cli.py).

To be replaced by act and act.cli (branch pylat) once merged: then this
module goes, and its importers import from there."""

import argparse


PROG = "act_certify.py"
VERSION = "6.7"                   # act's version (src/common/version.h)

EXIT_CERTIFIED = 0
EXIT_NOT_CERTIFIED = 1
EXIT_SETUP = 2
EXIT_USAGE = 64                 # sysexits EX_USAGE
EXIT_CONFIG = 78                # sysexits EX_CONFIG

# A program's exit status -> what it means (README, "Exit status").
PROGRAM_STATUS = {
    0: "ran to completion",
    1: "usage or config error",
    2: "device or setup error",
    3: "stopped: load not kept up or a hung I/O",
    4: "stopped by I/O errors",
    5: "the log could not be written",
}


class UserError(Exception):
    """A problem reported as one message on stderr and an exit status,
    never a traceback."""

    def __init__(self, message, status=EXIT_USAGE):
        super().__init__(message)
        self.status = status


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(message)
