"""The inputs that decide a run's results, fingerprinted so a resume can refuse to mix two runs.

A run directory is resumed by running the same command again. That is only honest while the
data, the prompts, the judge and the thresholds are the ones the run started with: otherwise
`results.jsonl` would silently keep answers and labels computed from the old inputs beside new
ones. `check_resume` compares the fingerprint a run's manifest recorded with today's and stops
(exit 2) naming every input that changed and how to start a new run instead.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from benchmarker.config_schema import EvalConfig
from benchmarker.errors import UserError
from benchmarker.log.lines import Json, Manifest, ManifestDataset, ManifestInputs


def _digest(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prompt_hashes(directory: Path) -> dict[str, str]:
    """sha256 of every prompt file under `directory`, by relative path (the judge's prompts included)."""
    if not directory.is_dir():
        return {}
    return {str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.rglob("*")) if path.is_file() and not path.name.startswith((".", "__"))
            and path.suffix not in (".py", ".pyc")}


def run_inputs(config_hash: str, eval_: EvalConfig, eval_model: str, *, dataset_sha256: str | None,
               dataset_description: str, judge_kind: str, prompts_dir: Path) -> ManifestInputs:
    """The fingerprint stored in `manifest.json` under "inputs" (hashes, so it stays small): `config_hash` is
    config.canonical_hash of the run's config, `eval_` its [eval] table, `eval_model` its [models].eval."""
    return {
        "config": config_hash,
        "dataset": dataset_sha256 or _digest(dataset_description),
        "prompts": prompt_hashes(prompts_dir),
        "judge": {"kind": judge_kind, "model": eval_model or None, "judge": eval_.judge,
                  "retries": eval_.judge_retries, "votes": eval_.votes},
        "thresholds": eval_.thresholds.model_dump(mode="json"),
    }


def _changed_values(name: str, old: dict[str, Json], new: dict[str, Json]) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [f"{name} {key}: {old.get(key, '(absent)')!r} -> {new.get(key, '(absent)')!r}"
            for key in keys if old.get(key) != new.get(key)]


def describe_changes(before: ManifestInputs, now: ManifestInputs, *, dataset_path: str | None) -> list[str]:
    """One line per input that differs between two fingerprints (inputs a manifest lacks are skipped)."""
    changes: list[str] = []
    if "dataset" in before and before["dataset"] != now["dataset"]:
        where = f" ({dataset_path})" if dataset_path else ""
        changes.append(f"the dataset{where} changed: sha256 {before['dataset'][:12]}... -> {now['dataset'][:12]}...")
    if "prompts" in before and before["prompts"] != now["prompts"]:
        old, new = before["prompts"], now["prompts"]
        names = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
        shown = ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")
        changes.append(f"{len(names)} prompt file(s) changed: {shown}")
    if "judge" in before and before["judge"] != now["judge"]:
        changes += _changed_values("judge", before["judge"], now["judge"])
    if "thresholds" in before and before["thresholds"] != now["thresholds"]:
        changes += _changed_values("[eval.thresholds]", before["thresholds"], now["thresholds"])
    if "config" in before and before["config"] != now["config"] and not changes:
        changes.append("result-relevant config keys changed (the run id is pinned by `run_id` in the config)")
    return changes


def check_resume(previous_manifest: Manifest | None, now: ManifestInputs, *, run_dir: Path,
                 config_path: str, dataset_path: str | None) -> None:
    """Stop before any work when the run directory holds results made from other inputs."""
    if not previous_manifest:
        return
    before = (previous_manifest.get("inputs") or ManifestInputs()).copy()
    sha256 = (previous_manifest.get("dataset") or ManifestDataset()).get("sha256")
    if "dataset" not in before and sha256:
        before["dataset"] = sha256  # manifests written before "inputs"
    changes = describe_changes(before, now, dataset_path=dataset_path)
    if not changes:
        return
    listed = "\n  ".join(changes)
    raise UserError(
        f"{run_dir} was started with other inputs, and resuming would mix results from both:\n  {listed}\n"
        f"To keep the earlier results, restore those inputs and run the same command again. To start a new "
        f"run, give it its own directory: set `run_id = \"<new name>\"` (or [run].output_dir) in {config_path}, "
        f"or move {run_dir} away. To re-judge the same answers with another judge or thresholds, use "
        f"`mycelian-longmemeval score {run_dir} CONFIG` (it writes beside the run, never over it).")
