"""The run directories, sweep points, judge calibrations and result bundles under the served folders.

A page names a run by its id (its folder's path under the served DIR, made URL- and file-name-safe); the
id is looked up here and never joined to a path, and every file is opened through `Folder.file`, which
refuses anything that resolves (a symlink, say) outside the served DIR. The walk follows no symlink and
goes MAX_DEPTH folders deep: DIR/run, DIR/run/points/<label>, DIR/run/scores/<judge>.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 3
RUN_FILES = ("manifest.json", "results.jsonl")
CALIBRATION_FILE = "calibration.json"
BUNDLE_SUFFIX = ".tar.gz"  # a result bundle (`export`) beside the run directories: the board reads it, unpacked never
# Folders inside a run that hold no run of their own (oracle/ holds the oracle reader's answers to this run's questions).
NOT_RUNS = frozenset({"oracle", "baselines", "memory-servers", "official", "plots", "data", "self_improve", "__pycache__"})
# A run's own pages live at <id>/questions/..., <id>/plots/... (and <id>/index.html in a bundle): a run inside
# it under one of these names gets "-run" added, so it neither hides its parent's pages nor overwrites one.
PAGE_NAMES = frozenset({"questions", "plots", "index.html"})
_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]")


def safe_name(name: str) -> str:
    """`name` if it is URL- and file-name-safe, else its safe characters plus a short hash (still unique)."""
    if name and not _UNSAFE.search(name) and name.strip(".") and len(name) <= 120:
        return name
    digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{_UNSAFE.sub('_', name)[:80]}-{digest}"


@dataclass(frozen=True)
class Folder:
    """One found folder: its id, where it is, and the served root it must stay inside."""

    id: str
    path: Path
    root: Path
    parent: str | None = None  # the run a sweep point or a re-judging (scores/<judge>) belongs to

    def file(self, *parts: str) -> Path | None:
        """A regular file of this folder, or None when absent or resolving outside the served root."""
        try:
            real = self.path.joinpath(*parts).resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        return real if real.is_relative_to(self.root) and real.is_file() else None

    def names(self, sub: str, suffix: str) -> list[str]:
        """The names of the files of subfolder `sub` ending in `suffix` that `file` would open."""
        try:
            entries = sorted(os.listdir(self.path / sub))
        except OSError:
            return []
        return [n for n in entries if n.endswith(suffix) and self.file(sub, n) is not None]

    @property
    def label(self) -> str:
        """What the folder is inside its run ("points/<label>", "scores/<judge>"), or its id."""
        return self.id[len(self.parent) + 1:] if self.parent else self.id


class Catalog:
    """The folders found under the served DIRs, walked again when older than `max_age` seconds."""

    def __init__(self, roots: list[Path], max_age: float = 2.0):
        self.roots = [Path(r).resolve() for r in roots]
        self.max_age = max_age
        self.runs: dict[str, Folder] = {}
        self.calibrations: dict[str, Folder] = {}
        self.bundles: dict[str, Folder] = {}  # Folder.path is the .tar.gz file itself
        self._walked = float("-inf")
        self._lock = threading.Lock()

    def refresh(self, force: bool = False) -> None:
        with self._lock:
            if not force and time.monotonic() - self._walked < self.max_age:
                return
            runs: dict[str, Folder] = {}
            calibrations: dict[str, Folder] = {}
            bundles: dict[str, Folder] = {}
            for root in self.roots:
                by_path: dict[Path, str] = {}
                for path, kind in _walk(root):
                    if kind == "bundle":
                        ident = _unique(_name(root, path, {}), bundles)
                        bundles[ident] = Folder(ident, path, root)
                        continue
                    ident = _unique(_name(root, path, by_path if kind == "run" else {}),
                                    runs if kind == "run" else calibrations)
                    if kind == "run":
                        parent = next((by_path[a] for a in path.parents if a in by_path), None)
                        by_path[path] = ident
                        runs[ident] = Folder(ident, path, root, parent)
                    else:
                        calibrations[ident] = Folder(ident, path, root)
            self.runs, self.calibrations, self.bundles = runs, calibrations, bundles
            self._walked = time.monotonic()

    def run(self, run_id: str) -> Folder | None:
        self.refresh()
        return self.runs.get(run_id)

    def calibration(self, ident: str) -> Folder | None:
        self.refresh()
        return self.calibrations.get(ident)

    def children(self, run: Folder, kind: str) -> list[Folder]:
        """The run's sweep points ("points") or re-judgings ("scores")."""
        return [f for f in self.runs.values() if f.parent == run.id and f.path.parent.name == kind]


def _name(root: Path, path: Path, runs: dict[Path, str]) -> str:
    """The folder's path under root (under its parent when root is itself a run), made safe, with "-run" added
    to a PAGE_NAMES folder right below a run."""
    base = root.parent if root in runs else root  # a run named on the command line keeps its name above its points
    parts = [safe_name(p) for p in path.relative_to(base).parts or (root.name,)]
    for above in (a for a in path.parents if a in runs):
        below = len(above.relative_to(base).parts)
        parts[below] += "-run" if parts[below] in PAGE_NAMES else ""
    return "/".join(parts)


def _unique(ident: str, taken: dict[str, Folder]) -> str:
    n, found = 2, ident
    while found in taken:
        found, n = f"{ident}-{n}", n + 1
    return found


def _is_file(entry: os.DirEntry[str]) -> bool:
    """Whether the entry is (or links to) a regular file; False for a symlink loop or a link that went away."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _walk(root: Path) -> list[tuple[Path, str]]:
    """(folder, "run" | "calibration") and (file, "bundle") under root, breadth first, without following symlinks;
    a bundle counts only outside a run directory, beside runs."""
    found: list[tuple[Path, str]] = []
    level = [root]
    for depth in range(MAX_DEPTH + 1):
        deeper: list[Path] = []
        for folder in level:
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            files = {e.name for e in entries if _is_file(e)}  # Folder.file still refuses one leading outside
            is_run = any(name in files for name in RUN_FILES)
            if is_run:
                found.append((folder, "run"))
            elif CALIBRATION_FILE in files:
                found.append((folder, "calibration"))
            if not is_run:
                found += [(Path(e.path), "bundle") for e in entries
                          if e.name.endswith(BUNDLE_SUFFIX) and e.is_file(follow_symlinks=False)]
            if depth < MAX_DEPTH:
                deeper += [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)
                           and not (is_run and e.name in NOT_RUNS) and not e.name.startswith(".")]
        level = deeper
    return found
