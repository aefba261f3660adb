"""The run manifest: enough to reproduce a run and to tell two runs apart."""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import benchmarker
from benchmarker.log.lines import Json, Manifest, ManifestAttempt, ManifestConfig, ManifestDataset, ManifestJudge


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def git_commit(start: Path | None = None) -> str | None:
    """The harness checkout's commit (with `-dirty` when it has local changes), if it is a git tree."""
    root = start or Path(benchmarker.__file__).resolve().parent.parent
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root, capture_output=True, text=True, timeout=5,
        ).stdout.strip()
        return f"{sha}-dirty" if dirty else sha
    except (OSError, subprocess.SubprocessError):
        return None


def package_versions() -> dict[str, str]:
    """Versions of the packages whose behaviour changes results."""
    from importlib.metadata import PackageNotFoundError, version

    names = ["langgraph", "langchain", "langchain-core", "langchain-mcp-adapters", "langchain-openai",
             "langchain-aws", "langchain-anthropic", "mcp", "sentence-transformers", "model2vec", "numpy"]
    found: dict[str, str] = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def build_manifest(*, config: ManifestConfig, config_path: str, config_sha256: str, run_id: str,
                   dataset: ManifestDataset, models: dict[str, Json], memory: dict[str, Json],
                   judge: ManifestJudge, previous: Manifest | None) -> Manifest:
    """A fresh manifest; on resume the first start time and earlier attempts are kept."""
    now = utc_now()
    attempts: list[ManifestAttempt] = list((previous or {}).get("attempts", []))
    attempts.append({"started_at": now, "git_commit": git_commit()})
    return {
        "schema_version": 1,
        "run_id": run_id,
        "status": "running",
        "started_at": (previous or {}).get("started_at", now),
        "ended_at": None,
        "attempts": attempts,
        "package_version": benchmarker.__version__,
        "git_commit": git_commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "config_path": config_path,
        "config_sha256": config_sha256,
        "config": config,
        "dataset": dataset,
        "models": models,
        "memory": memory,
        "judge": judge,
    }
