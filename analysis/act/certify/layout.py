"""Where act_certify finds the programs and the example
configs: in the source tree (analysis/act_certify.py), installed
(PREFIX/bin, PREFIX/share/act/config), or as a zipapp (target/bin/ or
PREFIX/bin/act_certify.py)."""

import os
import shutil

from act import EXIT_SETUP
from act.certify import EXIT_CONFIG
from act.cli import UsageError


def package_root():
    """What holds the act package: the directory analysis/ in the source
    tree, or the zip archive of a zipapp (target/bin/act_certify.py, or
    installed as PREFIX/bin/act_certify.py)."""
    here = os.path.realpath(os.path.abspath(__file__))  # .../act/certify/x.py
    return os.path.dirname(os.path.dirname(os.path.dirname(here)))


def in_zipapp():
    return os.path.isfile(package_root())


def script_dir():
    """The directory of the act_certify.py being run: analysis/ in the
    source tree, the zipapp's directory (target/bin, PREFIX/bin)
    otherwise. Nothing is read relative to __file__ but through this."""
    root = package_root()
    return os.path.dirname(root) if os.path.isfile(root) else root


def find_program(name):
    """A binary: $ACT_BIN, beside this script (installed), the source
    tree's target/bin, then PATH."""
    here = script_dir()
    dirs = [os.environ.get("ACT_BIN"), here,
            os.path.join(os.path.dirname(here), "target", "bin")]
    for d in dirs:
        if d:
            path = os.path.join(d, name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return os.path.abspath(path)
    path = shutil.which(name)
    if path:
        return os.path.abspath(path)
    raise UsageError("can't find %s (looked in $ACT_BIN, %s, %s/target/bin "
                     "and PATH) - run make" % (name, here,
                                               os.path.dirname(here)),
                     status=EXIT_SETUP)


def find_base_config(index):
    name = "act_index.conf" if index else "act_storage.conf"
    here = script_dir()
    dirs = [os.path.join(os.path.dirname(here), "config"),
            os.path.join(os.path.dirname(here), "share", "act", "config")]
    if in_zipapp():     # target/bin/act_certify.py: the tree's config/
        dirs.append(os.path.join(os.path.dirname(os.path.dirname(here)),
                                 "config"))
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.isfile(path):
            return path
    raise UsageError("can't find the example config %s (in ../config%s or "
                     "../share/act/config beside %s) - give --config"
                     % (name, ", ../../config" if in_zipapp() else "", here),
                     status=EXIT_CONFIG)


def read_text(path, what, status):
    try:
        # newline="": the text as it is (DIR/base.conf is a copy, byte
        # for byte, of what the programs read)
        with open(path, encoding="utf-8", errors="surrogateescape",
                  newline="") as f:
            return f.read()
    except OSError as e:
        raise UsageError("can't read %s %s: %s" % (what, path,
                                                   e.strerror or e),
                         status=status) from None
