"""`compare`'s types (reporting/compare_shapes.py) name exactly the keys compare_pair, the verdict and the per-type
table hold, so the run browser and the markdown read what is there."""

from __future__ import annotations

from typing import Any, NotRequired, get_origin, get_type_hints

from benchmarker.reporting import compare_shapes as shapes
from benchmarker.reporting.compare import compare_pair
from benchmarker.reporting.compare_verdict import adjust_verdicts


def keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)


def required(typed: Any) -> set[str]:
    """The keys a TypedDict always has (its string annotations hide NotRequired from __required_keys__ on 3.11)."""
    hints = get_type_hints(typed, include_extras=True)
    return {k for k in typed.__required_keys__ if get_origin(hints[k]) is not NotRequired}


def lines(labels: list[bool]) -> list[dict[str, Any]]:
    return [{"question_id": f"q{i}", "question_type": "ab"[i % 2], "label": label, "attribution": "reader"}
            for i, label in enumerate(labels)]


def test_a_pair_holds_the_keys_of_its_types() -> None:
    pair = compare_pair(lines([False] * 6 + [True] * 4), lines([True] * 10))
    assert set(pair) == keys(shapes.PairFigures)
    assert set(pair["share"]) == keys(shapes.ShareCounts) and set(pair["flips"]) == keys(shapes.Flips)
    assert set(pair["stages"]) == keys(shapes.StageMoves) and set(pair["retrieval"]) == keys(shapes.RetrievalPair)
    cell = pair["verdict"]["cell"]
    assert cell is not None and set(cell) == required(shapes.PairedCell)
    table = pair["by_type"]
    assert table is not None and set(table) == keys(shapes.Table)
    verdict = pair["verdict"] | {"baseline": "A", "run": "B"}
    adjust_verdicts([verdict])
    assert set(verdict) == keys(shapes.Verdict)
