"""Reading a result bundle in memory, never extracting it: every member is checked before its bytes are read.

A bundle is untrusted input (it came from someone else), so a member that is not a regular file (a symlink,
a hard link, a device), a name that is absolute or climbs out with `..`, a declared size over `MAX_MEMBER_BYTES`
or a running total over `MAX_TOTAL_BYTES` is refused from its tar header alone, before its data is read.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TypedDict

from benchmarker.errors import UserError
from benchmarker.log.lines import Json

BUNDLE_JSON = "bundle.json"
BUNDLE_SIG = "bundle.sig"
BUNDLE_VERSION = 1
MAX_MEMBER_BYTES = 2 * 2**30   # one member (a memory database is the largest expected)
MAX_TOTAL_BYTES = 8 * 2**30    # all members together
MAX_MEMBERS = 100_000
MAX_JSON_BYTES = 64 * 2**20    # bundle.json, summary.json, manifest.json
CHUNK = 2**20


class BundleDataset(TypedDict):
    name: str
    sha256: str | None
    question_ids: list[str]


class BundlePackage(TypedDict):
    name: str
    version: str
    git_commit: str | None


class BundleJudge(TypedDict):
    name: str | None
    model: str | None
    prompt_sha256: str | None   # the judge prompt file's (several templates: the hash of their {name: hash})


class BundleJson(TypedDict):
    """bundle.json as `export` writes it (docs/publishing.md); a bundle read back is checked, not trusted."""

    bundle_version: int
    run_id: str
    suite: str
    created_at: str
    files: dict[str, str]          # member name -> sha256
    dataset: BundleDataset
    config: dict[str, Json]        # the run's config, secrets masked
    package: BundlePackage
    judge: BundleJudge
    python: str
    packages: dict[str, str]


class UnsafeBundle(UserError):
    """The archive is unreadable, or a member is one that must never be read (link, `..`, oversize)."""

    exit_code = 2


@dataclass(frozen=True)
class BundleView:
    path: Path
    bundle: dict[str, Json]
    summary: dict[str, Json] | None
    manifest: dict[str, Json] | None
    hashes_ok: bool
    signed: bool
    problem: str | None


@dataclass
class Scan:
    """What one pass over the archive found: each file's sha256 and the bytes of the members asked for."""

    hashes: dict[str, str] = field(default_factory=dict)
    kept: dict[str, bytes] = field(default_factory=dict)


def member_name(info: tarfile.TarInfo, archive: Path) -> str:
    """The member's path inside the bundle (`./` stripped), or UnsafeBundle when it is not a safe regular file."""
    name = info.name[2:] if info.name.startswith("./") else info.name
    where = f"{archive}: member {info.name!r}"
    if info.issym() or info.islnk():
        raise UnsafeBundle(f"{where} is a link (to {info.linkname!r}); a bundle holds regular files only")
    if not (info.isfile() or info.isdir()):
        raise UnsafeBundle(f"{where} is a device, fifo or other special file; a bundle holds regular files only")
    path = PurePosixPath(name)
    if not name or "\\" in name or path.is_absolute() or ".." in path.parts or ":" in path.parts[0]:
        raise UnsafeBundle(f"{where} has an absolute or '..' name that would point outside the bundle")
    if info.size > MAX_MEMBER_BYTES or info.size < 0:
        raise UnsafeBundle(f"{where} declares {info.size} bytes, over the {MAX_MEMBER_BYTES} bytes a member may hold")
    return name


def scan(archive: Path, keep: Callable[[str], bool], max_kept: int = MAX_MEMBER_BYTES) -> Scan:
    """Hash every regular member and keep the bytes of those `keep` names (each at most `max_kept` bytes).

    Raises UnsafeBundle for an unreadable archive or an unsafe member (before reading its data), OSError on open."""
    found = Scan()
    total = 0
    try:
        with open(archive, "rb") as raw, tarfile.open(fileobj=raw, mode="r:gz") as tar:
            while (info := tar.next()) is not None:
                name = member_name(info, archive)
                if info.isdir():
                    continue
                total += info.size
                if total > MAX_TOTAL_BYTES or len(found.hashes) >= MAX_MEMBERS:
                    raise UnsafeBundle(f"{archive}: members add up to more than {MAX_TOTAL_BYTES} bytes or "
                                       f"{MAX_MEMBERS} files; refused before reading {name!r}")
                if name in found.hashes:
                    raise UnsafeBundle(f"{archive}: member {name!r} appears twice; which copy counts is ambiguous")
                wanted = keep(name)
                if wanted and info.size > max_kept:
                    raise UnsafeBundle(f"{archive}: member {name!r} declares {info.size} bytes, over the "
                                       f"{max_kept} bytes read for it")
                found.hashes[name], data = _read(tar, info, wanted)
                if wanted:
                    found.kept[name] = data
    except (tarfile.TarError, gzip.BadGzipFile, zlib.error, EOFError, ValueError) as exc:
        raise UnsafeBundle(f"{archive}: not a readable .tar.gz bundle ({exc})") from None
    return found


