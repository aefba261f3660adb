"""Writing below a run directory without following a link at any level of the path.

`safe_open` refuses a link at the file's own name, but a run directory whose `plots/`, `scores/` or
`oracle/` is a link to another folder would still have every file in it written there (issue 42).
While a verb holds a run directory (`run_lock` registers it here), every writer of a path below it
opens the folders one at a time, from the run directory down, with O_NOFOLLOW|O_DIRECTORY, creates a
missing one relative to its parent's descriptor, and opens the file relative to the last one. A link
planted at any level, even between a check and the write, is therefore refused at open time, with one
`UserError` line naming it; nothing outside the run directory is created or written.

The run directory itself, and the folders above it, are the user's to name and may be links.
A path under no registered run directory (a file `compare --out` names) is opened the same way from
its own folder down, which checks only its last component.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from benchmarker.log.safe_open import UnsafePathError

_ROOTS: list[str] = []          # absolute, unresolved; one entry per holder (a root may be held twice)
_ROOTS_LOCK = threading.Lock()  # writers run in worker threads, so this is process-wide, not a contextvar
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def confine(root: Path | str) -> None:
    """From now on, writes below `root` never pass through a link below it (until `release`)."""
    with _ROOTS_LOCK:
        _ROOTS.append(os.path.abspath(root))


def release(root: Path | str) -> None:
    """Undo one `confine(root)`; a root never confined is ignored."""
    with _ROOTS_LOCK, contextlib.suppress(ValueError):
        _ROOTS.remove(os.path.abspath(root))


@contextlib.contextmanager
def confined_to(root: Path | str) -> Iterator[None]:
    """`confine(root)` for the length of a `with` block."""
    confine(root)
    try:
        yield
    finally:
        release(root)


def root_of(path: Path | str) -> str | None:
    """The innermost registered run directory that holds `path` (by its spelling: nothing is resolved)."""
    target = os.path.abspath(path)
    with _ROOTS_LOCK:
        holding = [root for root in _ROOTS if target == root or target.startswith(root.rstrip(os.sep) + os.sep)]
    return max(holding, key=len) if holding else None


def refuse_link(path: Path | str, what: str) -> UnsafePathError:
    return UnsafePathError(f"{path} is {what} inside the run directory; the harness writes only into folders of "
                           "its own there and never through a link: remove it (or use another output folder) "
                           "and run the same command again")


def open_folder(path: Path | str, *, create: bool = True) -> int:
    """A descriptor of the folder `path`, every component below its run directory opened without
    following a link (created when missing and `create`). The caller closes it."""
    folder = os.path.abspath(path)
    root = root_of(folder) or folder
    if create:
        os.makedirs(root, exist_ok=True)  # the folder the user named: followed like any path they give
    fd = os.open(root, _DIR_FLAGS)
    here = root
    for part in Path(os.path.relpath(folder, root)).parts if folder != root else ():
        here = os.path.join(here, part)
        try:
            child = _step(fd, part, here, create)
        finally:
            os.close(fd)
        fd = child
    return fd


@contextlib.contextmanager
def parent_folder(path: Path | str, *, create: bool = True) -> Iterator[int]:
    """`open_folder` of `path`'s folder for a `with` block: open the file itself with `dir_fd=` it."""
    fd = open_folder(os.path.dirname(os.path.abspath(path)), create=create)
    try:
        yield fd
    finally:
        os.close(fd)


def make_folders(path: Path | str) -> None:
    """`path.mkdir(parents=True, exist_ok=True)` that never creates anything through a link below a run directory."""
    os.close(open_folder(path))


def _step(parent: int, name: str, shown: str, create: bool) -> int:
    """Open `name` in the folder `parent` as a folder, never through a link (created first when `create`)."""
    if create:
        with contextlib.suppress(FileExistsError):  # mkdir never follows a link: one there makes it exist
            os.mkdir(name, 0o777, dir_fd=parent)
    try:
        return os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as err:
        if err.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        mode = os.lstat(name, dir_fd=parent).st_mode
        raise refuse_link(shown, "a symbolic link" if stat.S_ISLNK(mode) else "not a folder") from None
