"""`make fuzz`'s "viewfiles" group (issue 42, item 4), run and judged: every changing or odd file and every bad
`view` flag it tries is handled cleanly (pages answer with their own lines, banners, one-line refusals)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.fuzz import view_attack
from bench.fuzz.outcome import Tally

pytestmark = pytest.mark.slow  # one offline run and ~25 served copies: ~35 s


def test_the_viewfiles_group_holds_everywhere(tmp_path: Path) -> None:
    tally = view_attack.run(tmp_path, Tally("viewfiles"), quick=True)
    assert tally.counts["clean"] == tally.tried, tally.examples
    expected = 2 + 4 + len(view_attack.ODD) + 2 + 2 + len(view_attack.PORTS) + 1 + len(view_attack.SUMMARIES) + 1
    assert tally.tried == expected
