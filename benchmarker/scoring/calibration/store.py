"""Where calibrations live, and the line a run's report shows about its judge's calibration.

`calibrate CONFIG` writes `<[run] output_dir>/calibration/<judge label>/calibration.json`
(`--out ROOT` puts it under `ROOT/<judge label>/` instead). The judge label is the one `score`
names its folders by: `deterministic`, `llm-<model>`, `official-<model>`, plus `-t<hash>` when
`[eval.thresholds]` differ from the defaults. A run in the same output_dir finds its judge's
calibration there (the judge and model its results were graded by, the thresholds it ran with),
and its report shows kappa, agreement, n and who labelled the answers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import Json, ResultLine
from benchmarker.scoring.grade import Grade

CALIBRATION_DIR = "calibration"
SUMMARY_FILE = "calibration.json"


def judge_label(judge_kind: str, model: str, thresholds: dict[str, Json] | None = None) -> str:
    """A judge's folder name: the judge (and a hash of the thresholds when they are not the defaults)."""
    from benchmarker.config_schema import ThresholdsConfig
    from benchmarker.scoring.judges import JUDGES

    judge = JUDGES.get(judge_kind)  # a suite's own grader (rubric, ...) names its model too
    name = judge_kind if judge is not None and not judge.needs_model else f"{judge_kind}-{model}"
    if thresholds is not None and thresholds != ThresholdsConfig().model_dump(mode="json"):
        digest = hashlib.sha256(json.dumps(thresholds, sort_keys=True).encode("utf-8")).hexdigest()[:8]
        name = f"{name}-t{digest}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")


def results_judge(results: Iterable[ResultLine]) -> tuple[str, str] | None:
    """(judge kind, model) that graded most of a run's answers; None when nothing was graded."""
    grades = [g for g in map(Grade.of_line, results) if g.judge and g.judge != "none"]
    if not grades:
        return None
    kind = Counter(g.judge for g in grades).most_common(1)[0][0]
    models = Counter(g.model or "" for g in grades if g.judge == kind)
    return kind, models.most_common(1)[0][0]


class JudgeCalibration(TypedDict):
    """summary.json's `judge_calibration`: the run's judge's calibration, in the order its keys are written."""

    path: str
    judge: str
    n: Json
    kappa: Json
    kappa_ci95: Json
    agreement: Json
    labels_models: Json
    created_at: Json
    development_only: NotRequired[bool]   # every labels file was used in developing the judge
    held_out: NotRequired[bool]           # quoted over the held-out files only


def find_calibration(run_dir: Path, results: Sequence[ResultLine],
                     thresholds: dict[str, Json] | None) -> JudgeCalibration | None:
    """The run's judge's calibration (a short block for summary.json), or None when there is none."""
    judge = results_judge(results)
    if judge is None:
        return None
    label = judge_label(judge[0], judge[1], thresholds)
    path = Path(run_dir).parent / CALIBRATION_DIR / label / SUMMARY_FILE
    try:
        data = load_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("n"), int):
        return None
    # Labels the judge was developed on are a fit: quote the held-out files, or say there were none.
    fit, held = data.get("development_fit"), data.get("held_out")
    chosen = held if isinstance(fit, dict) and isinstance(held, dict) else fit if isinstance(fit, dict) else data
    block: JudgeCalibration = {
        "path": str(path), "judge": label, "n": chosen.get("n"), "kappa": chosen.get("kappa"),
        "kappa_ci95": chosen.get("kappa_ci95"), "agreement": chosen.get("agreement"),
        "labels_models": data.get("labels_models") or {}, "created_at": data.get("created_at")}
    if chosen is fit:
        block["development_only"] = True
    if chosen is held:
        block["held_out"] = True
    return block


def calibration_line(block: dict[str, Any] | None) -> str | None:
    """One report line: how far this judge agrees with published labels."""
    if not block:
        return None
    kappa = "n/a" if block.get("kappa") is None else f"{block['kappa']:.3f}"
    ci = block.get("kappa_ci95")
    if ci:
        kappa += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    agreement = "n/a" if block.get("agreement") is None else f"{100 * block['agreement']:.1f}%"
    models = ", ".join(f"{m or 'unknown'} ({n})" for m, n in (block.get("labels_models") or {}).items()) or "unknown"
    if block.get("development_only"):
        return (f"- judge development fit ({block['judge']}), not a calibration: every labels file it was measured on "
                f"was used in developing it; Cohen's kappa {kappa}, agreement {agreement} on {block['n']} answers "
                f"labelled by {models} (`{block['path']}`)")
    held = " held-out" if block.get("held_out") else ""
    return (f"- judge calibration ({block['judge']}): Cohen's kappa {kappa}, agreement {agreement} on "
            f"{block['n']}{held} answers labelled by {models} (`{block['path']}`)")
