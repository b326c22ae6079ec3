"""Which drive a device name stands for: its identity, recorded when a
campaign starts and compared before every step and at --resume, so that a
campaign never writes - nor certifies - a drive other than the one it
started on (names move after a reboot; a loop device can be re-attached to
another file; a trial file can be replaced by another of the same size).
The rules are docs/certify.md's "The drives it started on".

An identity is a dict of facts, as the campaign's program prints them
(`--check --print-config`, precheck.py: the device and identity lines of
its log, docs/log-format.md, "The identity block") - nothing is written,
nothing read here but the campaign's mark:

  block device  kind "block", rdev "MAJ:MIN", size (bytes), and where
                sysfs has them (the disk, for a partition) model, serial,
                firmware and wwid; for a loop device the backing file's
                name, device and inode and, read from the backing file
                itself (when its name leads to that device and inode),
                its generation as backing_gen - and the campaign's mark
                (below) as backing_mark;
  regular file  kind "file", dev, ino, size, gen and the campaign's mark.

The mark is an extended attribute (user.act_certify.campaign, the
campaign's id) set when the campaign starts - metadata only, never the
file's bytes - on a file device, or on a loop device's backing file. The
generation is the inode's generation number (FS_IOC_GETVERSION: ext4,
XFS, btrfs, f2fs; a new random number for every new inode). Both tell a
file deleted and made again - which on ext4 usually gets the same inode
number, in the same directory, under the same name - from the one
recorded. Where the file system has no user extended attributes there is
no mark, where it has no generation no gen (tmpfs: it hands out new inode
numbers instead).

Two identities are the same drive when every fact both record is equal
(a fact one of them lacks is not compared), except:
- the mark: a file that was marked must still carry the same mark;
- a file's size is not compared: the campaign's own program sizes a file
  device to the base config's file-size-mbytes, grown or shrunk
  (act_storage.md, "Devices"), and the inode, generation and mark already
  say which file it is. A block
  device's size is compared (a drive's size does not change)."""

import errno
import os
import stat
import uuid

# the facts compared, in the order they are printed
FIELDS = ("kind", "rdev", "size", "model", "serial", "firmware", "wwid",
          "backing_file", "backing_dev", "backing_ino", "backing_gen",
          "backing_mark", "dev", "ino", "gen", "mark")
# the facts that must still be there when they were recorded
MARKS = ("mark", "backing_mark")
MARK_XATTR = "user.act_certify.campaign"
# the facts that are numbers (as state.json has always kept them)
_NUMBERS = ("size", "backing_dev", "backing_ino", "backing_gen", "dev",
            "ino", "gen")
UNKNOWN = "unknown"             # a value the kernel does not have


def device_identity(header, device):
    """The identity of device (see the module's comment) from the LogHeader
    of the program's --print-config (precheck.print_config) - its facts
    line, identity line and device line - and the campaign's mark read
    from the file itself. Raises ValueError when the program printed no
    facts line for it."""
    facts = header.facts.get(device)
    if facts is None:
        raise ValueError("the program printed no identity for it")
    ident = {"kind": "block" if "rdev" in facts else "file",
             "size": header.devices.get(device)}
    ident.update(header.identity.get(device, {}))
    ident.update(facts)
    ident = {k: v for k, v in ident.items() if k in FIELDS and
             v is not None and v != UNKNOWN}
    for k in _NUMBERS:
        if k in ident:
            try:
                ident[k] = int(ident[k])
            except (TypeError, ValueError):
                del ident[k]
    if ident["kind"] == "file":
        fd = _open_same(device, ident, "dev", "ino")
    else:
        fd = _open_backing(ident)
    if fd is not None:
        try:
            mark = _file_mark(fd)
        finally:
            os.close(fd)
        if mark:
            ident["mark" if ident["kind"] == "file" else "backing_mark"] = \
                mark
    return ident


def _open_same(path, ident, dev_key, ino_key):
    """A read-only descriptor of the regular file at path when it is the
    very file the identity's facts name (its device and inode: the one
    the program identified), else None."""
    if dev_key not in ident or ino_key not in ident:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK |
                     os.O_NOCTTY)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode) or \
            (st.st_dev, st.st_ino) != (ident[dev_key], ident[ino_key]):
        os.close(fd)
        return None
    return fd


def _open_backing(ident):
    """A read-only descriptor of a loop device's backing file, opened by the
    name the program printed, when it is a regular file and the very device
    and inode the loop device uses; else None (the file was deleted or
    renamed, another mount namespace...)."""
    name = ident.get("backing_file")
    return _open_same(name, ident, "backing_dev", "backing_ino") \
        if name else None


def _file_mark(fd):
    try:
        return os.getxattr(fd, MARK_XATTR).decode("ascii", "replace") or None
    except OSError:
        return None


def new_mark():
    """A campaign's id, for the marks of its files."""
    return uuid.uuid4().hex


def mark_file(path, ident, mark):
    """Sets the campaign's mark on a file device - or on a loop device's
    backing file - and adds it to its identity (mark, backing_mark);
    nothing for another block device, a file that is not the one the
    identity names (_open_same), or where the file system has no user
    extended attributes. Raises OSError for other failures."""
    if ident.get("kind") == "file":
        fd, key, also = _open_same(path, ident, "dev", "ino"), "mark", ()
    else:
        # a backing file on a read-only file system is left unmarked
        fd, key, also = _open_backing(ident), "backing_mark", (errno.EROFS,)
    if fd is None:
        return
    try:
        if _set_mark(fd, mark, also):
            ident[key] = mark
    finally:
        os.close(fd)


def _set_mark(target, mark, also=()):
    try:
        os.setxattr(target, MARK_XATTR, mark.encode("ascii"))
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM) + also:
            return False
        raise
    return True


def identity_difference(recorded, now):
    """The first fact that differs between two identities, as text
    ("serial S1, now S2"), or None when they are the same drive (the
    module's comment: a file's size is not compared)."""
    files = recorded.get("kind") == "file" and now.get("kind") == "file"
    for k in FIELDS:
        if k == "size" and files:
            continue
        if k in recorded and k in now and recorded[k] != now[k]:
            return "%s %s, now %s%s" % (k, recorded[k], now[k], _MADE_AGAIN
                                        if k in _FILE_FACTS else "")
        if k in MARKS and k in recorded and k not in now:
            return "%s %s, now none (not the file the campaign " \
                "marked)" % (k, recorded[k])
    return None


# facts that differ when a file was deleted and made again
_FILE_FACTS = ("gen", "backing_gen")
_MADE_AGAIN = " - another file, made again under the same name"


def identity_text(ident):
    """One line: every fact of an identity, in FIELDS order."""
    if not ident:
        return "not recorded"
    return ", ".join("%s %s" % (k, ident[k]) for k in FIELDS if k in ident)
