"""Tampering with a bundle the way a person could: rewrite members (fixing bundle.json's hashes or not) or add
members a safe reader must refuse (links, `..` names, a huge declared size)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from collections.abc import Callable
from pathlib import Path

Edit = Callable[[bytes], bytes]


def members(bundle: Path) -> dict[str, bytes]:
    with tarfile.open(bundle, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]


def write(out: Path, files: dict[str, bytes], extra: list[tarfile.TarInfo] = ()) -> Path:  # type: ignore[assignment]
    with tarfile.open(out, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info)
    return out


def repack(bundle: Path, out: Path, edits: dict[str, Edit], *, fix_hashes: bool = True) -> Path:
    """A copy of `bundle` with each named member passed through its edit; bundle.json's hashes fixed up."""
    files = members(bundle)
    for name, edit in edits.items():
        files[name] = edit(files[name])
    if fix_hashes:
        meta = json.loads(files["bundle.json"])
        meta["files"] = {name: hashlib.sha256(files[name]).hexdigest() for name in meta["files"]}
        files["bundle.json"] = json.dumps(meta).encode()
    return write(out, files)


def json_edit(change: Callable[[dict], None]) -> Edit:
    def edit(data: bytes) -> bytes:
        value = json.loads(data)
        change(value)
        return json.dumps(value).encode()
    return edit


def lines_edit(change: Callable[[list[dict]], list[dict]]) -> Edit:
    def edit(data: bytes) -> bytes:
        rows = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        return "".join(json.dumps(r) + "\n" for r in change(rows)).encode()
    return edit
