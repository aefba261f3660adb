"""Levels L1-L16: one seeded Case of material and questions per level, with its scoring.

    spec = build_level("L13", seed=7)
    spec.case                # Case(kind=LEVEL, case_id="level-L13-7")
    spec.tool_scenarios      # L13 only: ExpectedCall sequences per session
    spec.scoring             # rubric | tool_trace | forgetting | adversarial | decision

Score answers with benchmarker.suites.levels.scoring.score_level(spec, answers, decisions=...).
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarker.suites.levels.data.basic import level_1, level_2, level_3, level_4
from benchmarker.suites.levels.data.decision import level_16
from benchmarker.suites.levels.data.hygiene import level_14, level_15
from benchmarker.suites.levels.data.reasoning import level_5, level_6, level_7, level_8
from benchmarker.suites.levels.data.spec import ExpectedCall, LevelSpec, ToolScenario
from benchmarker.suites.levels.data.tools import level_13
from benchmarker.suites.levels.data.transfer import level_9, level_10, level_11, level_12

BUILDERS: dict[str, Callable[[int], LevelSpec]] = {
    "L1": level_1, "L2": level_2, "L3": level_3, "L4": level_4, "L5": level_5, "L6": level_6, "L7": level_7,
    "L8": level_8, "L9": level_9, "L10": level_10, "L11": level_11, "L12": level_12, "L13": level_13,
    "L14": level_14, "L15": level_15, "L16": level_16,
}
LEVEL_IDS = tuple(BUILDERS)


def normalize_level_id(level_id: str | int) -> str:
    """'L3', 'l3', '3' or 3 -> 'L3'; anything else is a ValueError naming the valid ids."""
    text = str(level_id).strip().upper()
    text = text if text.startswith("L") else f"L{text}"
    if text not in BUILDERS:
        raise ValueError(f"unknown level {level_id!r}; choose from {', '.join(LEVEL_IDS)}")
    return text


def build_level(level_id: str | int, seed: int, *, context_cadence: int | None = None) -> LevelSpec:
    """The level's material, questions and scoring for one seed (deterministic). L13's expected tool
    calls follow `context_cadence` (the cadence the agent was told); other levels ignore it."""
    level_id = normalize_level_id(level_id)
    if level_id == "L13" and context_cadence is not None:
        return level_13(int(seed), int(context_cadence))
    return BUILDERS[level_id](int(seed))


def build_levels(level_ids: list[str] | None = None, seed: int = 0) -> list[LevelSpec]:
    return [build_level(level_id, seed) for level_id in (level_ids or LEVEL_IDS)]


__all__ = ["build_level", "build_levels", "normalize_level_id", "LevelSpec", "ExpectedCall", "ToolScenario",
           "LEVEL_IDS", "BUILDERS"]
