"""`make fuzz`'s "plugins" group (issue 42, item 7), run and judged: whatever a suite plugin does at import
(exit, interrupt, raise, give the wrong thing, clash), a built-in kind's verb works, the plugin's kind is
one line naming its entry point, the unknown-kind message lists it, and a real Ctrl-C still interrupts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.fuzz.outcome import Tally
from bench.fuzz.plugin_attack import QUICK, run

pytestmark = pytest.mark.slow  # ~20 estimates in this process: ~10 s


def test_the_plugins_group_holds_in_quick_mode(tmp_path: Path) -> None:
    tally = run(tmp_path, Tally("plugins"), quick=True)
    verbs, control = 3, 2
    assert tally.tried == len(QUICK) * verbs + control
    assert tally.counts["ok"] == len(QUICK) + control, tally.examples   # every built-in estimate, and both Ctrl-Cs
    assert tally.counts["clean"] == len(QUICK) * 2, tally.examples       # every plugin kind and every listing
