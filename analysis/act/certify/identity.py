"""Which drive a device name stands for: its identity, recorded when a
campaign starts and compared before every step and at --resume, so that a
campaign never writes - nor certifies - a drive other than the one it
started on (names move after a reboot; a loop device can be re-attached to
another file; a trial file can be replaced by another of the same size).

An identity is a dict of facts the kernel gives without writing anything:

  block device  kind "block", rdev "MAJ:MIN", size (bytes), and where
                sysfs has them (the disk, for a partition) model, serial,
                firmware and wwid - the rules of act's log header
                (src/common/blkdev.c); for a loop device the backing
                file's name, device and inode (LOOP_GET_STATUS64);
  regular file  kind "file", dev, ino, size, and the campaign's mark: an
                extended attribute (user.act_certify.campaign, the
                campaign's id) set when the campaign starts - metadata
                only, never the file's bytes - so that a file deleted and
                made again, which may get the same inode number, is not
                taken for the one recorded. Where the file system has no
                user extended attributes there is no mark.

Two identities are the same drive when every fact both record is equal
(a fact one of them lacks is not compared) - except the mark: a file that
was marked must still carry the same mark."""

import errno
import fcntl
import os
import stat
import struct
import uuid

LOOP_GET_STATUS64 = 0x4C05
# struct loop_info64: lo_device, lo_inode, lo_rdevice, lo_offset,
# lo_sizelimit (u64 each), lo_number, lo_encrypt_type, lo_encrypt_key_size,
# lo_flags (u32 each), lo_file_name[64], lo_crypt_name[64],
# lo_encrypt_key[32], lo_init[2] (u64)
_LOOP_INFO64 = struct.Struct("=QQQQQIIII64s64s32sQQ")

# the facts compared, in the order they are printed
FIELDS = ("kind", "rdev", "size", "model", "serial", "firmware", "wwid",
          "backing_file", "backing_dev", "backing_ino", "dev", "ino", "mark")
MARK_XATTR = "user.act_certify.campaign"


def _read_attr(path):
    """A sysfs attribute tidied as act's log header does, or None."""
    try:
        with open(path, "rb") as f:
            raw = f.read(256)
    except OSError:
        return None
    return _tidy(raw)


def _tidy(raw):
    """White space trimmed at both ends, anything not printable '?'."""
    text = "".join(ch if ch.isprintable() else "?"
                   for ch in raw.decode("latin-1").strip())
    return text or None


def _vpd_serial(dev_dir):
    """SCSI/SATA: the unit serial number VPD page (0x80)."""
    try:
        with open(os.path.join(dev_dir, "vpd_pg80"), "rb") as f:
            buf = f.read(256)
    except OSError:
        return None
    if len(buf) <= 4 or buf[1] != 0x80:
        return None
    return _tidy(buf[4:4 + min(buf[3], len(buf) - 4)])


def _disk_dir(rdev):
    """The sysfs directory of the disk of rdev (the parent of a
    partition), or None."""
    d = "/sys/dev/block/%d:%d" % (os.major(rdev), os.minor(rdev))
    try:
        d = os.path.realpath(d)
    except OSError:
        return None
    if not os.path.isdir(d):
        return None
    if os.path.exists(os.path.join(d, "partition")):
        d = os.path.dirname(d)
    return d


def _first(dirpath, names):
    for n in names:
        v = _read_attr(os.path.join(dirpath, n))
        if v:
            return v
    return None


def _loop_backing(fd, ident, disk):
    ident["backing_file"] = _read_attr(os.path.join(disk, "loop",
                                                    "backing_file"))
    try:
        raw = fcntl.ioctl(fd, LOOP_GET_STATUS64, bytes(_LOOP_INFO64.size))
        info = _LOOP_INFO64.unpack(raw)
        ident["backing_dev"], ident["backing_ino"] = info[0], info[1]
    except OSError:
        pass


def device_identity(path):
    """The identity of the device at path now (see the module's comment);
    raises OSError when it cannot be opened or is neither a block device
    nor a regular file (ValueError). Nothing is written."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            ident = {"kind": "file", "dev": st.st_dev, "ino": st.st_ino,
                     "size": st.st_size}
            mark = _file_mark(fd)
            if mark:
                ident["mark"] = mark
            return ident
        if not stat.S_ISBLK(st.st_mode):
            raise ValueError("%s is neither a block device nor a regular "
                             "file" % path)
        ident = {"kind": "block", "rdev": "%d:%d" % (
            os.major(st.st_rdev), os.minor(st.st_rdev)),
            "size": os.lseek(fd, 0, os.SEEK_END)}
        disk = _disk_dir(st.st_rdev)
        if disk:
            dev_dir = os.path.join(disk, "device")
            ident["model"] = _read_attr(os.path.join(dev_dir, "model"))
            ident["firmware"] = _first(dev_dir, ("firmware_rev", "rev"))
            ident["serial"] = _vpd_serial(dev_dir) or \
                _read_attr(os.path.join(dev_dir, "serial"))
            ident["wwid"] = _first(disk, ("wwid", "device/wwid"))
            if os.path.isdir(os.path.join(disk, "loop")):
                _loop_backing(fd, ident, disk)
        return {k: v for k, v in ident.items() if v is not None}
    finally:
        os.close(fd)


def _file_mark(fd):
    try:
        return os.getxattr(fd, MARK_XATTR).decode("ascii", "replace")
    except OSError:
        return None


def new_mark():
    """A campaign's id, for the marks of its files."""
    return uuid.uuid4().hex


def mark_file(path, ident, mark):
    """Sets the campaign's mark on a file device and adds it to its
    identity; nothing for a block device or where the file system has no
    user extended attributes. Raises OSError for other failures."""
    if ident.get("kind") != "file":
        return
    try:
        os.setxattr(path, MARK_XATTR, mark.encode("ascii"))
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
            return
        raise
    ident["mark"] = mark


def identity_difference(recorded, now):
    """The first fact that differs between two identities, as text
    ("serial S1 now S2"), or None when they are the same drive."""
    for k in FIELDS:
        if k in recorded and k in now and recorded[k] != now[k]:
            return "%s %s, now %s" % (k, recorded[k], now[k])
        if k == "mark" and k in recorded and k not in now:
            return "mark %s, now none (not the file the campaign " \
                "marked)" % recorded[k]
    return None


def identity_text(ident):
    """One line: every fact of an identity, in FIELDS order."""
    if not ident:
        return "not recorded"
    return ", ".join("%s %s" % (k, ident[k]) for k in FIELDS if k in ident)
