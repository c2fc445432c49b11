"""Atomic, durable file replacement: the only way the cache writes a file.

A reader (or another process writing the same entry) sees the old file or the new one, never
a mix: data goes to a temporary file in the same directory (same file system, so the rename
is atomic), is fsynced, and is renamed over the target with ``os.replace``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
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
