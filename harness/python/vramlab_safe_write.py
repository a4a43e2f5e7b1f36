# SPDX-License-Identifier: MIT
"""vramlab_safe_write: the one way vramlab's Python scripts write an output file.

vramlab runs as root (CI, kernel and Mesa work, vramlab-hw), so a writer must never clobber
what is not its own (docs/cli.md, "How outputs are written"):
- a regular file (or a new one) is written to a temporary file made exclusively, with a random
  name, in the target's directory; flushed, fsynced, renamed over the target, and the directory
  fsynced: a reader sees the old file or the new one, and an error or an interrupt (Ctrl-C
  included) leaves the old file or none, never a temporary file;
- a symlink is resolved and its target replaced; the link stays;
- an existing file keeps its mode (and, as root, its owner); a new one gets 0666 less the umask;
- an existing target that is not a regular file (/dev/null, /dev/stdout, a FIFO) is written
  directly, never renamed over; a directory is an error naming the path;
- check_writable() creates, truncates and follows nothing: it looks at the directory.

    with open_output(path) as f: ...        (or "wb")
    write_text(path, text); write_bytes(path, data); savefig(fig, path, dpi=100)
    write_new(path, data, like=st)          a file that must not exist yet (a backup)

Errors that concern the place are CannotWrite (an OSError), whose text is one line:
"PATH: cannot write: REASON". Uses only Python's standard library."""
import contextlib
import errno
import os
import signal
import stat
import tempfile

__all__ = ["CannotWrite", "check_writable", "check_makedirs", "open_output", "write_text",
           "write_bytes", "write_new", "savefig"]

# Kernel file systems where no regular file can be made, even by root (os.access says yes
# there for root: /proc is mode 0555, and root passes every mode check).
NO_NEW_FILES = {"proc", "sysfs", "debugfs", "tracefs", "securityfs", "cgroup", "cgroup2",
                "configfs", "pstore", "efivarfs", "bpf", "devpts", "mqueue", "fusectl"}


class CannotWrite(OSError):
    """A path that cannot be written, or a write that failed; str() is one line."""

    def __init__(self, path, reason, err=0):
        super().__init__(err, reason, path)
        self.path, self.reason = path, reason

    def __str__(self):
        return f"{self.path}: cannot write: {self.reason}"


def _stat(path):
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None  # not there: what is above it says why
    except OSError as e:
        raise CannotWrite(path, e.strerror, e.errno)


def _fs_type(path):
    """The type of the file system holding directory `path`, from /proc/self/mountinfo (the
    deepest mount point above it; the last one mounted where several are stacked)."""
    best, fstype = "", None
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if "-" not in fields[6:]:
                    continue
                mnt = fields[4].replace("\\040", " ")
                inside = path == mnt or path.startswith(mnt.rstrip("/") + "/")
                if inside and len(mnt) >= len(best):
                    best, fstype = mnt, fields[fields.index("-", 6) + 1]
    except OSError:
        return None
    return fstype


def _check_dir(path, d):
    """Raise CannotWrite(path, ...) unless a new file can be made in directory d."""
    st = _stat(d)
    if st is None:
        raise CannotWrite(path, f"no directory {d}", errno.ENOENT)
    if not stat.S_ISDIR(st.st_mode):
        raise CannotWrite(path, f"{d} is not a directory", errno.ENOTDIR)
    if not os.access(d, os.W_OK | os.X_OK):
        raise CannotWrite(path, f"permission denied in {d}", errno.EACCES)
    if os.statvfs(d).f_flag & os.ST_RDONLY:
        raise CannotWrite(path, f"{d} is on a read-only file system", errno.EROFS)
    fstype = _fs_type(os.path.realpath(d))
    if fstype in NO_NEW_FILES:
        raise CannotWrite(path, f"{d} is on a {fstype} file system (no new files there)",
                          errno.EACCES)


def _resolve(path):
    """(the path written, its stat or None): symlinks resolved, a directory refused."""
    if not path:
        raise CannotWrite("''", "an empty name", errno.ENOENT)
    real = os.path.realpath(path)
    st = _stat(real)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise CannotWrite(path, "it is a directory", errno.EISDIR)
    return real, st


