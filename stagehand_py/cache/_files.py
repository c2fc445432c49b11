"""How the stores (the action cache, the workflow history) write and read their files.

Writes are atomic and durable: a reader (or another process writing the same entry) sees the
old file or the new one, never a mix: data goes to a temporary file in the same directory
(same file system, so the rename is atomic), is fsynced, and is renamed over the target with
``os.replace``.

Reads are bounded (:func:`read_bounded`): only a regular file, opened without blocking, and
never more than a given number of bytes. A FIFO, a device (``/dev/zero``), a directory or a
huge (or sparse) file in a store's folder is :class:`UnreadableFile`, never a hang or a
:class:`MemoryError`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TEMP_SUFFIX = ".tmp"
"""Temporary files are ``.<digest prefix>.<random>.tmp``: hidden, and never read as entries."""

_REPLACE_RETRIES = 5  # Windows refuses to replace a file another process has open


def _current_umask() -> int:
    mask = os.umask(0)  # the only way to read it is to set it; put it straight back
    os.umask(mask)
    return mask


# mkstemp makes owner-only files; entries get the mode any file the user creates would have,
# so a cache shared by a CI team stays readable.
_FILE_MODE = 0o666 & ~_current_umask()


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once, durably: temp file, fsync, rename, fsync dir."""
    fd, temp_name = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.stem[:12]}.", suffix=TEMP_SUFFIX
    )
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            if hasattr(os, "fchmod"):  # POSIX only
                os.fchmod(handle.fileno(), _FILE_MODE)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _replace(temp, path)
    except BaseException:
        unlink(temp)
        raise
    _fsync_directory(path.parent)  # make the rename itself survive a power cut


def _replace(source: Path, target: Path) -> None:
    for attempt in range(_REPLACE_RETRIES):
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if os.name != "nt" or attempt == _REPLACE_RETRIES - 1:
                raise
            time.sleep(0.01 * (attempt + 1))


def _fsync_directory(directory: Path) -> None:
    if os.name == "nt":  # directories cannot be opened for fsync there
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def unlink(path: Path) -> bool:
    """Delete ``path``; False if it was already gone."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


class UnreadableFile(OSError):
    """A store's path that is not a file it reads: a FIFO, a device, a directory, or larger
    than the store's bound. The message says which, never the contents."""


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes`` bytes.

    Opened without blocking (a FIFO would otherwise wait for a writer forever) and checked on
    the open descriptor, so the file cannot be swapped between the check and the read; a file
    that grows past the bound while it is read is refused too. Raises
    :class:`UnreadableFile`, or the :class:`OSError` of the open (``FileNotFoundError``...).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile("it is not a regular file (a FIFO, device or directory?)")
        if info.st_size > max_bytes:
            raise UnreadableFile(f"it is larger than {max_bytes} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:  # the file may grow after fstat
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise UnreadableFile(f"it is larger than {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_or_warn(path: Path, max_bytes: int, warn: Callable[[Path, str], None]) -> bytes | None:
    """:func:`read_bounded`'s bytes, or None when the file is gone or cannot be read, in which
    case ``warn`` is told why (a store ignores such a file, warned, and goes on)."""
    try:
        return read_bounded(path, max_bytes)
    except FileNotFoundError:
        return None
    except UnreadableFile as exc:
        warn(path, str(exc))
    except OSError as exc:
        warn(path, f"it cannot be read ({exc.strerror or exc})")
    return None
