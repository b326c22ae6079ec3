"""Which drive a device name stands for: its identity, recorded when a
campaign starts and compared before every step and at --resume, so that a
campaign never writes - nor certifies - a drive other than the one it
started on (names move after a reboot; a loop device can be re-attached to
another file; a trial file can be replaced by another of the same size).
The rules are docs/certify.md's "The drives it started on".

An identity is a dict of facts the kernel gives without writing anything:

  block device  kind "block", rdev "MAJ:MIN", size (bytes), and where
                sysfs has them (the disk, for a partition) model, serial,
                firmware and wwid - the rules of act's log header
                (src/common/blkdev.c); for a loop device the backing
                file's name, device and inode (LOOP_GET_STATUS64) and,
                read from the backing file itself (opened by its name and
                taken only when it is that device and inode), its
                generation and the campaign's mark (below), as
                backing_gen and backing_mark;
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
- a file's size is not compared: the campaign's own program sizes a
  file device to the base config's file-size-mbytes, grown or shrunk
  (act_storage.md, "Devices"), and the inode, generation and mark already
  say which file it is. A block
  device's size is compared (a drive's size does not change)."""

import errno
import fcntl
import os
import stat
import struct
import uuid

LOOP_GET_STATUS64 = 0x4C05
# FS_IOC_GETVERSION is _IOR('v', 1, long); the file systems write an int
FS_IOC_GETVERSION = (2 << 30) | (struct.calcsize("l") << 16) | \
    (ord("v") << 8) | 1
# struct loop_info64: lo_device, lo_inode, lo_rdevice, lo_offset,
# lo_sizelimit (u64 each), lo_number, lo_encrypt_type, lo_encrypt_key_size,
# lo_flags (u32 each), lo_file_name[64], lo_crypt_name[64],
# lo_encrypt_key[32], lo_init[2] (u64)
_LOOP_INFO64 = struct.Struct("=QQQQQIIII64s64s32sQQ")

# the facts compared, in the order they are printed
FIELDS = ("kind", "rdev", "size", "model", "serial", "firmware", "wwid",
          "backing_file", "backing_dev", "backing_ino", "backing_gen",
          "backing_mark", "dev", "ino", "gen", "mark")
# the facts that must still be there when they were recorded
MARKS = ("mark", "backing_mark")
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
        return
    bfd = _open_backing(disk, ident)
    if bfd is None:
        return
    try:
        ident["backing_gen"] = _file_gen(bfd)
        ident["backing_mark"] = _file_mark(bfd)
    finally:
        os.close(bfd)


def _open_backing(disk, ident):
    """A read-only descriptor of the loop device's backing file, opened by
    the name sysfs gives, when it is a regular file and the very device and
    inode the loop device uses (LOOP_GET_STATUS64); else None (the file
    was deleted or renamed, another mount namespace...)."""
    if "backing_dev" not in ident:
        return None
    try:
        with open(os.path.join(disk, "loop", "backing_file"), "rb") as f:
            name = f.read(8192).rstrip(b"\n")
        bfd = os.open(name, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW |
                      os.O_NONBLOCK | os.O_NOCTTY)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(bfd)
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode) or \
            (st.st_dev, st.st_ino) != (ident["backing_dev"],
                                       ident["backing_ino"]):
        os.close(bfd)
        return None
    return bfd


def device_identity(path):
    """The identity of the device at path now (see the module's comment);
    raises OSError when it cannot be opened or is neither a block device
    nor a regular file (ValueError). Nothing is written."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            ident = {"kind": "file", "dev": st.st_dev, "ino": st.st_ino,
                     "size": st.st_size, "gen": _file_gen(fd),
                     "mark": _file_mark(fd)}
            return {k: v for k, v in ident.items() if v is not None}
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
        return os.getxattr(fd, MARK_XATTR).decode("ascii", "replace") or None
    except OSError:
        return None


def _file_gen(fd):
    """The inode's generation number (FS_IOC_GETVERSION), or None where
    the file system has none."""
    try:
        raw = fcntl.ioctl(fd, FS_IOC_GETVERSION, bytes(8))
    except OSError:
        return None
    return struct.unpack("=I", raw[:4])[0]


def new_mark():
    """A campaign's id, for the marks of its files."""
    return uuid.uuid4().hex


def mark_file(path, ident, mark):
    """Sets the campaign's mark on a file device - or on a loop device's
    backing file - and adds it to its identity (mark, backing_mark);
    nothing for another block device, a loop device whose backing file is
    not reachable by its name (identity.py's _open_backing), or where the
    file system has no user extended attributes. Raises OSError for other
    failures."""
    if ident.get("kind") == "file":
        if _set_mark(path, mark):
            ident["mark"] = mark
        return
    disk = _disk_dir(os.stat(path).st_rdev) \
        if "backing_ino" in ident else None
    bfd = _open_backing(disk, ident) if disk else None
    if bfd is None:
        return
    try:
        # a backing file on a read-only file system is left unmarked
        if _set_mark(bfd, mark, (errno.EROFS,)):
            ident["backing_mark"] = mark
    finally:
        os.close(bfd)


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
