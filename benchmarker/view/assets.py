"""The stylesheet and script shipped in the package (no CDN: the pages work offline and from file://)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

MEDIA_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


@cache
def static_files() -> dict[str, bytes]:
    """Name -> bytes of every file in benchmarker/view/static (the only names /static/ serves)."""
    folder = files("benchmarker.view") / "static"
    return {f.name: f.read_bytes() for f in folder.iterdir() if f.is_file() and f.name.endswith(tuple(MEDIA_TYPES))}


def media_type(name: str) -> str:
    return MEDIA_TYPES.get(name[name.rfind("."):], "application/octet-stream")
