"""Opening a file the harness writes without following a symlink or writing into anything but a
regular file.

Run ids are predictable, so anyone who can write a shared output folder can seed a run directory in
advance with `.lock -> ~/victim` or `summary.json.tmp -> ~/victim`; a plain `open(path, "w")` would
then truncate the victim. Every writer of a run directory opens through `open_regular` (O_NOFOLLOW,
O_NONBLOCK so a FIFO cannot hang it, then a check that the opened thing is a regular file) and gets
one `UserError` line naming the path instead.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from benchmarker.errors import UserError


class UnsafePathError(UserError):
    """A path the harness would write is a symlink or not a regular file (exit 2, one line)."""


def refuse(path: Path | str, what: str) -> UnsafePathError:
    return UnsafePathError(f"{path} is {what}; the harness writes only regular files of its own and never "
                           "through a link: remove it (or use another output folder) and run the same command again")


def check_regular(path: Path | str, *, dir_fd: int | None = None) -> None:
    """Raise when `path` exists as a symlink or as anything but a regular file (absent is fine). With
    `dir_fd` (a folder `confined.open_folder` opened), its last component is looked up in that folder."""
    try:
        st = os.lstat(_name(path, dir_fd), dir_fd=dir_fd)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise refuse(path, "a symbolic link")
    if not stat.S_ISREG(st.st_mode):
        raise refuse(path, "not a regular file")


def open_regular(path: Path | str, flags: int, mode: int = 0o644, dir_fd: int | None = None) -> int:
    """`os.open(path, flags)` that refuses a symlink (at open time, so no race) or a non-regular file.
    With `dir_fd`, the last component is opened in that folder (errors still name the whole `path`)."""
    check_regular(path, dir_fd=dir_fd)
    try:
        fd = os.open(_name(path, dir_fd), flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise refuse(path, "a symbolic link") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise refuse(path, "not a regular file")
    os.set_blocking(fd, True)
    return fd


def create_exclusive(path: Path | str, mode: int = 0o644, dir_fd: int | None = None) -> int:
    """A new file at `path` for writing (a temporary): O_EXCL, so nothing planted there is written
    through. A regular file left by a crashed writer is removed first; a link or anything else there
    is refused, never followed."""
    try:
        return open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode, dir_fd=dir_fd)
    except FileExistsError:
        check_regular(path, dir_fd=dir_fd)  # a link or a FIFO planted at the temporary's name: refused
        os.unlink(_name(path, dir_fd), dir_fd=dir_fd)
        return open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode, dir_fd=dir_fd)


def _name(path: Path | str, dir_fd: int | None) -> str:
    """What to look up: the whole path, or only its last component inside the folder `dir_fd`."""
    return os.fspath(path) if dir_fd is None else os.path.basename(os.fspath(path))
