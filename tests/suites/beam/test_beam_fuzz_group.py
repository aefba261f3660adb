"""`make fuzz`'s "beam" group (issue 42, item 6), run and judged: every hostile BEAM export is refused with one
line naming its row, and every valid one plans exactly the questions its cases hold."""

from __future__ import annotations

import json
from pathlib import Path

from bench import fuzz_service
from bench.fuzz.beam_attack import cases


def test_the_beam_group_refuses_every_hostile_export_and_loses_nothing(tmp_path: Path) -> None:
    out = tmp_path / "fuzz.json"
    assert fuzz_service.main(["--quick", "--groups", "beam", "--out", str(out)]) == 0
    (group,) = json.loads(out.read_text(encoding="utf-8"))["groups"]
    valid = sum(not expect for _, _, expect in cases(quick=True).values())
    assert group["group"] == "beam" and valid == 4
    assert group["tried"] == len(cases(quick=True)) and group["counts"]["ok"] == valid, group["examples"]
    assert group["counts"]["clean"] == group["tried"] - valid, group["examples"]
