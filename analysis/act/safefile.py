"""Files in a directory that may not be trusted (docs/certify.md, "The
directory"): the one place act_certify creates, replaces and reads the
files of a campaign directory, and act.logfile opens a campaign's logs.

Writing: a file is never opened by its final name for writing, so a
symbolic link (or anything else) planted under that name is never followed:

    write_file(dirpath, name, text)     a private temporary file (mkstemp:
                                        O_CREAT|O_EXCL, a random name), then
                                        renamed over NAME - which replaces
                                        a planted link, never writes
                                        through it
    create_new(path)                    a file that must not exist yet (a
                                        step's log): O_CREAT|O_EXCL|
                                        O_NOFOLLOW
    remove_stale(dirpath)               the temporary files a killed
                                        act_certify left (its own names
                                        only: TEMP_RE, and the names older
                                        versions used)

Reading: open_regular(path, max_bytes) opens with O_NOFOLLOW|O_NONBLOCK
(a FIFO does not hang the open), refuses what is not a regular file or is
larger than max_bytes, then clears O_NONBLOCK.  Its refusals are OSError
(UnsafeFile), so a reader's `except OSError` treats them as "can't read".

The directory itself: private_dir_problem(path) says why another user
could write in it (its owner, or its mode)."""

import errno
import fcntl
import os
import re
import stat
import tempfile

TEMP_MARK = ".act-tmp-"
# a temporary file of write_file: "." NAME ".act-tmp-" and mkstemp's 8
# random characters
TEMP_RE = re.compile(r"^\..+\.act-tmp-[a-z0-9_]{8}$")
# the temporary files of act_certify before write_file (6.7 and earlier):
# state.json.tmp, and summary.json.tmpPID (summary.md, report.html)
OLD_TEMP_RE = re.compile(r"^(state\.json\.tmp|(summary\.json|summary\.md|"
                         r"report\.html)\.tmp\d+)$")
FILE_MODE = 0o644               # what the files had with open() and umask 022


class UnsafeFile(OSError):
    """A file refused by open_regular: e.strerror says why."""


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory"),
                       (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path, max_bytes=None):
    """A regular file at path, opened for reading in binary (a buffered
    file object). Refused (UnsafeFile, an OSError naming the file): a
    symbolic link, anything but a regular file (a FIFO is opened without
    waiting for a writer, then refused), a file of more than max_bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |
                     os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as e:
        if e.errno == errno.ELOOP and os.path.islink(path):
            raise UnsafeFile(errno.ELOOP, "it is a symbolic link (not "
                             "followed)", path) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(errno.EINVAL, "it is %s, not a regular file"
                             % _kind(st.st_mode), path)
        if max_bytes is not None and st.st_size > max_bytes:
            raise UnsafeFile(errno.EFBIG, "it is larger (%d bytes) than "
                             "it can be (at most %d)" % (st.st_size,
                                                         max_bytes), path)
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_lines(f, max_line):
    """The lines of binary file f, each at most max_line bytes (a longer
    line comes in pieces): a file without a newline is never read whole
    into memory."""
    while True:
        line = f.readline(max_line)
        if not line:
            return
        yield line


def create_new(path, mode=FILE_MODE):
    """A new file at path, opened for writing (a file object, binary):
    FileExistsError if anything is there already - a file, or a symbolic
    link (never followed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                 os.O_CLOEXEC, mode)
    return os.fdopen(fd, "wb")


def write_file(dirpath, name, data, durable=False, mode=FILE_MODE):
    """DIR/NAME replaced by data (str: UTF-8, undecodable bytes as they
    came - surrogateescape; or bytes), atomically: a reader sees the old
    file or the new one, never half of one, and whatever was at NAME (a
    symbolic link too) is replaced, never written through. durable: the
    file fsynced before the rename and the directory after it (a crash
    keeps the new file)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    fd, tmp = tempfile.mkstemp(prefix="." + name + TEMP_MARK, dir=dirpath)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode & ~_umask())
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, os.path.join(dirpath, name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        sync_dir(dirpath)


def sync_dir(dirpath):
    fd = os.open(dirpath, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()              # at import: os.umask is process-wide


def _umask():
    return _UMASK


def is_temporary(name):
    """Whether name is one of act_certify's temporary files (of
    write_file, or of an older version)."""
    return bool(TEMP_RE.match(name) or OLD_TEMP_RE.match(name))


def remove_stale(dirpath):
    """Removes the temporary files a killed act_certify left in dirpath
    (is_temporary; call it only while no other act_certify writes there:
    with the campaign's lock). Returns their names."""
    gone = []
    try:
        names = os.listdir(dirpath)
    except OSError:
        return gone
    for name in sorted(names):
        if is_temporary(name):
            try:
                os.unlink(os.path.join(dirpath, name))
                gone.append(name)
            except OSError:
                pass
    return gone


def private_dir_problem(path):
    """Why another user than the one running could write in the directory
    at path - "it is owned by nobody (uid 65534), mode 0755" - or None: it
    is owned by the effective user, and neither its group nor other users
    can write in it (sticky bit or not)."""
    st = os.stat(path)
    if st.st_uid == os.geteuid() and \
            not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return "it is owned by %s, mode %04o" % (_user(st.st_uid),
                                             stat.S_IMODE(st.st_mode))


def user_text(uid=None):
    """'root (uid 0)': the user uid (default: the effective user)."""
    return _user(os.geteuid() if uid is None else uid)


def _user(uid):
    try:
        import pwd
        return "%s (uid %d)" % (pwd.getpwuid(uid).pw_name, uid)
    except (ImportError, KeyError):
        return "uid %d" % uid