def _read(tar: tarfile.TarFile, info: tarfile.TarInfo, keep: bool) -> tuple[str, bytes]:
    stream = tar.extractfile(info)
    if stream is None:  # pragma: no cover - regular files always have a stream
        raise UnsafeBundle(f"member {info.name!r} has no data")
    digest, parts, seen = hashlib.sha256(), [], 0
    while chunk := stream.read(CHUNK):
        seen += len(chunk)
        if seen > info.size:  # pragma: no cover - tarfile never reads past the declared size
            raise UnsafeBundle(f"member {info.name!r} holds more than it declares")
        digest.update(chunk)
        if keep:
            parts.append(chunk)
    return digest.hexdigest(), b"".join(parts)


def read_member(path: Path, name: str, max_bytes: int) -> bytes:
    """One member's bytes (same limits as `read_bundle`); UnsafeBundle when it is missing, unsafe or too big."""
    found = scan(path, lambda member: member == name, max_kept=max_bytes)
    if name not in found.kept:
        raise UnsafeBundle(f"{path}: no member {name!r} in this bundle")
    return found.kept[name]


def parse_json(data: bytes, where: str) -> dict[str, Json]:
    """A JSON object from a member's bytes, or UnsafeBundle naming the member."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UnsafeBundle(f"{where} is not valid UTF-8 JSON ({exc})") from None
    if not isinstance(value, dict):
        raise UnsafeBundle(f"{where} is not a JSON object")
    return value


def hash_problem(bundle: dict[str, Json], hashes: dict[str, str]) -> str | None:
    """The first difference between bundle.json's `files` and the members actually present, or None."""
    listed = bundle.get("files")
    if not isinstance(listed, dict):
        return f"{BUNDLE_JSON} has no 'files' map"
    present = {name: digest for name, digest in hashes.items() if name not in (BUNDLE_JSON, BUNDLE_SIG)}
    for name in sorted(listed):
        if name not in present:
            return f"{name}: listed in {BUNDLE_JSON} but missing from the archive"
        if present[name] != listed[name]:
            return f"{name}: sha256 {present[name][:12]}... differs from {BUNDLE_JSON}'s {str(listed[name])[:12]}..."
    extra = sorted(set(present) - set(listed))
    return f"{extra[0]}: in the archive but not listed in {BUNDLE_JSON}" if extra else None


def read_bundle(path: Path) -> BundleView:
    """A bundle's bundle.json, summary and manifest, read in memory; never raises for a damaged bundle (`problem`
    says why, one line) except OSError when the file cannot be opened."""
    wanted = {BUNDLE_JSON, "summary.json", "manifest.json"}
    try:
        found = scan(path, wanted.__contains__, max_kept=MAX_JSON_BYTES)
        if BUNDLE_JSON not in found.kept:
            raise UnsafeBundle(f"{path}: no {BUNDLE_JSON} at the archive root; not a result bundle")
        bundle = parse_json(found.kept[BUNDLE_JSON], f"{path}: {BUNDLE_JSON}")
        summary, manifest = (parse_json(found.kept[name], f"{path}: {name}") if name in found.kept else None
                             for name in ("summary.json", "manifest.json"))
    except UnsafeBundle as exc:
        return BundleView(path, {}, None, None, hashes_ok=False, signed=False, problem=str(exc))
    problem = hash_problem(bundle, found.hashes)
    return BundleView(path, bundle, summary, manifest, hashes_ok=problem is None, signed=BUNDLE_SIG in found.hashes,
                      problem=problem)