def check_writable(path):
    """Raise CannotWrite unless `path` can be written as open_output() would. Creates,
    truncates and follows nothing: looks at the directory (and at a non-regular target)."""
    real, st = _resolve(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        if not os.access(real, os.W_OK):
            raise CannotWrite(path, "permission denied", errno.EACCES)
        return
    _check_dir(path, os.path.dirname(real))


def check_makedirs(path):
    """Raise CannotWrite unless `path` is a writable directory or can be made as one (its
    nearest existing parent is a directory where new entries can be made)."""
    if not path:
        raise CannotWrite("''", "an empty name", errno.ENOENT)
    d = os.path.realpath(path)
    while _stat(d) is None and os.path.dirname(d) != d:
        d = os.path.dirname(d)
    _check_dir(path, d)


def _umask():
    # Linux 4.7+ says it without changing it; else set and put back (not thread-safe, but
    # these scripts are single-threaded)
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _set_mode(fd, st):
    """The temporary file takes the old file's owner (as root) and mode, or a new file's."""
    if st is None:
        os.fchmod(fd, 0o666 & ~_umask())
        return
    if os.geteuid() == 0:
        os.fchown(fd, st.st_uid, st.st_gid)  # before fchmod: chown clears set-id bits
    os.fchmod(fd, stat.S_IMODE(st.st_mode))


def _sync_dir(d):
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno != errno.EINVAL:  # a file system without directory fsync
            raise
    finally:
        os.close(fd)


# The scripts turn SIGINT and SIGTERM into exceptions; one raised after mkstemp() made the file
# but before the caller's try (inside mkstemp, or at the assignment) would leave it behind.
# The signals are held from before the file exists until the try that removes it has begun.
_HELD = {signal.SIGINT, signal.SIGTERM}


def _mkstemp_held(d, base):
    """(fd, tmp, mask): a temporary file for `base` in `d`, made with SIGINT and SIGTERM held;
    the caller puts `mask` back with _release() as the first step inside the try that removes
    the file. An OSError from mkstemp() comes with the signals released."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix="." + base + ".")
    except BaseException:
        _release(mask)
        raise
    return fd, tmp, mask


def _release(mask):
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextlib.contextmanager
def open_output(path, mode="w", encoding=None, errors=None, newline=None):
    """A file object to write `path` with ("w" text or "wb" binary); the file appears whole
    when the block ends without an exception, and the old one stays otherwise."""
    if mode not in ("w", "wb"):
        raise ValueError(f"open_output: mode {mode!r}: 'w' or 'wb'")
    text = {} if mode == "wb" else {"encoding": encoding, "errors": errors, "newline": newline}
    real, st = _resolve(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # a device or a FIFO: written in place (no O_CREAT, no O_TRUNC), never replaced
        try:
            fd = os.open(real, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as e:
            raise CannotWrite(path, e.strerror, e.errno)
        with open(fd, mode, **text) as f:
            yield f
        return
    d, base = os.path.split(real)
    try:
        fd, tmp, mask = _mkstemp_held(d, base)
    except OSError as e:
        _check_dir(path, d)  # the reason in words where it can tell it (read-only, /proc)
        raise CannotWrite(path, e.strerror, e.errno)
    try:
        _release(mask)  # a signal that came meanwhile raises here, inside the try
        _set_mode(fd, st)
        with open(fd, mode, **text) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, real)
    except BaseException:
        # an error, Ctrl-C or SIGTERM turned into an exception: no temporary file left
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_dir(d)


def write_text(path, text, encoding="utf-8", newline=None):
    with open_output(path, "w", encoding=encoding, newline=newline) as f:
        f.write(text)


def write_bytes(path, data):
    with open_output(path, "wb") as f:
        f.write(data)


def savefig(fig, path, **kwargs):
    """matplotlib's fig.savefig(path, ...) through open_output; the format from the name's
    extension unless format= is given (a file object has no name to take it from)."""
    fmt = kwargs.pop("format", None) or os.path.splitext(path)[1][1:].lower() or "png"
    with open_output(path, "wb") as f:
        fig.savefig(f, format=fmt, **kwargs)


def write_new(path, data, like=None):
    """Make `path` holding `data` (bytes), only if nothing is there (not even a dangling
    symlink): written whole under a temporary name, then hard-linked to its name, which fails
    with FileExistsError if it exists (as git makes its lock files). `like`: an os.stat_result
    whose mode (and owner, as root) the new file takes."""
    d, base = os.path.split(os.path.abspath(path))
    fd, tmp, mask = _mkstemp_held(d, base)
    try:
        _release(mask)  # as in open_output()
        _set_mode(fd, like)
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, os.path.join(d, base), follow_symlinks=False)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _sync_dir(d)
