"""A drive replaced during a campaign (--resume --accept-device NEW=OLD),
and the marks that tell a campaign's file devices apart (identity.py):
the new drive's identity is recorded, the change kept in the state for the
report, and the steps still to run moved to NEW's name."""

from act.certify import EXIT_USAGE, PROG
from act.certify.devices import check_device_names, identities_now
from act.certify.fmt import say, utc_now
from act.certify.identity import (
    MARKS, identity_difference, identity_text, mark_file, new_mark)
from act.certify.model import DeviceChange
from act.certify.plan import step_sets
from act.cli import UsageError


def mark_devices(c, devices=None):
    """Marks the campaign's file devices and loop devices' backing files
    (identity.py: an extended attribute with the campaign's id, never the
    file's bytes), so that a file put in place of one of them is told
    apart at every step."""
    marks = [i[k] for i in c.identities.values() for k in MARKS
             if k in i]
    mark = marks[0] if marks else new_mark()
    for dev in devices or c.devices:
        mark_file(dev, c.identities[dev], mark)


def check_accept(state, accept):
    """Each --accept-device NEW=OLD names a device OLD of the campaign,
    and NEW is not another one of its devices."""
    c = state.campaign
    for new, old in accept:
        if old not in c.devices:
            raise UsageError("--accept-device %s=%s: %s is not a device of "
                             "this campaign (%s)" % (new, old, old,
                                                     ", ".join(c.devices)),
                             status=EXIT_USAGE)
        if new != old and new in c.devices:
            raise UsageError("--accept-device %s=%s: %s is already a device "
                             "of this campaign" % (new, old, new),
                             status=EXIT_USAGE)
    check_device_names([new for new, _ in accept])


def rename_devices(state, accept):
    """--accept-device NEW=OLD with NEW a new name: the campaign's device
    OLD is NEW from now on (in the steps still to run too: their --set
    items; a step an older act_certify planned with its own config file
    runs on the base config with --set from now on, as a new one does).
    In memory only."""
    c = state.campaign
    for new, old in accept:
        if new == old:
            continue
        c.devices = [new if d == old else d for d in c.devices]
        c.device_kinds[new] = c.device_kinds.pop(old, "unknown")
        identities = c.recorded_identities()
        if old in identities:
            identities[new] = identities.pop(old)
        for s in state.steps:
            if s.status in ("done", "skipped", "ended") or \
                    old not in s.devices:
                continue
            s.devices = [new if d == old else d for d in s.devices]
            if s.set is not None or "config" in s.files:
                s.files.pop("config", None)
                s.set = step_sets(s)


def accept_devices(state, accept, header):
    """The drives now at the accepted names replace the recorded ones:
    their identity (from header, the program's --print-config on the
    campaign's devices: precheck.base_check) is recorded, and the change is
    kept in the state (the report says it). Nothing when the drive is the
    one recorded."""
    c = state.campaign
    recorded = c.recorded_identities()
    now = identities_now([new for new, _ in accept], header)
    first = state.next_step().number if state.next_step() else None
    for new, old in accept:
        was = recorded.get(new)
        if was and identity_difference(was, now[new]) is None:
            say("%s: --accept-device %s: it is the drive recorded - "
                "nothing to accept" % (PROG, new))
            continue
        # a state with no identity for it (an older act_certify): the
        # drive is taken on the user's word, and the report says so
        was_text = identity_text(was) if was else \
            "not recorded (the campaign's state had no identity for it)"
        recorded[new] = now[new]
        mark_devices(c, [new])          # "now" with the campaign's mark
        state.add_device_change(DeviceChange(
            at=utc_now(), old=old, new=new, from_step=first, was=was_text,
            now=identity_text(now[new])))
        say("%s: device %s accepted as the replacement of %s from step %s"
            "\n  was: %s\n  now: %s" % (PROG, new, old, first, was_text,
                                        identity_text(now[new])))

