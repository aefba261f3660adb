"""The fuzzer's harness groups (issue 26) in quick mode, run once and judged: tool mappings, the
outside-agent adapters, and score / replay / judge-online on damaged run directories.

Nothing may crash (a traceback or a hang), lose a record silently, or leak (a file outside the run
directory, a child process after close, a credential in an error).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.memory.test_fuzz_service import fuzz_report, group
from tests.once import built_once

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("fuzz_harness")]  # ~60 s on an idle 2-core machine: real runs, real agents, real servers

GROUPS = ("mappings", "adapters", "rundirs")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return built_once(__name__, lambda: fuzz_report(tmp_path_factory, GROUPS))


def assert_held(g: dict[str, Any]) -> None:
    assert g["short"]["crashed"] == 0, g["examples"]
    assert g["short"]["lost"] == 0, g["examples"]
    assert g["short"]["leaked"] == 0, g["examples"]
    assert g["counts"]["accepted"] == 0 and g["counts"]["wrong"] == 0 and g["counts"]["unclear"] == 0, g["examples"]


def test_every_harness_group_ran_with_its_controls(report):
    assert [g["group"] for g in report["groups"]] == list(GROUPS)
    assert all(g["tried"] == sum(g["counts"].values()) > 0 for g in report["groups"])
    assert group(report, "mappings")["counts"]["ok"] == 1  # the control run
    assert group(report, "rundirs")["counts"]["ok"] >= 3  # the undamaged copy, once per verb


def test_tool_mappings_are_refused_not_escaped_hung_or_flooded(report):
    assert_held(group(report, "mappings"))


def test_damaged_run_directories_get_one_error_line_or_lose_nothing(report):
    assert_held(group(report, "rundirs"))


def test_outside_agents_that_misbehave_cannot_misattribute_hang_flood_or_leak(report):
    assert_held(group(report, "adapters"))
