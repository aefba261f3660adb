"""What the runs table and a run page say about a run: its manifest and summary, read once per change."""

from __future__ import annotations

import codecs
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmarker.log.json_limits import JsonLimitError, load_json
from benchmarker.log.lines import Json
from benchmarker.reporting.summary_model import RunSummary, summary_error
from benchmarker.view.catalog import Catalog, Folder

RECALL_KEYS = ("turn.recall_any@10", "session.recall_any@5")
MAX_JSON_FILE_BYTES = 64 * 2**20  # a manifest or summary is a few kB; a calibration.json well under 1 MB
_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


class JsonFiles:
    """JSON objects read from disk, kept until the file's size or mtime changes; {} for a missing or bad file.

    A file that is there but is not a JSON object (a list, a string, a byte order mark, broken JSON, nested
    too deep or too big) is also {}, and `problem` says why, so the run it belongs to is shown with that
    line instead of as if the file were missing (or taking every page down: RecursionError was a 500)."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[tuple[int, int], dict[str, Json]]] = {}
        self._problems: dict[Path, str] = {}
        self._lock = threading.Lock()

    def problem(self, path: Path | None) -> str | None:
        """Why the last `read` of `path` gave {} for a file that is there."""
        with self._lock:
            return self._problems.get(path) if path is not None else None

    def read(self, path: Path | None) -> dict[str, Json]:
        if path is None:
            return {}
        try:
            st = os.stat(path)
        except OSError:
            return {}
        stamp = (st.st_size, st.st_mtime_ns)
        with self._lock:
            cached = self._cache.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        value, problem = _object(path, st.st_size)
        with self._lock:
            self._cache[path] = (stamp, value)
            if problem is None:
                self._problems.pop(path, None)
            else:
                self._problems[path] = f"{path}: not read: {problem}"
        return value


def _object(path: Path, size: int) -> tuple[dict[str, Json], str | None]:
    """The file's JSON object, or {} and why it is not one (None: unreadable now, as if missing)."""
    if size > MAX_JSON_FILE_BYTES:
        return {}, f"larger than {MAX_JSON_FILE_BYTES} bytes"
    try:
        data = path.read_bytes()
    except OSError:
        return {}, None
    if data.startswith(codecs.BOM_UTF8):
        return {}, "it starts with a byte order mark (BOM); save it as UTF-8 without one"
    try:
        value = load_json(data)
    except JsonLimitError as err:
        return {}, err.msg
    except ValueError as err:
        return {}, f"not valid JSON ({getattr(err, 'msg', err)})"
    if not isinstance(value, dict):
        return {}, f"not a JSON object (a JSON {_KINDS.get(type(value), type(value).__name__)})"
    return value, None


def get(data: Any, *keys: str) -> Any:
    """data[k1][k2]... or None where any level is missing or not a dict."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


@dataclass(frozen=True)
class RunInfo:
    """One row of the runs table (and the head of a run page)."""

    ref: Folder
    manifest: dict[str, Json]
    summary: RunSummary
    summary_error: str | None = None  # summary.json is not shaped as documented: the page says so, shows no figures

    @property
    def suite(self) -> str:
        return str(get(self.manifest, "dataset", "kind") or "")

    @property
    def started(self) -> str:
        return str(self.manifest.get("started_at") or "")

    @property
    def in_progress(self) -> bool:
        """A run whose manifest has no end time yet (a run without a manifest counts as finished)."""
        return bool(self.manifest) and not self.manifest.get("ended_at")

    @property
    def questions(self) -> Any:
        counts = self.summary.counts
        return (counts.questions if counts else None) or get(self.manifest, "dataset", "questions")

    @property
    def overall(self) -> dict[str, Any] | None:
        cell = self.summary.qa.overall if self.summary.qa else None
        return cell.as_dict() if cell is not None else None

    @property
    def recall(self) -> tuple[str, float] | None:
        metrics = (self.summary.retrieval.metrics if self.summary.retrieval else None) or {}
        for key in RECALL_KEYS:
            if isinstance(value := metrics.get(key), int | float):
                return key, float(value)
        return None

    @property
    def cost(self) -> float | None:
        usd = ((self.summary.cost.usd if self.summary.cost else None) or {}).get("total")
        return float(usd) if isinstance(usd, int | float) else None

    @property
    def models(self) -> dict[str, Json]:
        models = self.manifest.get("models")
        return models if isinstance(models, dict) else {}


def run_info(catalog: Catalog, ref: Folder, files: JsonFiles) -> RunInfo:
    """A sweep point or re-judging has no manifest of its own: its run's stands for it."""
    manifest = files.read(ref.file("manifest.json"))
    if not manifest and ref.parent and (parent := catalog.runs.get(ref.parent)):
        manifest = files.read(parent.file("manifest.json"))
    path = ref.file("summary.json")
    try:
        summary = files.read(path)
        if problem := files.problem(path) or files.problem(ref.file("manifest.json")):
            return RunInfo(ref, manifest, RunSummary(), problem)
        return RunInfo(ref, manifest, RunSummary.model_validate(summary))
    except ValidationError as err:  # one bad run must not take the runs table down with it
        return RunInfo(ref, manifest, RunSummary(), summary_error(path or "summary.json", err))
