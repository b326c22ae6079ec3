"""The devices of a campaign: checked (exist, a block device or a regular
file, not in use) and held exclusively for the whole campaign - between
steps too - and passed to every program it runs (ACT_HELD_FDS,
docs/beyond.md); each one's identity - from the lines the campaign's
program prints for it (precheck.py) - recorded at the start and checked
before every step and at --resume (identity.py)."""

import errno
import fcntl
import os
import stat

from act import CONFIG_COMMENT, DEVICE_SEPARATORS, EXIT_SETUP
from act.certify import EXIT_USAGE, PROG
from act.certify.identity import (
    device_identity, identity_difference, identity_text)
from act.cli import UsageError


def check_device_names(devices):
    """Each name can be written in a config's device-names: not empty, no
    white space, none of the C parser's separators, no comment sign."""
    seen = {}
    for d in devices:
        if not d or any(ch.isspace() or ch in DEVICE_SEPARATORS or
                        ch == CONFIG_COMMENT for ch in d):
            raise UsageError("device name %r: must not be empty nor contain "
                             "white space, %s or '%s'" % (d, ", ".join(
                                 "'%s'" % ch for ch in DEVICE_SEPARATORS
                                 if not ch.isspace()), CONFIG_COMMENT),
                             status=EXIT_USAGE)
        real = os.path.realpath(d)
        if real in seen:
            raise UsageError("device %s given twice (%s)" % (d, seen[real]),
                             status=EXIT_USAGE)
        seen[real] = d


class Held:
    """The devices this campaign holds: {device name: descriptor}, kept
    open from the checks to the end of the campaign (between steps too)
    and passed to every program it runs (ACT_HELD_FDS, docs/beyond.md)."""
    fds = {}


def _same_device(a, b):
    if stat.S_ISBLK(a.st_mode) and stat.S_ISBLK(b.st_mode):
        return a.st_rdev == b.st_rdev
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino) and \
        stat.S_ISREG(a.st_mode) and stat.S_ISREG(b.st_mode)


def hold_devices(devices, explain=None):
    """Every device exists, is a block device or a regular file, and is
    taken exclusively - a block device opened O_EXCL (EBUSY: mounted, swap,
    held by md/LVM/dm or by another test), a file locked with flock - and
    kept so until the campaign ends: no other test can start on it, even
    between two steps. Nothing is written. Returns {device: fd}; on a
    refusal every descriptor taken so far is closed.

    explain(device) says why a busy device is busy - in the program's own
    words (precheck.busy_reason) - or returns None: then a plain message
    says it."""
    held = {}
    stats = {}
    try:
        for dev in devices:
            _hold_one(dev, held, stats, explain or (lambda dev: None))
    except BaseException:
        release_devices(held)
        raise
    return held


def _refuse(message):
    raise UsageError(message, status=EXIT_SETUP) from None


def _hold_one(dev, held, stats, explain):
    try:
        st = os.stat(dev)
        if stat.S_ISBLK(st.st_mode) or stat.S_ISREG(st.st_mode):
            fd = os.open(dev, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
            st = os.fstat(fd)
            os.close(fd)
    except FileNotFoundError:
        _refuse("device %s does not exist - check the name (a file-backed "
                "trial device must be created first, e.g. act_prep --size "
                "1G FILE)" % dev)
    except OSError as e:
        _refuse("can't use device %s: %s" % (dev, e.strerror))
    for other, ost in stats.items():
        if _same_device(st, ost):
            _refuse("devices %s and %s are the same drive - name each drive "
                    "once" % (other, dev))
    # Opened for writing: the programs believe only a parent's descriptor
    # open for writing (ACT_HELD_FDS, docs/beyond.md).
    if stat.S_ISBLK(st.st_mode):
        try:
            fd = os.open(dev, os.O_RDWR | os.O_EXCL | os.O_CLOEXEC)
        except OSError as e:
            if e.errno != errno.EBUSY:
                _refuse(explain(dev) or "can't open device %s: %s"
                        % (dev, e.strerror))
            _refuse(explain(dev) or "device %s is in use (mounted, swap, "
                    "held by md/LVM/dm or by another test) - refusing to "
                    "write to it" % dev)
    elif stat.S_ISREG(st.st_mode):
        if st.st_mode & 0o222 == 0:
            _refuse("device file %s is read-only - the test writes to it"
                    % dev)
        try:
            fd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
        except OSError as e:
            _refuse("can't open device %s: %s" % (dev, e.strerror))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            _refuse(explain(dev) or "device %s is in use by another process "
                    "- another test is running on it" % dev)
    else:
        _refuse("device %s is neither a block device nor a regular file"
                % dev)
    if not _same_device(os.fstat(fd), st):
        os.close(fd)
        _refuse("device %s changed while it was being checked - refusing "
                "to write to it" % dev)
    held[dev] = fd
    stats[dev] = st


def release_devices(held):
    for fd in held.values():
        try:
            os.close(fd)
        except OSError:
            pass
    held.clear()


def held_env():
    """The environment and descriptors for a program run on the held
    devices (the ACT_HELD_FDS protocol, docs/beyond.md)."""
    fds = sorted(Held.fds.values())
    env = dict(os.environ)
    if fds:
        env["ACT_HELD_FDS"] = ",".join(str(fd) for fd in fds)
        env["ACT_HELD_PID"] = str(os.getpid())
    else:
        env.pop("ACT_HELD_FDS", None)
        env.pop("ACT_HELD_PID", None)
    return env, tuple(fds)


def identities_now(devices, header):
    """{device: its identity now} (identity.py) from the LogHeader of the
    program's --print-config on them (precheck.base_check); a device that
    cannot be identified is refused."""
    out = {}
    for dev in devices:
        try:
            out[dev] = device_identity(header, dev)
        except (OSError, ValueError) as e:
            _refuse("can't identify device %s: %s"
                    % (dev, getattr(e, "strerror", None) or e))
    return out


def check_identities(state, dirpath, header):
    """Every device of the campaign is the drive recorded at its start
    (its identity now: from header, the program's --print-config on the
    campaign's devices), or a UsageError (status 2) prints both
    identities - before any byte is written. A device with no recorded identity (a state from an older
    act_certify, or edited) is refused too, with what is there now: only
    --accept-device says it is the drive (replace.accept_devices)."""
    c = state.campaign
    recorded = c.recorded_identities()
    now = identities_now(c.devices, header)
    unknown = [dev for dev in c.devices if dev not in recorded]
    if unknown:
        _refuse("%s %s: no identity recorded (a state from an older "
                "act_certify, or edited) - can't tell whether the drive "
                "there now is the one this campaign started on; refusing "
                "to write to it\n%s\nIf it is (or is meant to replace it): "
                "%s --resume %s %s" % (
                    "device" if len(unknown) == 1 else "devices",
                    ", ".join(unknown), "\n".join(
                        "  now at %s: %s" % (dev, identity_text(now[dev]))
                        for dev in unknown), PROG, dirpath, " ".join(
                        "--accept-device %s=%s" % (dev, dev)
                        for dev in unknown)))
    for dev in c.devices:
        why = identity_difference(recorded[dev], now[dev])
        if why:
            _refuse("device %s is not the drive this campaign started on "
                    "(%s) - refusing to write to it\n"
                    "  recorded: %s\n  now:      %s\n"
                    "If this drive is meant to replace it: %s --resume %s "
                    "--accept-device %s=%s"
                    % (dev, why, identity_text(recorded[dev]),
                       identity_text(now[dev]), PROG, dirpath, dev, dev))
